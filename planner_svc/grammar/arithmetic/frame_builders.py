"""What each arithmetic frame builds from its slots: the expression and the sentence its answer
reads as (a sum, a percentage of, an increase, a tip, a split, a conversion, a rounding)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from fractions import Fraction

from planner_svc.grammar import lexicon
from planner_svc.grammar.arithmetic.arith_words import _F, _LIST_ITEM, _PCT, NUM, Built, _value
from planner_svc.grammar.arithmetic.spoken import _lead_stripped, to_expression


def _numbers(text: str) -> list[str]:
    return _LIST_ITEM.findall(text)


def _spoken_list(numbers: list[str]) -> str:
    """3, 9 and 12"""
    return ", ".join(numbers[:-1]) + f" and {numbers[-1]}"


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


def _round_result_said(m: re.Match[str]) -> Built:
    """ "to the cent": two decimals; "to one decimal": one; "nearest whole number": none."""
    digits = (
        "2"
        if m.group("cent")
        else {"one": "1", "two": "2", "three": "3"}.get((m.group("w") or "").lower(), m.group("w"))
    )
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
        sign = operator or ("+" if m.group("way").lower() in ("up", "more", "higher") else "-")
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


# "what's the percent drop", "by what percent did it fall": the size of a fall, asked as one
_ASKED_A_FALL = re.compile(
    r"\b(?:drop(?:s|ped)?|fall|falls|fell|decrease[sd]?|decline[sd]?|loss|lose|losing|lost|down|reduction|cheaper)\b",
    _F,
)
_ASKED_A_RISE = re.compile(r"\b(?:rise|rose|increase[sd]?|gain(?:ed)?|up|growth|grew|more)\b", _F)
# "... what's the percentage change": a change asked for is signed, however the story went
_ASKED_A_CHANGE = re.compile(r"(?:percent(?:age)?|%)\s+(?:change|difference)\b|\bchange\s+in\s+percent", _F)


def asked_a_drop(text: str, a: str, b: str) -> bool:
    """Whether `text` asks how much something dropped from a to b (a positive percent), not its
    change (signed): "dropped from 240 to 198, what's the percent drop" is 17.5."""
    return (
        float(b) < float(a)
        and bool(_ASKED_A_FALL.search(text))
        and not _ASKED_A_RISE.search(text)
        and not _ASKED_A_CHANGE.search(text)
    )


def _percent_change(m: re.Match[str]) -> Built:
    a, b = m.group("a") or m.groupdict().get("a2") or "", m.group("b")
    if asked_a_drop(m.string, a, b):
        return f"({a} - {b}) / {a} * 100", f"From {a} to {b} is a drop of {_value()}%"
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


_FOR = (
    r"(?:\s+(?:people|persons|ways|friends|guys|of\s+us|of\s+them|parts|shares|roommates|flatmates|housemates"
    r"|colleagues|pieces|kids|children|grandkids|grandchildren|mates|students|guests|siblings))?"
)
_FOR_A_PERIOD = r"(?:\s+(?:for|over|in)\s+(?:the|a|one)\s+(?:year|month|week|day|term|semester|season))?"
_BILL = r"(?:\s+(?:bill|check|tab|meal|dinner|lunch|order|total))?"
_ITEM = r"(?:[a-z]+\s+){0,3}"
_RATE = rf"(?P<p>{NUM}){_PCT}"
