"""Arithmetic frames: a clause that asks for a number becomes one calculator expression, with the
sentence its answer reads as.

A clause is read after normalize.numeric (numbers as digits, no money signs). First the frames,
each a phrasing family with its slots ("increase N by P%", "P% tip on N", "split N between K",
"cube root of N", "how many U1 in N U2"); then, for anything else, the clause read as spoken
arithmetic ("7 squared minus 5 cubed", "what is 15 times 15 minus 25"), which must turn into an
expression the calculator accepts. A number may be an earlier result ("half of that"): RESULT,
bound by rules._bind to the latest calculator step (or the thread's last result).
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import NamedTuple

from agentrt.core import wordforms
from agentrt.core.arithmetic import FUNCTIONS, PERCENT_OF, PERCENT_SIGN
from planner_svc.grammar import lexicon, normalize
from planner_svc.grammar.intent import RESULT_VALUE, RESULT_WORD, RESULTS_COUNT, RESULTS_JOINED, Intent

# The calculator's own limit on an expression; a longer one is not planned as arithmetic.
MAX_EXPRESSION_CHARS = 500
# Spoken operators shrink when normalized ("multiplied by" -> "*"): a clause longer than this
# cannot become an expression within MAX_EXPRESSION_CHARS.
MAX_SPOKEN_ARITHMETIC_CHARS = 5 * MAX_EXPRESSION_CHARS

_F = re.IGNORECASE
NUM = r"(?:-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?|RESULT)"
# Two or more numbers: "3, 9 and 12", "3 and 4", "3, 9, 12", "3 plus 9 plus 12".
NUM_LIST = rf"{NUM}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s+plus\s+|\s*\+\s*|\s+){NUM})+"
_PCT = r"\s*(?:%|percent|per cent|pct)"
_A = r"(?:(?:a|an|the)\s+)?"
_LIST_ITEM = re.compile(NUM)
_RESULT_WORD_HINTS = ("it", "that", "result", "answer", "value", "number")  # substrings of _RESULT_WORDS
_RESULT_WORDS = re.compile(r"\b(?:the|that|this)\s+(?:result|answer|value|number)\b|\bthat\b|\bit\b", _F)
_WHAT = (
    r"(?:(?:what(?:\s+is|\s+are|\s+would\s+be|\s+will\s+be)?|calculate|compute|work\s+out|find|give\s+me"
    r"|tell\s+me|how\s+much\s+is|how\s+much|how\s+(?:far|long|heavy|big|hot|cold|tall)\s+is|figure\s+out|get|make"
    r"|determine|solve|take)\s+)?(?:the\s+)?"
)
_ORDINAL_POWER = re.compile(rf"\bto\s+the\s+({'|'.join(lexicon.ORDINALS)})\b", _F)
_WHOLE = re.compile(r"\bhow\s+many\s+(?:full|whole|complete)\b", _F)
_AS_DECIMAL = re.compile(r"\s+(?:as\s+a\s+decimal|in\s+decimals?|as\s+a\s+number)$", _F)
_EQUALS_WHAT = re.compile(r"\s*=\s*\??\s*$")
_TRAILING_VERB = re.compile(r"^what\s+(?P<expr>.+?)\s+(?:is|equals|makes|comes\s+to|would\s+be)$", _F)
_DIGIT = re.compile(r"\d")
_OPERATION = re.compile(r"[+\-*/%(]")
_PLEASE = re.compile(r"\s*\b(?:please|kindly|for me)\b", _F)

_WORD_OPERATORS = [
    (re.compile(rf"\b(?:the\s+)?(?:square\s+root|sqrt)\s+(?:of\s+)?({NUM})", _F), r"sqrt(\1)"),
    (re.compile(rf"\b(?:the\s+)?cube\s+root\s+(?:of\s+)?({NUM})", _F), r"root(\1, 3)"),
    (re.compile(r"\bmultipl(?:ied|y)\s+(?:by|with)\b", _F), "*"),
    (re.compile(r"\btimes\b", _F), "*"),
    (re.compile(r"\bdivided\s+by\b", _F), "/"),
    (re.compile(r"\bover\b", _F), "/"),
    (re.compile(r"\bplus\b|\badded\s+to\b", _F), "+"),
    (re.compile(r"\bminus\b|\btake\s+away\b|\bnegative\b(?=\s*\d)", _F), "-"),
    (re.compile(r"\bsquared\b", _F), "** 2"),
    (re.compile(r"\bcubed\b", _F), "** 3"),
    (re.compile(r"\b(?:to\s+the\s+power\s+of|raised\s+to(?:\s+the\s+power\s+of)?)\b", _F), "**"),
    (re.compile(r"\bto\s+the\s+(?=\d+(?:st|nd|rd|th)?\b)", _F), "**"),
    (re.compile(r"(?<=\d)(?:st|nd|rd|th)\s+power\b|(?<=\d)(?:st|nd|rd|th)\b(?=\s*(?:$|[-+*/)]))", _F), ""),
    (re.compile(r"\bmod(?:ulo)?\b", _F), "%"),
    (re.compile(r"\s*\b(?:per\s*cent|percent|pct)\b", _F), "%"),
]
# What the calculator reads that the character check below should not: numbers in scientific
# notation, function names, and "of" after a percent sign ("20% of 150").
_SCIENTIFIC = re.compile(r"\d+(?:\.\d+)?[eE][+-]?\d+")
_FUNCTION_CALL = re.compile(rf"\b(?:{'|'.join(FUNCTIONS)})(?=\s*\()", _F)
_SPACED_PERCENT = re.compile(r"(?<=\d) %(?=\s*(?:of\b|$|[)+\-*/,]))", _F)
_EXPRESSION_CHARS = re.compile(r"(?:[\d\s.,+\-*/%()]|RESULT)+")
_CALC_VERB = re.compile(
    r"^(?:calculate|compute|evaluate|work out|solve|what(?:'s|s| is)|how much is|how much|make|tell me)\s+"
    r"(?:the\s+(?:value|result)\s+of\s+)?(?P<expr>.+)$",
    _F,
)

# (expression, answer[, (a second expression on RESULT, its answer)]), or None: the frame does not
# apply after all.
Built = tuple[str, ...] | tuple[str, str, tuple[str, str]] | None


def _numbers(text: str) -> list[str]:
    return _LIST_ITEM.findall(text)


def _spoken_list(numbers: list[str]) -> str:
    """3, 9 and 12"""
    return ", ".join(numbers[:-1]) + f" and {numbers[-1]}"


def _value(word: str = "value") -> str:
    return f"{{{{out.{word}}}}}"


def _sum(m: re.Match[str]) -> Built:
    numbers = _numbers(m.group("list"))
    return " + ".join(numbers), f"The total of {_spoken_list(numbers)} is {_value()}"


def _extreme(m: re.Match[str]) -> Built:
    """ "min of 4, 9, 2 and 7", "the largest of 3 and 8": the calculator's min or max."""
    numbers = _numbers(m.group("list"))
    least = m.group("which").lower() in ("min", "minimum", "smallest", "lowest", "least")
    word = "smallest" if least else "largest"
    return (
        f"{'min' if least else 'max'}({', '.join(numbers)})",
        f"The {word} of {_spoken_list(numbers)} is {_value()}",
    )


def _floor_or_ceiling(m: re.Match[str]) -> Built:
    """ "floor of 7.9", "the ceiling of 2.1": the whole number below or above."""
    below = m.group("f").lower() == "floor"
    return (
        f"{'floor' if below else 'ceil'}({m.group('n')})",
        f"The {m.group('f').lower()} of {m.group('n')} is {_value()}",
    )


def _average(m: re.Match[str]) -> Built:
    numbers = _numbers(m.group("list"))
    expr = f"({' + '.join(numbers)}) / {len(numbers)}"
    return expr, f"The average of {_spoken_list(numbers)} is {_value()}"


def _percent(m: re.Match[str]) -> Built:
    expr = f"{m.group('p')}% of {m.group('n')}"
    return expr, f"{expr} = {_value()}"


def _root(m: re.Match[str]) -> Built:
    return f"sqrt({m.group('n')})", f"The square root of {m.group('n')} is {_value()}"


def _nth_root(m: re.Match[str]) -> Built:
    word = (m.group("k") or "").lower()
    degree = (
        {"cube": 3, "cubic": 3}.get(word) or lexicon.ORDINALS.get(word) or int(re.sub(r"\D", "", word) or 0)
    )
    if degree < 2:
        return None
    name = "cube" if degree == 3 else _ordinal(degree)
    return f"root({m.group('n')}, {degree})", f"The {name} root of {m.group('n')} is {_value()}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _power(exponent: str | None = None, word: str = "") -> Callable[[re.Match[str]], Built]:
    def build(m: re.Match[str]) -> Built:
        power = exponent or m.group("e")
        said = word or f"to the power of {power}"
        return f"{m.group('n')} ** {power}", f"{m.group('n')} {said} is {_value()}"

    return build


def _absolute(m: re.Match[str]) -> Built:
    return f"abs({m.group('n')})", f"The absolute value of {m.group('n')} is {_value()}"


def _rounded(m: re.Match[str]) -> Built:
    digits = m.group("d")
    if digits is None:
        return f"round({m.group('n')})", f"{m.group('n')} rounded is {_value()}"
    places = "place" if digits == "1" else "places"
    expr = f"round({m.group('n')}, {digits})"
    return expr, f"{m.group('n')} rounded to {digits} decimal {places} is {_value()}"


_NEAREST = {"ten": 10, "hundred": 100, "thousand": 1000, "tenth": -1, "hundredth": -2, "thousandth": -3}


def _rounded_way(m: re.Match[str]) -> Built:
    """ "round 47.6 down": to the whole number below (floor) or above (ceil)."""
    n, way = m.group("n"), m.group("way").lower()
    return f"{'floor' if way == 'down' else 'ceil'}({n})", f"{n} rounded {way} is {_value()}"


def _round_nearest(m: re.Match[str]) -> Built:
    n, unit = m.group("n"), (m.group("u") or "").lower()
    if unit not in _NEAREST:
        return f"round({n})", f"{n} rounded to the nearest whole number is {_value()}"
    size = _NEAREST[unit]
    expr = f"round({n}, {-size})" if size < 0 else f"round({n} / {size}) * {size}"
    return expr, f"{n} rounded to the nearest {unit} is {_value()}"


def _rounded_expression(m: re.Match[str]) -> Built:
    inner = to_expression(_lead_stripped(m.group("expr")))
    if inner is None:
        return None
    digits = m.group("d") or m.groupdict().get("d2")
    expr = f"round({inner}, {digits})" if digits else f"round({inner})"
    return expr, f"{{{{out.expression}}}} = {_value()}"


def _scaled(word: str, factor: str, operator: str) -> Callable[[re.Match[str]], Built]:
    def build(m: re.Match[str]) -> Built:
        return f"{m.group('n')} {operator} {factor}", f"{word} {m.group('n')} is {_value()}"

    return build


_FRACTIONS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fifth": 5,
    "fifths": 5,
    "tenth": 10,
    "tenths": 10,
}


def _fraction(m: re.Match[str]) -> Built:
    count, part, n = m.group("k") or "1", m.group("f").lower(), m.group("n")
    denominator = _FRACTIONS[part]
    expr = f"{n} / {denominator}" if count == "1" else f"{n} * {count} / {denominator}"
    said = f"A {part}" if count == "1" else f"{count} {part}"
    return expr, f"{said} of {n} is {_value()}"


def _fraction_of(m: re.Match[str]) -> Built:
    a, b, n = m.group("a"), m.group("b"), m.group("n")
    return f"{n} * {a} / {b}", f"{a}/{b} of {n} is {_value()}"


def _round_result(m: re.Match[str]) -> Built:
    digits = m.group("d")
    return (f"round(RESULT, {digits})" if digits else "round(RESULT)"), f"{{{{out.expression}}}} = {_value()}"


def _round_result_way(m: re.Match[str]) -> Built:
    """ ", rounded down": the latest result to the whole number below (floor) or above (ceil)."""
    return (
        f"{'floor' if m.group('way').lower() == 'down' else 'ceil'}(RESULT)",
        f"{{{{out.expression}}}} = {_value()}",
    )


def _percent_of_result(operator: str) -> Callable[[re.Match[str]], Built]:
    """ "then add 5% tax": the latest result and that percent of it (`operator` "" when the
    match says which way: "up"/"down")."""

    def build(m: re.Match[str]) -> Built:
        sign = operator or ("+" if m.group("way").lower() == "up" else "-")
        if m.group("p") == "RESULT":
            return None
        return f"RESULT {sign} {m.group('p')}% of RESULT", f"{{{{out.expression}}}} = {_value()}"

    return build


def _increase(m: re.Match[str]) -> Built:
    n, p = m.group("n"), m.group("p")
    return f"{n} + {p}% of {n}", f"{n} increased by {p}% is {_value()}"


def _decrease(m: re.Match[str]) -> Built:
    n, p = m.group("n"), m.group("p")
    return f"{n} - {p}% of {n}", f"{n} decreased by {p}% is {_value()}"


def _discount(m: re.Match[str]) -> Built:
    n, p = m.group("n"), m.group("p")
    return f"{n} - {p}% of {n}", f"{n} with {p}% off is {_value()}"


def _what_percent(m: re.Match[str]) -> Built:
    a, b = m.group("a"), m.group("b")
    return f"{a} / {b} * 100", f"{a} is {_value()}% of {b}"


def _sizes(m: re.Match[str]) -> tuple[str, str] | None:
    """The sizes of the match's units u1 and u2 in their kind's base unit; None for two kinds."""
    (kind1, size1), (kind2, size2) = (lexicon.UNITS[m.group(u).lower()] for u in ("u1", "u2"))
    return (size1, size2) if kind1 == kind2 else None


def _what_percent_of_units(m: re.Match[str]) -> Built:
    """ "45 minutes is what percent of an hour": both in one unit first (of one kind only)."""
    if (sizes := _sizes(m)) is None:
        return None
    size1, size2 = sizes
    a, b = m.group("a"), m.group("b") or "1"
    whole = f"{b} {m.group('u2')}" if m.group("b") else f"1 {m.group('u2')}"
    return f"{a} * {size1} / ({b} * {size2}) * 100", f"{a} {m.group('u1')} is {_value()}% of {whole}"


def _scaled_in_unit(m: re.Match[str]) -> Built:
    """ "45 minutes times 4 in hours": 45 * 4 minutes, in hours (units of one kind only)."""
    if (sizes := _sizes(m)) is None:
        return None
    size1, size2 = sizes
    a, k, u1, u2 = m.group("a"), m.group("k"), m.group("u1"), m.group("u2")
    operator = "/" if m.group("op").lower().startswith("divided") or m.group("op") == "/" else "*"
    return f"{a} {operator} {k} * {size1} / {size2}", f"{a} {u1} {operator} {k} is {_value()} {u2}"


def _percent_change(m: re.Match[str]) -> Built:
    a, b = m.group("a"), m.group("b")
    return f"({b} - {a}) / {a} * 100", f"From {a} to {b} is a change of {_value()}%"


def _tip(m: re.Match[str]) -> Built:
    n, p = m.group("n"), m.group("p")
    return f"{p}% of {n}", f"{_a(p).capitalize()} {p}% tip on {n} is {_value()}"


def _a(number: str) -> str:
    """The article before a number as it is read: "an 18% tip", "an 8% tip", "a 15% tip"."""
    digits = number.lstrip("-").split(".")[0]
    return (
        "an" if digits.startswith("8") or (len(digits) in (2, 5) and digits.startswith(("11", "18"))) else "a"
    )


def _with_tip(m: re.Match[str]) -> Built:
    return _tip_and_total(m.group("n"), m.group("p"))


def _tip_and_total(n: str, p: str) -> Built:
    """The tip, then the total: two steps, so the answer says both ("A 20% tip on 64 is 12.8. The
    total is 76.8.")."""
    return (
        f"{p}% of {n}",
        f"{_a(p).capitalize()} {p}% tip on {n} is {_value()}",
        (f"{n} + RESULT", f"The total is {_value()}"),
    )


