"""Word problems of speed and scores: the distance over the time, the score needed for an
average, a sum or product in the unit the question asks."""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon
from planner_svc.grammar.arithmetic.arith_words import _F, Built, _value
from planner_svc.grammar.arithmetic.frame_builders import _UNIT
from planner_svc.grammar.arithmetic.story_words import _STORY_NUMBER, _UNIT_MENTION

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


_UNIT_ASKED = re.compile(rf"\bhow\s+many\s+(?P<u>{_UNIT})|\bin\s+(?P<u2>{_UNIT})\s*\??$", _F)


_OF_A_RATE = re.compile(r"(?<![\d.])\d+(?:\.\d+)?\s*UNIT\s+(?:a|an|per|each)\s+[a-z]+", _F)
_PER_ASKED = re.compile(r"\s+(?:a|an|per|each)\s+(?P<p>[a-z]+)", _F)


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
    if _OF_A_RATE.search(text[: asked.start()].replace(target, "UNIT")) and (
        (per := _PER_ASKED.match(text, asked.end())) is None
        or re.search(rf"\b(?:a|an|per|each)\s+{re.escape(per.group('p'))}\b", text[: asked.start()], _F)
    ):
        # "7.5 hours a day, 5 days a week. how many hours a week is that": a rate of the unit asked
        # times how often, so in that unit, for the period told (never "a month" for a week's)
        return found
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


# "I need 3000 for a trip and I can save 250 a month, how many months?": the goal over what is put
# by each period, rounded up (the last period finishes it)
_SAVED_EACH = re.compile(
    r"\b(?:save|saving|put\s+(?:away|aside|by)|set\s+aside|pay\s+(?:off|back|in)|paying\s+(?:off|back))\s+"
    r"(?:about\s+|around\s+)?[$\u00a3\u20ac]?(?P<r>\d+(?:\.\d+)?)\s*(?:a|an|per|each|every)\s+"
    r"(?P<p>day|week|fortnight|month|year)\b",
    _F,
)
_GOAL = re.compile(
    # ("how many months till I have 1800": the goal said as when it is reached)
    r"\b(?:need|needs|want|goal\s+is|target\s+is|costs?|save\s+up|saving\s+up\s+for|owe|borrowed"
    r"|(?:till|until|before)\s+(?:i|we)\s+(?:have|reach|get\s+to|hit))\s+(?:to\s+save\s+)?"
    r"(?:about\s+|around\s+)?[$\u00a3\u20ac]?(?P<g>\d+(?:\.\d+)?)\b",
    _F,
)
_PERIODS_ASKED = re.compile(r"\bhow\s+(?:many|long)\s*(?P<p>days|weeks|fortnights|months|years)?\b", _F)


def _periods_to_save(text: str) -> Built:
    saved, goal, asked = _SAVED_EACH.search(text), _GOAL.search(text), _PERIODS_ASKED.search(text)
    numbers = [m for m in _STORY_NUMBER.finditer(text) if not m.group("pct")]
    if saved is None or goal is None or asked is None or len(numbers) != 2 or float(saved["r"]) <= 0:
        return None
    period = saved.group("p").lower()
    if asked.group("p") and asked.group("p").lower().rstrip("s") != period:
        return None  # "save 50 a week ... how many months": another unit than the one saved by
    r, g = saved.group("r"), goal.group("g")
    return f"ceil({g} / {r})", f"Putting by {r} a {period}, {g} takes {_value()} {period}s"
