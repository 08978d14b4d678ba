"""The items of an add: "milk, eggs and bread" is three todos, "wash the car and the dog" one;
what a task, a thing and a quoted name are."""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon
from planner_svc.grammar.todos.todo_add_words import _RESULT_MODIFIER, _RESULT_NOUN, _RESULT_PHRASE
from planner_svc.grammar.todos.todo_naming import _QUOTE
from planner_svc.grammar.todos.todo_words import _F, _NOUN, _PRONOUNS, _TO_LIST

_CALLED = r"(?:called|named|saying|that\s+says)\s+"
# Between two quoted names: "and", "and another one called", ", plus a todo named".
_NEXT_QUOTE = (
    rf"\s*(?:,\s*|\s(?:and|&|plus|as\s+well\s+as)\s+)?(?:also\s+)?(?:(?:another|one\s+more|a\s+second|a\s+new)"
    rf"(?:\s+one|\s+{_NOUN})?\s+)?(?:{_CALLED})?"
)
_QUOTED_ADD = re.compile(
    rf"^(?:add|put|stick|pop|write\s+down|jot\s+down|note\s+down|save|create|make)\s+(?:(?:a|an|the)\s+)?(?:new\s+)?"
    rf"(?:{_NOUN}s?\s*:?\s+(?:{_CALLED})?)?(?P<quoted>{_QUOTE}(?:{_NEXT_QUOTE}{_QUOTE})*)"
    rf"(?:\s+{_TO_LIST})?(?:\s+as\s+(?:one|a\s+single|a|an)\s+(?:{_NOUN}|thing))?$",
    _F,
)
# Two quoted names run together ("call mom' and another one called 'call the dentist"): never one
# todo's text.
_QUOTES_APART = re.compile(r"\S['\"]\s.*\s['\"]\S")
_TODO_ADD_RESULT = [
    re.compile(
        rf"^(?:add|create|make|put|record|save)\s+(?:(?:a|an|one|new|another)\s+)*{_NOUN}(?:\s+item)?\s+"
        rf"(?:with|containing|for|of|saying|that\s+says|about)\s+(?P<ref>{_RESULT_PHRASE}"
        r"|that|it|this)$",
        _F,
    ),
    re.compile(
        rf"^(?:add|put|save|record|write|stick|note)\s+(?P<ref>{_RESULT_PHRASE}|that|it"
        rf"|this)\s+(?:down\s+)?(?:{_TO_LIST}|(?:{_TO_LIST}\s+)?as\s+(?:(?:a|an|one|new|another)\s+)*{_NOUN}(?:\s+item)?)$",
        _F,
    ),
    # "what's 12 squared? add it", "jot that down": after a calculation, nothing else to add it to
    re.compile(
        rf"^(?:(?:add|save|record)\s+(?P<ref>{_RESULT_PHRASE}|that|it|this)"
        rf"|(?:jot|note|write|put)\s+(?P<down>{_RESULT_PHRASE}|that|it|this)"
        r"\s+down)$",
        _F,
    ),
    re.compile(
        rf"^(?:make|turn)\s+(?P<ref>{_RESULT_PHRASE}|that|it|this)\s+(?:into\s+)?"
        rf"(?:(?:a|an|one|new|another)\s+)*{_NOUN}$",
        _F,
    ),
]
# "some things: a, b": the words that announce a list are not its first item.
_ITEMS_HEADER = re.compile(
    rf"^(?:(?:these|the\s+following|some|a\s+few|\d+|{'|'.join(lexicon.SMALL_NUMBERS)})\s*)?(?:new\s+)?"
    r"(?:things|items|todos|tasks|to-dos)?\s*:\s*(?!\d)",  # not the colon of "7:30"
    _F,
)
_CLAUSE_INSIDE = re.compile(r"\s(?:is|are|was|were|has|have|will|can|should|does|did)\s", _F)
# "add call mom again": the add is again, not the call
_TOO = re.compile(r"\s+(?:too|also|as\s+well|instead|please|again)$", _F)
# "also" joins two todos only before a task of its own ("buy milk also call mom"), not inside
# one ("ask Priya if she's also coming").
_ALSO = rf"\s+also\s+(?=(?:{'|'.join(sorted(lexicon.TODO_VERBS))})\b)"
# "&" splits items only with a space beside it: "PG&E" and "AT&T" are one word.
_ITEM_SPLIT = re.compile(
    # ("Carlton & Co", "Mum & Dad": a "&" before a capital joins a name)
    rf"\s+&(?!\s*(?-i:[A-Z]))\s*|\s*&(?!\s*(?-i:[A-Z]))\s+|\s*[,;]\s*(?:(?:oh|ah|um+|uh+)\s+)?(?:wait\s+)?(?:and\s+)?(?:then\s+)?(?:also\s+)?(?:to\s+)?"
    rf"|\s+and\s+(?:also\s+|then\s+)?(?:to\s+)?|{_ALSO}",
    _F,
)
_AND_SPLIT = re.compile(
    rf"\s+and\s+(?:also\s+|then\s+)?(?:to\s+)?|{_ALSO}|\s+plus\s+|\s+as\s+well\s+as\s+|\s+&\s+", _F
)
_AND_SPLIT_WORDS = re.compile(
    rf"\s+and\s+(?:also\s+|then\s+)?(?:to\s+)?|{_ALSO}|\s+plus\s+|\s+as\s+well\s+as\s+", _F
)