def _split(m: re.Match[str]) -> Built:
    n, k = m.group("n"), m.group("k")
    if "p" in m.groupdict() and m.group("p"):
        p = m.group("p")
        return f"({n} + {p}% of {n}) / {k}", f"{n} with {_a(p)} {p}% tip, split {k} ways, is {_value()} each"
    return f"{n} / {k}", f"{n} split {k} ways is {_value()} each"


def _each(m: re.Match[str]) -> Built:
    k, n = m.group("k"), m.group("n")
    return f"{k} * {n}", f"{k} at {n} each is {_value()}"


def _goes_into(m: re.Match[str]) -> Built:
    a, b = m.group("a"), m.group("b")
    return f"{a} // {b}", f"{b} goes into {a} {_value()} whole times"


def _difference(m: re.Match[str]) -> Built:
    a, b = m.group("a"), m.group("b")
    return f"abs({a} - {b})", f"The difference between {a} and {b} is {_value()}"


def _product(m: re.Match[str]) -> Built:
    a, b = m.group("a"), m.group("b")
    return f"{a} * {b}", f"The product of {a} and {b} is {_value()}"


def _remainder(m: re.Match[str]) -> Built:
    a, b = m.group("a"), m.group("b")
    return f"{a} % {b}", f"The remainder of {a} divided by {b} is {_value()}"


def _range_sum(m: re.Match[str]) -> Built:
    a, b = m.group("a"), m.group("b")
    if not (a.lstrip("-").isdigit() and b.lstrip("-").isdigit()) or int(a) > int(b):
        return None  # "the numbers from 1.5 to 3" are not a whole-number range
    return f"({a} + {b}) * ({b} - {a} + 1) / 2", f"The sum of the whole numbers from {a} to {b} is {_value()}"


_UNIT = r"(?<![A-Za-z])" + lexicon.alternation(list(lexicon.UNITS)) + r"\b"
# "3.5 hours", "5 feet 10 inches", "a day".
_QUANTITY = (
    rf"(?:(?P<n>{NUM})\s*(?P<u1>{_UNIT})(?:\s+(?:and\s+)?(?P<n2>{NUM})\s*(?P<u2>{_UNIT}))?"
    rf"|(?:a|an|one|per|1)\s+(?P<u3>{_UNIT}))"
)
_TEMPERATURE = lexicon.alternation(list(lexicon.TEMPERATURES))
_ONE_UNIT = re.compile(rf"\b(?:a|an|one|per)\s+{_UNIT}", _F)


def _one_quantity(parts: list[tuple[str, str]]) -> bool:
    """Whether amounts in units are one quantity: each unit smaller than the one before ("5 feet 10
    inches", "2 hours 30 minutes"); "3 miles? and 6 miles?" are two questions, never one sum."""
    sizes = [Fraction(lexicon.UNITS[u][1]) for _, u in parts]
    return all(later < earlier for earlier, later in itertools.pairwise(sizes))


def _convert(m: re.Match[str]) -> Built:
    """N U1 [M U2] in U: exact, from each unit's size in its kind's base unit."""
    target = m.group("to").lower()
    if m.group("u3"):
        parts = [("1", m.group("u3").lower())]
    else:
        parts = [(m.group("n"), m.group("u1").lower())]
        if m.group("n2"):
            parts.append((m.group("n2"), m.group("u2").lower()))
    kinds = {lexicon.UNITS[u][0] for _, u in parts} | {lexicon.UNITS[target][0]}
    if len(kinds) != 1 or (len(parts) == 1 and parts[0][1] == target):
        return None  # minutes in kilograms, or metres in metres: not a conversion
    if not _one_quantity(parts):
        return None
    size = lexicon.UNITS[target][1]
    total = " + ".join(f"{n} * {lexicon.UNITS[u][1]}" if lexicon.UNITS[u][1] != "1" else n for n, u in parts)
    expr = f"({total}) / {size}" if size != "1" else total
    if len(parts) == 1 and size != "1":
        n, u = parts[0]
        ratio = Fraction(lexicon.UNITS[u][1]) / Fraction(size)
        if ratio.denominator == 1:
            expr = f"{n} * {ratio.numerator}"  # minutes in 3.5 hours: 3.5 * 60
    said = " ".join(f"{n} {u}" for n, u in parts)
    return expr, f"{said} is {_value()} {target}"


def _temperature(m: re.Match[str]) -> Built:
    n = m.group("n")
    source = lexicon.TEMPERATURES[" ".join(m.group("t1").lower().split())]
    target = lexicon.TEMPERATURES[" ".join(m.group("t2").lower().split())]
    if source == target:
        return None
    expr = f"({n} - 32) * 5 / 9" if source == "F" else f"{n} * 9 / 5 + 32"
    return expr, f"{n} °{source} is {_value()} °{target}"


def _implicit(operator: str, word: str) -> Callable[[re.Match[str]], Built]:
    """ "then multiply by 3": the number is the latest result (bound like "that")."""

    def build(m: re.Match[str]) -> Built:
        if m.group("n") == "RESULT":
            return None  # "what's 12 squared? add it": to the list, not to itself
        return f"RESULT {operator} {m.group('n')}", f"{{{{out.expression}}}} = {_value()}"

    return build


_FOR = r"(?:\s+(?:people|persons|ways|friends|guys|of\s+us|parts|shares|roommates|colleagues|pieces))?"
_BILL = r"(?:\s+(?:bill|check|tab|meal|dinner|lunch|order|total))?"
_ITEM = r"(?:[a-z]+\s+){0,3}"
_RATE = rf"(?P<p>{NUM}){_PCT}"
# What the number is, said before it: "salary 52000 plus a 4 percent raise", "my rent of 1200"
_LABEL = (
    r"(?:(?:(?:my|the|our)\s+)?(?:salary|rent|price|cost|bill|pay|wage|budget|total)\s+(?:is\s+|of\s+)?)?"
)

