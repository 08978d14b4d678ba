"""The words an add is said with: where a todo goes ("to my list", "on my work list"), when, a
result named, a quoted name, and what is not a thing to add (a timer, an alarm, a place)."""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon
from planner_svc.grammar.todos.todo_words import _F, _LIST, _MY, _NOUN, _NOUNS, _TO_LIST, _alt

# --- adding -----------------------------------------------------------------------------------

_HEADER = (
    # "add everything for the party: balloons, cake": what the list is for, then the list
    r"(?:everything\s+(?:i\s+need\s+)?for\s+(?:the|my|our)\s+[a-z]+(?:\s+[a-z]+)?\s*(?=:))?"
    r"(?:(?:these|the\s+following|some|one\s+more|another|a\s+few|both(?:\s+of\s+these)?|all\s+(?:of\s+)?these"
    r"|a\s+couple(?:\s+of)?)\s*)?"
    rf"(?:(?P<n>\d+|{'|'.join(lexicon.SMALL_NUMBERS)})\s*)?(?:more\b\s*)?(?:new\s+)?(?:for\s+me\s*)?"
)
_ADD_MANY = re.compile(
    rf"^(?:(?:todos?|tasks?)\s+add|add|create|make|new|put|note|(?:todos?|tasks?)(?=\s*:))\s*{_HEADER}(?:{_NOUNS}|{_NOUN}s?)?(?:\s+please)?(?:\s*{_TO_LIST})?(?:\s+please)?"
    r"\s*(?::(?!\d)|-)\s*(?P<list>.+)$",  # not the colon of a time ("add 7:30 yoga")
    _F,
)
_ADD_VERB = _alt([v for v in lexicon.ADD_VERBS if v not in ("new", "make", "create", "set up")])
_ADD = [
    re.compile(
        rf"^(?:{_ADD_VERB}|create|make)\s+(?P<text>.+?)\s+(?:{_TO_LIST}|as\s+(?:an?\s+|new\s+)+{_NOUN})$", _F
    ),
    re.compile(rf"^(?:{_ADD_VERB})\s+{_TO_LIST}\s*:?\s+(?P<text>.+)$", _F),
]
_ADD_ONE = re.compile(
    rf"^(?:add|create|make|put|insert|record|new|set\s+up|save|(?:jot|note|write|put)\s+down)\s+"
    rf"(?:(?P<det>(?:(?:a|an|one|new|another|the)\s+)*){_NOUN}(?:\s+item)?(?:\s+for\s+(?:me|us)(?=\s*[:\-]))?"
    r"|this(?=\s*[:\-]))(?P<conn>\s*[:\-]\s*|(?:\s+please)?\s*,?\s+(?:it\s+is|it\s+says|which\s+is|namely)\s+"
    r"|\s+(?:to|for|that\s+says|saying|that|called|named|about|reading)\s+|\s+)(?P<text>.+)$",
    _F,
)
_WITH_TEXT = re.compile(r"with\s+(?:the\s+)?(?:text|words|name|title|description)\s*:?\s+(?P<text>\S.*)$", _F)
_REMIND = re.compile(
    r"^(?:remind\s+me\s+(?:to|that\s+i\s+(?:need|have)\s+to)|(?:do\s+not|never)\s+let\s+me\s+forget\s+to"
    r"|do\s+not\s+forget\s+to|(?:(?:i|we)\s+)?(?:(?:need|have|must|should|want)\s+(?:to\s+)?)?remember\s+to"
    # "don't forget bread": the thing itself, to remember (not "don't forget the milk one": that
    # names a todo there is)
    rf"|(?:do\s+not|never)\s+(?:let\s+me\s+)?forget(?:\s+the)?(?=\s+(?!to\b|about\b)(?!.*\s(?:one|{_NOUN})$)))"
    r"\s+(?P<text>.+)$",
    _F,
)
# An add, where it goes, then one more for it ("add milk to my list and eggs too", "put call Dad on
# the list, and buy cat food too"): both go there, as when where they go is said last.
_AND_ONE_MORE_TOO = re.compile(
    rf"^(?P<verb>add|put)\s+(?P<a>.+?)\s+(?P<dest>{_TO_LIST}),?\s+(?:and|plus)\s+(?:(?P<also>also)\s+)?"
    r"(?P<b>.+?)(?P<too>,?\s+(?:too|as\s+well))?$",
    _F,
)
_TO_LIST_INSIDE = re.compile(rf"\s{_TO_LIST}", _F)
# The rewrite reads the add again: a long message of "... to my list plus ..." would be read once
# per "plus" (quadratic); a request of one more is short.
_MAX_ONE_MORE_CHARS = 300
# Where an add inside a todo puts something ("add oil to the car", "add salt into the soup").
_ADDED_TO = re.compile(r"\s(?:to|into|in|onto|on)\s+\S", _F)
# A clause that starts by asking to add ("add ...", "jot down ..."); rules.py reads prompts by it too.
ADD_FIRST = re.compile(r"^(?:add|put|jot\s+down|note\s+down|write\s+down)\s", _F)
_TODO_VERB_FIRST = re.compile(
    rf"^(?:new\s+)?{_NOUN}\s+(?P<text>(?:{'|'.join(sorted(lexicon.TODO_VERBS))})\s.+)$", _F
)
_NOTE = re.compile(  # "todo: buy milk", "list: ...", "on the list please: ..."
    rf"^(?:(?:new\s+)?(?:{_NOUN}|list)|(?:on|onto|to)\s+{_MY}{_LIST})(?:\s+(?:please|pls))?\s*:\s*(?P<text>.+)$",
    _F,
)
_NEEDED = [  # "need coffee beans on the list", "book the vet needs to go on the list"
    re.compile(rf"^(?:i\s+|we\s+)?need\s+(?!to\b)(?P<text>.+?)\s+{_TO_LIST}$", _F),
    re.compile(rf"^(?P<text>.+?)\s+(?:needs|need|has|have)\s+to\s+go\s+{_TO_LIST}$", _F),
]
_TIMER = re.compile(r"\bin\s+(?:\d+|a|an|half\s+an)\s+(?:minutes?|mins?|hours?|hrs?|seconds?|secs?)\b", _F)
_NO_ALARM = "(Its time is kept in its text: the todo list sends no reminder at a time.)"
_CLOCK = re.compile(
    r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\bat\s+\d{1,2}(?::\d\d)?\b|\bo'clock\b|\b(?:at|by)\s+(?:noon|midnight)\b"
    r"|\bin\s+\d+\s+(?:minutes?|hours?)\b",
    _F,
)
# What a todo's text never has: a second request to the assistant ("add X and tell me if it will
# be sunny"), and for one that does not start with a verb, a destination or a number ("add milk
# to cart", "add tax to 100", "add a 15% tip"), a pronoun or a generic word ("add another one").
_ASKS = re.compile(
    r"\b(?:tell|show|give|send|email|text)\s+(?:me|us|him|her|them)\b|\blet\s+me\s+know\b"
    # ("and do I have ...?" asks; "and do my stretches" is a chore)
    r"|\band\s+(?:then\s+)?(?:what|how|which|when|where|why|is|are|will|can|could|would|does"
    r"|do(?=\s+(?:i|you|u|we|they|he|she|it)\b))\b"
    r"|\band\s+(?:then\s+)?(?:mark|delete|remove|show|list|tell|count|clear|cross|tick)\s+(?:it|them|that|my|the|me|all)\b"
    # "finish the report" is a chore after "add" (_weighed); "finish it" is a request
    r"|\band\s+(?:then\s+)?(?:complete|finish)\s+(?:it|them|that|all)\b"
    r"|,\s*i\s",
    _F,
)
_NOT_A_THING = re.compile(
    r"\s(?:to|into|onto)\s|\d|%|\b(?:it|that|this|them|me|us|him|her|result|answer|numbers?|another|one|task|"
    r"todo|reminder|item|tomorrow|today|tonight|later|soon|something|anything|stuff)\b",
    _F,
)
# A date or a clock time in a todo's name: "on 12/03", "at 9:30", "7:30", "at 6pm".
# Not a bare "1/2" or "7.30": those are numbers to compute ("add 1/2 and 1/4").
_WHEN = re.compile(
    # "10-11am": a span of the clock
    r"(?:\b(?:at|by|from)\s+)?\b\d{1,2}(?::\d\d)?\s*(?:-|to)\s*\d{1,2}(?::\d\d)?\s*[ap]\.?m\.?(?![\d/])|"
    r"(?:\b(?:at|by|from)\s+)?(?:\b\d{1,2}:\d\d(?:\s*[ap]\.?m\.?)?|\b\d{1,2}(?:\.\d\d)?\s*[ap]\.?m\.?)(?![\d/])"
    r"|\bon\s+\d{1,2}/\d{1,2}(?:/\d{2,4})?(?![\d/])|\bat\s+\d{1,2}(?:\.\d\d)?\b(?![\d/%.])"
    r"|\b(?:on|for|by|this|next)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b",  # "dentist appt for friday"
    _F,
)
_INSIDE_TO_LIST = re.compile(rf"\s{_TO_LIST}\b", _F)
_BARE_ADD = re.compile(r"^(?:add|jot\s+down|note\s+down|write\s+down|put\s+down)\s*:?\s+(?P<text>.+)$", _F)
# A destination that is not the todo list: "add a meeting to my calendar" is not a todo.
_ELSEWHERE = re.compile(
    r"\s(?:to|on|onto|in|into)\s+(?:my|the|our|your|a)\s+(?:(?:work|home|family|google|outlook|shared|phone)\s+)?"
    r"(?:calendar|schedule|agenda|diary|planner|cart|basket|playlist|contacts|address\s+book|notes|email|e-mail|inbox"
    r"|document|doc|file|spreadsheet|sheet|order|favou?rites|bookmarks|wish\s*list|reading\s+list|watch\s*list"
    r"|blog|website|group|chat|channel|account|budget)\b"
    # someone else's list: "add 'buy flowers' to my wife's list", "put it on her list"
    r"|\s(?:to|on|onto|in|into)\s+(?:(?:my|our|the)\s+)?(?:[\w-]+'s?|his|her|their|your)\s+(?:(?:todo|to-do|shopping)\s+)?"
    r"(?:list|todos|tasks)\b",
    _F,
)
# An earlier result named as a noun phrase: "the answer", "that total", "the per-person amount".
# Only these words before the noun: "the phone number" is a todo's name, not a result.
_RESULT_MODIFIER = (
    r"(?:per[- ]person|per[- ]head|each|final|resulting|calculated|new|exact|rounded|split|tip|total|grand"
    r"|overall|whole|monthly|weekly|daily|yearly|annual|hourly)"
)
_RESULT_NOUN = r"(?:result|answer|value|number|amount|total|sum|figure|product|share)"
_RESULT_PHRASE = (
    rf"(?:the|that|this|my|our|your)\s+(?:{_RESULT_MODIFIER}\s+)?(?:{_RESULT_NOUN}|tip|outcome|cost|price)"
    r"(?:\s+(?:per\s+(?:person|head)|each))?"
)
# What "add" is followed by when it is not a todo: a number ("add 3 and 4"), a reference ("add it
# to 5"), or a destination with no todo named ("add to my list").
# Where a chore is done, not where the entry goes: "fix the button on the website", "update the
# totals in the spreadsheet". Only after a verb of a chore (never a calendar, a cart or a list,
# where "add call mom to my calendar" would be put).
_WORKPLACE = re.compile(
    r"^\s(?:on|in)\s+(?:my|the|our|your|a)\s+(?:(?:work|home|family|google|shared)\s+)?"
    r"(?:website|blog|document|doc|file|spreadsheet|sheet|account|budget|group|chat|channel|inbox|email)\b",
    _F,
)