# Getting in touch with someone, then what to say to them: one todo, not two.
_CONTACT = re.compile(
    r"(?:call|phone|ring|text|email|e-mail|message|msg|dm|visit|see|meet|go\s+see|stop\s+by|drop\s+by|write\s+to)\b",
    _F,
)
# (to the same person: "ask about the leak", "tell her"; "ask grandson about ..." is someone else)
_DURING = re.compile(
    r"(?:(?:ask|tell|remind|thank|invite|wish|confirm|mention|discuss|talk|apologi[sz]e)\s+"
    r"(?:her|him|them|about|for|if|whether|when|how|what|to|with)\b|let\s+(?:her|him|them)\s+know|say\b)",
    _F,
)


_QUOTE_EDGES = {mark: re.compile(rf"(?<![A-Za-z]){mark}|{mark}(?![A-Za-z])") for mark in "\"'"}


def _unquoted(text: str) -> str:
    """`text` without the quotes around it, but with a title quoted at its end ('watch "Dune"'):
    a quote mark at an end goes when nothing inside pairs with it."""
    text = text.strip()
    while len(text) > 1 and text[0] in "\"'" and text[-1] == text[0]:
        text = text[1:-1].strip()  # quoted whole
    for mark, edge in _QUOTE_EDGES.items():
        if mark not in text:  # (most names: nothing to count)
            continue
        edges = len(edge.findall(text))  # not "wife's"
        if edges % 2:
            text = text.strip(mark).strip()
    return text