# Every phrasing with its expression and how its answer reads, tried in order.
_FRAMES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Built]]] = [
    (rf"{_WHAT}(?:sum|total)\s+of\s+(?P<list>{NUM_LIST})", _sum),
    # numbers under a label: "total of my grocery list: 4.50, 3.25 and 12", "a list of 5 numbers:
    # 3, 7, 8, 10, 12 - what's the average?"
    (
        rf"{_WHAT}(?:sum|total)\s+of\s+(?:my\s+|the\s+|this\s+)?(?:[a-z]+\s+){{0,2}}(?:list|bill|receipt|costs|prices)"
        rf"\s*:\s*(?P<list>{NUM_LIST})",
        _sum,
    ),
    (
        rf"(?:(?:a|the|my)\s+)?list\s+of\s+(?:\d+\s+)?numbers\s*:\s*(?P<list>{NUM_LIST})\s*[-,:]?\s*"
        rf"{_WHAT}(?:the\s+)?(?:average|mean)",
        _average,
    ),
    (rf"(?:add\s+up|sum\s+up|sum|total|add|total\s+up)\s+(?P<list>{NUM_LIST})", _sum),
    (rf"{_WHAT}(?:average|mean)\s+(?:of\s+)?(?P<list>{NUM_LIST})", _average),
    (rf"(?:average|mean)\s+(?P<list>{NUM_LIST})", _average),
    (
        rf"(?:my\s+|the\s+|our\s+)?{_ITEM}(?:are|were|was|is)\s+(?P<list>{NUM_LIST}),?\s+{_WHAT}"
        r"(?:my\s+|the\s+|their\s+|our\s+)?(?:average|mean)",
        _average,
    ),
    (
        rf"{_WHAT}(?:sum|total)\s+of\s+(?:(?:all\s+)?(?:the\s+)?(?:whole\s+)?(?:numbers|integers)\s+)?(?:from\s+|between\s+)?"
        rf"(?P<a>{NUM})\s+(?:to|and|through|thru)\s+(?P<b>{NUM})",
        _range_sum,
    ),
    # percentages of and changes by
    (rf"{_WHAT}(?P<p>{NUM}){_PCT}\s+(?:of|from)\s+(?P<n>{NUM})", _percent),
    (rf"{_WHAT}(?:increase|raise|grow|mark\s+up|inflate|up)\s+(?P<n>{NUM})\s+by\s+{_RATE}", _increase),
    (rf"{_WHAT}(?P<n>{NUM})\s+(?:increased|raised|marked\s+up|grown|up)\s+by\s+{_RATE}", _increase),
    (
        rf"{_WHAT}{_LABEL}(?P<n>{NUM})\s+(?:plus|\+|and)\s+(?:an?\s+)?(?:extra\s+|additional\s+|another\s+)?{_RATE}"
        r"(?:\s+(?:more|extra|on\s+top|(?:sales\s+)?tax|vat|gst|raise|(?:pay\s+)?rise|increase|markup))?",
        _increase,
    ),
    # "250 plus VAT at 20%", "80 with tax of 8%": the tax named first, its rate after
    (
        rf"{_WHAT}{_LABEL}(?P<n>{NUM})\s+(?:plus|\+|with|and)\s+(?:the\s+)?(?:(?:sales\s+)?tax|vat|gst)\s+(?:at|of|@)\s+"
        rf"{_RATE}",
        _increase,
    ),
    (rf"{_WHAT}{_RATE}\s+(?:more\s+than|on\s+top\s+of|added\s+to|increase\s+on)\s+(?P<n>{NUM})", _increase),
    (rf"add\s+{_RATE}\s+(?:to|on\s+top\s+of|onto)\s+(?P<n>{NUM})", _increase),
    # "plus 20% VAT on that", "add a 15% tip to it": a rate named by what it is, on a number
    (
        rf"(?:plus|add|with|put)\s+(?:an?\s+|the\s+)?{_RATE}\s+(?:(?:sales\s+)?tax|vat|gst|tip|service(?:\s+charge)?"
        rf"|markup|surcharge|interest)\s+(?:on|to|onto|on\s+top\s+of)\s+(?P<n>{NUM})",
        _increase,
    ),
    (rf"(?:take|knock)\s+{_RATE}\s+off\s+(?:of\s+)?{_A}(?P<n>{NUM})", _discount),
    (
        rf"{_WHAT}(?:decrease|reduce|lower|cut|drop|discount|knock\s+down|bring\s+down)\s+(?P<n>{NUM})\s+by\s+{_RATE}",
        _decrease,
    ),
    (rf"{_WHAT}(?P<n>{NUM})\s+(?:decreased|reduced|lowered|cut|discounted|down)\s+by\s+{_RATE}", _decrease),
    (rf"{_WHAT}(?P<n>{NUM})\s+(?:minus|less|-)\s+(?:an?\s+)?{_RATE}", _decrease),
    (rf"{_WHAT}(?P<n>{NUM})\s+(?:with|at|after|after\s+an?)\s+{_RATE}\s+(?:off|discount)", _discount),
    (rf"{_WHAT}{_RATE}\s+(?:off|discount\s+on|off\s+of)\s+{_A}(?P<n>{NUM}){_ITEM}?", _discount),
    (
        rf"{_A}(?P<n>{NUM})\s+{_ITEM}(?:is|at|with|on\s+sale\s+at|marked)\s+{_RATE}\s+off"
        r"(?:,?\s+(?:how\s+much\s+(?:do|will|would|should|did)\s+(?:i|we)\s+pay|how\s+much\s+is\s+it(?:\s+now)?"
        r"|what\s+is\s+the\s+(?:new\s+|sale\s+|final\s+)?price|what\s+do\s+i\s+pay|how\s+much\s+does\s+it\s+cost))?",
        _discount,
    ),
    (
        rf"what\s+(?:percent|percentage|%)\s+(?:is|of)\s+(?P<a>{NUM})\s+(?:is\s+)?(?:of|out\s+of|from)\s+(?P<b>{NUM})",
        _what_percent,
    ),
    (rf"what\s+(?:percent|percentage|%)\s+of\s+(?P<b>{NUM})\s+is\s+(?P<a>{NUM})", _what_percent),
    (rf"(?P<a>{NUM})\s+is\s+what\s+(?:percent|percentage|%)\s+of\s+(?P<b>{NUM})", _what_percent),
    (
        rf"(?P<a>{NUM})\s*(?P<u1>{_UNIT})\s+(?:is|are)\s+what\s+(?:percent|percentage|%)\s+of\s+"
        rf"(?:an?\s+|(?P<b>{NUM})\s*)(?P<u2>{_UNIT})",
        _what_percent_of_units,
    ),
    # "what's 45 minutes times 4 in hours": a quantity scaled, then given in another unit of its kind
    (
        rf"{_WHAT}(?P<a>{NUM})\s*(?P<u1>{_UNIT})\s+(?P<op>times|x|\*|multiplied\s+by|divided\s+by|/)\s+"
        rf"(?P<k>{NUM})\s+(?:in|into|as)\s+(?P<u2>{_UNIT})",
        _scaled_in_unit,
    ),
    # "what percentage of an hour is 45 minutes": the same, the whole said first
    (
        rf"what\s+(?:percent|percentage|%)\s+of\s+(?:an?\s+|(?P<b>{NUM})\s*)(?P<u2>{_UNIT})\s+(?:is|are)\s+"
        rf"(?P<a>{NUM})\s*(?P<u1>{_UNIT})",
        _what_percent_of_units,
    ),
    (
        rf"{_WHAT}(?P<a>{NUM})\s+(?:out\s+of|of)\s+(?P<b>{NUM})\s+(?:as\s+an?|as|in)\s+(?:percent|percentage)",
        _what_percent,
    ),
    (rf"{_WHAT}(?P<a>{NUM})\s+as\s+an?\s+(?:percent|percentage)\s+of\s+(?P<b>{NUM})", _what_percent),
    (
        rf"{_WHAT}(?:percent|percentage|%)\s+(?:change|increase|decrease|difference|growth|rise|drop|fall|gain"
        rf"|loss)\s+(?:from|between)\s+(?P<a>{NUM})\s+(?:to|and)\s+(?P<b>{NUM})",
        _percent_change,
    ),
    (
        rf"(?:my\s+|the\s+|our\s+|it\s+)?{_ITEM}(?:went|goes|grew|rose|fell|dropped|changed|increased|decreased"
        rf"|jumped|moved|climbed)\s+(?:up\s+|down\s+)?from\s+(?P<a>{NUM})\s+to\s+(?P<b>{NUM}),?\s+{_WHAT}"
        r"(?:percent|percentage|%)(?:\s+(?:change|increase|decrease|difference|growth|rise|drop|fall|gain|loss))?",
        _percent_change,
    ),
    # tips, bills and shares
    (rf"{_WHAT}(?:an?\s+)?{_RATE}\s+tip\s+(?:on|for|of)\s+{_A}(?P<n>{NUM}){_BILL}", _tip),
    (rf"{_WHAT}tip\s+(?:of\s+)?{_RATE}\s+(?:on|for)\s+{_A}(?P<n>{NUM}){_BILL}", _tip),
    (rf"{_WHAT}tip\s+(?:on|for)\s+{_A}(?P<n>{NUM}){_BILL}\s+at\s+{_RATE}", _tip),
    (
        rf"(?:how\s+much|what)\s+(?:should|do|would|must|shall)\s+(?:i|we)\s+(?:tip|leave)\s+(?:on|for)\s+{_A}(?P<n>{NUM})"
        rf"{_BILL}\s+(?:at|with|for|if\s+(?:i|we)\s+tip)\s+(?:an?\s+)?{_RATE}(?:\s+tip)?",
        _tip,
    ),
    (
        rf"{_WHAT}total\s+(?:with|including|incl|plus|after|and)\s+(?:an?\s+)?{_RATE}\s+tip\s+(?:on|for)\s+{_A}"
        rf"(?P<n>{NUM}){_BILL}",
        _with_tip,
    ),
    (
        rf"{_WHAT}(?P<n>{NUM}){_BILL}\s+(?:with|plus|and|including|\+)\s+(?:an?\s+)?{_RATE}\s+tip"
        rf"(?:,?\s+{_WHAT}total(?:\s+be)?)?",
        _with_tip,
    ),
    (
        rf"(?:the\s+|my\s+|our\s+)?(?:bill|check|meal|dinner|tab|total|lunch)\s+(?:is|was|came\s+to|comes\s+to)\s+"
        rf"(?P<n>{NUM}),?\s+(?:add|plus|with|and)\s+(?:an?\s+)?{_RATE}\s+tip,?\s+{_WHAT}total(?:\s+be|\s+come\s+to)?",
        _with_tip,
    ),
    (
        rf"split\s+{_A}(?P<n>{NUM}){_BILL}\s+(?:evenly\s+|equally\s+)?(?:between|among|amongst|by|with|across|into"
        rf"|for|in)\s+(?P<k>{NUM}){_FOR}(?:\s+evenly|\s+equally)?",
        _split,
    ),
    (rf"split\s+{_A}(?P<n>{NUM}){_BILL}\s+(?P<k>{NUM})\s+ways", _split),
    (
        rf"divide\s+{_A}(?P<n>{NUM}){_BILL}\s+(?:evenly\s+|equally\s+)?(?:between|among|amongst|into)\s+(?P<k>{NUM})"
        rf"{_FOR}(?:\s+evenly|\s+equally)?",
        _split,
    ),
    (
        rf"{_A}(?P<n>{NUM}){_BILL}\s+(?:split|shared|divided)\s+(?:evenly\s+|equally\s+)?(?:between|among|amongst|by"
        rf"|into|with)\s+(?P<k>{NUM}){_FOR}",
        _split,
    ),
    (
        rf"we\s+are\s+(?P<k>{NUM}){_FOR}\s+and\s+the\s+(?:bill|check|total|dinner|meal|tab)\s+(?:is|was|came\s+to)\s+"
        rf"(?P<n>{NUM}),?\s+how\s+much\s+(?:each|is\s+that\s+each|per\s+person|do\s+we\s+each\s+pay"
        r"|does\s+each\s+(?:of\s+us|person)\s+pay)",
        _split,
    ),
    (
        rf"(?:the\s+|my\s+|our\s+)?(?:bill|check|dinner|meal|total|lunch|tab)\s+(?:is|was|came\s+to)\s+(?P<n>{NUM})"
        rf"\s+(?:plus|with|and)\s+(?:an?\s+)?{_RATE}\s+tip,?\s+split\s+(?:evenly\s+|equally\s+)?(?:between|among)"
        rf"\s+(?P<k>{NUM}){_FOR}",
        _split,
    ),
    (
        rf"(?:i\s+|we\s+)?(?:bought|buy|got|ordered|need|purchased|get)?\s*(?P<k>{NUM})\s+{_ITEM}(?:at|for|@)\s+"
        rf"(?P<n>{NUM})\s+each(?:,?\s+{_WHAT}(?:total|cost|price))?",
        _each,
    ),
    # powers, roots, fractions
    (rf"{_WHAT}(?P<n>{NUM})\s+squared", _power("2", "squared")),
    (rf"{_WHAT}(?P<n>{NUM})\s+cubed", _power("3", "cubed")),
    (rf"{_WHAT}square\s+of\s+(?P<n>{NUM})", _power("2", "squared")),
    (rf"square\s+(?P<n>{NUM})", _power("2", "squared")),
    (rf"cube\s+(?P<n>{NUM})", _power("3", "cubed")),
    (rf"{_WHAT}cube\s+of\s+(?P<n>{NUM})", _power("3", "cubed")),
    (
        rf"{_WHAT}(?P<n>{NUM})\s+(?:to\s+the\s+power\s+of|to\s+the\s+power|raised\s+to(?:\s+the\s+power\s+of)?"
        rf"|raised\s+to\s+the|to\s+the|\^|\*\*)\s+(?P<e>{NUM})(?:st|nd|rd|th)?(?:\s+power)?",
        _power(),
    ),
    (rf"{_WHAT}(?:square\s+root|sqrt)\s+(?:of\s+)?(?P<n>{NUM})", _root),
    (
        rf"{_WHAT}(?P<k>cube|cubic|\d+(?:st|nd|rd|th)|{'|'.join(lexicon.ORDINALS)})\s+root\s+(?:of\s+)?(?P<n>{NUM})",
        _nth_root,
    ),
    (rf"{_WHAT}absolute\s+value\s+of\s+(?P<n>{NUM})", _absolute),
    (
        rf"{_WHAT}(?P<which>min|minimum|max|maximum|smallest|largest|biggest|lowest|highest|least|greatest)"
        rf"\s+(?:number\s+)?(?:of|in|among)\s+(?P<list>{NUM_LIST})",
        _extreme,
    ),
    (rf"{_WHAT}(?P<f>floor|ceiling|ceil)\s+of\s+(?P<n>{NUM})", _floor_or_ceiling),
    (rf"{_WHAT}(?:(?:a|an|1)\s+|(?P<k>\d+)\s+)(?P<f>{'|'.join(_FRACTIONS)})\s+of\s+(?P<n>{NUM})", _fraction),
    (rf"{_WHAT}(?P<a>\d+)\s*/\s*(?P<b>\d+)\s+of\s+(?P<n>{NUM})", _fraction_of),
    (rf"{_WHAT}half\s+(?:of\s+)?(?P<n>{NUM})", _scaled("Half of", "2", "/")),
    (rf"{_WHAT}halve\s+(?P<n>{NUM})", _scaled("Half of", "2", "/")),
    (rf"(?:{_WHAT}double|twice|double)\s+(?P<n>{NUM})", _scaled("Double", "2", "*")),
    (rf"{_WHAT}triple\s+(?P<n>{NUM})", _scaled("Triple", "3", "*")),
    (rf"{_WHAT}(?P<list>{NUM_LIST})\s+(?:added\s+(?:together|up)|summed(?:\s+up)?|together)", _sum),
    (
        rf"how\s+many\s+(?:whole\s+)?times\s+(?:does|will|can|would)\s+(?P<b>{NUM})\s+go\s+into\s+(?P<a>{NUM})",
        _goes_into,
    ),
    (rf"{_WHAT}difference\s+between\s+(?P<a>{NUM})\s+and\s+(?P<b>{NUM})", _difference),
    (rf"{_WHAT}product\s+of\s+(?P<a>{NUM})\s+and\s+(?P<b>{NUM})", _product),
    (
        rf"{_WHAT}remainder\s+(?:when|of|if|after)\s+(?P<a>{NUM})\s+(?:is\s+)?divided\s+by\s+(?P<b>{NUM})",
        _remainder,
    ),
    # rounding
    (rf"round\s+(?P<n>{NUM})\s+(?P<way>up|down)", _rounded_way),
    (rf"round\s+(?P<way>up|down)\s+(?P<n>{NUM})", _rounded_way),
    (
        rf"round\s+(?P<n>{NUM})(?:\s+(?:off\s+)?to\s+(?P<d>\d{{1,2}})\s+(?:decimal\s+)?(?:places?|decimals?|digits?|dp))?",
        _rounded,
    ),
    (
        rf"round\s+(?:off\s+)?(?P<n>{NUM})\s+(?:off\s+)?to\s+the\s+nearest\s+(?P<u>whole\s+number|integer|whole|unit"
        r"|one|number|dollar|ten|hundred|thousand|tenth|hundredth|thousandth)",
        _round_nearest,
    ),
    # "what's 1234 rounded to the nearest hundred"
    (
        rf"{_WHAT}(?P<n>{NUM})\s+(?:rounded|round(?:ed)?\s+off)\s+to\s+the\s+nearest\s+(?P<u>whole\s+number|integer"
        r"|whole|unit|one|number|dollar|ten|hundred|thousand|tenth|hundredth|thousandth)",
        _round_nearest,
    ),
    (r"(?P<expr>.+?)\s+to\s+(?P<d>\d{1,2})\s+(?:decimal\s+places?|decimals|dp)", _rounded_expression),
    (
        r"round\s+(?P<expr>.+?)\s+to\s+(?P<d>\d{1,2})\s+(?:decimal\s+places?|decimals?|places?|dp)",
        _rounded_expression,
    ),
    (
        r"(?P<expr>.+?),?\s+(?:(?:rounded|round(?:ed)?\s+off)(?:\s+to\s+(?:the\s+nearest\s+)?(?:(?P<d>\d{1,2})\s+"
        r"(?:decimal\s+)?(?:places?|decimals?|digits?|dp)|whole\s+number|integer))?"
        # "19.5 / 4 to the nearest whole number"
        r"|to\s+the\s+nearest\s+(?:whole\s+number|integer|whole|(?P<d2>\d{1,2})\s+decimal\s+places?))",
        _rounded_expression,
    ),
    # units
    (
        rf"how\s+many\s+(?P<to>{_UNIT})\s+(?:are\s+|there\s+are\s+)?(?:there\s+)?(?:in|is|are|make|makes|equal|equals|to|have|has"
        rf"|in\s+a|per)\s+{_QUANTITY}(?:\s+have)?",
        _convert,
    ),
    (rf"{_WHAT}(?:number\s+of\s+)?(?P<to>{_UNIT})\s+(?:in|per)\s+{_QUANTITY}", _convert),
    (
        rf"(?:convert\s+|change\s+)?{_QUANTITY}\s+(?:in|to|into|as|in\s+terms\s+of)\s+(?P<to>{_UNIT})",
        _convert,
    ),
    (rf"{_WHAT}{_QUANTITY}\s+(?:in|to|into|as)\s+(?P<to>{_UNIT})", _convert),
    (
        rf"(?:{_WHAT}|convert\s+|change\s+)?(?P<n>{NUM})\s*(?:degrees\s+|°\s*)?(?P<t1>{_TEMPERATURE})\s+(?:in|to|into|as)"
        rf"\s+(?:degrees\s+)?(?P<t2>{_TEMPERATURE})",
        _temperature,
    ),
    (
        rf"how\s+many\s+degrees\s+(?P<t2>{_TEMPERATURE})\s+(?:is|are)\s+(?P<n>{NUM})\s*(?:degrees\s+)?"
        rf"(?P<t1>{_TEMPERATURE})",
        _temperature,
    ),
    # an operation on the latest result: "then multiply by 3"
    (rf"(?:multiply|times)\s+(?:it\s+|that\s+|RESULT\s+)?by\s+(?P<n>{NUM})", _implicit("*", "times")),
    (rf"times\s+(?P<n>{NUM})", _implicit("*", "times")),  # "250 minus 37 then times 4"
    (rf"divide\s+(?:it\s+|that\s+|RESULT\s+)?by\s+(?P<n>{NUM})", _implicit("/", "divided by")),
    # "15 squared minus 25, divided by 10": what was done to it, said after it
    (rf"(?:all\s+)?(?:divided|split)\s+by\s+(?P<n>{NUM})", _implicit("/", "divided by")),
    (rf"(?:all\s+)?multiplied\s+by\s+(?P<n>{NUM})", _implicit("*", "times")),
    (rf"(?:subtract|take\s+away|minus)\s+(?P<n>{NUM})", _implicit("-", "minus")),
    (rf"(?:add|plus)\s+(?P<n>{NUM})", _implicit("+", "plus")),
    # a percent of the latest result: "then add 5% tax", "add a 20% tip to each share", "take 10%
    # off", "then down by 10%"
    (
        rf"(?:add|plus)\s+(?:an?\s+)?{_RATE}(?:\s+(?:tax|tip|vat|gst|sales\s+tax|service(?:\s+charge)?|markup"
        r"|interest|more|extra))?(?:\s+(?:to|on)\s+(?:each|every)(?:\s+(?:share|one|person|part|portion))?)?",
        _percent_of_result("+"),
    ),
    (
        rf"(?:take|knock|subtract|minus)\s+(?:off\s+)?(?:an?\s+)?{_RATE}(?:\s+off)?(?:\s+(?:discount|less))?",
        _percent_of_result("-"),
    ),
    (rf"(?:(?:goes|went|go)\s+)?(?P<way>up|down)\s+(?:by\s+)?{_RATE}", _percent_of_result("")),
    (r"(?:rounded|round(?:ed)?(?:\s+RESULT)?)\s+(?P<way>down|up)", _round_result_way),
    (
        r"(?:round|rounded)(?:\s+(?:it|that|RESULT|the\s+result))?(?:\s+off)?(?:\s+to\s+(?:the\s+nearest\s+)?(?P<d>\d{1,2})\s+(?:decimal\s+)?"
        r"(?:places?|decimals?|digits?|dp)|\s+to\s+(?:the\s+nearest\s+)?(?:whole\s+number|integer))?",
        _round_result,
    ),
]
_COMPILED = [(re.compile(rf"^(?:{pattern})$", _F), build) for pattern, build in _FRAMES]
_BINARY_WORDS = [
    (re.compile(rf"^(?:add|sum)\s+(?P<a>{NUM})\s+(?:and|to|plus|with)\s+(?P<b>{NUM})$", _F), "{a} + {b}"),
    (re.compile(rf"^(?:what is\s+)?the sum of\s+(?P<a>{NUM})\s+and\s+(?P<b>{NUM})$", _F), "{a} + {b}"),
    (re.compile(rf"^subtract\s+(?P<a>{NUM})\s+from\s+(?P<b>{NUM})$", _F), "{b} - {a}"),
    # "what's left if I take 30 from 100", "take away 30 from 100"
    (
        re.compile(
            rf"^(?:what\s+is\s+left\s+if\s+(?:i|you|we)\s+|how\s+much\s+is\s+left\s+if\s+(?:i|you|we)\s+)?"
            rf"(?:take|take\s+away|remove)\s+(?P<a>{NUM})\s+(?:away\s+)?from\s+(?P<b>{NUM})$",
            _F,
        ),
        "{b} - {a}",
    ),
    (re.compile(rf"^multiply\s+(?P<a>{NUM})\s+(?:by|and|with|times)\s+(?P<b>{NUM})$", _F), "{a} * {b}"),
    (re.compile(rf"^divide\s+(?P<a>{NUM})\s+(?:by|over)\s+(?P<b>{NUM})$", _F), "{a} / {b}"),
]


# "split the total among 5": the total of what came before. After a tip, that is the bill and
# the tip together (rules._expanded adds that step); after any other sum, the sum.
TOTAL_REFERENCE = "the total"
_SPLIT_TOTAL = re.compile(
    rf"^(?:and\s+|then\s+|now\s+)*(?:split|divide|share)\s+(?:the|that)\s+(?:total|whole\s+thing|lot|bill)\s+"
    rf"(?:between|among|amongst|by|into|for|with)\s+(?P<k>\d+){_FOR}$",
    _F,
)
_TIP_STEP = re.compile(r"^(?P<p>\d+(?:\.\d+)?)% of (?P<n>\d+(?:\.\d+)?)$")


def total_after(intent: Intent) -> Intent | None:
    """The bill plus the tip, after a tip step that did not add them ("tip 20% on 65. then split
    the total among 5": the total is 65 + 13); None after anything else."""
    expression = str(intent.arguments.get("expression", ""))
    if (
        intent.tool != "calculator"
        or intent.then is not None
        or not _STORY_WORDS["tip"].search(intent.clause)
    ):
        return None
    if (m := _TIP_STEP.match(expression)) is None:
        return None
    return calculation(intent.clause, f"{m.group('n')} + RESULT", "the tip", f"The total is {_value()}")


_AGAIN_FOR = re.compile(
    rf"^(?:(?:and|what\s+about|how\s+about|and\s+for|and\s+what\s+about)\s+)?(?P<n>{NUM})\s*(?P<u>{_UNIT})$",
    _F,
)


