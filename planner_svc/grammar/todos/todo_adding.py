"""Adding todos: every way of saying it ("add X to my list", "remind me to X", "put X, Y and Z on
my list", a list before the request), with a time said, a result, or a quoted name."""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.grammar import lexicon, normalize
from planner_svc.grammar.intent import RESULT_TEXT, SUMMARY, Intent
from planner_svc.grammar.todos.todo_add_words import (
    _A_QUANTITY_OF,
    _ADD,
    _ADD_MANY,
    _ADD_ONE,
    _ADD_VERB,
    _ADDED_TO,
    _AND_ONE_MORE_TOO,
    _ASKS,
    _BARE_ADD,
    _CLOCK,
    _ELSEWHERE,
    _INSIDE_TO_LIST,
    _MAX_ONE_MORE_CHARS,
    _NEEDED,
    _NO_ALARM,
    _NOT_A_THING,
    _NOT_A_TODO_START,
    _NOTE,
    _PURE_COMMANDS,
    _REMIND,
    _TIMER,
    _TO_LIST_INSIDE,
    _TODO_VERB_FIRST,
    _WHEN,
    _WITH_TEXT,
    ADD_FIRST,
    _elsewhere,
    uncounted,
)
from planner_svc.grammar.todos.todo_items import (
    _ADD_IT,
    _ASKED_AFTER,
    _CLOSER_TAIL,
    _CLOSES_A_LIST,
    _DESTINATION_END,
    _DESTINATION_INSIDE,
    _QUOTED_ADD,
    _QUOTES_APART,
    _READS_THE_LIST,
    _RESULT_SAID,
    _STRAY_QUOTE,
    _TITLE_INSIDE,
    _TODO_ADD_RESULT,
    _TOO,
    _a_thing,
    _items,
    _not_an_item,
    _quote_closed_inside,
    _unquoted,
    a_task,
    listed_apart,
    quoted_in,
)
from planner_svc.grammar.todos.todo_naming import _HOW_MANY_NAMED, _QUOTED_NAME, _VERBS
from planner_svc.grammar.todos.todo_questions import _question
from planner_svc.grammar.todos.todo_words import (
    _F,
    _LIST,
    _NOT_A_NAME,
    _NOT_A_TODO_TEXT,
    _NOUN,
    _POINTS_ON,
    _PRONOUNS,
    _TO_LIST,
    _VAGUE,
)


def _a_second_request(texts: list[str]) -> bool:
    """Whether an item after the first reads the list or asks about it ("add buy milk and read
    back my list", "new todo: buy milk, what's on my list"): a second request, never a todo."""
    return any(_READS_THE_LIST.match(t) or _question(t) is not None for t in texts[1:])


def _adding(clause: str, texts: list[str]) -> Intent | None:
    if _a_second_request(texts):  # before "on my list" is stripped from an item (and in _added after)
        return None
    # "remind me to call mom on my list": where it goes is never part of a todo's words; nor is
    # what closes the message ("add buy milk, done"), unless it was quoted with the name
    # (unless quoted: "add 'add more salt to the shopping list'" is that todo, as written)
    unplaced = (t if quoted_in(clause, t) else re.sub(rf"\s+{_TO_LIST}$", "", t, flags=_F) for t in texts)
    texts = [t for t in unplaced if t]
    if texts and not quoted_in(clause, texts[-1]) and (texts := uncounted(texts)) is None:  # type: ignore[assignment]
        return None
    quoted = bool(texts) and quoted_in(clause, texts[-1])
    closed = _unquoted(_CLOSER_TAIL.sub("", texts[-1])) if texts and not quoted else ""
    closes = bool(texts) and not quoted and closed != texts[-1]
    if closes:
        texts = [*texts[:-1], closed] if closed else texts[:-1]
    elif len(texts) > 1 and _CLOSES_A_LIST.fullmatch(texts[-1]):  # "add milk, eggs, done"
        texts, closes = texts[:-1], True
    if closes and texts:
        # "add buy milk as a task, done": where it goes, before the closing words, is no name
        last = _DESTINATION_END.sub("", texts[-1])
        texts = [*texts[:-1], last] if last else texts[:-1]
    made = _added(clause, texts)
    # The closing words belong to this add: "add call mom and dad - done" is one request, never
    # an add of "call mom" and a report that "dad" is done.
    return replace(made, weight=made.weight + 2) if made is not None and closes else made


