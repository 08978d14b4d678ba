"""A statement with its pronoun ("walked the dog already, check it off"): the todo the statement
names, then what to do with it."""

from __future__ import annotations

import re
from dataclasses import replace

from agentrt.core import wordforms
from planner_svc.followups import looks_like_a_reference, todo_reference
from planner_svc.grammar import lexicon
from planner_svc.grammar.intent import SUMMARY, Intent
from planner_svc.grammar.todos.todo_add_words import _PURE_COMMANDS
from planner_svc.grammar.todos.todo_adding import _adding
from planner_svc.grammar.todos.todo_items import _items
from planner_svc.grammar.todos.todo_naming import _name
from planner_svc.grammar.todos.todo_words import _F, _LIST, _MY, _NOUN, _PAST, _SIMPLE_PAST, _TO_LIST, _alt

# --- a statement, then a pronoun -------------------------------------------------------------

_PRONOUN = (
    r"(?P<ref>it|that|this|(?:that|this)\s+(?:one|todo|task|item|reminder)|them|those|these|both|both\s+of\s+them|them\s+both"
    r"|them\s+all)"
)
_ACTIONS = [
    (rf"(?:check|tick|cross|mark|strike)\s+{_PRONOUN}\s+off(?:\s+{_MY}{_LIST})?", "complete"),
    (rf"(?:mark|set)\s+{_PRONOUN}(?:\s+(?:as\s+)?(?:done|complete|completed|finished))?", "complete"),
    (rf"(?:complete|finish|close)\s+{_PRONOUN}", "complete"),
    (
        rf"make\s+{_PRONOUN}\s+(?:as\s+)?(?:done|complete|completed|finished)",
        "complete",
    ),  # a learner's "mark"
    (rf"(?:put|set|mark)\s+{_PRONOUN}\s+as\s+(?:done|complete|completed|finished)", "complete"),
    (rf"(?:tick|check)\s+{_PRONOUN}", "complete"),
    (rf"(?:so\s+)?{_PRONOUN}\s+is\s+(?:done|finished|sorted|complete)", "complete"),
    # "gas bill didn't go through, untick it": not done after all
    (rf"(?:untick|uncheck|unmark|reopen)\s+{_PRONOUN}", "reopen"),
    (
        rf"(?:mark|put|set|make)\s+{_PRONOUN}\s+(?:back\s+)?(?:as\s+|to\s+)?(?:not\s+done|undone|open|incomplete"
        r"|unfinished)(?:\s+again)?",
        "reopen",
    ),
    (rf"bin\s+{_PRONOUN}", "delete"),
    (rf"(?:{_alt(lexicon.DELETE_VERBS)})\s+{_PRONOUN}(?:\s+(?:off|from)\s+{_MY}{_LIST})?", "delete"),
    (rf"take\s+{_PRONOUN}\s+off(?:\s+{_MY}{_LIST})?", "delete"),
    (
        rf"(?:add|put|save|note|write|jot|stick)\s+{_PRONOUN}(?:\s+down)?"
        rf"(?:\s+(?:as\s+an?\s+{_NOUN}|{_TO_LIST}))?",
        "add",
    ),
]
_ANY_ACTION = "|".join(a.replace("(?P<ref>", "(?:") for a, _ in _ACTIONS)  # one group named ref per pattern
_MENTION_ACTION = re.compile(
    rf"^(?P<said>.+?)(?P<sep>\s*[,:\-.!]\s*|\s+(?=(?:check|tick|cross)\s+(?:it|that)\s+off|(?:mark|tick)\s+(?:it|that)(?:\s+(?:off|done|as\s+done))?$))(?:(?:so|please|kindly|now|just|and|ok|okay|can\s+you|could\s+you|you\s+can|would\s+you)\s+)*"
    rf"(?P<action>{_ANY_ACTION})$",
    _F,
)
# The command comes last and is short: looked for in the last words first, so a long clause with
# none is not searched for a place to split it at every comma (linear, but not cheap).
_ACTION_AT_END = re.compile(rf"\b(?:{_ANY_ACTION})$", _F)
_ACTION_KIND = [(re.compile(rf"^(?:{a})$", _F), kind) for a, kind in _ACTIONS]
_NOT_DONE_LEAD = r"(?:oops\s+|sorry\s+|actually\s+)?(?:the\s+|my\s+)?"
_NOT_A_PERSON = r"(?!(?:i|we|it|that|this|they|he|she)\b)"
_SAID = {
    "add": [
        r"(?:i\s+)?(?:really\s+)?(?:need|have|want|got|ought|must|should|gotta)(?:\s+to)?(?:\s+remember\s+to)?\s+(?P<x>.+)",
        r"(?:do\s+not|never)\s+(?:let\s+me\s+)?forget\s+to\s+(?P<x>.+)",
        r"(?:remember|remind\s+me)\s+to\s+(?P<x>.+)",
    ],
    "complete": [
        r"(?:i\s+)?(?:have|has)\s+finish\s+(?P<x>.+?)",  # "I have finish the homework": a learner's perfect
        # "don't delete the dentist one, just mark it done": the todo not to delete is the one meant
        r"(?:please\s+)?(?:do\s+not|don't|dont)\s+(?:delete|remove)\s+(?P<x>.+?)",
        # "finally got my taxes done, tick it": what was got done ("got" is no part of its name);
        # "got the car washed": the car, washed (todo_store finds "wash the car" by those words)
        r"(?:i\s+|we\s+)?(?:finally\s+|just\s+)?got\s+(?P<x>.+?)\s+(?:done|sorted|finished|out\s+of\s+the\s+way)",
        rf"(?:i\s+|we\s+)?(?:finally\s+|just\s+)?(?:got|had)\s+(?P<x>[^,]+?\s+{_PAST})",
        r"(?:i\s+|we\s+)?(?:finally\s+|just\s+)?managed\s+to\s+(?P<x>[^,]+?)",  # "I managed to fix the alarm"
        r"(?:i\s+)?(?:have\s+|just\s+|already\s+|finally\s+)*(?:done|did|finished|completed)\s+(?P<x>.+?)"
        r"(?:\s+(?:already|now|today|just\s+now))?",
        rf"(?:i\s+|we\s+)?(?:have\s+)?(?:just\s+|already\s+|finally\s+|now\s+)?(?P<x>{_PAST}\s.+?|(?:{_SIMPLE_PAST})\s.+?)"
        r"(?:\s+(?:already|now|today|just\s+now))?",
        r"(?P<x>.+?)\s+(?:is|are)\s+(?:now\s+|all\s+|already\s+)?(?:done|finished|completed|sorted)",
        # "batteries bought!" (never "I just checked": who did it is no thing done)
        rf"(?!(?:i|we|you|he|she|they|it)\s)(?P<x>[^,]+?\s+(?:{_PAST}|bought|paid|sent|made|done|fed|found|sold))",
    ],
    # what was said done was not: "I didn't actually send the invoice to Mark yet", "recycling
    # didn't get taken", "the worksheets aren't actually done"
    "reopen": [
        r"(?:oops\s+|sorry\s+|actually\s+)?(?:i\s+|we\s+)(?:have\s+not|had\s+not|did\s+not|never)\s+"
        r"(?:actually\s+|really\s+)?(?P<x>[a-z][^,]+?)(?:\s+(?:yet|after\s+all))?",
        rf"{_NOT_DONE_LEAD}(?P<x>{_NOT_A_PERSON}[a-z][\w' -]*?)\s+(?:did\s+not|never)\s+(?:actually\s+)?"
        r"(?:get\s+[a-z]+|go(?:\s+through|\s+out)?|happen|arrive)",
        rf"{_NOT_DONE_LEAD}(?P<x>{_NOT_A_PERSON}[a-z][\w' -]*?)(?:\s+is|\s+are|'s)\s+not\s+"
        r"(?:actually\s+|really\s+)?(?:done|finished|sorted|paid|sent|fixed)(?:\s+(?:yet|after\s+all))?",
    ],
    "delete": [
        r"(?:i\s+)?(?:do\s+not|no\s+longer|will\s+not|am\s+not\s+going\s+to)\s+(?:need|have|want)\s+to\s+(?P<x>.+?)"
        r"(?:\s+any\s?more)?",
        r"(?:i\s+)?(?:do\s+not|no\s+longer)\s+need\s+(?P<x>.+?)(?:\s+any\s?more)?",
        r"(?:forget(?:\s+about)?|never\s*mind(?:\s+about)?|scratch|skip)\s+(?P<x>.+)",
        r"(?:i\s+|we\s+)?(?:have\s+|am\s+)?(?:give|gave|given|giving)\s+up\s+on\s+(?P<x>.+)",
        r"(?:i\s+am\s+|we\s+are\s+)?not\s+(?:bothering|going\s+ahead)\s+with\s+(?P<x>.+)",
        r"(?:the\s+)?(?P<x>.+?)(?:'s|\s+(?:is|are|has\s+been|was|got))\s+(?:cancell?ed|off|called\s+off|not\s+happening)",
    ],
}
_SAID_COMPILED = {kind: [re.compile(rf"^(?:{p})$", _F) for p in patterns] for kind, patterns in _SAID.items()}
# ("... and rung Margaret": a participle after "have" says it too)
# (not "forgotten": "... and forgotten the milk" is not done)
_PARTICIPLE = "|".join(
    sorted(
        set(wordforms.IRREGULAR) - set(wordforms.PAST_TENSE) - {"forgot", "forgotten"}, key=len, reverse=True
    )
)
_PAST_AND = re.compile(rf"\s+and\s+(?=(?:{_PAST}|{_SIMPLE_PAST}|{_PARTICIPLE})\b)", _F)