def again(asked: Intent, clause: str) -> Intent | None:
    """The conversion before, asked again of another amount ("how many km is 3 miles? and 6
    miles?"): the same question with the new amount, or None when `clause` is no such follow-up
    or the question before had not one amount in a unit of the same kind."""
    if asked.tool != "calculator" or asked.then is not None or not (m := _AGAIN_FOR.match(clause)):
        return None
    amounts = [u for u in _UNIT_MENTION.finditer(asked.clause) if u.group("n")]
    if len(amounts) != 1:
        return None
    (old,) = amounts
    if lexicon.UNITS[old.group("u").lower()][0] != lexicon.UNITS[m.group("u").lower()][0]:
        return None  # "how many km is 3 miles? and 6 kg?": not the same question
    said = f"{asked.clause[: old.start()]}{m.group('n')} {m.group('u')}{asked.clause[old.end() :]}"
    made = parse(said)
    return None if made is None or made.refers else replace(made, clause=clause)


# What a calculation's last words ask of its value: "1000 divided by 7 rounded down", "3/4 as a
# percent", "85 / 7, rounded to 2 decimal places".
_MODIFIER = re.compile(
    r"[\s,]+(?:and\s+)?(?:"
    r"(?:rounded|round(?:ed)?\s+off)\s+(?P<way>down|up)"
    r"|(?:rounded|round(?:ed)?\s+off)(?:\s+to\s+(?:the\s+nearest\s+(?:whole(?:\s+number)?|integer)|(?P<d>\d{1,2})\s+"
    r"(?:decimal\s+places?|decimals|dp)))?"
    r"|(?P<pct>as\s+an?\s+(?:percent|percentage)|in\s+(?:percent|percentages?)|as\s+%)"
    r")[\s.?!]*$",
    _F,
)


# "calculate 3*4 and 5*6, then add them up": every result before it, summed (or multiplied, or
# averaged). "add them" alone may put them on the list: only "up" or "together" sums.
_THEM = re.compile(
    r"(?:(?:and|then|and\s+then)\s+)?(?:"
    r"(?:add|sum|total)\s+(?:them|those|these|both|the\s+(?:two|results|answers))\s+(?:up|together)"
    r"|(?:sum|total)\s+(?:them|those|these|both)(?:\s+up)?"
    r"|(?P<mul>multiply)\s+(?:them|those|these|both)(?:\s+together)?"
    r"|(?P<avg>average)\s+(?:them|those|these|both)"
    r"|what(?:'s|\s+is|\s+are)\s+(?:their|both\s+of\s+their)\s+(?P<word>sum|total|product|average|mean)"
    r")[\s?.!]*",
    _F,
)


def _them(m: re.Match[str]) -> Intent:
    word = (m.group("word") or "").lower()
    if m.group("mul") or word == "product":
        return calculation(m.string, RESULTS_JOINED.format("*"), "them", "Their product is {{out.value}}")
    if m.group("avg") or word in ("average", "mean"):
        expr = f"({RESULTS_JOINED.format('+')}) / {RESULTS_COUNT}"
        return calculation(m.string, expr, "them", "Their average is {{out.value}}")
    return calculation(m.string, RESULTS_JOINED.format("+"), "them", "Together that is {{out.value}}")


def parse(clause: str) -> Intent | None:
    """The calculator step `clause` asks for, or None."""
    # Cheap refusals first: the planner tries every run of clauses, so most texts seen here are
    # not arithmetic, and the passes below would each scan them again.
    if len(clause) > MAX_SPOKEN_ARITHMETIC_CHARS:
        return None
    if m := _THEM.fullmatch(clause.strip()):
        return _them(m)
    # The last words first: read with the rest, "rounded down" is no decrease ("15% of 80 rounded
    # down" is not 80 - 15%), nor "rounded to 1 decimal place" a rounding of the first number
    if (m := _MODIFIER.search(clause)) and m.start() > 0 and (modified := _modified(clause, m)) is not None:
        return modified
    return _parse(clause)


def _modified(clause: str, m: re.Match[str]) -> Intent | None:
    """A calculation of its own with what its last words ask of the value, or None. Only a whole
    calculation of numbers said (no earlier result, nothing after it): the value it wraps is
    that calculation's and nothing else's."""
    inner = _parse(clause[: m.start()])
    if inner is None or inner.refers or inner.then is not None:
        return None
    expr = inner.arguments["expression"]
    if not _OPERATION.search(expr.lstrip("-")):
        return None  # "7 rounded down" is read by the rounding rules, or not at all
    if way := m.group("way"):
        wrapped, how = f"{'floor' if way.lower() == 'down' else 'ceil'}({expr})", f"rounded {way.lower()}"
    elif m.group("pct"):
        return calculation(clause, f"({expr}) * 100", "", f"{expr} as a percentage is {_value()}%")
    elif digits := m.group("d"):
        wrapped, how = f"round({expr}, {digits})", f"rounded to {digits} decimal places"
    else:
        wrapped, how = f"round({expr})", "rounded to a whole number"
    # (an answer that says what the value is, "200 km is {{out.value}} miles", reads the rounded one)
    # (never "15% of 85 = {{out.value}}": that says the value is the unrounded one's)
    said = (
        inner.answer
        if inner.answer and "{{out.expression}}" not in inner.answer and " = " not in inner.answer
        else ""
    )
    return calculation(clause, wrapped, "", said or f"{expr} {how} is {_value()}")


def _parse(clause: str) -> Intent | None:
    text = _AS_DECIMAL.sub("", _PLEASE.sub("", normalize.numeric(clause)).strip(" ,"))
    if (asked := _EQUALS_WHAT.sub("", text)) != text and asked:
        text = f"what is {asked}"  # "52000 + 4% = ?": what it comes to
    text = _ORDINAL_POWER.sub(
        lambda m: f"to the {lexicon.ORDINALS[m.group(1).lower()]}", text
    )  # "to the fifth"
    lowered = text.lower()
    if not (
        _DIGIT.search(text)
        or any(w in lowered for w in _RESULT_WORD_HINTS)
        or _ONE_UNIT.search(text)
        or lowered.startswith("round")  # ", rounded down": the latest result
    ):
        return None  # no number, no word that could refer to an earlier result, no "a day"
    if m := _SPLIT_TOTAL.match(text):  # "then split the total among 5 people": see TOTAL_REFERENCE
        k = m.group("k")
        return calculation(
            clause, f"RESULT / {k}", TOTAL_REFERENCE, f"Split {k} ways, that is {_value()} each"
        )
    refers = m.group() if (m := _RESULT_WORDS.search(text)) else ""
    said, text = text, _RESULT_WORDS.sub("RESULT", text)
    for pattern, build in _COMPILED:
        if (m := pattern.match(text)) and (built := build(m)) is not None:
            expr, answer, *then = built
            if "RESULT" in expr and not refers and "RESULT" not in text:
                refers = "the result"  # "then multiply by 3": the latest result, as if "it" was said
            expr = _whole(text, expr)
            made = calculation(clause, expr, refers, answer.replace("RESULT", RESULT_WORD))
            return replace(made, then=then[0]) if then else made
    for pattern, template in _BINARY_WORDS:
        if m := pattern.match(text):
            return calculation(clause, template.format(**m.groupdict()), refers)
    # A word problem's "that" and "it" are its own numbers ("what percent is that"), not a result;
    # and every part of it must belong to it ("... and email the result to Jo" does not).
    if all(part_of_a_story(p) or QUESTION_TAIL.match(p) for p in _PARTS.split(said) if p.strip()) and (
        told := story(said)
    ):
        made = calculation(clause, _whole(said, told[0]), "", told[1])
        return replace(made, then=told[2]) if len(told) > 2 else made
    spoken = _TRAILING_VERB.match(text)
    candidate = spoken.group("expr") if spoken else text
    m = _CALC_VERB.match(candidate)
    expr = to_expression(m.group("expr") if m else candidate)
    if expr is None or not _OPERATION.search(expr.lstrip("-")):
        return None  # a bare number is not a calculation ("how much is 100")
    return calculation(clause, expr.replace(f"({RESULT_VALUE})", "RESULT"), refers)


# --- word problems ----------------------------------------------------------------------------

_PEOPLE = (
    r"(?:people|persons|person|ways|friends|guys|of\s+us|of\s+them|kids|roommates|colleagues|coworkers|ppl"
    r"|children|grandchildren|grandkids|students|guests|nephews|nieces|siblings)"
)
_STORY_NUMBER = re.compile(
    # not an ordinal: "on the 4th" is no number of the story
    rf"(?P<n>-?\d+(?:\.\d+)?)(?!\d|\.\d|(?:st|nd|rd|th)\b)(?P<pct>\s*(?:%|percent\b|per\s+cent\b|pct\b))?(?P<people>\s+{_PEOPLE}\b)?",
    _F,
)
_STORY_WORDS = {
    "tip": re.compile(r"\btip(?:s|ping)?\b|\bgratuity\b", _F),
    # the price before a change, asked from the price after it ("costs 30 after 25% off: the
    # original price?")
    "original": re.compile(
        r"\b(?:original(?:ly)?|full\s+price|regular\s+price|(?:price|cost)\s+before|used\s+to\s+(?:cost|be))\b",
        _F,
    ),
    "discount": re.compile(r"\b(?:off|discount(?:ed)?|sale)\b", _F),
    "save": re.compile(r"\b(?:save|saving|savings|saved)\b", _F),
    "each": re.compile(r"\beach\b", _F),
    "pay": re.compile(r"\b(?:pay|paying|cost|costs)\b", _F),
    "area": re.compile(r"\b(?:square|area|sq)\b", _F),
    "split": re.compile(
        r"\b(?:split|splitting|divide|each|per\s+(?:person|head)|share|divided\s+(?:between|among|for)|among)\b",
        _F,
    ),
    "up": re.compile(
        r"\b(?:increase[sd]?|up|raise[sd]?|rise|rises|rose|grow|grows|grew|more|higher|markup|tax|vat|gst|gain|gained|profit)\b",
        _F,
    ),
    "down": re.compile(
        r"\b(?:decrease[sd]?|down|drop(?:s|ped)?|fall|falls|fell|reduce[sd]?|cut|less|lower|loss|lost|cheaper)\b",
        _F,
    ),
    "total": re.compile(
        r"\b(?:total|totla|altogether|all\s+together|in\s+all|all\s+in|including|with\s+(?:the\s+)?tip|pay\s+in\s+all"
        r"|come\s+to|comes\s+to|the\s+take|takings)\b",
        _F,
    ),
    "change": re.compile(
        r"\bfrom\s+(?P<a>-?\d+(?:\.\d+)?)(?:\s+[a-z]+)?\s+to\s+(?P<b>-?\d+(?:\.\d+)?)\b", _F
    ),
    "tax_amount": re.compile(
        r"\bhow\s+much\s+(?:is\s+(?:the\s+)?)?tax\b|\bwhat\s+is\s+the\s+tax\b|\btax\s+amount\b", _F
    ),
    "was_now": re.compile(
        r"\bwas\s+(?P<a>-?\d+(?:\.\d+)?)\b.*\bnow\s+(?:it\s+is\s+|is\s+|its\s+)?(?P<b>-?\d+(?:\.\d+)?)\b", _F
    ),
    "percent": re.compile(r"\bpercent(?:age)?\b|%", _F),
    "average": re.compile(r"\b(?:average|mean|avg)\b", _F),
    "out_of": re.compile(r"(?P<a>\d+(?:\.\d+)?)\s+out\s+of\s+(?P<b>\d+(?:\.\d+)?)", _F),
    "interest": re.compile(r"\binterest\b", _F),
    "compound": re.compile(r"\bcompound(?:ed|ing)?\b", _F),
    "years": re.compile(r"(?P<y>\d+)\s+years?\b", _F),
}
_EACH = re.compile(
    rf"(?<![\d.])(?:(?P<k>\d+)|\b(?P<one>a|an|one))\s+{_ITEM}(?:at|for|@)\s+(?P<p>\d+(?:\.\d+)?)(?:\s+each)?\b",
    _F,
)
# A word problem must not also be something else: a todo, or a number of things to compute.
_NOT_A_STORY = re.compile(
    # ("list price" is a price)
    r"\b(?:todo|task|list(?!\s+price)|remind|times|minus|divided\s+by|squared|root)\b"
    # "plus 3" is arithmetic; "plus a pen for 1.15", "plus 65 for the cake", "plus a 10% tip" are a story's
    r"|\bplus\b(?!\s+(?:an?\s+)?\d+(?:\.\d+)?\s*%)(?!\s+(?:an?|the|one)\s+[a-z])(?!\s+\d+(?:\.\d+)?\s+for\s+(?:the|a|an|my)\b)"
    r"|[*/+^]"
    # a name in quotes, or a request to add something: "... 45? add 'leave a tip of' the answer"
    r"|(?:^|\s)['\"](?=\w)|\b(?:add|note|jot|save|put|write|log|record|stick)(?:\s+down)?\s+(?:it|that|this"
    r"|the\s+(?:answer|result|total|amount|share|number))\b",
    _F,
)
_UNIT_MENTION = re.compile(rf"(?:(?P<n>-?\d+(?:\.\d+)?)\s*)?(?P<u>{_UNIT})", _F)
_TEMPERATURE_MENTION = re.compile(
    r"(?:(?P<n>-?\d+(?:\.\d+)?)\s*(?:degrees\s+|°\s*)?)?(?P<t>(?:degrees\s+)?(?:fahrenheit|celsius|centigrade)\b"
    r"|(?<=\d)\s*°?\s*[fc]\b|(?<=\d\s)[fc]\b|(?<=\bin\s)[fc]\b|(?<=\bto\s)[fc]\b|(?<=\binto\s)[fc]\b)",
    _F,
)


class _Slots(NamedTuple):
    """A word problem's text, its cue words, and its numbers by role."""

    text: str
    said: set[str]
    numbers: list[re.Match[str]]
    rates: list[str]
    heads: list[str]
    amounts: list[str]


def _told(text: str) -> _Slots:
    """The cue words and numbers of `text`, each number by what it says it is: a rate ("15%"), a
    head count ("4 people") or an amount (word_problem then reads heads said other ways)."""
    said = {word for word, pattern in _STORY_WORDS.items() if pattern.search(text)}
    numbers = list(_STORY_NUMBER.finditer(text))
    rates = [m.group("n") for m in numbers if m.group("pct")]
    heads = [m.group("n") for m in numbers if m.group("people") and not m.group("pct")]
    amounts = [m.group("n") for m in numbers if not m.group("pct") and not m.group("people")]
    return _Slots(text, said, numbers, rates, heads, amounts)


# What a reading of slots cannot honour: what is left of a budget, the price before a tax or a
# tip, a coupon's worth. A word problem with these is refused, not read as something near it.
_UNREAD = re.compile(
    r"\b(?:left|remaining|remain|remains|before|original|originally|coupon|voucher|budget|pre-?tax|change\s+back"
    r"|owe\s+me|profit\s+margin|interest\s+rate)\b",
    _F,
)
_HEADS_AFTER = re.compile(r"\b(?:between|among|amongst|into|by)\s+(?P<k>\d+)\b(?!\s*(?:%|percent))", _F)
_PER_UNIT = re.compile(r"(?P<price>\d+(?:\.\d+)?)\s*(?:\s(?:an?|per)\s+|/\s*)(?P<u>[a-z]+)\b", _F)
_AREA = re.compile(
    r"(?P<a>\d+(?:\.\d+)?)\s*(?P<u>m|cm|ft|feet|foot|metres?|meters?|in|inches|yards?)?\s+(?:by|x)\s+"
    r"(?P<b>\d+(?:\.\d+)?)\s*(?P=u)?\b",
    _F,
)


# "180 school days a year", "15 mg per kg": a rate whose number and unit have words between.
_RATE_WITH_WORDS = re.compile(
    r"(?P<price>\d+(?:\.\d+)?)\s*(?:[a-z]+\s+){1,2}(?:an?|per|every)\s+(?P<u>year|month|week|day|hour|minute"
    r"|night|shift|kg|kilo|kilogram|lb|pound|litre|liter|gallon|mile|km|person|head|kid|child|item|box|pack)s?\b",
    _F,
)
_PER_SLASH = re.compile(
    r"(\d)\s*/\s*(hr|hour|h|day|week|month|year|kg|lb|litre|liter|l|gallon|mile|km|item|person|head|night)\b",
    _F,
)