# A todo's words that leave unsaid whether to add it ("maybe", "or not") or when it applies ("if
# we're out": the rules cannot tell; "check if the car is ready" is a task that says if).
_HEDGED = re.compile(
    r"(?:^|\s)(?:maybe|perhaps|possibly|or\s+not|or\s+something|i\s+guess|i\s+think|not\s+sure|idk)$"
    r"|^(?:or\s+not|maybe|perhaps)\b"
    # "milk or maybe eggs": not yet decided which
    r"|\sor\s+(?:maybe|perhaps|possibly)\s"
    r"|\s(?:and|or)\s+(?:maybe|perhaps|possibly)\s"  # "buy wipes and maybe call the health visitor"
    r"|^(?!.*\b(?:check|see|ask|find\s+out|confirm|verify|know|figure\s+out|decide|test|look|wonder|tell)\b"
    r".*\b(?:if|unless|in\s+case)\b).+\s(?:if|unless|in\s+case)\s+(?:we|i|you|they|it|there|she|he"
    # "if the old one doesn't turn up": a thing and what it does
    r"|(?:the|my|our|his|her|their|a|an)\s+(?:[\w'-]+\s+){0,3}?(?:is|are|was|does|do|did|doesn't|don't|didn't|has|have"
    r"|can|can't|will|won't|gets?|turns?|comes?|arrives?)\b)\b",
    _F,
)


# What asks for something to be found out, said after a todo: it may be a request to the agent.
# As a second item any "check ..." ("add buy milk and check the weather"); inside one item only a
# "check if ..." ("... and check if it's going to rain"), since "call mom and check on her" is a todo.
_FINDING_OUT = r"look\s+up|find\s+out|search|google|tell\s+me|show\s+me"
_LOOKS_SOMETHING_UP = re.compile(rf"(?:check|{_FINDING_OUT})\b", _F)
_AND_LOOKS_SOMETHING_UP = re.compile(
    rf"\s(?:and|&)\s+(?:then\s+)?(?:check\s+(?:if|whether|what|how)|{_FINDING_OUT})\b", _F
)


# Words before a todo's name that are not part of it: a "please" said after the verb ("add please
# meeting with Mr. Kim"), and an article or "some" before a thing ("add a dentist appointment",
# "add some batteries": the list says "dentist appointment", "batteries"), unless what follows is
# how much ("a dozen eggs", "a couple of pens") or a task the article belongs to.
_LEADING_NOT_NAME = re.compile(
    r"^(?:(?:please|pls|plz|kindly)\s+)?"
    r"(?:(?:a|an|some)\s+(?!(?:few|couple|lot|lots|bit|little|dozen|half|pair|bunch|number|bag|box|pack"
    r"|packet|bottle|can|jar|tin|loaf|kilo|pound|litre|liter|gallon|cup|piece|slice|set|load|ton|tons)\b))?",
    _F,
)
# "(add to my list) one more task: submit the visa form": what comes is a todo, then the todo
_NEW_ONE_HEADER = re.compile(
    rf"^(?:a|an|one|another)\s+(?:(?:more|new|other|extra)\s+)*(?:{_NOUN}|thing)\s*[:\-]\s*(?=\S)", _F
)
_REMIND_ME_TO = re.compile(r"^remind\s+me\s+to\s+(?=\S)", _F)
# "for later" after a todo says when to do it is not now, which a list already means; but it is
# part of a task that keeps something ("save the cake for later").
_FOR_LATER = re.compile(
    r"^(?!.*\b(?:save|keep|leave|store|freeze|set|put|hold)\b)(?P<x>.+?)\s+for\s+later$", _F
)


