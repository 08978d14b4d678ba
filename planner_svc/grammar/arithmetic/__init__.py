"""Arithmetic frames: a clause that asks for a number becomes one calculator expression, with the
sentence its answer reads as.

A clause is read after normalize.numeric (numbers as digits, no money signs). First the frames
(arith_frames.py), each a phrasing family with its slots; then, for anything else, the clause
read as spoken arithmetic (spoken.py), which must turn into an expression the calculator
accepts; or, for a prompt that tells a story, a word problem (story_*.py). A number may be an
earlier result ("half of that"): RESULT, bound by stages/binding._bind to the latest calculator
step (or the thread's last result)."""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.grammar import lexicon, normalize
from planner_svc.grammar.arithmetic.arith_frames import _BINARY_WORDS, _COMPILED
from planner_svc.grammar.arithmetic.arith_words import (
    _AS_DECIMAL,
    _CALC_VERB,
    _DIGIT,
    _EQUALS_WHAT,
    _F,
    _OPERATION,
    _ORDINAL_POWER,
    _PLEASE,
    _RESULT_WORD_HINTS,
    _RESULT_WORDS,
    _TRAILING_VERB,
    MAX_SPOKEN_ARITHMETIC_CHARS,
    NUM,
    _value,
    digits_said,
)
from planner_svc.grammar.arithmetic.frame_builders import _FOR, _ONE_UNIT, _UNIT
from planner_svc.grammar.arithmetic.spoken import _whole, calculation, to_expression
from planner_svc.grammar.arithmetic.story_top import (
    _PARTS,
    QUESTION_TAIL,
    part_of_a_story,
    story,
    word_problem,
)
from planner_svc.grammar.arithmetic.story_words import _STORY_WORDS, _UNIT_MENTION, with_others
from planner_svc.grammar.intent import RESULT_VALUE, RESULT_WORD, RESULTS_COUNT, RESULTS_JOINED, Intent

__all__ = [
    "QUESTION_TAIL",
    "TOTAL_REFERENCE",
    "again",
    "calculation",
    "parse",
    "part_of_a_story",
    "story",
    "to_expression",
    "total_after",
    "word_problem",
]


# "split the total among 5": the total of what came before. After a tip, that is the bill and
# the tip together (stages/shaping._expanded adds that step); after any other sum, the sum.
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


# "and in hours?", "what about in miles": the same amount, in another unit
_AGAIN_IN = re.compile(
    rf"^(?:(?:and|what\s+about|how\s+about|and\s+what\s+about|ok|so)\s+)*(?:in|into|to|as)\s+(?P<u>{_UNIT})"
    r"(?:\s+(?:then|instead|please))?$",
    _F,
)


def asks_in_unit(clause: str) -> bool:
    return bool(_AGAIN_IN.match(clause.strip(" ?.!")))


def again_in(asked_clause: str, clause: str) -> Intent | None:
    """The one amount of a conversion (or of a request that says one amount in a unit: "how
    many weeks is 91 days?") in the unit `clause` asks for ("and in hours?"); None when it is no
    such follow-up, or the request has not one amount in a unit of that kind."""
    if not (m := _AGAIN_IN.match(clause.strip(" ?.!"))):
        return None
    units = list(_UNIT_MENTION.finditer(asked_clause))
    amounts = [u for u in units if u.group("n")]
    if len(amounts) != 1 or len(units) != 2:
        return None  # a conversion asked ("how many weeks is 91 days"), not a sum of an amount
    (old,) = amounts
    to = m.group("u").lower()
    if lexicon.UNITS[old.group("u").lower()][0] != lexicon.UNITS[to][0] or old.group("u").lower() == to:
        return None
    made = parse(f"convert {old.group('n')} {old.group('u')} to {m.group('u')}")
    return None if made is None or made.refers else replace(made, clause=clause)