_DISTANCE_UNITS = {"km": "km", "kilometres": "km", "kilometers": "km", "miles": "miles", "mi": "miles"}
_SPEED = re.compile(
    r"\b(?P<d>\d+(?:\.\d+)?)\s*(?P<du>km|kilometres|kilometers|miles|mi)\s+in\s+(?P<t>\d+(?:\.\d+)?)\s*"
    r"(?P<tu>hours?|hrs?|h|minutes?|mins?)\b",
    _F,
)


def _speed(text: str) -> Built:
    """ "I drove 240 km in 3 hours, what's my average speed": the distance over the time, per hour."""
    if not re.search(r"\b(?:speed|how\s+fast|mph|km/h|kmh|kph)\b", text, _F):
        return None
    found = list(_SPEED.finditer(text))
    if len(found) != 1 or len(re.findall(r"\d+(?:\.\d+)?", text)) != 2:
        return None
    m = found[0]
    d, t, unit = m.group("d"), m.group("t"), _DISTANCE_UNITS[m.group("du").lower()]
    hours = t if m.group("tu").lower().startswith("h") else f"({t} / 60)"
    said = f"{d} {unit} in {t} {m.group('tu')}"
    return f"{d} / {hours}", f"{said} is an average speed of {_value()} {unit} per hour"


_SCORE_NEEDED = re.compile(
    r"\b(?:need|needs|get|score)\b.*\bto\s+(?:average|have\s+an\s+average\s+of|get\s+an\s+average\s+of)\s+"
    r"(?P<target>\d+(?:\.\d+)?)\s*[?.!]*$",
    _F,
)


def _score_needed(text: str) -> Built:
    """ "my scores are 78, 85 and 92, what do I need on the 4th to average 85": the one score
    more that makes the average the target, (target * (n + 1)) - the sum."""
    if not (m := _SCORE_NEEDED.search(text)):
        return None
    told = [n.group("n") for n in _STORY_NUMBER.finditer(text[: m.start()]) if not n.group("pct")]
    if len(told) < 2 or (
        re.search(r"\d(?:st|nd|rd|th)\b", text[: m.start()]) is None
        and re.search(r"\b(?:next|last|final|another|one\s+more)\b", text, _F) is None
    ):
        return None  # which test the score is for is not said: not read
    target = m.group("target")
    expr = f"{target} * {len(told) + 1} - ({' + '.join(told)})"
    return expr, f"To average {target} over {len(told) + 1}, the next one must be {_value()}"


def story(text: str) -> tuple[str, str] | None:
    """A word problem read by its slots: which numbers are percentages, which count people,
    which carry a unit, and which words say tip, discount, split, up, down, total or "from A to
    B". Each reading needs exactly the numbers it uses and no other ("a shirt costs $40 and is
    25% off": 40 - 25% of 40); anything else is not read as a story."""
    text = normalize.substituted(_PER_SLASH, r"\1 per \2", text)
    if (span := _time_span(text)) is not None or (span := _given_rate(text)) is not None:
        return span
    if (span := _over_a_period(text)) is not None:
        return span
    if (span := _speed(text)) is not None or (span := _score_needed(text)) is not None:
        return span
    if not _NOT_A_STORY.search(text) and (
        (packed := _packed(text)) is not None
        or (packed := _taxed_or_twice_off(text)) is not None
        or (packed := _what_is_left(text)) is not None
        or (packed := _part_percent(text)) is not None
        or (packed := _by_the_dozen(text)) is not None
        or (packed := _before_change(text)) is not None
    ):
        # before the words a story cannot honour: "left over", "before GST", "pre-tax" are read here
        return packed
    if _NOT_A_STORY.search(text) or (_UNREAD.search(text) and "percent" not in text.lower()):
        return None
    _, said, numbers, rates, heads, amounts = _told(text)
    if not heads and (we := _WE_ARE.search(text)) and we.group("k") in amounts:  # "we are 3 and ..."
        heads, amounts = [we.group("k")], [a for a in amounts if a != we.group("k")]
    if len(heads) == 1 and (plus := _ME_AND.search(text)) and plus.group("k") == heads[0]:
        heads = [str(int(plus.group("k")) + 1)]  # "me and 4 friends": five of us
    if "split" in said and not heads and (after := _HEADS_AFTER.search(text)) and after.group("k") in amounts:
        heads, amounts = (
            [after.group("k")],
            [a for a in amounts if a != after.group("k")] or amounts,
        )  # "split between 4"
    slots = _Slots(text, said, numbers, rates, heads, amounts)
    # A rate times its count (_paid) before a total of the numbers told (_bought): "180 days a
    # year for 38 years, in total?" multiplies.
    for read in (
        _area,
        _pack_price,
        _price_of_one,
        _years_between,
        _margin,
        _grouped,
        _count_priced,
        _rounded_story,
        _changed,
        _converted,
        _paid,
        _bought,
        _averaged,
        _share,
        _proportional,
        _per_unit_asked,
        _interest,
    ):
        if (found := read(slots)) is not None:
            return found if read in _UNIT_READINGS else _in_unit_asked(text, found)
    if len(amounts) != 1 or len(rates) > 1 or len(heads) > 1:
        return None
    return _in_unit_asked(text, _priced(text, said, amounts[0], rates, heads))


_UNIT_ASKED = re.compile(rf"\bhow\s+many\s+(?P<u>{_UNIT})|\bin\s+(?P<u2>{_UNIT})\s*\??$", _F)


def _in_unit_asked(text: str, found: Built) -> Built:
    """A sum or product of amounts in one unit, in the unit the question asks for ("3 tasks at 45
    min each, how many hours is that": 3 * 45 minutes, in hours); None when the amounts are in
    several units or another kind of unit than the one asked (never an answer in the wrong unit)."""
    asked = _UNIT_ASKED.search(text)
    if asked is None or found is None:
        return found
    target = (asked.group("u") or asked.group("u2")).lower()
    if re.search(rf"\b{re.escape(target)}\b", found[1], _F):
        return found  # the reading answered in that unit itself ("... for 2 weeks is N hours")
    units = {m.group("u").lower() for m in _UNIT_MENTION.finditer(text) if m.group("n")}
    sizes = {lexicon.UNITS[u] for u in units}
    if len(sizes) != 1:
        return None
    ((kind, size),) = sizes
    if kind != lexicon.UNITS[target][0]:
        return None
    expr, _answer, *then = found
    if size == lexicon.UNITS[target][1]:
        return found
    converted = f"({expr}) * {size} / {lexicon.UNITS[target][1]}"
    return (converted, f"That is {_value()} {target}", *then)


# "come in cartons of 12", "bags of 6", "vans that seat 12", "6-packs": a group of a size.
_GROUP_OF = re.compile(
    r"\b(?P<g>[a-z]{3,})\s+(?:of|(?:that\s+|which\s+|each\s+)?(?:seats?|holds?|fits?|takes?|carr(?:y|ies)))\s+(?P<m>\d+)\b(?!\s*%)"
    r"|(?<![\d.])(?P<m2>\d+)[\s-]?(?P<g2>packs?|seaters?)\b",
    _F,
)
# "how many 125 ml glasses can I pour from a 750 ml bottle": a size into a size.
_HOW_MANY_SIZED = re.compile(
    rf"\bhow\s+many\s+(?P<m>\d+(?:\.\d+)?)\s*(?P<u>{_UNIT})\s+[a-z]+\b.*\b(?:from|in|out\s+of|with)\s+"
    rf"(?:an?\s+|one\s+|the\s+|my\s+)?(?P<n>\d+(?:\.\d+)?)\s*(?P=u)\b",
    _F,
)
_ROUND_UP = re.compile(
    r"\b(?:need|needs|have\s+to|has\s+to|must|should\s+i|buy|order|get|rent|book|round(?:ed)?\s+up|enough)\b",
    _F,
)
_ONLY_FULL = re.compile(
    r"\b(?:full|fill|whole|complete|can\s+(?:i|we|you)\s+(?:make|pour|fill|get|cut))\b", _F
)
_HOW_MANY_GROUPS = re.compile(r"\bhow\s+many\s+(?:full\s+|whole\s+|complete\s+)?(?P<q>[a-z]+)\b", _F)
_LEFT_OVER = re.compile(r"\b(?:left\s*over|leftover|remain|remaining|spare)\b", _F)


def _packed(text: str) -> Built:
    """ "I need 50 eggs and they come in cartons of 12, how many cartons?" (ceil(50 / 12): a part
    group is bought whole), "how many full boxes of 12 can I fill with 100 eggs" (floor), "split
    50 cookies into bags of 6, how many are left over" (50 % 6). Two numbers: a group's size
    and a count; what is asked says which of the three, and nothing else is read."""
    numbers = [m for m in _STORY_NUMBER.finditer(text) if not m.group("pct")]
    if len(numbers) != 2 or not _HOW_MUCH.search(text):
        return None
    if (sized := _HOW_MANY_SIZED.search(text)) is not None:
        n, m = sized.group("n"), sized.group("m")
        return (
            f"floor({n} / {m})",
            f"{m} {sized.group('u')} goes into {n} {sized.group('u')} {_value()} whole times",
        )
    groups = list(_GROUP_OF.finditer(text))
    if len(groups) != 1:
        return None
    g = groups[0]
    size, noun = (g.group("m"), g.group("g")) if g.group("m") else (g.group("m2"), g.group("g2"))
    count = [m.group("n") for m in numbers if m.start() != g.start("m" if g.group("m") else "m2")]
    if len(count) != 1 or "." in size or float(size) <= 0:
        return None
    n, noun = count[0], _singular(noun)
    asked = _HOW_MANY_GROUPS.search(text)
    if _LEFT_OVER.search(text):
        return f"{n} % {size}", f"{n} in groups of {size} leaves {_value()} over"
    if asked is None or _singular(asked.group("q")) != noun:
        return None  # "how many" asks about something else than the groups
    if _ONLY_FULL.search(text):
        return f"floor({n} / {size})", f"{n} fills {_value()} full {noun}s of {size}"
    if _ROUND_UP.search(text):
        return f"ceil({n} / {size})", f"{n} needs {_value()} {noun}s of {size}"
    return None


# "convert 100 dollars to euros, the rate is 0.92 euros per dollar": a conversion whose rate is
# told (a live rate is never assumed: without one, it is out of scope).
# (numeric() has dropped a currency's name after its number: "100 dollars" reads "100")
_CONVERT_TO = re.compile(
    r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s*(?:(?P<a>[a-z]+)\s+)?(?:to|in|into)\s+(?P<b>[a-z]+)\b", _F
)
_RATE_TOLD = re.compile(
    r"\brate\s+(?:is|of|=|at|being)\s+(?P<r>\d+(?:\.\d+)?)\s*(?:(?P<rb>[a-z]+)\s+)?"
    r"(?:per|for\s+(?:a|an|one|1|each)|to\s+(?:the|a|an|one|1)|a|an)\s+(?P<ra>[a-z]+)\b",
    _F,
)


# "saving 150 a month, how much is that over a year?": so much each period, asked over a longer
# one of a fixed number of them (a month of days or weeks is not one number: not read).
_EACH_PERIOD = re.compile(
    r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:a|an|per|each|every)\s+(?P<p>day|week|month)\b", _F
)
_OVER_PERIOD = re.compile(
    r"\bhow\s+(?:much|many)\b.*\b(?:over|in|for|per|a|each)\s+(?:a\s+|one\s+|the\s+|1\s+)?(?:whole\s+|full\s+)?"
    r"(?P<p>week|year)\s*\??$",
    _F,
)
_PERIODS_IN = {("day", "week"): 7, ("day", "year"): 365, ("week", "year"): 52, ("month", "year"): 12}


def _over_a_period(text: str) -> Built:
    each, over = _EACH_PERIOD.search(text), _OVER_PERIOD.search(text)
    if each is None or over is None or len(_STORY_NUMBER.findall(text)) != 1 or each.start() > over.start():
        return None
    times = _PERIODS_IN.get((each.group("p").lower(), over.group("p").lower()))
    if times is None:
        return None
    n = each.group("n")
    return f"{n} * {times}", f"{n} a {each.group('p').lower()} is {_value()} a {over.group('p').lower()}"


def _given_rate(text: str) -> Built:
    conv, rate = _CONVERT_TO.search(text), _RATE_TOLD.search(text)
    if conv is None or rate is None or len(_STORY_NUMBER.findall(text)) != 2:
        return None
    n, r = conv.group("n"), rate.group("r")
    a, b = _singular(conv.group("a") or ""), _singular(conv.group("b"))
    ra, rb = _singular(rate.group("ra")), _singular(rate.group("rb") or "")
    if a in ("", ra) and rb in ("", b) and b != ra:  # 100 (dollars) to euros at 0.92 (euros) per dollar
        return f"{n} * {r}", f"{n} at {r} per {ra} is {_value()} {conv.group('b')}"
    if b == ra and a in ("", rb) and rb not in ("", ra):  # 92 (euros) to dollars at 0.92 euros per dollar
        return f"{n} / {r}", f"{n} at {r} per {ra} is {_value()} {conv.group('b')}"
    return None


# "7p to 7:30a", "from 8:15am until 3:45pm": two clock times, each with its half of the day.
_CLOCK_SPAN = re.compile(
    r"(?<![\d:.])(?P<h1>\d{1,2})(?::(?P<m1>\d\d))?\s*(?P<p1>[ap])\.?m?\.?(?![a-z])\s*(?:to|until|till|til|-|and)\s*"
    r"(?P<h2>\d{1,2})(?::(?P<m2>\d\d))?\s*(?P<p2>[ap])\.?m?\.?(?![a-z])",
    _F,
)
_HOURS_ASKED = re.compile(r"\bhow\s+(?:many\s+(?:hours|hrs|hr|minutes|mins)|long)\b", _F)


def _time_span(text: str) -> Built:
    """ "shift is 7p to 7:30a, how many hours is that" (12.5: past midnight, the next day), "how
    many hrs do i sleep if i sleep 8:15am to 3:45pm" (7.5). Both times say am or pm: "7 to 7:30"
    could be either, so it is not read."""
    spans = list(_CLOCK_SPAN.finditer(text))
    if len(spans) != 1 or not (asked := _HOURS_ASKED.search(text)):
        return None
    m = spans[0]
    if len(_STORY_NUMBER.findall(text)) != sum(1 for g in ("h1", "m1", "h2", "m2") if m.group(g)):
        return None  # another number in the story: not only a span
    minutes = []
    for h, mm, p in (("h1", "m1", "p1"), ("h2", "m2", "p2")):
        hour, minute = int(m.group(h)), int(m.group(mm) or 0)
        if not 1 <= hour <= 12 or minute > 59:
            return None
        minutes.append((hour % 12 + (12 if m.group(p).lower() == "p" else 0)) * 60 + minute)
    start, end = minutes
    if end <= start:
        end += 24 * 60  # "7pm to 7:30am" ends the next day
    said = m.group().strip()
    if "minute" in asked.group().lower() or "min" in asked.group().lower():
        return f"{end} - {start}", f"{said} is {_value()} minutes"
    return f"({end} - {start}) / 60", f"{said} is {_value()} hours"


_TAX = re.compile(r"\b(?:tax|gst|vat|sales\s+tax)\b", _F)
# The amount said with its tax in ("2360 including 18% GST") or without ("36 before tax"), and
# then what is asked: the other one.
_TAX_IN = re.compile(
    r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s+(?:including|incl|inclusive\s+of|with)\s+(?:(?:the\s+)?\d+(?:\.\d+)?\s*%\s+)?"
    r"(?:sales\s+)?(?:tax|gst|vat)\b.*\b(?:before|without|excluding|excl|pre-?tax)\b",
    _F,
)
_TAX_OUT = re.compile(
    r"(?:(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s+(?:before|without|excluding|excl|pre-?)\s*(?:sales\s+)?(?:tax|gst|vat)\b"
    r"|\b(?:before|without|excluding|excl|pre-?)\s*(?:sales\s+)?(?:tax|gst|vat)\s+(?:is|was|=|of)\s+(?P<n2>\d+(?:\.\d+)?)\b)"
    r".*\b(?:with|including|incl|after|total)\b",
    _F,
)
_OFF = re.compile(r"%\s*off\b|\boff\b", _F)
_AGAIN = re.compile(r"\b(?:extra|another|additional|further|then)\b", _F)