def _bare_name(clause: str, text: str) -> str:
    """`text` without the words around a name that are not part of it (above); quoted, as is."""
    if quoted_in(clause, text):
        return text
    text = _LEADING_NOT_NAME.sub("", text, count=1) or text
    text = _NEW_ONE_HEADER.sub("", text, count=1) or text
    text = _REMIND_ME_TO.sub("", text, count=1) or text  # "add remind me to mark the exams": the todo reminds
    if m := _FOR_LATER.match(text):
        text = m.group("x")
    return text


def _added(clause: str, texts: list[str]) -> Intent | None:
    texts = [_bare_name(clause, t) for t in texts]
    if len(texts) == 1 and _RESULT_SAID.match(" ".join(texts[0].split())):
        arguments = {"action": "add", "text": RESULT_TEXT}
        return Intent(
            clause, "todo_store", arguments, f'"{clause}" adds the result', SUMMARY, refers=texts[0]
        )
    if any(re.match(r"(?:but\s+)?not\s", t, _F) or re.search(r"\bbut\s+not\b", t, _F) for t in texts):
        return None  # "add milk and eggs, not bread": what not to add is no todo; say it plainly
    if any(_DESTINATION_INSIDE.search(t) and not quoted_in(clause, t) for t in texts):
        return None  # "add buy milk as a task asap": where it goes, then more; which words are the todo?
    if any(_quote_closed_inside(clause, t) for t in texts):
        return None  # "add 'water plants' - oh and thanks for earlier": the quote ended the name
    if any(
        (not quoted_in(clause, t) and _STRAY_QUOTE.search(_TITLE_INSIDE.sub("", t))) or _ADD_IT.search(t)
        for t in texts
    ):
        return None  # "save 200 a month - add it to my list": "add it" is the request, not the name
    if any(_HEDGED.search(t) and not quoted_in(clause, t) for t in texts):
        return None  # "add milk maybe", "add milk if we're out": whether to, or what, is unclear
    if any(
        (_LOOKS_SOMETHING_UP.match(t) and k > 0) or _AND_LOOKS_SOMETHING_UP.search(t)
        for k, t in enumerate(texts)
        if not quoted_in(clause, t)
    ):
        return None  # "add buy milk and check the weather": a second todo, or a request to me? unclear
    if _a_second_request(texts):  # asked again of the names as they will be added
        return None
    names = _NOT_A_NAME if len(texts) == 1 else _PRONOUNS  # "add todos: a, b and c" is three names
    if not texts or any(
        t.lower() in names
        or t.lower() in _NOT_A_TODO_TEXT
        or _QUOTES_APART.search(t)
        or _VAGUE.match(t)
        or (_POINTS_ON.match(t) and not quoted_in(clause, t))
        # "add two things to my list": how many, not what ("add 42 to my list" adds "42")
        or (_HOW_MANY_NAMED.fullmatch(t) and not re.fullmatch(r"\d+(?:\.\d+)?", t))
        for t in texts
    ):
        return None  # "add it to my list" names no todo: "it" is a reference (a result: above)
    if len(texts) == 1:
        return Intent(
            clause, "todo_store", {"action": "add", "text": texts[0]}, f'"{clause}" adds a todo', SUMMARY
        )
    return Intent(
        clause,
        "todo_store",
        {"action": "add", "texts": texts},
        f'"{clause}" adds {len(texts)} todos',
        SUMMARY,
    )


# "add tidy my room and do the laundry as separate todos", "... add each one as its own todo":
# the user says the list is several todos, whatever its words.
_SEPARATELY = re.compile(
    rf"\s+(?:as\s+(?:separate|individual|different|their\s+own)\s+(?:{_NOUN}s?|things|ones)|separately|individually"
    rf"|(?:each\s+)?as\s+(?:its|their)\s+own\s+(?:{_NOUN}|thing|one)s?)$",
    _F,
)
# "add three things buy stamps mail the package and call grandma": a count, then tasks run on.
_COUNTED_TASKS = re.compile(
    rf"^(?:add|put|note)\s+(?P<n>\d+|{'|'.join(lexicon.SMALL_NUMBERS)})\s+(?:things|{_NOUN}s|items)\s+(?P<list>.+)$",
    _F,
)


