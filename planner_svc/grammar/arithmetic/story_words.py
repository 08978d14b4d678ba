"""A word problem's cue words and numbers, each number by what it says it is (a percentage, a
head count, an amount in a unit): the slots every story reader reads."""

from __future__ import annotations

import re
from typing import NamedTuple

from planner_svc.grammar.arithmetic.arith_words import _F
from planner_svc.grammar.arithmetic.frame_builders import _ITEM, _UNIT

# --- word problems ----------------------------------------------------------------------------

_PEOPLE = (
    r"(?:people|persons|person|ways|friends|guys|of\s+us|of\s+them|kids|roommates|colleagues|coworkers|ppl"
    r"|children|grandchildren|grandkids|students|guests|nephews|nieces|siblings)"
)
# "split 90 with 2 friends", "I share the rent with my 3 flatmates": the speaker and those others,
# one more than the number said. "with 4 people" may count the speaker or not: not read.
_WITH_OTHERS = re.compile(
    r"\b(?:with|w/)\s+(?:my\s+|our\s+|the\s+)?(?P<k>\d+)\s+(?:other\s+)?(?P<who>friends|mates|buddies|pals|roommates"
    r"|room\s?mates|flatmates|flat\s?mates|housemates|colleagues|coworkers|co-workers|siblings|brothers|sisters"
    r"|cousins|others|people|persons|ppl)\b",
    re.IGNORECASE,
)


_SHARING = re.compile(r"\b(?:split|share|splitting|sharing|divide)", re.IGNORECASE)


def with_others(text: str) -> str | None:
    """`text` with a head count said as "with K others" as the people sharing, or None when
    that count is unclear ("with 4 people")."""
    if not (m := _WITH_OTHERS.search(text)) or not re.search(
        r"\b(?:split|share|splitting|sharing|divide)", text, re.I
    ):
        return text
    if m.group("who").lower() in ("people", "persons", "ppl"):
        return None
    return f"{text[: m.start()]}between {int(m.group('k')) + 1} people{text[m.end() :]}"


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
        r"\b(?:split|splitting|divide|each|per\s+(?:person|head)|share|divided\s+(?:between|among|for)|among"
        # "dinner was 96.60 for the 4 of us, what do I owe": one's share, asked
        r"|(?:what|how\s+much)\s+(?:do|does|should|would)\s+(?:i|we|everyone|everybody|each(?:\s+of\s+us)?)"
        r"(?:\s+each)?\s+owe)\b",
        _F,
    ),
    "up": re.compile(
        # ("round up" says how to round, never a rise)
        r"\b(?:increase[sd]?|(?<!round\s)(?<!rounded\s)(?<!rounding\s)up|raise[sd]?|rise|rises|rose|grow|grows|grew|more|higher|markup|tax|vat|gst|gain|gained|profit)\b",
        _F,
    ),
    "down": re.compile(
        r"\b(?:decrease[sd]?|(?<!round\s)(?<!rounded\s)(?<!rounding\s)down|drop(?:s|ped)?|fall|falls|fell|reduce[sd]?|cut|less|lower|loss|lost|cheaper)\b",
        _F,
    ),
    "total": re.compile(
        r"\b(?:total|totla|altogether|all\s+together|in\s+all|all\s+in|including|with\s+(?:the\s+)?tip|pay\s+in\s+all"
        r"|come\s+to|comes\s+to|the\s+take|takings"
        # "bill is 73.40, add 20% tip": the bill with it (but "how much do I add as a tip" asks the tip)
        r"|(?<!\bi\s)(?<!\bwe\s)(?:add|plus)\s+(?:an?\s+)?\d+(?:\.\d+)?\s*(?:%|percent)\s+(?:tip|gratuity))\b",
        _F,
    ),
    "change": re.compile(
        # ("from 92kg to 85kg": a unit after the number, with a space or none)
        r"\bfrom\s+(?P<a>-?\d+(?:\.\d+)?)(?:\s*[a-z]+)?\s+to\s+(?P<b>-?\d+(?:\.\d+)?)(?![\d.])(?:[a-z]+\b)?",
        _F,
    ),
    "tax_amount": re.compile(
        r"\bhow\s+much\s+(?:is\s+(?:the\s+)?)?tax\b|\bwhat\s+is\s+the\s+tax\b|\btax\s+amount\b"
        # "20% VAT on 45", "8 percent sales tax on $235": the tax on it (with "plus", "add",
        # "with" or "including" it is the price with the tax: another frame, or "total")
        r"|(?<!plus\s)(?<!add\s)(?<!with\s)\b\d+(?:\.\d+)?\s*(?:%|percent)\s+(?:sales\s+)?(?:tax|vat|gst)\s+(?:on|for)\b",
        _F,
    ),
    "was_now": re.compile(
        r"\bwas\s+(?P<a>-?\d+(?:\.\d+)?)(?!\.?\d).*\bnow\s+(?:it\s+is\s+|is\s+|its\s+)?(?P<b>-?\d+(?:\.\d+)?)(?!\.?\d)",
        _F,
    ),
    "percent": re.compile(r"\bpercent(?:age)?\b|%", _F),
    "average": re.compile(r"\b(?:average|mean|avg)\b", _F),
    "out_of": re.compile(r"(?P<a>\d+(?:\.\d+)?)\s+out\s+of\s+(?P<b>\d+(?:\.\d+)?)", _F),
    "interest": re.compile(r"\binterest\b", _F),
    "compound": re.compile(r"\bcompound(?:ed|ing)?\b", _F),
    "years": re.compile(r"(?P<y>\d+)\s+years?\b", _F),
}
_EACH = re.compile(
    # ("48 for 3 pizzas", "3 for 10", "3 shirts for 60", "a pair of jeans for 65": a total for a
    # count, unless "each" follows the price: group `for`, and `each`)
    rf"(?<![\d.])(?:(?P<k>\d+)|\b(?P<one>a|an|one))\s+(?:{_ITEM}(?<=[a-z]\s)(?:at|(?P<for>for)|@)|at|@"
    rf"|for(?=\s+\S+\s+each\b))\s+(?P<p>\d+(?:\.\d+)?)(?P<each>\s+(?:each|apiece|a\s+piece))?\b",
    _F,
)