def _taxed_or_twice_off(text: str) -> Built:
    """ "2360 including 18% GST, the amount before GST" (2360 / (1 + 18 / 100)); "150, 20% off
    and then an extra 10% off the sale price" (each off the price before it); "84, add 8% tax and
    a 20% tip on the pre-tax amount" (both on 84). One amount; what is asked decides the reading,
    and a tip whose base is not said is not read."""
    numbers = list(_STORY_NUMBER.finditer(text))
    rates = [m.group("n") for m in numbers if m.group("pct")]
    amounts = [m.group("n") for m in numbers if not m.group("pct")]
    if len(amounts) != 1:
        return None
    n = amounts[0]
    plain = not (_STORY_WORDS["tip"].search(text) or _STORY_WORDS["discount"].search(text))
    if len(rates) == 1 and plain and (m := _TAX_IN.search(text)) and m.group("n") == n:
        p = rates[0]
        return f"{n} / (1 + {p} / 100)", f"{n} including {p}% is {_value()} before it"
    if len(rates) == 1 and plain and (m := _TAX_OUT.search(text)) and (m.group("n") or m.group("n2")) == n:
        p = rates[0]
        return f"{n} + {p}% of {n}", f"{n} with {p}% added is {_value()}"
    if len(rates) != 2:
        return None
    p1, p2 = rates
    if len(_OFF.findall(text)) == 2 and _AGAIN.search(text) and not _TAX.search(text):
        return (
            f"{n} * (1 - {p1} / 100) * (1 - {p2} / 100)",
            f"{n} with {p1}% off and then {p2}% off is {_value()}",
        )
    tip = _STORY_WORDS["tip"].search(text)
    if tip and _TAX.search(text) and re.search(r"\bpre-?tax\b|\bbefore\s+(?:the\s+)?tax\b", text, _F):
        return f"{n} + {p1}% of {n} + {p2}% of {n}", f"{n} with {p1}% and {p2}% on it is {_value()}"
    return None


# "a 12 pack of beer is $18, how much per can?": the price of a pack, for one of it.
_PACK = re.compile(r"(?<![\d.])(?P<m>\d+)[\s-]?(?:pack|packs|pk|box|case|carton|bag)\b", _F)
_PER_ONE = re.compile(
    r"\bhow\s+much\s+(?:is\s+(?:that\s+|it\s+)?)?(?:per|for\s+(?:one|each|a\s+single)|a|an|each)\s*(?P<w>[a-z]*)",
    _F,
)


# "paid 48 for 3 pizzas, how much each": a total for a count of things, and the price of one.
_TOTAL_FOR = re.compile(r"(?<![\d.])(?P<p>\d+(?:\.\d+)?)\s+for\s+(?P<k>\d+)\s+(?P<w>[a-z]+)\b(?!\s+each)", _F)
_ONE_OF_THEM = re.compile(
    r"\bhow\s+much\s+(?:is\s+(?:that\s+|it\s+)?)?(?:each|per\s+[a-z]+|a\s+[a-z]+)(?:\s+one)?\b", _F
)


def _price_of_one(slots: _Slots) -> Built:
    told, asked = _TOTAL_FOR.search(slots.text), _ONE_OF_THEM.search(slots.text)
    if told is None or asked is None or slots.rates or slots.heads or len(slots.numbers) != 2:
        return None
    if "." in told.group("k") or re.search(r"\b(?:people|persons?|friends|us|of\s+us)\b", slots.text, _F):
        return None  # "48 for 3 people" is a share (_share)
    p, k = told.group("p"), told.group("k")
    return f"{p} / {k}", f"{p} for {k} is {_value()} each"


def _pack_price(slots: _Slots) -> Built:
    pack, asked = _PACK.search(slots.text), _PER_ONE.search(slots.text)
    if pack is None or asked is None or slots.rates or slots.heads or len(slots.numbers) != 2:
        return None
    price = [m.group("n") for m in slots.numbers if m.start() != pack.start("m")]
    if len(price) != 1 or "." in pack.group("m"):
        return None
    return f"{price[0]} / {pack.group('m')}", f"{price[0]} for {pack.group('m')} is {_value()} each"


# "3 boxes with 24 cans each", "2 crates of 24 bottles each", "3 pizzas cut in 8 slices each".
_GROUPS_OF_EACH = re.compile(
    r"(?<![\d.])(?P<n>\d+)\s+(?:[a-z]+\s+){1,2}(?:with|of|holding|containing|cut\s+(?:in|into)|having)\s+"
    r"(?P<m>\d+(?:\.\d+)?)\s+(?P<w>[a-z]+)(?:\s+(?:each|apiece|in\s+each)\b|(?<=\bof\s\d)|(?=\s+(?:shared|split|divided)\b))",
    _F,
)
_LOOSE = re.compile(r"(?<![\d.])(?P<k>\d+(?:\.\d+)?)\s+(?:loose|extra|more|spare|single|separate)\b", _F)
_PER_HEAD_ASKED = re.compile(
    r"\bhow\s+(?:many|much)\s+(?:[a-z]+\s+)?(?:for\s+)?each\b|"
    r"\b(?:per|for\s+each|each)\s+(?:person|head|kid|child|guest|student)\b|\beach\s+get\b",
    _F,
)


def _grouped(slots: _Slots) -> Built:
    """ "I have 3 boxes with 24 cans each and 7 loose cans, how many cans?" (3 * 24 + 7), and
    "14 kids, 3 pizzas cut in 8 slices each, how many slices per kid" (3 * 8 / 14)."""
    text = slots.text
    m = _GROUPS_OF_EACH.search(text)
    if m is None or slots.rates or not (_HOW_MUCH.search(text) or "total" in slots.said):
        return None
    n, size, word = m.group("n"), m.group("m"), m.group("w")
    used = {m.start("n"), m.start("m")}
    rest = [x for x in slots.numbers if x.start() not in used]
    if not rest:
        return f"{n} * {size}", f"{n} of {size} {word} is {_value()} {word}"
    if len(rest) != 1:
        return None
    k = rest[0]
    if (loose := _LOOSE.search(text)) is not None and loose.start() == k.start():
        return f"{n} * {size} + {k.group('n')}", f"{n} of {size} {word} and {k.group('n')} more is {_value()}"
    if k.group("people") and _PER_HEAD_ASKED.search(text):
        heads = k.group("n")
        return f"{n} * {size} / {heads}", f"{n} of {size} {word} for {heads} is {_value()} {word} each"
    return None


# "cupcakes are 2.25 each", "one ticket is 14.50", "goody bags are 4.75 each": a price of one.
_PRICE_OF_ONE = re.compile(
    r"(?<![\d.])(?P<p>\d+(?:\.\d+)?)\s+(?:each|apiece|a\s+piece|per\s+(?:item|piece|one|unit))\b"
    r"|\b(?:1|one|a|an)\s+[a-z]+\s+(?:is|costs?|was)\s+(?P<p2>\d+(?:\.\d+)?)\b",
    _F,
)
_EXTRA_COST = re.compile(r"\bplus\s+(?P<x>\d+(?:\.\d+)?)\s+for\s+(?:the|a|an|my)\b", _F)


def _count_priced(slots: _Slots) -> Built:
    """ "Cupcakes are 2.25 each and I need 36, how much?" (36 * 2.25), "one ticket is 14.50, how
    much for 6?", "12 kids, goody bags are 4.75 each, plus 65 for the cake" (12 * 4.75 + 65):
    the price of one, how many, and what is added on, each number read once."""
    text, said = slots.text, slots.said
    prices = list(_PRICE_OF_ONE.finditer(text))
    # what it costs is asked ("how much", "total"), not how many of something ("how many buses")
    if len(prices) != 1 or slots.rates or not (re.search(r"\bhow\s+much\b", text, _F) or "total" in said):
        return None
    if said & {"split", "tip", "discount", "average", "up", "down"} - {"split" if "each" in said else ""}:
        return None
    price_at = prices[0].start("p" if prices[0].group("p") else "p2")
    price = prices[0].group("p") or prices[0].group("p2")
    extras = list(_EXTRA_COST.finditer(text))
    rest = [
        x
        for x in slots.numbers
        if x.start() != price_at and not any(e.start("x") == x.start() for e in extras)
    ]
    if prices[0].group("p2") and text[prices[0].start() :].lower().startswith("1"):
        rest = [x for x in rest if x.start() != prices[0].start()]  # "1 ticket is 14.50": the one is no count
    if len(rest) != 1 or _EACH_SHARE.search(text):
        return None
    count = rest[0].group("n")
    added = "".join(f" + {e.group('x')}" for e in extras)
    plus = "".join(f", plus {e.group('x')}" for e in extras)
    return f"{count} * {price}{added}", f"{count} at {price} each{plus}, is {_value()}"


def _changed(slots: _Slots) -> Built:
    """ "went from 1500 to 1620, by what percentage", "42 out of 48, what percent"."""
    text, said, numbers, rates = (slots.text, slots.said, slots.numbers, slots.rates)
    if "percent" not in said or rates or len(numbers) != 2:
        return None
    if "out_of" in said:
        m = _STORY_WORDS["out_of"].search(text)
        assert m is not None
        return (
            f"{m.group('a')} / {m.group('b')} * 100",
            f"{m.group('a')} out of {m.group('b')} is {_value()}%",
        )
    if "discount" in said and len(slots.amounts) == 2:  # "was 600, now 450 in the sale: what % off"
        a, b = slots.amounts
        return f"({a} - {b}) / {a} * 100", f"From {a} to {b} is {_value()}% off"
    for key in ("change", "was_now"):
        if key in said:
            m = _STORY_WORDS[key].search(text)
            assert m is not None
            a, b = m.group("a"), m.group("b")
            return f"({b} - {a}) / {a} * 100", f"From {a} to {b} is a change of {_value()}%"
    if len(slots.amounts) == 2 and said & {"up", "down"}:  # "bought at 25, at 31 now: percent gain"
        a, b = slots.amounts
        return f"({b} - {a}) / {a} * 100", f"From {a} to {b} is a change of {_value()}%"
    return None


def _converted(slots: _Slots) -> Built:
    """ "I weigh 150 pounds, what is that in kilograms", "the oven says 180 C, how much is this in
    Fahrenheit", "I am 5 foot 10, how tall is that in cm": one quantity, and one other unit."""
    text, rates, heads, amounts = (slots.text, slots.rates, slots.heads, slots.amounts)
    if (
        rates
        or heads
        or not amounts
        or "percent" in slots.said  # "45 minutes is what percent of an hour" is no conversion
        or "area" in slots.said
        or re.search(r"\d\s*[a-z]*\s+(?:by|x)\s+\d", text, _F)
    ):
        return None  # "4.2m by 3.5m" is an area, not a length
    degrees = list(_TEMPERATURE_MENTION.finditer(text))
    if len(degrees) == 2 and len(amounts) == 1:
        (given, wanted) = degrees if degrees[0].group("n") else degrees[::-1]
        if given.group("n") and not wanted.group("n"):
            source = _scale(given.group("t"))
            target = _scale(wanted.group("t"))
            if source and target and source != target:
                n = given.group("n")
                expr = f"({n} - 32) * 5 / 9" if source == "F" else f"{n} * 9 / 5 + 32"
                return expr, f"{n} °{source} is {_value()} °{target}"
    units = list(_UNIT_MENTION.finditer(text))
    given = [u for u in units if u.group("n")]
    wanted = [u for u in units if not u.group("n")]
    if len(wanted) != 1:
        return None
    target = wanted[0].group("u").lower()
    parts = [(u.group("n"), u.group("u").lower()) for u in given]
    # "5 foot 10": feet and then a bare number are inches.
    if (
        len(parts) == 1
        and parts[0][1] in ("foot", "feet", "ft")
        and len(amounts) == 2
        and amounts[0] == parts[0][0]
    ):
        parts.append((amounts[1], "inches"))
    if not parts or len(parts) > 2 or len(parts) != len(amounts):
        return None
    kinds = {lexicon.UNITS[u][0] for _, u in parts} | {lexicon.UNITS[target][0]}
    if len(kinds) != 1 or any(u == target for _, u in parts) or not _one_quantity(parts):
        return None
    size = lexicon.UNITS[target][1]
    total = " + ".join(f"{n} * {lexicon.UNITS[u][1]}" if lexicon.UNITS[u][1] != "1" else n for n, u in parts)
    expr = f"({total}) / {size}" if size != "1" else total
    return expr, f"{' '.join(f'{n} {u}' for n, u in parts)} is {_value()} {target}"


def _scale(word: str) -> str:
    word = " ".join(word.lower().replace("°", " ").split()).removeprefix("degrees ")
    return lexicon.TEMPERATURES.get(word, "")


def _bought(slots: _Slots) -> Built:
    """ "3 notebooks at $2.75 each and 2 pens at $1.20 each", "milk 3.49, bread 2.99 ... the total"."""
    text, said, rates, heads, amounts = (slots.text, slots.said, slots.rates, slots.heads, slots.amounts)
    if rates:
        return None
    if heads:  # "3 pizzas at 18 each split between 4 friends, how much does each pay": the cost, shared
        if (
            len(heads) != 1
            or not _EACH_SHARE.search(text)
            or not re.search(r"\b(?:split|shared?|divided)\b", text, _F)
        ):
            return None
        shared = _bought(slots._replace(heads=[]))
        if shared is None:
            return None
        return f"({shared[0]}) / {heads[0]}", f"Shared {heads[0]} ways, that is {_value()} each"
    pairs = (
        list(_EACH.finditer(text)) if said & {"each", "total"} else []
    )  # "a table for two at 7" is no price
    # Each pair uses its count and its price ("a loaf at 1.35": one, and the price alone).
    if pairs and sum(2 if m.group("k") else 1 for m in pairs) == len(amounts):
        expr = " + ".join(f"{m.group('k')} * {m.group('p')}" if m.group("k") else m.group("p") for m in pairs)
        return expr, f"That comes to {_value()}"
    if (
        "total" in said
        and len(amounts) >= 2
        and not said & {"split", "up", "down", "discount", "tip", "average"}
    ):
        return " + ".join(amounts), f"The total of {_spoken_list(amounts)} is {_value()}"
    return None


# "I had 3 dozen eggs and used 14, how many are left?": what was had, less what went.
_HAD = re.compile(r"\b(?:had|have|bought|got|baked|made|started\s+with)\s+(?P<n>\d+(?:\.\d+)?)\b", _F)
_WENT = re.compile(
    r"\b(?:used|ate|eaten|gave\s+away|gave|sold|spent|lost|broke|drank|took|gave\s+out|handed\s+out)\s+"
    r"(?:(?:away|out)\s+)?(?P<m>\d+(?:\.\d+)?)\b",
    _F,
)
_LEFT_ASKED = re.compile(r"\bhow\s+(?:many|much)\b.*\b(?:left|remain(?:ing|s)?|still\s+have)\b", _F)


# "eggs are 3.60 a dozen, how much for 30 eggs": a price by the dozen, for so many
# (normalize.numeric has made "a dozen" 12 by then: "3.60 12")
_DOZEN_PRICE = re.compile(
    r"\$?(?P<p>\d+(?:\.\d+)?)\s+(?P<dozen>(?:a|per|for\s+a|the)\s+dozen|12)\b(?:\s*,|\s*\.|\s+so)?\s*"
    r"how\s+much\s+(?:for|is|are|would|will|do)\s+(?:\w+\s+){0,2}?(?P<k>\d+(?:\.\d+)?)\s+[a-z]+\W*$",
    _F,
)


