"""Word problems of packing and periods: how many packs, so much each period over a period, a
rate given, the hours between two clock times."""

from __future__ import annotations

import re
from fractions import Fraction

from planner_svc.grammar import lexicon
from planner_svc.grammar.arithmetic.arith_words import _F, Built, _value
from planner_svc.grammar.arithmetic.frame_builders import _UNIT
from planner_svc.grammar.arithmetic.story_words import _STORY_NUMBER

# "come in cartons of 12", "bags of 6", "vans that seat 12", "6-packs": a group of a size.
_GROUP_OF = re.compile(
    r"\b(?P<g>[a-z]{3,})\s+(?:of|(?:that\s+|which\s+|each\s+)?(?:seats?|holds?|fits?|takes?|carr(?:y|ies)|has|contains?"
    r"|sleeps?|feeds?|serves?))\s+(?P<m>\d+)\b(?!\s*%)"
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
    r"\b(?:need|needs|have\s+to|has\s+to|must|should\s+i|buy|order|get|rent|hire|book|round(?:ed)?\s+up|enough)\b",
    _F,
)
_ONLY_FULL = re.compile(
    r"\b(?:full|fill|whole|complete|can\s+(?:i|we|you)\s+(?:make|pour|fill|get|cut))\b", _F
)
_HOW_MANY_GROUPS = re.compile(r"\bhow\s+many\s+(?:full\s+|whole\s+|complete\s+)?(?P<q>[a-z]+)\b", _F)
_LEFT_OVER = re.compile(r"\b(?:left\s*over|leftover|remain|remaining|spare)\b", _F)


_UNIT_AFTER = re.compile(rf"\s*-?\s*(?P<u>{_UNIT})", _F)


def _in_one_unit(text: str, n: str, n_end: int, size: str, size_end: int) -> tuple[str, str, str, str] | None:
    """The count and the group's size (each told ending where `*_end` says) in one unit, and
    each as told: as told when neither has a unit or both have the same; the count converted to
    the size's unit when both are of one kind ("2 litre", "250 ml": 2 * 1000 / 1); None when one
    has a unit and the other none, or another kind."""
    units = []
    for end in (n_end, size_end):
        after = _UNIT_AFTER.match(text, end)
        units.append(after.group("u").lower() if after else None)
    if units[0] == units[1]:
        return n, size, n, size
    if None in units or lexicon.UNITS[units[0]][0] != lexicon.UNITS[units[1]][0]:
        return None
    ratio = Fraction(lexicon.UNITS[units[0]][1]) / Fraction(lexicon.UNITS[units[1]][1])
    return f"{n} * {ratio.numerator} / {ratio.denominator}", size, f"{n} {units[0]}", f"{size} {units[1]}"


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
    told_size = "m" if g.group("m") else "m2"
    size, noun = g.group(told_size), g.group("g" if told_size == "m" else "g2")
    count = [m for m in numbers if m.start() != g.start(told_size)]
    if len(count) != 1 or "." in size or float(size) <= 0:
        return None
    n, noun = count[0].group("n"), _singular(noun)
    if (measured := _in_one_unit(text, n, count[0].end("n"), size, g.end(told_size))) is None:
        return None  # "a 2 litre bottle, glasses of 250 ml": never 2 / 250
    n, size, told, sized = measured  # (the answer says each as told)
    asked = _HOW_MANY_GROUPS.search(text)
    if _LEFT_OVER.search(text):
        return f"{n} % {size}", f"{told} in groups of {sized} leaves {_value()} over"
    if asked is None or _singular(asked.group("q")) != noun:
        return None  # "how many" asks about something else than the groups
    said = asked.group("q").lower()  # the groups as the question names them ("buses", "boxes")
    if _ONLY_FULL.search(text):
        return f"floor({n} / {size})", f"{told} fills {_value()} full {said} of {sized}"
    if _ROUND_UP.search(text):
        return f"ceil({n} / {size})", f"{told} needs {_value()} {said} of {sized}"
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
    r"\b(?:how\s+(?:much|many)|what\s+is\s+(?:that|it|this))\b.*\b(?:over|in|for|per|a|each)\s+(?:a\s+|one\s+|the\s+|1\s+)?(?:whole\s+|full\s+)?"
    r"(?P<p>week|year)\s*\??$",
    _F,
)
_PERIODS_IN = {("day", "week"): 7, ("day", "year"): 365, ("week", "year"): 52, ("month", "year"): 12}