def _separately(clause: str) -> Intent | None:
    """The list of a clause that says its parts are separate todos, or whose count its tasks meet."""
    if m := _COUNTED_TASKS.match(clause):
        words = m.group("list").replace(",", " ").split()
        starts = [k for k, w in enumerate(words) if w.lower() in lexicon.TODO_VERBS]
        if not starts or starts[0] != 0:
            return None
        parts = [" ".join(words[a:b]) for a, b in zip(starts, [*starts[1:], len(words)], strict=True)]
        parts = [re.sub(r"\s+(?:and|&)$", "", p, flags=_F) for p in parts]
        wanted = m.group("n")
        count = lexicon.SMALL_NUMBERS.get(wanted.lower()) or int(wanted)
        if count == len(parts) and all(a_task(p) for p in parts):
            return _adding(clause, parts)
        return None
    if not (m := _SEPARATELY.search(clause)):
        return None
    head = clause[: m.start()]
    if not (found := re.match(rf"^(?:{_ADD_VERB})\s+(?P<text>.+?)(?:\s+{_TO_LIST})?$", head, _F)):
        return None
    parts = [
        p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s+&\s+", found.group("text")) if p.strip()
    ]
    if len(parts) < 2 or any(_NOT_A_THING.search(f" {p} ") and not a_task(p) for p in parts):
        return None
    return _adding(clause, parts)


# "ok so for the weekend I need to: clean the garage, call Uncle Bob, fix the fence. put all three
# on the list": the todos first, then the add that takes them (by how many, or "them", "each one").
_TAKE_THEM = re.compile(
    r"^(?P<items>.+?)\s*(?:[.!;]|\s-)\s*(?:(?:so|and|now|pls|please|can\s+you|could\s+you)\s+)*"
    r"(?:add|put|stick|pop|write\s+down|jot\s+down)\s+"
    r"(?P<ref>all\s+(?P<n>\w+)|all\s+of\s+(?:them|these|those)|both(?:\s+of\s+them)?|them(?:\s+all|\s+both)?|these|those"
    r"|each(?:\s+one)?(?:\s+of\s+(?:them|these|those))?)"
    r"(?:\s+(?:as\s+(?:its|their)\s+own\s+(?:todos?|tasks?|items?)|as\s+(?:separate|individual|different)\s+"
    r"(?:todos|tasks|items)|separately|individually))?"
    rf"(?:\s*{_TO_LIST})?(?:\s+(?:too|as\s+well))?(?:\s+(?:pls|please|thanks|thx|ty))?[.!]*$",
    _F,
)
# What announces them: "ok so for the weekend I need to:", "i also need", "first".
_LISTED_LEAD = re.compile(
    r"^(?:(?:ok|okay|so|right|well|alright)\b\s*,?\s*)*"
    r"(?:(?:for|over)\s+(?:the\s+|this\s+)?[a-z]+\s*,?\s+)?"
    r"(?:i\s+(?:also\s+|still\s+)?(?:need|have|must|gotta|should)(?:\s+to)?\s*:?\s*)?"
    r"(?:first(?:ly)?\s*,?\s+)?",
    _F,
)


def listed_first(message: str) -> Intent | None:
    """The add of todos listed before the request that takes them, when they are each a task or
    a thing and as many as it says ("both": two); None otherwise."""
    if not (m := _TAKE_THEM.match(message.strip())):
        return None
    said = m.group("items")
    said = said[_LISTED_LEAD.match(said).end() :]  # type: ignore[union-attr]  # it matches "" too
    items = _items(said, header=True)
    if (
        not items
        or len(items) < 2
        or not all((a_task(i) or _a_thing(i)) and not _not_an_item(i) for i in items)
    ):
        return None
    ref = m.group("ref").lower()
    wanted = 2 if ref.startswith("both") else None
    if (n := m.group("n")) is not None:
        wanted = lexicon.SMALL_NUMBERS.get(n.lower()) or (int(n) if n.isdigit() else None)
        if wanted is None:
            return None  # "add all later": no count
    if wanted is not None and wanted != len(items):
        return None  # "put all three on the list" after two: which is missing is not for a guess
    return _adding(message, items)