def _by_the_dozen(text: str) -> Built:
    if not (m := _DOZEN_PRICE.search(text)) or len(list(_STORY_NUMBER.finditer(text))) != (
        3 if m.group("dozen") == "12" else 2
    ):
        return None
    p, k = m.group("p"), m.group("k")
    return f"{p} / 12 * {k}", f"{k} at {p} a dozen is {_value()}"


# "I have 8 tasks and finished 3, what percent is done?": a part of what one had, as a percentage
# (of what is left, when the question says so).
_DID_PART = re.compile(
    r"\b(?:finished|done|did|completed|passed|failed|ate|used|sold|read|won|lost|answered|watched|painted"
    r"|cleaned|packed|visited|wrote|written|fixed|planted)\s+(?P<m>\d+(?:\.\d+)?)\b",
    _F,
)
_PERCENT_ASKED = re.compile(
    r"\b(?:what\s+(?:percent|percentage|%|share|proportion)|how\s+many\s+percent)\b(?P<rest>.*)$",
    _F,
)
_LEFT_WORDS = re.compile(
    r"\b(?:left|remain(?:ing|s)?|to\s+go|still\s+(?:to\s+do|open)|not\s+done|undone)\b", _F
)


# What the question asks of the part: itself ("is that", "is done", "did I pass") or what is left.
_PART_ASKED = re.compile(
    r"(?:is|was|are|were)\s+(?:that|it|this|done|finished|complete|completed|gone|used)", _F
)
_REST_ASKED = re.compile(
    r"(?:is|was|are|were)\s+(?:left|remaining|still\s+left)|(?:remains|is\s+left\s+over)"
    # "what percent do I have now", "... have I got left": what one has after the part went
    r"|do\s+i\s+(?:still\s+)?have(?:\s+(?:now|left|still))?|have\s+i\s+(?:got\s+)?(?:left|now)",
    _F,
)
_DID_I = re.compile(r"(?:did|have)\s+i\s+(\w+)", _F)


def _forms(verb: str) -> set[str]:
    """A past of _DID_PART or _WENT with the forms a question asks it by ("passed": "did I pass";
    "ate": "did I eat"): wordforms.py's irregular ones ("lost" too, which it leaves out: no todo is
    reported done by it), else the base an -ed ending leaves."""
    verb = verb.lower()
    if base := wordforms.IRREGULAR.get(verb) or {"lost": "lose"}.get(verb):
        return {verb, base}
    return {verb, verb[:-1], verb[:-2]} if verb.endswith("ed") else {verb}


def _part_percent(text: str) -> Built:
    numbers = list(_STORY_NUMBER.finditer(text))
    had, did, asked = (
        _HAD.search(text),
        _DID_PART.search(text) or _WENT.search(text),
        _PERCENT_ASKED.search(text),
    )
    if (
        had is None
        or did is None
        or asked is None
        or len(numbers) != 2
        or any(m.group("pct") for m in numbers)
    ):
        return None
    if not had.end() <= did.start() < asked.start():
        return None  # the whole, then the part, then the question: in that order only
    n, m = had.group("n"), did.group("m")
    if float(m) > float(n) or float(n) == 0 or _LEFT_WORDS.search(text[had.end() : did.start()]):
        return None  # "I have 8 tasks left and finished 3": is 8 the whole, or what remains?
    rest = " ".join(asked.group("rest").split()).strip(" ?.!")
    if _REST_ASKED.fullmatch(rest):
        return f"({n} - {m}) / {n} * 100", f"{n} less {m} is {_value()}% of {n}"
    if _PART_ASKED.fullmatch(rest) or (
        (me := _DID_I.fullmatch(rest)) and _forms(me.group(1)) & _forms(did.group().split()[0])
    ):
        return f"{m} / {n} * 100", f"{m} is {_value()}% of {n}"
    return None  # "what percentage is pending", "what percent passed": which part is asked? unclear


# "I had 3 boxes of 24 eggs": so many packs of so many each.
_PACKS_OF = re.compile(
    r"\s*(?:boxes|packs|packets|cartons|bags|crates|trays|cases|tins|jars|rolls|bottles)\s+of\s+(?P<k>\d+)\b",
    _F,
)


def _what_is_left(text: str) -> Built:
    numbers = list(_STORY_NUMBER.finditer(text))
    had, went = _HAD.search(text), _WENT.search(text)
    if had is None or went is None or not _LEFT_ASKED.search(text):
        return None
    packs = _PACKS_OF.match(text, had.end())
    if len(numbers) != (3 if packs else 2) or any(m.group("pct") for m in numbers):
        return None
    if had.start() > went.start():
        return None
    n, m = had.group("n"), went.group("m")
    if packs:
        return f"{n} * {packs.group('k')} - {m}", f"{n} times {packs.group('k')}, less {m}, leaves {_value()}"
    return f"{n} - {m}", f"{n} less {m} leaves {_value()}"


# What an average of the numbers told is not: a speed (a distance over a time), or the score
# still needed for an average ("what do I need ... to average 85").
_NOT_AN_AVERAGE_OF = re.compile(
    r"\b(?:speed|pace|need|needs|to\s+average|per\s+(?:hour|minute|second))\b|\d(?:st|nd|rd|th)\b", _F
)


# "what percentage of my income goes on rent": the part (rent) over the whole (income), each
# the one number said beside its word.
_SHARE_ASKED = re.compile(
    r"\bwhat\s+(?:percent|percentage|%|share)\s+of\s+(?:my|our|the|his|her|their)\s+(?P<whole>[a-z]+)\s+"
    r"(?:goes|go|went|is|are|was|were)\s+(?:on|to|for|in|into)\s+(?:the\s+|my\s+|our\s+)?(?P<part>[a-z]+)\b",
    _F,
)
_EARNED = frozenset(
    ["make", "makes", "made", "earn", "earns", "earned", "income", "salary", "wage", "wages", "take"]
)
_WHOLE_IS_EARNED = frozenset(["income", "salary", "pay", "earnings", "wages", "paycheck", "paycheque"])


def _share(slots: _Slots) -> Built:
    if slots.rates or slots.heads or len(slots.amounts) != 2 or not (m := _SHARE_ASKED.search(slots.text)):
        return None
    whole_word, part_word = m.group("whole").lower(), m.group("part").lower()
    whole, part = [], []
    for number in slots.numbers[:2] if len(slots.numbers) == 2 else []:
        before = set(re.findall(r"[a-z]+", slots.text[: number.start()].lower())[-4:])
        if whole_word in before or (whole_word in _WHOLE_IS_EARNED and before & _EARNED):
            whole.append(number.group("n"))
        if part_word in before or _singular(part_word) in before:
            part.append(number.group("n"))
    if len(whole) != 1 or len(part) != 1 or whole == part:
        return None  # which number is which is not said beside them: not a guess
    return f"{part[0]} / {whole[0]} * 100", f"{part[0]} is {_value()}% of {whole[0]}"


_OVER_PERIODS = re.compile(
    r"\b(?:the\s+)?(?:last|past|over|for|in|across)\s+(?:the\s+)?(?:last\s+|past\s+)?(?P<k>\d+)\s+"
    r"(?:weeks|days|months|years|games|tests|exams|runs|matches|nights|shifts|sessions|quizzes|rounds)\b",
    _F,
)


def _averaged(slots: _Slots) -> Built:
    said, rates, heads, amounts = (slots.said, slots.rates, slots.heads, slots.amounts)
    if "average" not in said or rates or heads or len(amounts) < 2 or _NOT_AN_AVERAGE_OF.search(slots.text):
        return None
    # "45, 60, 38, 52 and 70 ... the last 5 weeks": how many there are is no value to average
    if over := _OVER_PERIODS.search(slots.text):
        inside = [m for m in slots.numbers if over.start("k") <= m.start() < over.end("k")]
        counted = [m.group("n") for m in slots.numbers if m not in inside and m.group("n") in amounts]
        if inside and len(counted) == int(over.group("k")) == len(amounts) - 1:
            amounts = counted
    return (
        f"({' + '.join(amounts)}) / {len(amounts)}",
        f"The average of {_spoken_list(amounts)} is {_value()}",
    )