_ASIDE_FIRST = re.compile(
    r"^(?:(?:never\s*mind|oh\s+well|ok(?:ay)?|so|well|yeah|yep|yes|right|alright)\s*,?\s+)+(?=i\s|we\s)", _F
)


_WHY_FIRST = re.compile(r"^[^,;.!?]{1,80}?\s+so\s+(?=(?:i|we)\s)", _F)


def pronoun_action(clause: str) -> bool:
    """Whether `clause` only acts on "it", "that" or "both" ("add it to my list", "cross it off"):
    a sentence like that may be read with the one before it, which names what it means."""
    return any(p.match(clause) for p, _ in _ACTION_KIND)


_TIME_SAID = re.compile(
    r"\s+(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|week|weekend)|next\s+week|asap)$", _F
)


def _with_when(name: str, said: str) -> str:
    """`name` with the time it was said with, when _name trimmed only that ("take bins out tonight"):
    a report's "today" says when it was done, but a todo's says when to do it."""
    said = " ".join(said.split())
    rest = said[len(name) :] if said.startswith(name) else ""
    return said if rest and _TIME_SAID.fullmatch(rest) else name


# "that's already paid", "that one's done": a pointer to something said before, no name
_ONLY_A_POINTER = re.compile(
    r"^(?:that|this|it|those|these|they|that\s+one|this\s+one)(?:'s|\s+(?:is|are|was|were|has|have))?\b", _F
)