def cost_of(m: re.Match[str]) -> str:
    """What one `_EACH` match costs: its count times its price ("3 notebooks at 4.50", "3 shirts
    for 20 each"), or the price alone ("a loaf at 1.35"; "3 shirts for 60": the price of the three)."""
    if m.group("k") and (not m.group("for") or m.group("each")):
        return f"{m.group('k')} * {m.group('p')}"
    return m.group("p")


# A word problem must not also be something else: a todo, or a number of things to compute.
_NOT_A_STORY = re.compile(
    # ("list price" is a price)
    r"\b(?:todo|task|list(?!\s+price)|remind|times|minus|divided\s+by|squared|root)\b"
    # "plus 3" is arithmetic; "plus a pen for 1.15", "plus 65 for the cake", "plus a 10% tip" are a story's
    r"|\bplus\b(?!\s+(?:an?\s+)?\d+(?:\.\d+)?\s*%)(?!\s+(?:an?|the|one)\s+[a-z])(?!\s+\d+(?:\.\d+)?\s+for\s+(?:the|a|an|my)\b)"
    r"(?!\s+(?:an?\s+)?[$\u00a3\u20ac]?\d+(?:\.\d+)?\s+(?:(?:dollars?|pounds?|euros?|bucks?|quid)\s+)?(?:[a-z]+\s+)?(?:fee|charge)s?\b)"
    r"(?!\s+\d+(?:\.\d+)?\s+(?:in|for)\s+(?:the\s+)?(?:fees?|delivery|postage|shipping|service|booking|parking)\b)"
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
