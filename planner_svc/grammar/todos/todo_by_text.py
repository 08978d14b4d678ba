"""Completing or deleting a todo by its name, in a state, or every todo a name fits; a reference
("it", "the second one") bound later, never a name."""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.followups import PRONOUNS, TodoReference, looks_like_a_reference, todo_reference
from planner_svc.grammar import lexicon
from planner_svc.grammar.intent import SUMMARY, Intent
from planner_svc.grammar.todos.todo_adding import _VERB_INSIDE
from planner_svc.grammar.todos.todo_clearing import _clear
from planner_svc.grammar.todos.todo_items import _AND_SPLIT, _a_thing, quoted_in
from planner_svc.grammar.todos.todo_naming import (
    _BY_TEXT,
    _GENERIC,
    _IN_STATE,
    _ONE_TODO,
    _SWEEPING_NAME,
    _TRAILING,
    _VERBS,
    _name,
)
from planner_svc.grammar.todos.todo_reports import _CONDITION_FIRST, _each, starts_a_task
from planner_svc.grammar.todos.todo_words import (
    _F,
    _LIST,
    _MY,
    _NOT_A_NAME,
    _NOUN,
    _PAST,
    _SIMPLE_PAST,
    _STATE_WORDS,
    _alt,
    _state,
)


def _in_state(clause: str, action: str, m: re.Match[str]) -> Intent | None:
    """A complete or delete of the todo in a state, by its name, or the one todo in it."""
    state = _state(m.group("state").lower().split())
    if state not in ("open", "done"):
        return None
    if m.group("one"):
        reasoning = f'"{clause}" {action}s the one {state} todo'
        return Intent(clause, "todo_store", {"action": action, "state": state}, reasoning, SUMMARY)
    if not (name := _name(m.group("name"))):
        return None
    reasoning = f'"{clause}" {action}s the {state} todo matching {name!r}'
    return Intent(clause, "todo_store", {"action": action, "text": name, "state": state}, reasoning, SUMMARY)


# "both bills", "the two email ones", "all three shopping todos": how many todos one name fits
# (at the start, or after a past that reports them done: "book 4 tickets" is one todo's name)
_HOW_MANY_FIT = re.compile(
    rf"^(?P<pre>(?:{_PAST}|{_SIMPLE_PAST})\s+)?(?:both(?:\s+of)?|(?:all\s+)?(?:the|my)\s+(?P<n>two|three|four|five|2|3|4|5)"
    r"|all\s+(?P<all_n>two|three|four|five|2|3|4|5))(?:\s+(?:the\s+|my\s+)?(?P<rest>[a-z][\w' -]*))?$",
    _F,
)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
_ONE_SAID = re.compile(rf"\s(?:one|{'|'.join(lexicon.TODO_NOUNS)})$", _F)
_PLURAL_NOUN = re.compile(rf"\s+(?:ones|things|{'|'.join(lexicon.TODO_NOUNS_PLURAL)})$", _F)


# "delete all the milk ones", "tick off all my shopping todos": every todo a name fits, however
# many (a group by its name and a plural, never by a state: "all the done ones" is a sweep)
_ALL_NAMED = re.compile(
    rf"^all\s+(?:of\s+)?(?:the|my)\s+(?P<name>[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+"
    rf"(?:ones|things|{'|'.join(lexicon.TODO_NOUNS_PLURAL)})$",
    _F,
)


def _all_named(clause: str, action: str, said: str) -> Intent | None:
    if not (m := _ALL_NAMED.match(said)):
        return None
    name = _name(m.group("name"))
    if not name or any(w in _STATE_WORDS | _GENERIC | _NOT_A_NAME for w in m.group("name").lower().split()):
        return None  # "all the done ones" (a sweep), "all the other ones": no name
    reasoning = f'"{clause}" {action}s every todo matching {name!r}'
    # Deleting a number of todos not said: a person confirms it, as a sweep
    return Intent(
        clause,
        "todo_store",
        {"action": action, "text": name, "every": True},
        reasoning,
        SUMMARY,
        confirm=action == "delete",
    )


