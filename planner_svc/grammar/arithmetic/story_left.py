"""What is left: "I had 200 dollars. I spent 45 on food and 30 on gas. How much is left?", "Sara
bought 3 boxes of 12 eggs. 5 broke. How many are left?", "I spent 45 on groceries and 38 on
petrol. My weekly budget is 200, how much have I got left?": the whole, less each amount taken
from it. Every number told must be the whole, a pack's size, or an amount taken (said after a
verb of taking, or joined to one by "and" or a comma); anything else is not read here. And the
change given back for a note ("total was 37.85, I paid with a 50")."""

from __future__ import annotations

import re

from planner_svc.grammar.arithmetic.arith_words import _F, Built, _value
from planner_svc.grammar.arithmetic.frame_builders import _UNIT, _spoken_list
from planner_svc.grammar.arithmetic.story_words import _EACH, _STORY_NUMBER, cost_of

_N = r"[$\u00a3\u20ac]?(?P<n>\d+(?:\.\d+)?)"
_IN_UNIT = rf"(?:\s*{_UNIT})?"  # "weighed 68.4kg", "lost 2.7 kg": the unit, written close or not
# "I had 3 dozen eggs and used 14": the whole, had first; or a budget, said anywhere
_HAD = re.compile(
    rf"\b(?:had|have|bought|got|baked|made|started\s+(?:with|at)|weighed|was(?:\s+at)?)\s+{_N}{_IN_UNIT}\b"
    r"(?!\s+(?:more|extra|others?)\b)",
    _F,
)
_BUDGET = re.compile(rf"\b(?:budget|allowance|balance)\s+(?:is|was|of)\s+(?:about\s+)?{_N}\b", _F)
_TAKING = (
    r"used|ate|eaten|gave\s+away|gave|sold|spent|lost|broke|drank|took|gave\s+out|handed\s+out|paid|donated"
    r"|spend|pay|use|lose"
)
# "spent 45", "gave away 3", "spent about 45": an amount taken, after its verb
_TAKEN_AFTER = re.compile(rf"\b(?:{_TAKING})\s+(?:(?:away|out|about|around)\s+)?{_N}{_IN_UNIT}\b", _F)
# "5 broke on the way home", "3 of them went off": an amount taken, before its verb
_TAKEN_BEFORE = re.compile(
    rf"{_N}\s+(?:of\s+(?:them|those|these)\s+)?(?:broke|got\s+broken|went\s+off|got\s+eaten|were\s+eaten"
    r"|were\s+broken|got\s+lost|were\s+lost|died|were\s+sold|got\s+sold)\b",
    _F,
)
# "... 45 on food and 30 on gas", "..., 12 on snacks": one more amount of the same taking
_AND_MORE = re.compile(
    r"^(?:\s+(?:on|for|at)\s+(?:[a-z']+\s+){0,3}?[a-z']+)?\s*(?:,\s*and|,|and|plus)\s+[$\u00a3\u20ac]?$", _F
)
_LEFT_ASKED = re.compile(
    r"\bhow\s+(?:many|much)\b.*\b(?:left|remain(?:ing|s)?|still\s+have)\b"
    # "... lost 2.7kg, what do I weigh now", "how much do I have now"
    r"|\bhow\s+(?:many|much)\s+(?:do|does)\s+(?:i|we|he|she|they)\s+(?:have|weigh)\s+now\b"
    r"|\bwhat\s+(?:do|does)\s+(?:i|we|he|she|they)\s+weigh(?:\s+now)?\b",
    _F,
)
# "I had 3 boxes of 24 eggs": so many packs of so many each.
_PACKS_OF = re.compile(
    r"\s*(?:boxes|packs|packets|cartons|bags|crates|trays|cases|tins|jars|rolls|bottles)\s+of\s+(?P<k>\d+)\b",
    _F,
)


def _what_is_left(text: str) -> Built:
    numbers = list(_STORY_NUMBER.finditer(text))
    if not _LEFT_ASKED.search(text) or any(m.group("pct") for m in numbers):
        return None
    had = _HAD.search(text)
    budget = _BUDGET.search(text)
    whole = budget if budget is not None and (had is None or had.start("n") != budget.start("n")) else had
    if whole is None or (had is not None and budget is not None):
        return None  # two wholes: which one is spent from is not said
    packs = _PACKS_OF.match(text, whole.end()) if whole is had else None
    said = {whole.start("n")} | ({packs.start("k")} if packs else set())
    taken: dict[int, str] = {}
    for found in [*_TAKEN_AFTER.finditer(text), *_TAKEN_BEFORE.finditer(text)]:
        taken[found.start("n")] = found.group("n")
    for number in numbers:  # "45 on food and 30 on gas": joined to a taken amount before it
        start = number.start("n")
        if start in said or start in taken:
            continue
        before = [t for t in taken if t < start]
        if before and _AND_MORE.match(_after_number(text, max(before), start)):
            taken[start] = number.group("n")
    if not taken or {m.start("n") for m in numbers} != said | set(taken):
        return None  # a number that is neither the whole nor taken from it
    if whole is had and min(taken) < whole.start("n"):
        return None  # "used 3, had 10": had first, then what went
    n = f"{whole.group('n')} * {packs.group('k')}" if packs else whole.group("n")
    amounts = [taken[t] for t in sorted(taken)]
    told = f"{whole.group('n')} times {packs.group('k')}" if packs else whole.group("n")
    less = _spoken_list(amounts) if len(amounts) > 1 else amounts[0]
    return f"{n} - " + " - ".join(amounts), f"{told}, less {less}, leaves {_value()}"