def _elsewhere(text: str) -> bool:
    """Whether the text of an add says it goes somewhere other than the todo list."""
    first = (text.split(maxsplit=1) or [""])[0].lower()
    chore = first in lexicon.TODO_VERBS and first not in _PURE_COMMANDS | {"put", "save", "write", "note"}
    return any(not (chore and _WORKPLACE.match(m.group())) for m in _ELSEWHERE.finditer(f" {text}"))


_NOT_A_TODO_START = re.compile(
    rf"^[-+(]?\d|^(?:up|it|that|this|them|the\s+(?:{_RESULT_MODIFIER}\s+)?(?:{_RESULT_NOUN}|tip))\b"
    r"|^(?:to|on|onto|in|into)\s",
    _F,
)
_NOT_TIME = [u for u, (kind, _) in lexicon.UNITS.items() if kind != "time"]
# "add 3 apples", "add 2 kg rice", "add 6 x eggs": how many of a thing, the one number said (with
# two, "add 3 apples and 4 pears" may be a sum to work out; a time, "add 45 minutes", is one to
# add to another). What follows the number is a word that is no unit, currency or operation.
_NO_THING_WORDS = (
    r"(?:and|to|plus|minus|times|more|less|extra|percent|pct|per|from|onto|by|each|of|on|in|or|x|%"
    r"|for|as|also|again|instead|then|too|the|a|an|it|that|this|squared|cubed|off|up|down|left|over"
    # what is added to a sum, never a thing to buy: "add 20 tip", "add 5 quid", "add 3 hundred"
    r"|tips?|fees?|deposits?|tax|vat|gst|interest|discount|delivery|shipping|postage|rent|change|bonus"
    r"|quid|pence|p|grand|k|gbp|usd|eur|aud|cad|inr|rupees?|yen|bucks|cents?"
    rf"|{'|'.join(lexicon.UNITS)}|{'|'.join(lexicon.CURRENCY_WORDS).replace(' ', '[ ]+')}"
    rf"|{'|'.join([*lexicon.SMALL_NUMBERS, *lexicon.TENS, *lexicon.SCALES, *lexicon.ORDINALS])}"
    r"|st|nd|rd|th|dozen|half|quarter|more)\b"
)
_A_QUANTITY_OF = re.compile(
    rf"(?P<n>\d+(?:\.\d+)?|a\s+dozen)(?:\s*(?:x\s*)?(?:{'|'.join(_NOT_TIME)}|dozen|packs?|bags?|boxes|box|cans?|"
    r"bottles?|jars?|loaf|loaves|bunch(?:es)?|cartons?|tins?|rolls?|tubs?|pairs?)\.?\s+(?:of\s+)?|\s+(?:x\s+)?)"
    rf"(?!{_NO_THING_WORDS})[a-z][a-z'-]+(?:\s+(?!\d)[\w'-]+){{0,4}}",
    _F,
)