def _every(clause: str, action: str, said: str) -> Intent | None:
    """A complete or delete of every todo a name fits, saying how many ("paid both bills": the two
    todos "bills" fits; todo_store refuses when it fits another number of them)."""
    if _a_reference(said):
        return None  # "both of those": todos seen together, never a name that fits two
    if _ONE_SAID.search(said):
        return None  # "the 3 plumbers one": one todo, whose name has a number
    if (every := _all_named(clause, action, said)) is not None:
        return every
    if not (m := _HOW_MANY_FIT.match(said)) or re.search(r"\d", m.group("rest") or ""):
        return None  # "read chapters 3 and 4", "the 2 of them": not one name fitting several
    if re.search(r"\b(?:of\s+(?:them|those|these|it))\b", m.group("rest") or "", _F):
        return None
    if not m.group("rest") and not (m.group("pre") and m.group("all_n")):
        return None  # "washed all 3": the verb names them; "delete both": both of what?
    count = _COUNTS[(m.group("n") or m.group("all_n") or "two").lower()]
    rest = _TRAILING.sub("", (m.group("rest") or "").strip())  # "... the shopping ones this morning"
    name = _name(_PLURAL_NOUN.sub("", f"{m.group('pre') or ''}{rest}".strip()))
    if not name or not re.search(r"[a-z]{3}", name, _F):
        return None
    reasoning = f'"{clause}" {action}s the {count} todos matching {name!r}'
    arguments = {"action": action, "text": name, "matching": count}
    return Intent(clause, "todo_store", arguments, reasoning, SUMMARY)


def _referring(clause: str, action: str, reference: TodoReference) -> Intent:
    """A complete or delete of earlier todos ("mark it as done"): _bind makes it one step per todo."""
    reasoning = f'"{clause}" {action}s {reference.words!r}'
    return Intent(clause, "todo_store", {"action": action}, reasoning, SUMMARY, todos=reference)


_CLEAR_IT = re.compile(
    r"^(?:clear|wipe|empty|delete|remove|bin|scrap)\s+(?P<r>(?:it|that|them|those)\s+all|all\s+of\s+(?:it|them))(?:\s+out)?$"
    r"|^(?:clear|wipe|empty)\s+(?P<one>it|that|them|those)(?:\s+out)?$",
    _F,
)


# Verbs that begin tasks as often as they delete todos: "remove the stain", "clear the table",
# "cut the grass". Read as deletes only when the words say the list ("the stain todo", "the gym
# one", "... from my list") or quote the name.
_DOING = re.compile(
    rf"^(?:remove|clear|cut|take\s+out)\s+(?:the|my)\s+(?!.*(?:\b(?:{_NOUN}|one|ones|thing|things|list|todos|tasks)\b|['\"]))",
    _F,
)


_THEN_MARKED = re.compile(r"\s[-\u2013\u2014:]\s*(?:mark|tick|check|cross|strike)\b", _F)
_THEN_DELETED = re.compile(rf"\s*[:\-\u2013\u2014]\s*(?:{_alt(lexicon.DELETE_VERBS)})(?:\s+it)?$", _F)
_REPORTED_DONE = re.compile(
    r"\s(?:(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+)?(?:done|finished|completed|sorted|cancell?ed|off"
    r"|no\s+longer\s+(?:needed|necessary|happening))(?:\s+(?:now|already|today|too|as\s+well))?|can\s+go(?:\s+now)?"
    r"|can\s+be\s+(?:ticked|checked|crossed|marked)(?:\s+off)?(?:\s+(?:as\s+)?(?:done|complete|finished))?)$"
    # "take out the trash: done", "... - done", "... done": the name, then that it is done
    r"|(?:\s*[:\-\u2013\u2014]\s*|\s+)(?:done|finished|completed|complete|checked)$",
    _F,
)