def _after_number(text: str, start: int, end: int) -> str:
    """The words between the number at `start` (after its digits) and `end`."""
    digits = re.match(r"\d+(?:\.\d+)?", text[start:])
    return text[start + (digits.end() if digits else 0) : end]


# "total was 37.85 and I paid with a 50, how much change": what is given back, the note less the total
_PAID_WITH = re.compile(
    rf"\b(?:paid|pay|paying)\s+(?:with|using)\s+(?:a|an|one)?\s*{_N}(?:\s*(?:note|bill|dollar\s+bill|euro\s+note))?\b"
    r"|\b(?:gave|give|handed|hand)\s+(?:(?:him|her|them|the\s+(?:cashier|driver|guy|waiter))\s+)?(?:a|an)\s+"
    r"[$\u00a3\u20ac]?(?P<m>\d+(?:\.\d+)?)\b",
    _F,
)
_CHANGE_ASKED = re.compile(
    r"\bhow\s+much\s+change\b|\bwhat(?:'s|\s+is|\s+will\s+be)\s+(?:my|the)\s+change\b", _F
)


def _change_given(text: str) -> Built:
    if not _CHANGE_ASKED.search(text) or not (paid := _PAID_WITH.search(text)):
        return None
    numbers = [m for m in _STORY_NUMBER.finditer(text) if not m.group("pct")]
    given = paid.group("n") or paid.group("m")
    owed = [m.group("n") for m in numbers if m.group("n") != given]
    if len(numbers) > 2 and (cost := _priced(text[: paid.start()], len(numbers) - 1)) is not None:
        # "3 notebooks at 4.50 each and a pen for 2, paid with a 20": the note less what they cost
        return f"{given} - ({cost})", f"{given} less {cost} is {_value()} in change"
    if len(numbers) != 2 or len(owed) != 1 or float(given) < float(owed[0]):
        return None  # one total and the note it was paid with, or not read here
    return f"{given} - {owed[0]}", f"{given} less {owed[0]} is {_value()} in change"


def _priced(bought: str, told: int) -> str | None:
    """What the things bought cost ("3 notebooks at 4.50 each and a pen for 2": 3 * 4.50 + 2),
    when every number told before the note is a count or a price of them; else None."""
    pairs = list(_EACH.finditer(bought))
    if not pairs or sum(2 if m.group("k") else 1 for m in pairs) != told:
        return None
    return " + ".join(map(cost_of, pairs))


# "my goal is 63", "target of 5000", "I want to get down to 63": where the person wants to be
_GOAL = re.compile(
    r"\b(?:goal|target|aim)\s+(?:is|was|of|:)?\s*(?:to\s+(?:reach|hit|get\s+to|be(?:\s+at)?|have|save)\s+)?"
    r"(?:about\s+)?[$\u00a3\u20ac]?(?P<n>\d+(?:\.\d+)?)\b"
    r"|\bwant\s+to\s+(?:get|be|come)\s+(?:down\s+|up\s+)?to\s+[$\u00a3\u20ac]?(?P<m>\d+(?:\.\d+)?)\b",
    _F,
)
_TO_GO_ASKED = re.compile(
    r"\bhow\s+(?:much|many)\b(?:\s+[a-z]+)?\s+(?:more|further|still|else|left)\b"
    r"|\bhow\s+(?:much|many)\b.*\b(?:still|to\s+go|left)\b|\bhow\s+far\s+(?:off|away|from\s+it)\b",
    _F,
)


def _to_go(text: str) -> Built:
    """ "I'm at 68.4kg and my goal is 63, how much do I still have to lose?", "saved 1200, target
    is 5000, how much more?": the distance from where the person is to the goal they set. Two
    numbers, one of them the goal; what is asked is what is still to go."""
    numbers = list(_STORY_NUMBER.finditer(text))
    goal = _GOAL.search(text)
    if (
        goal is None
        or len(numbers) != 2
        or any(m.group("pct") for m in numbers)
        or not _TO_GO_ASKED.search(text)
    ):
        return None
    at = goal.start("n") if goal.group("n") else goal.start("m")
    (now,) = [m.group("n") for m in numbers if m.start("n") != at] or [None]
    if now is None or len([m for m in numbers if m.start("n") == at]) != 1:
        return None
    target = goal.group("n") or goal.group("m")
    far, near = (target, now) if float(target) >= float(now) else (now, target)
    return f"{far} - {near}", f"From {now} to {target} is {_value()} to go"