# "save 15% of my 2300 pay every month": a part of an amount, each period.
_PART_EACH_PERIOD = re.compile(
    r"(?<![\d.])(?P<pct>\d+(?:\.\d+)?)\s*(?:%|percent|per\s+cent)\s+of\s+(?:my\s+|our\s+|the\s+|his\s+|her\s+)?"
    r"(?P<n>\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,2}?(?:a|an|per|each|every)\s+(?P<p>day|week|month)\b",
    _F,
)


def _over_a_period(text: str) -> Built:
    over = _OVER_PERIOD.search(text)
    if over is None:
        return None
    part = _PART_EACH_PERIOD.search(text)  # (its percentage is a second number told)
    each = part or _EACH_PERIOD.search(text)
    if each is None or len(_STORY_NUMBER.findall(text)) != (2 if part else 1) or each.start() > over.start():
        return None
    times = _PERIODS_IN.get((each.group("p").lower(), over.group("p").lower()))
    if times is None:
        return None
    n = f"{part.group('pct')}% of {part.group('n')}" if part else each.group("n")
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


_HOW_MUCH = re.compile(r"\bhow\s+(?:much|many)\b", _F)


def _singular(word: str) -> str:
    word = word.lower()
    if re.search(r"(?:ss|x|ch|sh|us)es$", word):  # "buses", "boxes", "lunches": the "es" goes
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith(("ss", "us")) else word


# "3 shifts of 12.5 hours", "and 1 of 8", "2 boxes of 6 eggs each": so many groups of a size (a
# later one may leave the noun and unit said once before).
_GROUPS_OF_SIZE = re.compile(
    r"(?<![\d.])(?P<n>\d+)\s+(?:(?P<w>[a-z]{3,})\s+)?of\s+(?P<s>\d+(?:\.\d+)?)(?![\d.])\s*"
    rf"(?P<u>{_UNIT}|(?!this\b)[a-z]{{2,}}s\b)?(?:\s+each)?(?!\s*(?:x|by|\*|%|percent)\b)",
    _F,
)
_TOTAL_ASKED = re.compile(r"\b(?:how\s+(?:much|many)|total|altogether|in\s+all|combined)\b", _F)


def _groups_summed(text: str) -> Built:
    """ "3 shifts of 12.5 hours and one of 8, how many hours in total" (3 * 12.5 + 1 * 8), "3
    boxes of 12 eggs and 2 boxes of 6, how many eggs": two or more counts of groups of a size,
    the first naming what the groups are, in one unit, and a total asked. Every number told must be
    a count or a size."""
    terms = list(_GROUPS_OF_SIZE.finditer(text))
    if len(terms) < 2 or not terms[0].group("w") or not _TOTAL_ASKED.search(text):
        return None
    used = {t.start(g) for t in terms for g in ("n", "s")}
    if any(m.start() not in used for m in _STORY_NUMBER.finditer(text)):
        return None
    unit = terms[0].group("u")
    if any(t.group("u") and unit and _singular(t.group("u")) != _singular(unit) for t in terms[1:]):
        return None  # "2 bags of 5 kg and 1 of 3 lb": no one sum
    sum_of = " + ".join(f"{t.group('n')} * {t.group('s')}" for t in terms)
    each = f" {unit}" if unit else ""
    told = " and ".join(f"{t.group('n')} of {t.group('s')}{each}" for t in terms)
    return sum_of, f"{terms[0].group('w')}: {told} is {_value()}{each} in all"
