"""A word problem read by its slots (`story`, trying each reader), whether a clause can be one of
its sentences, and a whole prompt read as one."""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.grammar import normalize
from planner_svc.grammar.arithmetic.arith_words import _DIGIT, _F, _PLEASE, MAX_SPOKEN_ARITHMETIC_CHARS
from planner_svc.grammar.arithmetic.spoken import _whole, calculation
from planner_svc.grammar.arithmetic.story_left import _change_given, _to_go, _what_is_left
from planner_svc.grammar.arithmetic.story_parts import (
    _HOW_MANY_PER,
    _averaged,
    _by_the_dozen,
    _part_percent,
    _per_unit_asked,
    _proportional,
    _share,
)
from planner_svc.grammar.arithmetic.story_pay import (
    _ME_AND,
    _ORIGINAL_TOLD,
    _WE_ARE,
    _area,
    _before_change,
    _hourly,
    _included_part,
    _interest,
    _margin,
    _paid,
    _priced,
    _rounded_story,
    _years_between,
)
from planner_svc.grammar.arithmetic.story_prices import (
    _bought,
    _changed,
    _converted,
    _cost_of_counted,
    _count_priced,
    _grouped,
    _pack_price,
    _price_of_one,
    _taxed_or_twice_off,
)
from planner_svc.grammar.arithmetic.story_quantities import (
    _given_rate,
    _groups_summed,
    _over_a_period,
    _packed,
    _time_span,
)
from planner_svc.grammar.arithmetic.story_shared import _shared_with_extras
from planner_svc.grammar.arithmetic.story_time import (
    _AREA,
    _HEADS_AFTER,
    _PER_SLASH,
    _UNREAD,
    _in_unit_asked,
    _periods_to_save,
    _score_needed,
    _speed,
)
from planner_svc.grammar.arithmetic.story_words import (
    _NOT_A_STORY,
    _STORY_NUMBER,
    _STORY_WORDS,
    _TEMPERATURE_MENTION,
    _UNIT_MENTION,
    _Slots,
    _told,
    with_others,
)
from planner_svc.grammar.intent import Intent

_EACH_WAY = re.compile(r"\b(?:each|one|either)\s+way\b", _F)


def story(text: str) -> tuple[str, str] | None:
    """A word problem read by its slots: which numbers are percentages, which count people,
    which carry a unit, and which words say tip, discount, split, up, down, total or "from A to
    B". Each reading needs exactly the numbers it uses and no other ("a shirt costs $40 and is
    25% off": 40 - 25% of 40); anything else is not read as a story."""
    text = normalize.substituted(_PER_SLASH, r"\1 per \2", text)
    if (text := with_others(text)) is None:  # type: ignore[assignment]
        return None
    if _EACH_WAY.search(text):
        return None  # "2.75 each way, I commute 5 days": how many trips a day is not told
    plain = [m.group("n") for m in _STORY_NUMBER.finditer(text) if not m.group("pct")]
    if len(plain) == 1 and re.search(
        rf"\b(?:when|if|once)\s+(?:you|u|i|we|they)\s+(?:buy|get|order|take)\s+{plain[0]}\b", text, _F
    ):
        return None  # "25% off when u buy 6": how many, and no price to take it off
    if (span := _time_span(text)) is not None or (span := _given_rate(text)) is not None:
        return span
    if (span := _over_a_period(text)) is not None or (span := _groups_summed(text)) is not None:
        return span
    if (span := _speed(text)) is not None or (span := _score_needed(text)) is not None:
        return span
    if (span := _periods_to_save(text)) is not None:
        return span
    told = _told(text)  # (read once: the readings below take their slots from it too)
    if (shared := _shared_with_extras(told)) is not None:
        return shared  # (before the guard below: "plus 10 delivery" and "+ 10% tip" are its words)
    if not _NOT_A_STORY.search(text) and (
        (packed := _packed(text)) is not None
        or (packed := _taxed_or_twice_off(text)) is not None
        or (packed := _what_is_left(text)) is not None
        or (packed := _to_go(text)) is not None
        or (packed := _change_given(text)) is not None
        or (packed := _part_percent(text)) is not None
        or (packed := _by_the_dozen(text)) is not None
        or (packed := _included_part(text)) is not None
        or (packed := _before_change(text)) is not None
    ):
        # before the words a story cannot honour: "left over", "before GST", "pre-tax" are read here
        return packed
    # (an original price told is the amount to read: "35% off, original price 48, what do I pay")
    if _NOT_A_STORY.search(text) or (
        _UNREAD.search(_ORIGINAL_TOLD.sub(" ", text)) and "percent" not in text.lower()
    ):
        return None
    _, said, numbers, rates, heads, amounts = told
    if not heads and (we := _WE_ARE.search(text)) and we.group("k") in amounts:  # "we are 3 and ..."
        heads, amounts = [we.group("k")], [a for a in amounts if a != we.group("k")]
    if len(heads) == 1 and (plus := _ME_AND.search(text)) and plus.group("k") == heads[0]:
        heads = [str(int(plus.group("k")) + 1)]  # "me and 4 friends": five of us
    if "split" in said and not heads and (after := _HEADS_AFTER.search(text)) and after.group("k") in amounts:
        heads, amounts = (
            [after.group("k")],
            [a for a in amounts if a != after.group("k")] or amounts,
        )  # "split between 4"
    if (heads or "split" in said) and _SHARE_QUALIFIED.search(text):
        return None  # "split 300 between the 3 of us but Sam pays double": not equal shares
    slots = _Slots(text, said, numbers, rates, heads, amounts)
    if "area" in said and _AREA.search(text):
        return _area(slots)  # sides told, an area asked: no other reading adds them up
    # A rate times its count (_paid) before a total of the numbers told (_bought): "180 days a
    # year for 38 years, in total?" multiplies.
    for read in (
        _area,
        _pack_price,
        _price_of_one,
        _cost_of_counted,
        _years_between,
        _margin,
        _grouped,
        _count_priced,
        _rounded_story,
        _changed,
        _converted,
        _hourly,
        _paid,
        _bought,
        _averaged,
        _share,
        _proportional,
        _per_unit_asked,
        _interest,
    ):
        if (found := read(slots)) is not None:
            if read in _ONE_PERIOD and _another_period(text):
                return None  # "10.99, 11.99 a month - how much a year": no sum of them answers that
            return found if read in _UNIT_READINGS else _in_unit_asked(text, found)
    if len(amounts) != 1 or len(rates) > 1 or len(heads) > 1 or _another_period(text):
        return None  # ("save 15% of my 2300 pay every month, how much in a year": not 15% off)
    return _in_unit_asked(text, _priced(text, said, amounts[0], rates, heads))