_ARTICLE_FIRST = re.compile(r"(?:a|an)\s+\S", _F)
# A question or a request to the listener after a comma: "..., what is the weather", "..., book
# me a flight", "..., can you also ...".
_ASKED_AFTER = re.compile(
    r"(?:what|what's|how|who|where|when|why|which|can|could|would|will|is|are|do|does|please)\b"
    r"|[a-z]+\s+(?:me|us)\b",
    _F,
)
# After a dash, what is said about a todo and is no part of its name: a sentence with its own
# subject ("- it honestly stinks"), or how things stand ("- needs doing before winter", "- ran out
# this morning", "- almost out"). Not a time or a step of it ("dentist - 3pm", "Q3 report - send
# to Ana").
_DASH_REMARK = re.compile(
    r"\s[-\u2013\u2014]\s+(?P<tail>(?:(?:it|they|we|i|she|he)(?:'[a-z]+)?|that's|this\s+is|there's)\s.*"
    # "- his party is on saturday", "- her flight's at 6": someone's thing and how it is
    r"|(?:his|her|their|our|my)\s+[\w-]+(?:'s|\s+(?:is|was|are|were))\s.*"
    r"|(?:needs?\s+doing|ran\s+out|run\s+out|running\s+(?:out|low)|(?:almost|nearly|all|completely)\s+(?:out|gone|empty"
    r"|finished)|none\s+left|(?:long\s+)?overdue|honestly|seriously|finally|urgent|asap)\b.*)$",
    _F,
)
_TAKEN_BACK = re.compile(
    r"\b(?:not|never|no\s+need|do\s+not|don't|dont|instead|maybe|perhaps|probably|i\s+think|not\s+sure)\b", _F
)
# What follows a name after a comma and is no item of a list: a sentence with its own subject
# ("we ran out", "she is coming", "Rex is limping"), why or for what ("for the cake", "because
# ..."), which one ("the oat one", "you know the one"), or how much of it ("2 litres").
_NOT_AN_ITEM = re.compile(
    r"(?:i|we|she|he|they)\s+\S|(?:i|we|she|he|they|you|it|there|that)'(?:s|re|m|ve|ll|d)\b"
    # "his birthday's on friday": a sentence as much as "his birthday is on friday"
    r"|(?:his|her|their|my|our|the)\s+[\w-]+'s\s"
    r"|(?:you|it|there)\s+(?:am|is|are|was|were|do|does|did|have|has|had|will|would|can|could|should|must"
    r"|might|need|needs|know|just|already|also|still|never|always|really)\b"
    r"|(?:for|because|since|cause|cuz|as|so|so\s+that|in\s+case|to\s+make|you\s+know)\b"
    # the subject left out: "got plenty", "need it by friday"
    r"|(?:got|have|has|had|need|needs|want|wants)\s+(?:it|them|some|plenty|enough|loads|lots|none|one|those|these)\b"
    r"|(?:the|that|this)\s+(?:[\w'-]+\s+){0,3}one$"
    r"|\d+(?:\.\d+)?\s*(?:litres?|liters?|l|ml|kg|kgs|g|grams?|lbs?|pounds?|oz|ounces?|pints?|gallons?)$",
    _F,
)


def _not_an_item(part: str) -> bool:
    if _NOT_AN_ITEM.match(part):
        return True
    # "her birthday is sunday": a clause, unless it is a task whose words hold one ("tell Ben his
    # mum is invited")
    return bool(_CLAUSE_INSIDE.search(f" {part} ")) and not a_task(part)


_WHY_IN_BRACKETS = re.compile(
    r"\s*\((?:down\s+to|ran\s+out|running\s+out|nearly\s+out|out\s+of|because|since|bc|cos|cuz|it's|its|it\s+is"
    r"|they're|we're|i'm|im|i|we|my|our|so|lol|haha|finally|ugh|sigh)\b[^()]*\)\s*$",
    _F,
)
_OH_AND = re.compile(r",?\s+oh,?\s+and\s+", _F)


def listed_apart(text: str) -> bool:
    """Whether `text` lists several todos: short things ("juice boxes, granola bars and
    sunscreen"), or two tasks at least beside things ("car wash and renew car insurance and buy
    cat food")."""
    items = _items(text)
    return bool(items) and len(items) > 1 and (all(map(_a_thing, items)) or sum(map(a_task, items)) >= 2)


def _task_or_thing(part: str) -> bool:
    return a_task(part) or _a_thing(part)


# A part of a list that says something of the list, never an item of it ("don't forget bread")
_SAID_ABOUT_IT = re.compile(r"(?:do\s+not|don't|dont|remember|also|and|plus|oh|maybe|perhaps)\b", _F)