# A report that it is done, then the todos a reference points at: "got the first two", "finished
# both" (only words that say done: "deleted both", "moved the first one", "called the other one"
# may report anything).
# (and a task's own verb: "bought both", "paid the first two" report the todos meant, never a
# todo named "both")
# The pasts that report a task done, said of the todos a reference or a pronoun points at.
_TASK_DONE = (
    r"paid|sent|booked|bought|finished|did|completed|posted|mailed|submitted|filed|emailed|called|phoned|rang"
    r"|texted|fixed|cleaned|washed|returned|ordered|renewed|signed|printed|collected|picked\s+up|dropped\s+off"
    r"|handed\s+in|sorted"
)
_DID_TO = re.compile(
    rf"^(?:i\s+|we\s+)?(?:just\s+|already\s+|finally\s+|also\s+)?(?:got|done|{_TASK_DONE})\s+(?P<r>.+)$",
    _F,
)


_DID_FOR_SOMEONE = re.compile(
    rf"^(?:i\s+|we\s+)?(?:just\s+|already\s+|finally\s+)?(?:{_PAST}|{_SIMPLE_PAST})\s+(?:him|her|them)"
    r"(?:\s+(?:back|already|today|now))?$",
    _F,
)


# "paid it", "sent that one", "I already read that one last year": what was done, said of the todo
# "it" means (a pronoun is never a name to look up)
_DID_IT = re.compile(
    # (verbs that do a task, never "got it", "missed it", "liked it": an acknowledgement or news)
    rf"^(?:i\s+|we\s+)?(?:just\s+|already\s+|finally\s+|also\s+)?(?P<v>{_TASK_DONE}|read|wrote|written)\s+"
    r"(?P<r>it|that|this|that\s+one|this\s+one)"
    r"(?:\s+(?:already|today|now|myself|ourselves|yesterday|earlier|this\s+morning|last\s+(?:night|week|year|month)))*$",
    _F,
)


def _done_to(clause: str, action: str, said: str) -> tuple[bool, Intent | None]:
    """ "got the first two", "did both": whether `said` reports the todos a reference points at
    done, and the plan (None: a reference no rule reads, refused). Not "got it", "got that":
    understood, most likely."""
    if not (did := _DID_TO.match(said)) or did["r"].lower() in PRONOUNS:
        return False, None
    if reference := todo_reference(did["r"]):
        return True, _referring(clause, action, reference)
    return looks_like_a_reference(did["r"]), None


def _a_reference(said: str) -> bool:
    """ "remove the second", "clear the last two": words that point at todos, never a task's."""
    return todo_reference(said) is not None or looks_like_a_reference(said)


# "mark the dentist one done and the floss one too": the second name, then the same again
_AND_ONE_TOO = re.compile(
    r"^(?P<verb>mark|set)\s+(?P<x>.+?)\s+(?P<state>(?:as\s+)?(?:done|complete|completed|finished))\s*,?\s+"
    r"(?:and|&)\s+(?P<y>(?:the|my)\s+.+?)(?:\s+(?:too|as\s+well|also))?$",
    _F,
)


# "mark as done", "tick off": the thing to mark left unsaid, as "it" is said: the one the
# conversation has just made salient (refused, naming them, when that is not one)
_UNSAID_IT = re.compile(
    r"^(?:(?:mark|set)\s+(?:as\s+)?(?:done|complete|completed|finished)|(?:tick|check|cross)\s+off)$", _F
)


# "mark everything done except the gym one": the exception said after the state
_ALL_DONE_BUT = re.compile(
    r"^(?P<v>mark|tick|check|set|cross)\s+(?P<all>everything|all(?:\s+of\s+them)?|them\s+all|the\s+rest)\s+"
    r"(?P<s>(?:as\s+)?(?:done|complete|completed|finished)|off)\s*,?\s+"
    r"(?P<x>(?:except|but|apart\s+from|other\s+than|besides)\s.+)$",
    _F,
)