# Verbs that only ever ask the assistant something: "add buy milk and delete eggs" is an add and
# a delete. Other verbs may start a chore ("take out the trash", "finish the report", "cancel
# the gym"): after "add", those are todos too.
_PURE_COMMANDS = frozenset(
    ["add", "delete", "remove", "mark", "show", "list", "tell", "count", "clear", "erase", "tick"]
)


_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_COUNT_SAID = re.compile(
    r"(?:^|\s+as\s+|\s*,\s*(?:as\s+)?)(?:(?P<n>\d+|one|two|three|four|five|six|seven|eight)\s+)?"
    r"(?:separate\s+|different\s+|individual\s+)?(?:todos|to-dos|items|tasks|entries|things)$",
    _F,
)


def uncounted(texts: list[str]) -> list[str] | None:
    """An add's texts without how many it says they are ("add buy eggs, buy flour and buy sugar as
    three separate todos", "..., two todos": never a todo's words); None when the count said is
    not how many it names (the add is refused, not guessed)."""
    if not (counted := _COUNT_SAID.search(texts[-1])):
        return texts
    texts = [t for t in [*texts[:-1], texts[-1][: counted.start()].rstrip(" ,")] if t]
    n = counted.group("n")
    if not texts or (n and (_COUNTS.get(n.lower()) or int(n)) != len(texts)):
        return None
    return texts