# When a task is done, said at its end ("at 3", "on friday", "tonight", "after work"): a time
# is never one of two things coordinated by "and" ("at the cafe and bakery" may be).
_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_ADJUNCT_END = re.compile(
    rf"\s(?:(?:at|by|before|after|until|till)\s+\d{{1,2}}(?::\d\d)?\s*(?:am|pm)?|(?:on|by|before|after)\s+{_DAYS}"
    r"|(?:from|after)\s+(?:school|work)|today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|week|weekend))$",
    _F,
)


def _items(text: str, header: bool = False) -> list[str] | None:
    """The todos `text` names: "milk, eggs and bread" is three; "wash the car and change the oil"
    two (both halves start with a verb); "buy salt and pepper" one. None if one is empty."""
    text = _ITEMS_HEADER.sub("", text.strip())
    quoted = len(text) > 1 and text[0] in "\"'" and text[-1] == text[0]
    if not quoted:
        text = _OH_AND.sub(" and ", text)  # "pay water bill oh and call mom": "oh" remembers, names nothing
    if not quoted and (dash := _DASH_REMARK.search(text)):
        if _TAKEN_BACK.search(dash.group("tail")):
            return None  # "add milk - I don't need it": then what is asked?
        text = text[: dash.start()]  # "clean out the fridge - it honestly stinks": the name is before
    text = _unquoted(text)
    if not quoted:
        # "order more contact lenses (down to my last pair)": why, in brackets, is no part of it
        text = _WHY_IN_BRACKETS.sub("", text)
    # "mac and cheese, eggs and bread": a thing whose name has "and" in it is one item of a list,
    # and so is what is said in brackets ("call Sam (re: lease, deposit)")
    text = _FIXED_PAIR.sub(lambda m: m.group().replace(" ", _GLUE), text)
    text = _BRACKETED.sub(lambda m: m.group().translate(_SHIELD), text)
    if re.search(r"[,;]", text):
        parts = [p for p in _ITEM_SPLIT.split(text) if not _POLITE_PART.fullmatch(p.strip())]
        if not quoted and any(_not_an_item(p.strip()) for p in parts[1:]):
            # "milk, we ran out", "call mom, her birthday is sunday", "milk, for the cake", "milk,
            # the oat one": said about the name before it, never a todo, and whether it is a part
            # of that name nothing says
            return None
        # "milk, eggs and bread" or "wash the car, mow the lawn": a list; "call mom, dad and
        # grandma" is one todo (dad and grandma are whom to call), and so is "read chapters 3, 4 and 5".
        # "renew passport, book flights and pack": tasks, the last one a verb alone ("pack"),
        # listed after at least two of their own; one verb alone among things stays one todo.
        lone = [p for p in parts if not a_task(p) and _a_lone_verb(p)]
        # "paint the hallway, fix the door, regrout the shower": two tasks at least, and the rest
        # said as tasks too (a verb the word list lacks, then what it acts on)
        tasks = (sum(map(a_task, parts)) >= 2 and all(a_task(p) or _task_like(p) for p in parts)) or (
            bool(lone) and len(parts) - len(lone) >= 2 and all(a_task(p) or p in lone for p in parts)
        )
        # "laundry, dishes, vacuum": three words alone, listed, are three todos whether each is a
        # thing or a chore said by its verb
        things = all(_a_thing(p) for p in parts) or (
            len(parts) >= 3 and all(re.fullmatch(r"[a-z]+", p.strip(), _F) for p in parts)
        )
        # "book flights, hotel and car for Rome": one verb and what it acts on, listed: one todo,
        # even after a header ("add: ...").
        objects = len(parts) > 1 and a_task(parts[0]) and all(_a_thing(p) for p in parts[1:])
        # "gym, meal prep, call Sam": three or more, each a task or a thing, listed: a todo each
        mixed = len(parts) >= 3 and all(
            (a_task(p) or _a_thing(p)) and not _SAID_ABOUT_IT.match(p.strip()) for p in parts
        )
        if objects or not (tasks or things or mixed or header):
            parts = [text]
    elif re.search(rf"\s+(?:and|plus|as\s+well\s+as)\s+|{_ALSO}|\s&\s", text, _F):
        # ("call Alex back and send invoice to Carlton & Co": beside an "and", a "&" is a name's)
        parts = (_AND_SPLIT_WORDS if re.search(r"\s+and\s+", text, _F) else _AND_SPLIT).split(text)
        explicit = bool(re.search(rf"\s+and\s+(?:also|to)\s+|{_ALSO}|\s+as\s+well\s+as\s+", text, _F))
        pair = " and ".join(p.strip().lower() for p in parts)
        if any(re.search(r"\bto$", p.strip(), _F) for p in parts[:-1]):
            parts = [text]  # "ask Priya to also bring the projector": one task, "also" inside it
        elif len(parts) == 2 and _CONTACT.match(parts[0].strip()) and _DURING.match(parts[1].strip()):
            parts = [text]  # "call the plumber and ask about the leak": what to say on the call, one todo
        elif (
            len(words := " ".join(parts).lower().split()) >= 3
            and all(w in lexicon.GROCERIES for w in words)
            and pair not in lexicon.FIXED_PAIRS
        ):
            parts = words  # "milk eggs and cheese": things bought, listed without commas
        elif not (
            (explicit and all(a_task(p) or _a_thing(p) for p in parts))
            or all(a_task(p) for p in parts)
            # "car wash and renew car insurance and buy cat food": tasks, and a chore by its name
            or (
                len(parts) > 2
                and sum(map(a_task, parts)) >= 2
                and all(a_task(p) or _a_thing(p) for p in parts)
            )
            or (all(len(p.split()) == 1 for p in parts) and pair not in lexicon.FIXED_PAIRS)
            # "a toothbrush and a phone charger": an article again, a thing again
            or all(_ARTICLE_FIRST.match(p.strip()) and _a_thing(p) for p in parts)
            # "pick up kids at 3 and grocery run": a task said with when or where is whole; what
            # follows is no second thing it acts on ("buy bread and milk" is one)
            or (
                len(parts) == 2
                and a_task(parts[0])
                and _ADJUNCT_END.search(parts[0].strip())
                and (_a_thing(parts[1]) or a_task(parts[1]))
            )
        ):
            parts = [text]
    else:
        parts = [text]
    # "buy bread too": "too" says add this as well; "tell Ben his mum is invited too" says it of
    # the clause inside the todo, which keeps it.
    items = [_unquoted(p.strip() if _CLAUSE_INSIDE.search(p) else _TOO.sub("", p.strip())) for p in parts]
    # "buy milk - and how many is that": a dash that ended the name is not part of it
    items = [i.rstrip(" -\u2013\u2014:").strip().translate(_UNSHIELD) for i in items]
    return items if all(items) else None