# "12 cookies", "4 people", "6 servings": a count of something the story scales by.
_COUNTED = re.compile(r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s+(?P<w>[a-z]{2,})\b", _F)
_HOW_MUCH = re.compile(r"\bhow\s+(?:much|many)\b", _F)


def _proportional(slots: _Slots) -> Built:
    """ "a recipe for 4 people needs 300g of flour, how much for 6 people?", "12 cookies need
    180g butter, how much for 30 cookies": an amount for A of something, asked for C of it, is
    amount * C / A. Exactly three numbers, two of them counting the same thing (the one told
    first is what the amount is for), and a question."""
    text = slots.text
    if slots.rates or len(slots.numbers) != 3 or not _HOW_MUCH.search(text):
        return None
    counted: dict[str, list[re.Match[str]]] = {}
    for m in _COUNTED.finditer(text):
        counted.setdefault(_singular(m.group("w")), []).append(m)
    pairs = [ms for ms in counted.values() if len(ms) == 2]
    if not pairs:
        return _recipe_scaled(slots)
    if len(pairs) != 1:
        return None
    (base, target), word = pairs[0], pairs[0][0].group("w").lower()
    others = [m.group("n") for m in slots.numbers if m.start() not in (base.start(), target.start())]
    if len(others) != 1 or not re.search(rf"\bfor\s+{re.escape(target.group('n'))}\b", text, _F):
        return None
    amount, a, c = others[0], base.group("n"), target.group("n")
    return f"{amount} * {c} / {a}", f"{amount} for {a} {word} is {_value()} for {c} {word}"


_RECIPE = re.compile(r"\brecipe\b", _F)
_SERVES = re.compile(
    r"\b(?:serves|feeds|makes|for)\s+(?P<a>\d+)(?:\s+(?:people|persons|servings|portions|guests))?(?!\s*(?:%|\.\d))",
    _F,
)
_SERVING = re.compile(
    r"\b(?:cooking\s+for|baking\s+for|feeding|got|have|expecting|making\s+it\s+for)\s+(?P<c>\d+)\b(?!\s*(?:%|\.\d))",
    _F,
)


def _recipe_scaled(slots: _Slots) -> Built:
    """ "recipe says 250g flour for 4 people, I'm cooking for 6. how much flour?", "the recipe
    serves 8 but we've got 12 coming, and it calls for 3 cups of flour": what the recipe is
    for, whom it is cooked for, and the one amount it names, scaled."""
    text = slots.text
    base, target = _SERVES.search(text), _SERVING.search(text)
    if not _RECIPE.search(text) or base is None or target is None or len(slots.numbers) != 3:
        return None
    used = {base.start("a"), target.start("c")}
    if len(used) != 2:
        return None
    others = [m.group("n") for m in slots.numbers if m.start() not in used]
    if len(others) != 1:
        return None
    amount, a, c = others[0], base.group("a"), target.group("c")
    return f"{amount} * {c} / {a}", f"{amount} for {a} is {_value()} for {c}"


def _singular(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


# "42 miles per gallon", "12 km to the litre", "mpg": a rate of one unit per another.
_RATE_OF = re.compile(
    r"(?P<n>\d+(?:\.\d+)?)\s*(?P<u1>[a-z]+)\s+(?:per|an?|to\s+the|every)\s+(?P<u2>[a-z]+)\b|(?P<n2>\d+(?:\.\d+)?)\s*mpg\b",
    _F,
)
_HOW_MANY_PER = re.compile(
    r"\bhow\s+many\s+(?P<a>[a-z]+)\s+(?:per|an?|to\s+the|every|/)\s+(?P<b>[a-z]+)\b|\b(?P<mpg>mpg)\b", _F
)
_HOW_MANY = re.compile(r"\bhow\s+many\s+(?P<q>[a-z]+)\b", _F)


def _per_unit_asked(slots: _Slots) -> Built:
    """ "my car does 42 miles per gallon, how many gallons for a 315 mile trip?" (315 / 42), and
    "drove 320 miles on 10 gallons, what's my mpg?" (320 / 10): a rate and a quantity, two units."""
    text = slots.text
    if slots.rates or slots.heads or len(slots.numbers) != 2:
        return None
    told = {_singular(m.group("w")): (m.group("n"), m.group("w")) for m in _COUNTED.finditer(text)}
    if (asked := _HOW_MANY_PER.search(text)) is not None:
        a, b = ("mile", "gallon") if asked.group("mpg") else (_singular(asked["a"]), _singular(asked["b"]))
        if a in told and b in told and a != b:
            (n_a, word_a), (n_b, word_b) = told[a], told[b]
            return f"{n_a} / {n_b}", f"{n_a} {word_a} on {n_b} {word_b} is {_value()} {word_a} per {b}"
        return None
    rate, wanted = _RATE_OF.search(text), _HOW_MANY.search(text)
    if rate is None or wanted is None:
        return None
    n, u1, u2 = (
        (rate["n2"], "mile", "gallon")
        if rate["n2"]
        else (rate["n"], _singular(rate["u1"]), _singular(rate["u2"]))
    )
    if _singular(wanted["q"]) != u2 or u1 == u2:
        return None
    given = [m for m in _COUNTED.finditer(text) if m.start() != rate.start() and _singular(m["w"]) == u1]
    if len(given) != 1:
        return None
    m = given[0]["n"]
    return (
        f"{m} / {n}",
        f"{m} {given[0]['w']} at {n} {rate['u1'] or 'miles'} per {u2} is {_value()} {wanted['q']}",
    )


# How many of a unit a longer one holds, exactly: a month is no whole number of days or weeks,
# and 52 weeks are 364 days, so "a week ... for a year" is not read.
_CALENDAR = {
    "month": {"year": 12},
    "day": {"week": 7, "year": 365},
    "hour": {"day": 24, "week": 168},
    "minute": {"hour": 60},
    "second": {"minute": 60, "hour": 3600},
}


def _paid(slots: _Slots) -> Built:
    """ "I make $18.50 an hour and worked 37.5 hours", "petrol is 1.45 a litre and I put in 42
    litres", "I save 35 a week, after 52 weeks": a price per unit times that many units."""
    text, rates, heads, amounts = (slots.text, slots.rates, slots.heads, slots.amounts)
    per = _PER_UNIT.search(text) or _RATE_WITH_WORDS.search(text)
    # "3 kids, lessons are 18 each per week, for 8 weeks": a price for each of them, per unit
    each = per is not None and len(heads) == 1 and bool(re.search(r"\beach\b", per.group(), _F))
    if per is None or rates or (heads and not each) or len(amounts) != 2:
        return None
    if each:
        found = _paid(slots._replace(heads=[]))
        if found is None or found[0].count("*") != 1:
            return None
        price, quantity = found[0].split(" * ")
        unit = per.group("u").lower().rstrip("s")
        return (
            f"{found[0]} * {heads[0]}",
            f"{heads[0]} at {price} each per {unit}, for {quantity} {unit}s, is {_value()}",
        )
    unit = per.group("u").lower().rstrip("s")
    count = re.search(rf"(?P<q>\d+(?:\.\d+)?)\s+{re.escape(unit)}s?\b", text[per.end() :], _F) or re.search(
        rf"(?P<q>\d+(?:\.\d+)?)\s+{re.escape(unit)}s?\b", text[: per.start()], _F
    )
    if count is None:
        # "150 a month ... after 2 years": a count in a longer unit the calendar converts exactly.
        for longer, factor in _CALENDAR.get(unit, {}).items():
            if (count := re.search(rf"(?P<q>\d+(?:\.\d+)?)\s+{longer}s?\b", text, _F)) is not None:
                price, quantity = per.group("price"), count.group("q")
                return _in_asked_time(
                    text,
                    per,
                    f"{price} * {quantity} * {factor}",
                    f"{price} per {unit} for {quantity} {longer}{'s' if quantity != '1' else ''}"
                    f" is {_value()}",
                )
        return None
    price, quantity = per.group("price"), count.group("q")
    return _in_asked_time(
        text, per, f"{price} * {quantity}", f"{quantity} at {price} per {unit} is {_value()}"
    )


_SECONDS = {
    "second": 1,
    "sec": 1,
    "minute": 60,
    "min": 60,
    "hour": 3600,
    "hr": 3600,
    "day": 86400,
    "week": 604800,
}
_TIME_WORD = re.compile(r"(?P<w>seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b", _F)


def _in_asked_time(text: str, per: re.Match[str], expr: str, answer: str) -> Built:
    """ "I run 40 minutes every day for 2 weeks, how many hours is that": the sum in minutes, in
    the time unit asked. A time asked of an amount that is no time is not read."""
    asked = re.search(r"\bhow\s+many\s+(?P<w>[a-z]+)\b", text[per.end() :], _F)
    asked_unit = _TIME_WORD.fullmatch(asked.group("w")) if asked else None
    if asked_unit is None:
        return expr, answer
    own = _TIME_WORD.match(text[per.end("price") :].lstrip())
    if own is None:
        return None
    a, b = _SECONDS[_singular(own.group("w")).lower()], _SECONDS[_singular(asked_unit.group("w")).lower()]
    if a == b:
        return expr, answer
    word = asked_unit.group("w").lower()
    return f"{expr} * {a} / {b}", answer.replace(f"is {_value()}", f"is {_value()} {word}")


# "married in 1962 ... how many years ago, if this is 2025", "born in 1990, how old am I in 2025".
_YEAR = re.compile(r"(?<![\d.])(?P<y>1[5-9]\d\d|20\d\d)(?![\d.])")
_YEARS_ASKED = re.compile(r"\bhow\s+(?:many\s+years|old|long\s+ago)\b", _F)


def _years_between(slots: _Slots) -> Built:
    """Two years and a question of how many years: the later minus the earlier."""
    years = [m.group("y") for m in _YEAR.finditer(slots.text)]
    if len(years) != 2 or len(slots.numbers) != 2 or slots.rates or not _YEARS_ASKED.search(slots.text):
        return None
    early, late = sorted(years, key=int)
    return f"{late} - {early}", f"From {early} to {late} is {_value()} years"


# "costs me 1.80 to make and I sell it for 4.50, what's my margin as a percentage of the price"
_COST = re.compile(
    r"\bcosts?\s+(?:me\s+|us\s+)?(?P<c>\d+(?:\.\d+)?)|\b(?:buy|bought)\s+(?:it\s+|them\s+)?(?:for|at)\s+(?P<c2>\d+(?:\.\d+)?)",
    _F,
)
_SELL = re.compile(
    r"\b(?:sell|sells|sold|selling)\s+(?:it\s+|them\s+|each\s+)?(?:for|at)\s+(?P<s>\d+(?:\.\d+)?)", _F
)


def _margin(slots: _Slots) -> Built:
    """A cost and a selling price: the margin (of the price) or the markup (on the cost), as a
    percentage; which one is asked by its word."""
    text = slots.text
    cost, sell = _COST.search(text), _SELL.search(text)
    if cost is None or sell is None or len(slots.numbers) != 2 or slots.rates or "percent" not in slots.said:
        return None
    c, s = cost.group("c") or cost.group("c2"), sell.group("s")
    if re.search(r"\bmargin\b", text, _F) and not re.search(r"\bmark-?up\b", text, _F):
        return f"({s} - {c}) / {s} * 100", f"Selling at {s} what costs {c} is a margin of {_value()}%"
    if re.search(r"\bmark-?up\b", text, _F) and not re.search(r"\bmargin\b", text, _F):
        return f"({s} - {c}) / {c} * 100", f"Selling at {s} what costs {c} is a markup of {_value()}%"
    return None


_ROUND_TO = re.compile(
    r"\bround(?:ed)?\s+(?:it|that|this|the\s+\w+)?\s*(?:off\s+)?to\s+(?:the\s+nearest\s+)?(?P<d>\d{1,2})\s+"
    r"(?:decimal\s+places?|decimals?|places?|dp)\b",
    _F,
)


def _rounded_story(slots: _Slots) -> Built:
    """ "my run was 17.456 km, round that to one decimal": the one other number, rounded."""
    m = _ROUND_TO.search(slots.text)
    if m is None or slots.rates or slots.heads:
        return None
    others = [a for a in slots.amounts if a != m.group("d")]
    if len(others) != 1 or len(slots.amounts) != 2:
        return None
    n, d = others[0], m.group("d")
    return f"round({n}, {d})", f"{n} rounded to {d} decimal place{'s' if d != '1' else ''} is {_value()}"


def _area(slots: _Slots) -> Built:
    """ "the room is 4.2m by 3.5m, how many square metres": length times width."""
    m = _AREA.search(slots.text)
    if m is None or "area" not in slots.said or slots.rates or len(slots.amounts) != 2:
        return None
    return f"{m.group('a')} * {m.group('b')}", f"{m.group('a')} by {m.group('b')} is {_value()} square units"


def _interest(slots: _Slots) -> Built:
    """ "$1,000 at 4% interest compounded once a year, after 5 years"."""
    text, said, rates, amounts = (slots.text, slots.said, slots.rates, slots.amounts)
    years = _STORY_WORDS["years"].search(text)
    if not said & {"interest", "compound"} or years is None or len(rates) != 1 or len(amounts) != 2:
        return None
    n = next(a for a in amounts if a != years.group("y"))
    p, y = rates[0], years.group("y")
    if "compound" in said:
        return f"{n} * (1 + {p} / 100) ** {y}", f"{n} at {p}% compounded yearly for {y} years is {_value()}"
    return f"{n} * {p} / 100 * {y}", f"Simple interest on {n} at {p}% for {y} years is {_value()}"


_EACH_SHARE = re.compile(
    r"\bhow\s+much\s+(?:does\s+|do\s+)?(?:each|every)\b|\beach\s+(?:one'?s?\s+|person'?s?\s+)?(?:pays?|owes?|gets?|share)\b"
    r"|\bper\s+person\b",
    _F,
)
_ME_AND = re.compile(
    rf"\b(?:me|i|myself)\s+(?:and|n|&|plus)\s+(?:my\s+)?(?P<k>\d+)\s+(?:other\s+)?{_PEOPLE}", _F
)
_WE_ARE = re.compile(r"\b(?:we\s+are|there\s+are|we're)\s+(?P<k>\d+)\b(?!\s*%)", _F)


def _before_change(text: str) -> Built:
    """The price before a change, from the price after it: "costs 30 after a 25% discount, what
    was the original price?" is 30 / (1 - 25/100), not 25% off 30. One amount, one rate, and
    which way the change went; anything else is not read here."""
    if not _STORY_WORDS["original"].search(text):
        return None
    _, said, numbers, rates, _, amounts = _told(text)
    if len(rates) != 1 or len(amounts) != 1 or len(numbers) != 2 or said & {"tip", "save", "split", "total"}:
        return None
    n, p = amounts[0], rates[0]
    if said & {"discount", "down"} and "up" not in said:
        return f"{n} / (1 - {p} / 100)", f"Before {p}% off, {n} was {_value()}"
    if said & {"up", "down", "discount"} == {"up"}:
        return f"{n} / (1 + {p} / 100)", f"Before a {p}% increase, {n} was {_value()}"
    return None


def _priced(text: str, said: set[str], n: str, rates: list[str], heads: list[str]) -> Built:
    """One amount, at most one rate and one head count: tips, shares, discounts, changes."""
    if "tip" in said and len(rates) == 1:
        p = rates[0]
        if heads and "split" in said:
            k = heads[0]
            return (
                f"({n} + {p}% of {n}) / {k}",
                f"{n} with {_a(p)} {p}% tip, split {k} ways, is {_value()} each",
            )
        if not heads:
            if "total" in said:
                return _tip_and_total(n, p)
            return f"{p}% of {n}", f"{_a(p).capitalize()} {p}% tip on {n} is {_value()}"
        return None
    dividing = bool(_EACH_SHARE.search(text))
    if heads and not rates and "each" in said and "total" in said and not dividing:
        k = heads[0]  # "tickets are 12 each for 4 people, what's the total"
        return f"{n} * {k}", f"{k} at {n} each is {_value()}"
    if heads and not rates and "split" in said and ("total" not in said or dividing):
        k = heads[0]
        return f"{n} / {k}", f"{n} split {k} ways is {_value()} each"
    if len(rates) == 1 and not heads and "tip" not in said:
        p = rates[0]
        if "tax_amount" in said and "total" not in said:  # "how much tax on a $240 tv"
            return f"{p}% of {n}", f"{p}% tax on {n} is {_value()}"
        if "save" in said and ("discount" in said or "pay" not in said):
            return f"{p}% of {n}", f"{p}% off {n} saves {_value()}"
        if "save" in said and "pay" in said:
            return f"{n} - {p}% of {n}", f"{n} with {p}% off is {_value()}"
        if "discount" in said and not said & {"up"}:
            return f"{n} - {p}% of {n}", f"{n} with {p}% off is {_value()}"
        if said & {"up", "down"} == {"up"}:
            return f"{n} + {p}% of {n}", f"{n} increased by {p}% is {_value()}"
        if said & {"up", "down"} == {"down"}:
            return f"{n} - {p}% of {n}", f"{n} decreased by {p}% is {_value()}"
        if not said & {"up", "down", "discount", "split", "total", "change", "was_now"}:
            return f"{p}% of {n}", f"{p}% of {n} is {_value()}"  # "12 percent goes into savings"
    return None


# A sentence that only asks for what the one before it describes ("a shirt costs $40 and is 25%
# off. what's the sale price?"): it may be read with that sentence, as one clause.
QUESTION_TAIL = re.compile(
    r"^(?:the\s+)?(?:total|sum|altogether|in\s+total|grand\s+total|all\s+together)$"
    r"|^(?:so\s+|and\s+)?how\s+far\s+(?:does|do|did|will|would|can)\s+(?:it|i|we|you|they|she|he)\s+"
    r"(?:go|get|travel|drive|run|ride|walk|fly)$"
    r"|^(?:and\s+)?(?:the\s+)?(?:new|final|total)\s+(?:rent|price|total|amount|salary|cost|bill|balance|value|pay)$"
    r"|^(?:so\s+|and\s+)?how\s+many\s+[a-z]+\s+(?:is\s+that|in\s+total|altogether|total|do\s+i\s+have(?:\s+in\s+total)?)$"
    r"|^(?:so\s+|and\s+|then\s+)?(?:what(?:\s+is|\s+would|\s+will|\s+does|\s+do)?|how\s+much)\b(?:\s+(?:is|would|will|do|does"
    r"|did|should|the|that|it|i|we|they|each|of|us|new|final|sale|total|price|cost|bill|salary|amount|owe|pay|be"
    r"|pays|owes|gets|get"
    r"|come|to|person|per|one|everyone|everybody|altogether|in|all|now|then|after|left|payment|rent|tip|actually"
    r"|really|this|my|our|spend|spent|get|got|make|earn|earned|end|up|with|before|taxes|tax|used|worth|was|were"
    r"|original|originally|full|regular))*$",
    _F,
)

_PARTS = re.compile(r"\s*(?:[,.?!;]|\band\b|\balso\b)\s*", _F)
_STORY_CUES = ("tip", "discount", "save", "split", "up", "down", "total", "percent", "average", "interest")


def part_of_a_story(clause: str) -> bool:
    """Whether `clause` can be a sentence of a word problem: it has a number, or asks for one in
    a word problem's terms ("what is that in kilograms", "what do I pay in total"). "Book me a
    flight" cannot, so a prompt with it is never read as one."""
    text = normalize.numeric(clause)
    return bool(
        _DIGIT.search(text)
        or any(_STORY_WORDS[cue].search(text) for cue in _STORY_CUES)
        or _UNIT_MENTION.search(text)
        or _TEMPERATURE_MENTION.search(text)
        or _HOW_MANY_PER.search(text)  # "how many km per litre?", "what's my mpg?"
        # "how many cartons do I have to buy?", "round up": asks for the count the story makes
        or re.match(
            r"^(?:so\s+|and\s+)?(?:how\s+(?:many|much)\s+[a-z]+\b(?!.*\b(?:todos?|tasks?|list)\b)|round(?:ed)?\s+up$)",
            text,
            _F,
        )
    )


def word_problem(prompt: str) -> Intent | None:
    """The whole prompt read as one word problem, its sentences together ("The jacket is $80 and
    it's 25% off. What do I actually pay?"): rules.plan's last try before it refuses."""
    if len(prompt) > MAX_SPOKEN_ARITHMETIC_CHARS:
        return None
    text = " ".join(_PLEASE.sub("", normalize.numeric(prompt)).split())
    told = story(text)
    if told is None:
        return None
    made = calculation(prompt.strip(), _whole(text, told[0]), "", told[1])
    return replace(made, then=told[2]) if len(told) > 2 else made


def _whole(text: str, expr: str) -> str:
    """ "how many full weeks in 100 days": only whole ones count."""
    whole = _WHOLE.search(text) and "/" in expr and not expr.startswith(("floor(", "ceil("))
    return f"floor({expr})" if whole else expr


def _lead_stripped(text: str) -> str:
    m = _CALC_VERB.match(text.strip())
    return m.group("expr") if m else text


# What a divisor counts ("divided by 24 months", "/ 4 people"): the number divides, the word tells.
_COUNT_AFTER_DIVISOR = re.compile(
    r"((?:divided\s+by|/|over)\s*\d+(?:\.\d+)?)\s+(?:months|weeks|days|years|people|persons|kids|instal?lments|payments"
    r"|shares|ways)\b",
    _F,
)
_UNIT_AFTER_NUMBER = re.compile(
    rf"(\d)\s*{lexicon.alternation([u for u in lexicon.UNITS if len(u) > 2])}\b", _F
)


def to_expression(text: str) -> str | None:
    """Spoken arithmetic as an expression the calculator accepts, or None. A reference to an
    earlier result stays as RESULT_VALUE, in parentheses."""
    expr = normalize.substituted(_UNIT_AFTER_NUMBER, r"\1", text.replace("^", "**"))
    expr = normalize.substituted(_COUNT_AFTER_DIVISOR, r"\1", expr)  # "12 lakhs divided by 24 months"
    for pattern, symbol in _WORD_OPERATORS:
        expr = pattern.sub(f" {symbol} " if symbol else "", expr)
    expr = re.sub(r"(?<=[\d)])\s*x\s*(?=[\d(])", " * ", expr, flags=_F)
    expr = " ".join(expr.split())
    expr = _SPACED_PERCENT.sub("%", expr)  # "20 percent of" became "20 % of": write "20% of"
    if len(expr) > MAX_EXPRESSION_CHARS:
        return None  # the calculator would refuse it; parsing it could exhaust the parser
    check = _SCIENTIFIC.sub("1", expr)
    check = _FUNCTION_CALL.sub("f", check)
    # A percent sign (no operand after it) is dropped for the syntax check; "% of" is "times".
    check = PERCENT_SIGN.sub("", PERCENT_OF.sub("%*", check))
    if not expr or not _EXPRESSION_CHARS.fullmatch(check.replace("f(", "(")) or not _DIGIT.search(expr):
        return None
    try:
        ast.parse(check.replace("RESULT", "1"), mode="eval")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    return expr.replace("RESULT", f"({RESULT_VALUE})")


def calculation(
    clause: str, expr: str, refers: str, answer: str = "{{out.expression}} = {{out.value}}"
) -> Intent:
    """A calculator step; RESULT in `expr` is an earlier step's value, in parentheses."""
    if "RESULT" not in expr:
        refers = ""  # "it" was a word of the clause, not a number of the expression
    expr = expr.replace("RESULT", f"({RESULT_VALUE})")
    reasoning = f'"{clause}" is arithmetic: {expr}'
    return Intent(clause, "calculator", {"expression": expr}, reasoning, answer, refers=refers)


# Readings that answer in the unit asked themselves; the others add or multiply the amounts told,
# and _in_unit_asked gives their result in the unit the question asks for.
_UNIT_READINGS = frozenset([_area, _converted, _per_unit_asked])