# "note down that I need to buy a new charger": the task, not the sentence around it.
_NOTE_THAT = re.compile(
    r"^(?P<verb>(?:note|jot|write|put)\s+down|add|remember)\s+(?:that\s+)?(?:i|we)\s+(?:need|have|must|should|gotta)\s+"
    r"(?:to\s+)?(?P<task>\S.*)$",
    _F,
)


_FOR_WHAT = re.compile(r"^for\s+(?:the|my|our)\s+[a-z]+(?:\s+[a-z]+)?\s*,?\s+(?=(?:add|put)\s*:)", _F)


def _add(clause: str) -> Intent | None:
    if (separate := _separately(clause)) is not None:
        return separate
    if (m := _NOTE_THAT.match(clause)) and (inner := _add(f"note down {m.group('task')}")) is not None:
        return replace(inner, clause=clause)
    if (m := _FOR_WHAT.match(clause)) and (inner := _add(clause[m.end() :])) is not None:
        return replace(inner, clause=clause)  # "for the party add: ask Jen ..., buy ice": what they are for
    if (
        len(clause) <= _MAX_ONE_MORE_CHARS
        and (m := _AND_ONE_MORE_TOO.match(clause))
        and not _VERB_INSIDE.search(m["b"])  # "... and delete eggs": a request of its own
        and not _TO_LIST_INSIDE.search(m["b"])  # one place said twice is no "one more"
        and (inner := _add(f"{m['verb']} {m['a']} and {m['b']} {m['dest']}"))
        and "texts" in inner.arguments
    ):
        return replace(inner, clause=clause)  # "put call Dad on the list, and buy cat food too"
    if m := _QUOTED_ADD.match(clause):  # "add 'say well done to Priya'": the quotes say where it ends
        return _adding(clause, [a or b for a, b in _QUOTED_NAME.findall(m.group("quoted"))])
    for pattern in _TODO_ADD_RESULT:
        if m := pattern.match(clause):
            arguments = {"action": "add", "text": RESULT_TEXT}
            return Intent(
                clause,
                "todo_store",
                arguments,
                f'"{clause}" adds the result',
                SUMMARY,
                refers=m.groupdict().get("ref") or m.group("down"),
            )
    if m := _ADD_MANY.match(clause):
        items = _items(m.group("list"), header=True)
        wanted = m.group("n")
        count = None if wanted is None else lexicon.SMALL_NUMBERS.get(wanted.lower()) or int(wanted)
        if items and count in (None, len(items)) and (made := _adding(clause, items)) is not None:
            # A list after its header is one clause: "todo: batteries, lightbulbs, bin bags" is
            # three todos, not two and a "bin" (delete) of "bags".
            return replace(made, weight=2 * len(items) + made.weight - 1)
        return None  # "add three todos: x and y" says one thing and lists another: not a guess
    if m := _ADD_ONE.match(clause):  # "add a todo to ...": one todo, as the user said
        text = m.group("text")
        if not m.group("conn").strip() and re.match(r"with\s", text, _F):
            # "add a todo with the text buy milk": what it says; "add a todo with the sum of 3
            # and 4" or "... with buy milk" say something else, or nothing clear
            if not (said := _WITH_TEXT.match(text)):
                return None
            text = said.group("text")
        if (
            "the" in (m.group("det") or "").lower().split()
            and not m.group("conn").strip()
            and text.split()[0].lower() not in lexicon.TODO_VERBS
        ):
            return None  # "add the note I wrote" says which note; "add the todo call mom" names one
        if (
            _elsewhere(text)
            or _ELSEWHERE.match(f" to {text}")
            or re.match(r"(?:on|in|into|onto|to)\s", text, _F)
        ):
            return None  # "add a reminder to my calendar", "add a note on my website": not to the list
        # "add a task to the list: buy milk": the list is where it goes, the words after it what
        # (a list named at the end goes in _adding, for every add)
        text = re.sub(rf"^(?:(?:my|the|our)\s+{_LIST}\b\s*[:\-]?|{_LIST}\s*[:\-])\s*", "", text, flags=_F)
        if not _QUOTED_NAME.fullmatch(text.strip()) and any(
            _not_an_item(p.strip()) or _ASKED_AFTER.match(p.strip()) for p in re.split(r"[,;]", text)[1:]
        ):
            return None  # "add a todo to buy milk, what is the weather": one todo, and something else
        return _adding(clause, [_unquoted(text)])
    for pattern in (*_ADD, _REMIND, _NOTE, *_NEEDED, _TODO_VERB_FIRST):
        if (m := pattern.match(clause)) and not _elsewhere(m.group("text")):
            if pattern is _REMIND and _TIMER.search(m.group("text")):
                return None  # "remind me to take the pizza out in 20 minutes": a timer, not a todo
            if pattern is _REMIND and _CLOCK.search(m.group("text")):
                # "remind me to call the dentist at 3:30 tomorrow": the todo, its time in its
                # words (as people who wrote such requests expect), and said plainly that no
                # reminder comes at that time
                added = _weighed(_adding(clause, _items(m.group("text")) or []))
                return None if added is None else replace(added, answer=f"{added.answer} {_NO_ALARM}")
            if (
                pattern is _REMIND
                and ADD_FIRST.match(text := m.group("text"))
                and (_DESTINATION_END.search(asked := _TOO.sub("", text)) or _QUOTED_NAME.search(text))
            ):
                # "remember to add bread to my list": the add it asks for, not a todo "add bread"
                # ("remind me to add oil to the car" is a todo: the list is not where it goes)
                inner = _add(asked)
                return None if inner is None else replace(inner, clause=clause)
            if pattern is _REMIND and ADD_FIRST.match(text := m.group("text")) and not _ADDED_TO.search(text):
                # "I need to remember to add eggs later": to the list (by me, now), or to
                # something the speaker makes (a todo "add eggs")? Nothing says which.
                return None
            return _weighed(_adding(clause, _items(m.group("text")) or []))
    m = _BARE_ADD.match(clause)
    said = m.group("text") if m else ""
    quantity = m is not None and not _WHEN.match(said) and _A_QUANTITY_OF.fullmatch(said)
    if m and (
        _WHEN.match(m.group("text"))
        or quantity
        or not _NOT_A_TODO_START.match(normalize.numeric(m.group("text")))
    ):
        text = re.sub(r"^(?:both|all\s+of)\s+", "", m.group("text"), flags=_F)
        first = text.split()[0].lower().strip("\"',;:")  # "add vacuum, do laundry, ...": "vacuum"
        # "dentist appointment on 12/03 at 9:30", "7:30 yoga class": when is part of the name.
        named = " ".join(_WHEN.sub(" ", text).split())
        if quantity:
            # "3 apples": how many, then the thing (no "when" nor "both" in it: named is said)
            named = said[quantity.end("n") :].strip() or named
        if (
            _elsewhere(text)
            or _INSIDE_TO_LIST.search(text)
            or _ASKS.search(text)
            or not named
            or not (
                first in lexicon.TODO_VERBS
                or (len(named.split()) <= 6 and not _NOT_A_THING.search(named))
                # "add juice boxes, granola bars and sunscreen", "add car wash and renew ..."
                or listed_apart(text)
            )
        ):
            return None
        made = _weighed(_adding(clause, _items(text) or []))
        # (rules.plan refuses it beside a sum: "what's 45 + 30, then add 15 for the tip")
        return replace(made, quantity=True) if made is not None and quantity else made
    return None


def _weighed(intent: Intent | None) -> Intent | None:
    """An add of several todos, as heavy as that many clauses: read whole before read as an add
    and something else ("add buy cake and take out the trash": two todos, never a delete)."""
    texts = intent.arguments.get("texts") if intent is not None else None
    if not texts or any(t.split()[0].lower() in _PURE_COMMANDS for t in texts[1:]):
        return intent
    return replace(intent, weight=len(texts))


_VERB_INSIDE = re.compile(rf"\b(?:{_VERBS}|deleted|removed|added|done|finished)\b", _F)