# Words that close a message ("add buy milk, done"), after a comma, a dash or in brackets, or as
# the last item of a list ("add milk, eggs, done"). A bare "done" is left alone: "add mark all
# essays done", "tell Jo it is done" are todos.
# "add buy milk, don't forget": said of the add, not a todo of its own
_DONT_FORGET = r"(?:do\s+not|don't|dont)\s+forget(?:\s+(?:it|now|please))?"
_CLOSING = (
    r"(?:done|finished|end|over"
    r"|(?:then\s+)?(?:that\s+is|that's|thats)\s+(?:it|all|everything)(?:\s+for\s+now)?"
    rf"|{_DONT_FORGET})"
)
_CLOSER_TAIL = re.compile(
    rf"(?:\s*[,\-\u2013\u2014]\s*(?:and\s+)?|\s*\(\s*|\s+and\s+(?=(?:then\s+)?that)){_CLOSING}\s*\)?[.!]*$",
    _F,
)
_CLOSES_A_LIST = re.compile(rf"(?:and\s+)?(?:{_CLOSING}|ok|okay)[.!]*", _F)
# Joins the words of a fixed pair while a list is split (no one types it: a private-use character;
# not a control character, which regex reads as a space).
_GLUE = "\ue000"
_BRACKETED = re.compile(r"\([^()]*\)")
# What splits a list, inside brackets: held apart from splitting as private-use characters.
_SHIELD = str.maketrans({" ": _GLUE, ",": "\ue001", ";": "\ue002", "&": "\ue003"})
_UNSHIELD = str.maketrans({v: k for k, v in _SHIELD.items()})
_FIXED_PAIR = re.compile(
    r"(?<![\w\ue000])(?:"
    + "|".join(
        sorted(
            (r"\s+".join(map(re.escape, p.split())) for p in lexicon.ONE_THING_PAIRS), key=len, reverse=True
        )
    )
    + r")(?![\w\ue000])",
    _F,
)