def again(asked: Intent, clause: str) -> Intent | None:
    """The conversion before, asked again of another amount ("how many km is 3 miles? and 6
    miles?") or in another unit ("and in hours?"): the same question with the new amount, or None
    when `clause` is no such follow-up or the question before had not one amount in a unit of the
    same kind."""
    if asked.tool != "calculator" or asked.then is not None:
        return None
    if not (m := _AGAIN_FOR.match(clause)):
        return again_in(asked.clause, clause)
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
    # "how much each to the nearest penny", "... to the cent": money to two decimals
    r"|(?:rounded\s+|round(?:ed)?\s+off\s+|round(?:ed)?\s+)?to\s+the\s+(?:nearest\s+)?(?P<cent>penny|cent|pence)"
    # "... to the nearest degree", ", nearest whole number", "round to whole number": a whole one
    r"|(?:(?:rounded|round(?:ed)?\s+off|round)\s+)?(?:to\s+)?(?:the\s+)?(?:nearest\s+(?:whole(?:\s+number)?|integer"
    r"|degree|dollar|pound|euro|minute|hour|km|kilometre|kilometer|mile|kg|kilo|unit|number)|whole\s+number)"
    # "... in miles to one decimal", "to 2 dp": so many decimals
    r"|(?:(?:rounded|round(?:ed)?\s+off|round)\s+)?to\s+(?P<w>one|two|three|1|2|3)\s+(?:decimal(?:\s+places?)?|decimals|dp)"
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
    # "and what do they add up to?"
    r"|what\s+do\s+(?:they|those|these|both|the\s+two)\s+(?:add\s+up\s+to|come\s+to|make(?:\s+together)?|total)"
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
    if (
        (m := _MODIFIER.search(clause))
        and m.start() > 0
        and not clause.lstrip().lower().startswith("round")  # "round 3.14159 to 2 dp": the frames read it
        and (modified := _modified(clause, m)) is not None
    ):
        return modified
    return _parse(clause)


_BARE_DECIMAL = re.compile(r"(?:what\s+is\s+|calculate\s+)?(?P<n>-?\d+\.\d+)", _F)


def _modified(clause: str, m: re.Match[str]) -> Intent | None:
    """A calculation of its own with what its last words ask of the value, or None. Only a whole
    calculation of numbers said (no earlier result, nothing after it): the value it wraps is
    that calculation's and nothing else's."""
    inner = _parse(clause[: m.start()])
    bare = _BARE_DECIMAL.fullmatch(clause[: m.start()].strip())
    if bare is not None and not m.group("pct"):
        # "what's 45.7 rounded down": a number said with its decimals, rounded ("7 rounded down"
        # is read by the rounding rules, or not at all)
        inner = calculation(clause, bare.group("n"), "", "")
    if inner is None or inner.refers or inner.then is not None:
        return None
    expr = inner.arguments["expression"]
    if not _OPERATION.search(expr.lstrip("-")) and bare is None:
        return None
    if way := m.group("way"):
        wrapped, how = f"{'floor' if way.lower() == 'down' else 'ceil'}({expr})", f"rounded {way.lower()}"
    elif m.group("pct"):
        return calculation(clause, f"({expr}) * 100", "", f"{expr} as a percentage is {_value()}%")
    elif m.group("cent"):
        wrapped, how = f"round({expr}, 2)", "to the nearest cent"
    elif digits := m.group("d") or digits_said(m.group("w")):
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


_ROUNDING_ALONE = re.compile(
    r"(?:to\s+)?(?:the\s+)?nearest\s|to\s+the\s+(?:cent|penny|pence)$|to\s+(?:one|two|three)\s+dec"
)


def _parse(clause: str) -> Intent | None:
    text = _AS_DECIMAL.sub("", _PLEASE.sub("", normalize.numeric(clause)).strip(" ,"))
    if (text := with_others(text)) is None:  # type: ignore[assignment]
        return None
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
        or _ROUNDING_ALONE.match(lowered)  # "... how much at the end? to the cent"
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