# Words that make shares unequal, or leave someone out: a split read as equal shares would be wrong.
_SHARE_QUALIFIED = re.compile(
    r"\b(?:but|except|apart\s+from|other\s+than|besides|double|twice|triple|half|extra|more\s+than|less\s+than"
    r"|(?:does|do)\s*(?:n't|not)\s+pay|not\s+paying|doesnt\s+pay)\b",
    _F,
)
# Readings of amounts of one period: a question for another one is none of theirs.
_ONE_PERIOD = frozenset([_bought, _averaged, _share])
_PERIOD = re.compile(
    r"\b(?:a|an|per|each|every|in\s+a|in\s+one|for\s+a|for\s+the|this|that|the|one|whole)\s+"
    r"(?P<p>day|week|fortnight|month|year|hour|minute)s?\b|\b(?P<q>daily|weekly|monthly|yearly|annually|hourly)\b",
    _F,
)
_PERIOD_OF = {
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "yearly": "year",
    "annually": "year",
    "hourly": "hour",
}


def _another_period(text: str) -> bool:
    """Whether `text` speaks of two periods ("a month", "a year"): a sum of amounts of one is no
    answer for the other."""
    said = {(m["p"] or _PERIOD_OF[m["q"].lower()]).lower() for m in _PERIOD.finditer(text)}
    return len(said) > 1


# A sentence that only asks for what the one before it describes ("a shirt costs $40 and is 25%
# off. what's the sale price?"): it may be read with that sentence, as one clause.
QUESTION_TAIL = re.compile(
    r"^(?:the\s+)?(?:total|sum|altogether|in\s+total|grand\s+total|all\s+together)$"
    r"|^(?:so\s+|and\s+)?how\s+far\s+(?:does|do|did|will|would|can)\s+(?:it|i|we|you|they|she|he)\s+"
    r"(?:go|get|travel|drive|run|ride|walk|fly)$"
    r"|^(?:and\s+)?(?:the\s+)?(?:new|final|total)\s+(?:rent|price|total|amount|salary|cost|bill|balance|value|pay)$"
    r"|^(?:so\s+|and\s+)?how\s+many\s+[a-z]+(?:\s+(?:a|an|per|each)\s+[a-z]+)?"
    r"\s+(?:is\s+that|in\s+total|altogether|total|do\s+i\s+have(?:\s+in\s+total)?)$"
    r"|^(?:so\s+|and\s+|then\s+)?(?:what(?:\s+is|\s+would|\s+will|\s+does|\s+do)?|how\s+much)\b(?:\s+(?:is|would|will|do|does"
    r"|did|should|the|that|it|i|we|they|each|of|us|new|final|sale|total|price|cost|bill|salary|amount|owe|pay|be"
    r"|pays|owes|gets|get"
    r"|come|to|person|per|one|everyone|everybody|altogether|in|all|now|then|after|left|payment|rent|tip|actually"
    r"|really|this|my|our|spend|spent|get|got|make|earn|earned|end|up|with|before|taxes|tax|used|worth|was|were"
    r"|original|originally|full|regular|gross|net|weekly|monthly|yearly|annual|wage|wages|salary|earnings"
    r"|income|take-home|hourly|rate|pace|change))*$",
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
            r"^(?:so\s+|and\s+)?(?:how\s+(?:many|much)\s+[a-z]+\b(?!.*\b(?:todos?|tasks?|list)\b)|round(?:ed)?\s+up$"
            r"|what\s+(?:do|does)\s+(?:i|we|he|she|they)\s+weigh(?:\s+now)?$)",
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


# Readings that answer in the unit asked themselves; the others add or multiply the amounts told,
# and _in_unit_asked gives their result in the unit the question asks for.
_UNIT_READINGS = frozenset([_area, _converted, _per_unit_asked])