_POLITE_PART = re.compile(
    r"(?:please|pls|plz|ta|cheers(?:\s+mate)?|many\s+thanks|much\s+appreciated|thx|ty"
    r"|(?:thanks|thank\s+you)(?:\s+(?:so\s+much|a\s+lot|very\s+much|kindly|in\s+advance|a\s+million))?"
    rf"|(?:and\s+)?{_DONT_FORGET})[\s!.]*",
    _F,
)
_PRONOUN_WORDS = _PRONOUNS | {"him", "her", "me"}


def a_task(part: str) -> bool:
    """A task of its own: a verb and what it acts on ("wash the car"), no pronoun ("file them")."""
    words = part.replace(_GLUE, " ").strip().strip("\"'").lower().split()
    return len(words) >= 2 and words[0] in lexicon.TODO_VERBS and not _PRONOUN_WORDS & set(words)


_NOT_A_VERB = frozenset([
    "the", "a", "an", "my", "our", "your", "his", "her", "their", "some", "more", "extra", "new", "old",
    "big", "small", "other", "another", "and", "or", "to", "for", "of", "in", "on", "at", "with",
])  # fmt: skip


def _task_like(part: str) -> bool:
    """Said like a task, with a verb the word list lacks ("regrout the shower"): a word, then what
    it acts on; no pronoun, no number first, no article or preposition first."""
    words = part.replace(_GLUE, " ").strip().strip("\"'").lower().split()
    return (
        2 <= len(words) <= 8
        and words[0].isalpha()
        and words[0] not in _NOT_A_VERB
        and not _PRONOUN_WORDS & set(words)
    )


def _a_lone_verb(part: str) -> bool:
    """A task named by its verb alone ("pack", "vacuum")."""
    words = part.strip().strip("\"'").lower().split()
    return len(words) == 1 and words[0] in lexicon.TODO_VERBS


def _a_thing(part: str) -> bool:
    """A short thing to get ("eggs", "a dozen oranges", "dish soap"): no verb, no pronoun, no digit
    alone ("4" in "read chapters 3, 4 and 5" is no thing)."""
    words = part.replace(_GLUE, " ").strip().strip("\"'").lower().split()
    return (
        1 <= len(words) <= 3
        and words[0] not in lexicon.TODO_VERBS
        and not _PRONOUN_WORDS & set(words)
        and any(w.isalpha() for w in words)
    )


# A quote mark that opens or closes inside a name ("buy flowers' to my wife's list"): what was
# quoted ended before the rest, so the rest is not part of the name.
_STRAY_QUOTE = re.compile(r"(?<=\w)['\"](?=\s)(?<!s')|(?<=\s)['\"](?=\w)|^['\"]|['\"]$")