def _done_to_it(clause: str, question: bool) -> Intent | None:
    """ "mark as done" (the thing left unsaid), "paid it", "read that one": a complete of what
    "it" is to the conversation; "mark everything done except X" as "mark everything except X
    done"."""
    if (but := _ALL_DONE_BUT.match(clause)) and (
        said := _by_text(f"{but['v']} {but['all']} {but['x']} {but['s']}", question)
    ):
        return replace(said, clause=clause)
    if not question and (did := _DID_IT.match(clause)):
        # (weighing nothing: beside a request, "just cancelled it" is why, read as such first)
        said = TodoReference(" ".join(did["r"].lower().split()), count=1, did=did["v"])
        return replace(_referring(clause, "complete", said), weight=0)
    if _UNSAID_IT.match(clause):
        return _referring(clause, "complete", TodoReference(" ".join(clause.lower().split()), count=1))
    return None


def _with_what_was_done(m: re.Match[str], said: str) -> str:
    """A report's name with the past it was said with: "the dog's been walked" is "walked the
    dog"; "bins are out" (no past, only the particle) "bins out"."""
    if m.groupdict().get("v"):
        return f"{m.group('v')}{m.group('p') or ''} {said}"
    if m.groupdict().get("p"):
        return f"{said} {m.group('p').strip()}"
    return said