# When a report says it was done, and words that only carry it ("mowed the lawn this morning so
# tick that off", "fixed the fence yesterday actually"): never part of the todo's name.
_DONE_WHEN = re.compile(
    r"(?:[\s,]+(?:so|and|but|lol|haha|now|already|actually|finally|at\s+last|just\s+now|earlier(?:\s+today)?"
    r"|today|yesterday|last\s+night|this\s+(?:morning|afternoon|evening|week))\b)+[\s,]*$",
    _F,
)


def _mentioned(clause: str) -> Intent | None:
    """ "walked the dog already, check it off": the statement names the todo the pronoun means."""
    if not _ACTION_AT_END.search(clause[-120:]) or not (m := _MENTION_ACTION.match(clause)):
        return None
    if not m.group("sep").strip() and re.search(r"[.!?;]", m.group("said")):
        return None  # "... the council. Kindly mark it as done": a sentence ended before the command
    action = m.group("action")
    kind, ref = next(
        (k, " ".join(f.group("ref").lower().split())) for p, k in _ACTION_KIND if (f := p.match(action))
    )
    # "nvm, I don't need to buy the cake anymore, remove it": what is said after the aside
    statement = _ASIDE_FIRST.sub("", m.group("said"))
    # "they're back early so I don't need the plant thing anymore, get rid of it": why, first
    statement = _WHY_FIRST.sub("", statement)
    if _CONDITION_FIRST.match(statement):
        return None  # "once the essay is done, tick it off": nothing has happened yet
    said = next((x.group("x") for p in _SAID_COMPILED[kind] if (x := p.match(statement))), None)
    if said is None and m.group("sep").strip() in ("-", ":") and starts_a_task(m.group("said")):
        said = m.group("said")  # "practice spanish - bin it": the name, then what to do with it
    if said is None and kind == "add" and starts_a_task(m.group("said")):
        said = m.group("said")  # "Sign up for the 10k race. Put that on my list."
    if said is None or said.split()[0].lower() in _PURE_COMMANDS:
        return None  # "add buy milk - mark it done": a request, then another; no todo called "add ..."
    if _ONLY_A_POINTER.match(said):
        return None  # "that's already paid, tick it": "that" names nothing here
    if kind != "add":
        said = _DONE_WHEN.sub("", said) or said
    if kind == "add":
        parts = (
            (_items(said) or [said])
            if ref in ("them", "those", "these", "both", "them both", "them all")
            else [said]
        )
    else:
        parts = _PAST_AND.split(said)
    texts = [t for t in (_name(p) for p in parts) if t]
    if kind == "add" and len(texts) == len(parts):  # "take bins out tonight - add it": when is part of it
        texts = [_with_when(t, p) for t, p in zip(texts, parts, strict=True)]
    if kind != "add" and len(texts) == 1 and (pointed := todo_reference(texts[0])) is not None:
        # "done with the first and the last, mark them off": the statement says which ones
        reasoning = f'"{clause}" {kind}s {pointed.words!r}'
        return Intent(clause, "todo_store", {"action": kind}, reasoning, SUMMARY, todos=pointed, weight=3)
    if any(map(looks_like_a_reference, texts)):
        return None  # "the second of those": a reference no rule reads, never a todo's name
    reference = todo_reference(ref)
    wanted = reference.count if reference is not None else None
    if len(texts) != len(parts) or (wanted is not None and wanted != len(texts)):
        return None  # "I did A and B, mark it done": "it" is one, the statement names two
    # A statement and its pronoun are one clause: rules.plan must not take the statement alone
    # ("forget about calling the bank" is a delete of its own) and leave "delete it" unbound.
    made = _adding(clause, texts) if kind == "add" else _each(clause, kind, texts)
    return None if made is None else replace(made, weight=len(parts) + 2)


def _each(clause: str, action: str, texts: list[str]) -> Intent:
    """A complete or delete of the todos named by `texts` (one step each: stages/binding._bind)."""
    named = ", ".join(repr(t) for t in texts)
    reasoning = f'"{clause}" {action}s the todo{"s" if len(texts) > 1 else ""} matching {named}'
    if len(texts) == 1:
        return Intent(clause, "todo_store", {"action": action, "text": texts[0]}, reasoning, SUMMARY)
    return Intent(clause, "todo_store", {"action": action}, reasoning, SUMMARY, each=tuple(texts))


_IRREGULAR_PAST = f"{_SIMPLE_PAST}|read|put"


def starts_a_task(part: str) -> bool:
    """Whether `part` starts like a task of its own: a verb ("pay rent"), or one in the past ("paid
    the rent"), so that "X and Y" is two todos."""
    words = part.strip().strip("\"'").split()
    if not words:
        return False
    first = words[0].lower()
    return first in lexicon.TODO_VERBS or bool(re.fullmatch(rf"{_PAST}|{_IRREGULAR_PAST}", first))


_CONDITION_FIRST = re.compile(rf"^{_alt(lexicon.CONDITIONS)}\b", _F)