# A title in quotes inside a name ('watch "Dune" with Sam', 'read "the hobbit"'): a pair of quotes
# around a few words after the name's first, each mark at a word's edge, is part of the name, not
# where a quote ended (a quote that opens the name and closes before more words is: "add 'leave a
# tip of' the answer").
_TITLE_INSIDE = re.compile(r"""(?<=\s)(["'])(?=\w)[^"'\n]{1,60}(?<=[\w.!?])\1(?=[\s,.;:!?]|$)""")


def _quote_closed_inside(clause: str, text: str) -> bool:
    """Whether `text` opens with a quote in `clause` that closes inside it, before more words."""
    if quoted_in(clause, text):
        return False  # "add 'clean the kids' room'": quoted whole, whatever quote is inside
    # The first quote mark in the clause right before the name's first 12 characters (found as
    # text: a pattern compiled for each new name cost more than the rest of the plan).
    head = text[:12]
    opened = [(at, mark) for mark in "'\"" if (at := clause.find(mark + head)) >= 0]
    return bool(opened) and _CLOSED_BEFORE_MORE[min(opened)[1]].search(text) is not None


_CLOSED_BEFORE_MORE = {mark: re.compile(rf"{mark}(?=[\s,;:.!?-]+\S)") for mark in "'\""}


# ("put that amount aside": "that" names the amount, not the thing to put on the list)
_ADD_IT = re.compile(
    r"\b(?:add|put|stick|jot|note|write)\s+(?:it|that|this|them)\b(?!\s+(?:amount|sum|figure|much|many)\b)",
    _F,
)


# A todo's name that is an earlier result said another way ("each person's share", "what you
# got", "the result of that"): the result is added (with no earlier result, the request is
# refused), never those words.
_RESULT_SAID = re.compile(
    rf"^(?:{_RESULT_PHRASE}|(?:the|that|this)\s+(?:{_RESULT_MODIFIER}\s+)?{_RESULT_NOUN}"
    r"\s+(?:you|it|we)\s+(?:just\s+)?(?:got|found|worked\s+out|came\s+up\s+with|calculated)"
    r"|(?:each|every)\s+(?:person|one|head|guest)'?s\s+(?:share|part|portion|amount|cut)"
    r"|(?:what|whatever)\s+(?:you|it|that|we)\s+(?:just\s+)?(?:got|get|came\s+to|comes\s+to|worked\s+out|found)"
    r"|(?:the\s+)?(?:result|answer|value|total|sum)\s+of\s+(?:that|it|this|the\s+(?:sum|calculation|last\s+one)))$",
    _F,
)


# What asks for the list (or a count of it) rather than naming a todo.
_READS_THE_LIST = re.compile(
    r"^(?:(?:and|then|also|plus)\s+)*(?:(?:can|could|would)\s+you\s+)?"
    r"(?:(?:show|list|read|tell|give|count|display|print|recap|repeat)(?:\s+(?:me|us|back|out))*\s+"
    r"(?:all\b|everything\b|what\b|how\b|them\b|it\b|(?:the|my|all\s+the|all\s+my)\s+(?:(?:open|done|finished"
    r"|remaining|whole)\s+)?(?:list|todos|to-dos|tasks|items|ones)\b|(?:open|done|finished|remaining)\s+ones\b)"
    r"|how\s+many\b|what(?:'s|\s+is|\s+are)?\s+(?:on|left|in|still|remaining)\b)",
    _F,
)


_DESTINATION_INSIDE = re.compile(
    rf"\s(?:(?:to|on|onto)\s+my\s+(?:todo\s+|to-do\s+)?(?:list|todos|to-dos|tasks)|as\s+(?:an?\s+|new\s+)+{_NOUN})\s",
    _F,
)


_DESTINATION_END = re.compile(rf"\s+(?:{_TO_LIST}|as\s+(?:an?\s+|new\s+)+{_NOUN})$", _F)


def quoted_in(clause: str, text: str) -> bool:
    """Whether `text` stands in quotes in `clause`: then it is the name as written, whole."""
    return f"'{text}'" in clause or f'"{text}"' in clause