def _by_text(clause: str, question: bool) -> Intent | None:
    if (it := _done_to_it(clause, question)) is not None:
        return it
    if both := _AND_ONE_TOO.match(clause):
        names = [_name(both["x"]), _name(both["y"])]
        # ("... and the taxes one deleted" is another request, not a second name)
        if all(names) and not any(_VERB_INSIDE.search(n) for n in names):
            return _each(clause, "complete", names)
    if m := _CLEAR_IT.match(clause):  # "show me the list, then clear it": every todo listed
        words = " ".join((m.group("r") or m.group("one")).lower().split())
        return _referring(clause, "delete", TodoReference(words))
    for pattern, action, statement in _BY_TEXT:
        if (statement and question) or not (m := pattern.match(clause)):
            continue
        if action == "delete" and _DOING.match(clause) and not _a_reference(m.group("x")):
            continue  # "remove the stain" may be the todo's own words, not a delete of it
        if statement and action == "delete" and (sweep := _clear(f"delete {m.group('x').strip()}")):
            return replace(sweep, clause=clause, reasoning=sweep.reasoning.replace(sweep.clause, clause))
        said = m.group("x").strip()
        of_things = m.groupdict().get("things") is not None  # the past verb and a list of things
        if re.search(rf"\s(?:to|onto)\s+{_MY}(?:(?:todo|to-do)\s+)?{_LIST}$", said, _F):
            continue  # "... and take out trash to my todo list": an item of an add, not a delete
        if not statement and _REPORTED_DONE.search(said):
            continue  # "take out the trash is done", "finish essay can go": said of the todo by its name
        if not statement and action == "complete" and _THEN_DELETED.search(said):
            continue  # "finish report - delete": the todo by its name, then what to do with it
        if statement and _RAN_OUT.match(said):
            return None  # "ran out of milk": none left, not a todo done ("run out to the shop")
        if statement and _CONDITION_FIRST.match(said):
            return None  # "once the essay is done, tick it off": when it will be, not that it is
        if statement and _THEN_MARKED.search(said):
            continue  # "Emailed Priya the invoice - mark done": the report, then the command about it
        if (
            (m.groupdict().get("v") or "").lower() == "paid"
            and re.fullmatch(r"[A-Z][\w'-]*", said)
            and said.lower() not in lexicon.PAYABLES
        ):
            continue  # "Sam paid": what Sam did, most likely (but "rent paid", "the gas bill paid")
        said = _with_what_was_done(m, said)
        if (every := _every(clause, action, said)) is not None:
            return every
        if reference := todo_reference(said):
            return _referring(clause, action, reference)
        if looks_like_a_reference(said):
            return None  # "the second of those": a reference no rule reads, never a todo's name
        if statement and action == "complete" and _DID_FOR_SOMEONE.match(said):
            # "paid him", "called her back", "texted them": the person the todo was about, so the
            # todo "it" means (none of its words are said)
            return _referring(clause, action, TodoReference(" ".join(said.lower().split()), count=1))
        if statement and (done := _done_to(clause, action, said))[0]:
            return done[1]
        if not statement and (m := _IN_STATE.match(said)):  # "delete the finished 'water the plants'"
            return _in_state(clause, action, m)
        parts = _AND_SPLIT.split(said)
        if "," in said and not quoted_in(clause, said):
            # "completed: book flights, renew passport": a list of tasks, each a todo's name
            listed = [q for p in re.split(r"\s*,\s*", said) if p for q in _AND_SPLIT.split(p)]
            # ... or, reported done, a list of things ("bought eggs, bread and butter")
            tasks = all(starts_a_task(q) for q in listed)
            clean = not any(map(_VERB_INSIDE.search, listed)) and not (
                of_things and any(map(_NOT_BOUGHT.search, listed[1:]))
            )
            things = statement and all(map(_a_thing, listed)) and clean
            if of_things and not (len(listed) > 1 and (things or (tasks and clean))):
                continue  # "bought eggs, bread, mom called", "called the bank, mark done": no list of them
            if len(listed) > 1 and (tasks or things):
                parts = listed
        # "delete buy stamps and pay rent" is two todos; "... and cancel my membership" is no
        # second name but a second request.
        second_request = any(
            re.match(rf"(?:{_VERBS}|show|list|tell|count|give)\b", p.strip(), _F) for p in parts[1:]
        )
        if (
            len(parts) > 1
            and not second_request
            and (
                all(starts_a_task(p) for p in parts)
                # (things joined by "&" are one thing: "Mum & Dad anniversary gift is done")
                or (statement and all(map(_a_thing, parts)) and not re.search(r"\s&\s", said))
                # "the dry cleaning one and the gym one": each says it is one todo
                or all(_ONE_TODO.search(p.strip()) for p in parts)
            )
        ):
            texts = [_name(p) for p in parts]  # "delete buy stamps and pay rent": two todos
        else:
            texts = [_name(said)]
        if any(_SWEEPING_NAME.match(t) for t in texts):
            return None  # "delete all completed tasks and ...": not one todo's name
        if all(texts):
            return _each(clause, action, texts)
    return None


# After "bought eggs, bread and butter", a part that is no thing bought: news ("mom called"),
# what is missing ("out of milk", "no milk though", "forgot milk", "except milk").
_NOT_BOUGHT = re.compile(
    r"\b(?:of|no|not|except|but|though|still|need|needs|forgot|without|missing|called|came|left|out"
    r"|ran|gone|instead|maybe|too|also)\b|\w{3,}ed\b|'",
    _F,
)


_RAN_OUT = re.compile(r"(?:ran|run|running)\s+out\b(?!\s+(?:to|for|and)\b)", _F)

# "don't delete everything, just the done ones": the request, narrowed to what follows "just"
_NOT_ALL_JUST = re.compile(
    rf"^(?:do\s+not|don't|dont)\s+(?P<verb>{_alt(lexicon.CLEAR_VERBS)}|mark|tick\s+off|check\s+off|complete)\s+"
    r"(?:everything|all(?:\s+of\s+them)?|the\s+whole\s+(?:list|lot)|it\s+all)\s*[,;-]?\s*(?:just|only)\s+(?P<x>.+)$",
    _F,
)
