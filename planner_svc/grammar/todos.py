"""Todo frames: a clause about the todo list becomes one todo_store call (or one per todo named).

The frames, in the order they are tried:

- adding a result ("add the answer as a todo");
- questions about the list, read as a bag of words: a lead ("how many", "show", "what",
  "which") and then only words about todos and their state ("what do I still have to do",
  "which tasks are done", "how many open tasks do I have"). One word outside that vocabulary
  ("what is the weather", "how many calories") and it is not a todo question;
- emptying the list, also a bag of words, that must say *all* ("clear my list", "delete the
  completed ones", "remove everything I've finished"): a sweeping call, marked `confirm` so that
  a person approves it (PlanStep.confirm) even where rule plans are otherwise exempt;
- a todo by number ("mark #2 as done", "delete todo number 3");
- a statement and then a pronoun ("walked the dog already, check it off", "I have to renew my
  car insurance, add that to my todos", "never mind the haircut, delete that one");
- adding one or several todos ("add milk, eggs and bread to my list", "remind me to call the
  bank and to book flights", "add schedule a haircut");
- completing or deleting by text or by reference ("cross off buy milk", "call mom is done",
  "I finished the report", "get rid of the dentist todo", "mark it as done").

A todo named by text is sent as the user's words ("walked the dog", "the plumber call"):
todo_store finds the one todo they name, by exact text, by part of it, or by its words in any
form ("walked" is "walk"), and refuses a name that fits several. The planner never guesses which.
"""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.followups import TodoReference, todo_reference
from planner_svc.grammar import lexicon, normalize
from planner_svc.grammar.intent import RESULT_TEXT, SUMMARY, Intent

_F = re.IGNORECASE
_alt = lexicon.alternation
_NOUN = _alt(lexicon.TODO_NOUNS)
_NOUNS = _alt(lexicon.TODO_NOUNS_PLURAL)
_LIST = _alt(lexicon.LIST_NOUNS)
_MY = r"(?:(?:my|the|our|your|this)\s+)?"
_TO_LIST = rf"(?:to|on|onto|in|into)\s+{_MY}(?:(?:current|whole|todo|to-do)\s+)?{_LIST}"

# Words that never name a todo on their own ("mark it as done": which one is not said here).
_NOT_A_NAME = frozenset(
    ["the", "my", "a", "an", "as", "it", "this", "that", "them", "all", "one", "everything", "todo", "task",
     "item", "list", "thing", "things", "todos", "tasks", "items", "ones", "something", "stuff"]
)  # fmt: skip

_STATE_WORDS = frozenset(lexicon.OPEN_WORDS) | frozenset(lexicon.DONE_WORDS)
_PRONOUNS = frozenset(["it", "this", "that", "them", "these", "those"])

# --- questions about the list, and emptying it: bags of words -----------------------------------

_FILLER = frozenset(
    """
    i me my mine the a an all of is are was were there do does have has got get now currently so far
    yet else on in at list lists everything things thing ones one stuff to that which what please
    again entire whole already just need needs want total altogether overall we our you your any
    anything show give tell display view see print read can could would will let know still right
    moment today up off out for from only just rest they them those these
    """.split()  # noqa: SIM905  (a word list reads better as words)
) | {w for n in (*lexicon.TODO_NOUNS, *lexicon.TODO_NOUNS_PLURAL) for w in n.split()}
_NOUN_WORDS = frozenset(
    {w for n in (*lexicon.TODO_NOUNS, *lexicon.TODO_NOUNS_PLURAL) for w in n.split("-")}
    | {
        "list",
        "lists",
        "everything",
        "ones",
        "stuff",
        "anything",
        "todolist",
        "rest",
        "they",
        "them",
        "those",
    }
)
_OPEN = frozenset(lexicon.OPEN_WORDS)
_DONE = frozenset(lexicon.DONE_WORDS)
_ALL_WORDS = frozenset({"all", "every", "everything", "whole", "entire", "single"})
_BAG_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?|\d+|\S", _F)
_COUNT_LEAD = re.compile(
    r"^(?:(?:can|could|would)\s+you\s+)?(?:tell\s+me\s+|show\s+me\s+|let\s+me\s+know\s+)?(?:how\s+many|count(?:\s+up)?|(?:what\s+is\s+)?(?:the\s+)?(?:total\s+)?(?:number|count)\s+of)\b(?P<rest>.*)$",
    _F,
)
_SHOW_LEAD = re.compile(
    r"^(?:(?:can|could|would)\s+you\s+)?(?:(?:todos?|tasks?)\s+(?=ls\b|list\b|show\b))?"
    r"(?:ls|show|list|display|view|print|see|give|read(?:\s+out)?|tell|get"
    r"|bring\s+up|pull\s+up|what|which|anything|any|(?:do|have)\s+i\s+(?:have|got)|is\s+there|are\s+there"
    r"|have\s+i\s+got)\b(?P<rest>.*)$",
    _F,
)
_CLEAR_LEAD = re.compile(rf"^(?P<verb>{_alt(lexicon.CLEAR_VERBS)})\b(?P<rest>.*)$", _F)
_EMPTYING = frozenset({"clear", "clear out", "wipe", "wipe out", "empty", "reset", "purge", "clean out"})
_LIST_PHRASE = re.compile(r"\bto[- ]?do(?:'?s)?\s+lists?\b|\btodo\s+lists?\b", _F)
_TODOS_WORD = re.compile(r"\bto-dos\b|\bto-do\b", _F)


def _bag(rest: str) -> list[str] | None:
    """The words of `rest` if all are about todos, their state or filler; else None."""
    text = _LIST_PHRASE.sub(" list ", rest.lower())
    text = _TODOS_WORD.sub(lambda m: "todos" if m.group().endswith("s") else "todo", text)
    words = [w for w in _BAG_WORD.findall(text) if w not in (",", "?", "!", ".", "'")]
    allowed = _FILLER | _OPEN | _DONE | _ALL_WORDS | {"not", "no", "yet", "did", "done"}
    return words if all(w in allowed for w in words) else None


def _state(words: list[str]) -> str | None:
    """ "open", "done", None (all of them), or "" when the words say both."""
    joined = " ".join(words)
    opened = any(w in _OPEN for w in words) or bool(re.search(r"\bto do\b", joined))
    finished = any(w in _DONE for w in words if w != "done" or "to do" not in joined)
    if "not" in words or "no" in words:
        return "open" if finished or not opened else ""
    if opened and finished:
        return ""
    return "open" if opened else "done" if finished else None


def _question(clause: str) -> Intent | None:
    """Counting or listing todos ("how many open tasks", "what's left", "show my done tasks")."""
    for lead, action in ((_COUNT_LEAD, "count"), (_SHOW_LEAD, "list")):
        if not (m := lead.match(clause)):
            continue
        words = _bag(m.group("rest"))
        if words is None:
            return None
        state = _state(words)
        about_todos = any(w in _NOUN_WORDS for w in words) or state
        if state == "" or not about_todos:
            return None
        if (
            action == "list"
            and clause.lower().startswith(("what", "which", "any"))
            and not (
                state
                or set(words) & {"list", "todos", "tasks", "items", "todo", "reminders", "chores", "they"}
            )
        ):
            return None  # "what is everything": not a request for the list
        arguments = {"action": action, **({"state": state} if state else {})}
        which = f"{state} " if state else ""
        verb = "counts" if action == "count" else "lists"
        return Intent(clause, "todo_store", arguments, f'"{clause}" {verb} the {which}todos', SUMMARY)
    return None


def _clear(clause: str) -> Intent | None:
    """Deleting every todo, or every open or done one: only when the words say all of them."""
    if not (m := _CLEAR_LEAD.match(clause)):
        return None
    words = _bag(m.group("rest"))
    if words is None or not words:
        return None
    verb = " ".join(m.group("verb").lower().split())
    state = _state(words)
    if state == "":
        return None
    plural = any(
        w in ("todos", "tasks", "items", "things", "ones", "reminders", "entries", "chores") for w in words
    )
    sweeping = (
        bool(_ALL_WORDS & set(words))
        or (verb in _EMPTYING and ("list" in words or plural))
        or (plural and state is not None)
        or (verb in _EMPTYING and state is not None)
    )
    if not sweeping or not (plural or state or {"list", "everything", "all", "every"} & set(words)):
        return None
    arguments = {"action": "delete_all", **({"state": state} if state else {})}
    which = f"{state} " if state else ""
    reasoning = f'"{clause}" deletes all the {which}todos (a person confirms it)'
    return Intent(clause, "todo_store", arguments, reasoning, SUMMARY, confirm=True)


# --- by number --------------------------------------------------------------------------------

_ID = rf"(?:(?:the\s+)?{_NOUN}\s*)?(?:number\s+|no\.?\s*|#)?(?P<id>\d+)"
_BY_ID = [
    (re.compile(rf"^(?:mark|set)\s+{_ID}\s+(?:as\s+)?(?:done|complete|completed|finished)$", _F), "complete"),
    (re.compile(rf"^(?:complete|finish|check\s+off|tick\s+off|cross\s+off|close)\s+{_ID}$", _F), "complete"),
    (re.compile(rf"^(?:{_alt(lexicon.DELETE_VERBS)})\s+{_ID}$", _F), "delete"),
]


def _by_id(clause: str) -> Intent | None:
    for pattern, action in _BY_ID:
        m = pattern.match(clause)
        # A bare number needs a todo word or "#": "delete 3" might not mean todo #3.
        if m and (re.search(rf"#|\b{_NOUN}\b|\bnumber\b|\bno\b", clause, _F)):
            todo_id = int(m.group("id"))
            return Intent(
                clause,
                "todo_store",
                {"action": action, "id": todo_id},
                f'"{clause}" {action}s todo {todo_id}',
                SUMMARY,
            )
    return None


# --- a statement, then a pronoun -------------------------------------------------------------

# A past tense that reports a todo done ("walked", "called"); not "need", "feed" or "speed".
_PAST = (
    r"(?!(?:need|feed|seed|speed|bleed|breed|heed|weed|proceed|exceed|succeed|indeed|rounded|divided|multiplied|added"
    r"|subtracted|converted|squared|cubed|increased|decreased|reduced|raised|doubled|halved|tripled|compounded"
    r"|discounted|marked|shared)\b)[a-z]+ed"
)
_PRONOUN = (
    r"(?P<ref>it|that|this|that\s+one|this\s+one|them|those|these|both|both\s+of\s+them|them\s+both"
    r"|them\s+all)"
)
_ACTIONS = [
    (rf"(?:check|tick|cross|mark|strike)\s+{_PRONOUN}\s+off(?:\s+{_MY}{_LIST})?", "complete"),
    (rf"(?:mark|set)\s+{_PRONOUN}(?:\s+(?:as\s+)?(?:done|complete|completed|finished))?", "complete"),
    (rf"(?:complete|finish|close)\s+{_PRONOUN}", "complete"),
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
    rf"^(?P<said>.+?)\s*[,:\-]\s*(?:(?:so|please|now|just|and|ok|okay|can\s+you|could\s+you)\s+)*"
    rf"(?P<action>{_ANY_ACTION})$",
    _F,
)
_ACTION_KIND = [(re.compile(rf"^(?:{a})$", _F), kind) for a, kind in _ACTIONS]
_SAID = {
    "add": [
        r"(?:i\s+)?(?:really\s+)?(?:need|have|want|got|ought|must|should|gotta)(?:\s+to)?(?:\s+remember\s+to)?\s+(?P<x>.+)",
        r"(?:do\s+not|never)\s+(?:let\s+me\s+)?forget\s+to\s+(?P<x>.+)",
        r"(?:remember|remind\s+me)\s+to\s+(?P<x>.+)",
    ],
    "complete": [
        r"(?:i\s+)?(?:have\s+|just\s+|already\s+|finally\s+)*(?:done|did|finished|completed)\s+(?P<x>.+?)"
        r"(?:\s+(?:already|now|today|just\s+now))?",
        rf"(?:i\s+)?(?:just\s+|already\s+|finally\s+)?(?P<x>{_PAST}\s.+?|(?:took|went|bought|paid|wrote|made|sent|got|gave"
        r"|drove|ran|swept|fed|brought|sold|met|found|did)\s.+?)(?:\s+(?:already|now|today|just\s+now))?",
        r"(?P<x>.+?)\s+(?:is|are)\s+(?:now\s+|all\s+|already\s+)?(?:done|finished|completed|sorted)",
    ],
    "delete": [
        r"(?:i\s+)?(?:do\s+not|no\s+longer|will\s+not|am\s+not\s+going\s+to)\s+(?:need|have|want)\s+to\s+(?P<x>.+?)"
        r"(?:\s+any\s?more)?",
        r"(?:i\s+)?(?:do\s+not|no\s+longer)\s+need\s+(?P<x>.+?)(?:\s+any\s?more)?",
        r"(?:forget(?:\s+about)?|never\s*mind|scratch|skip)\s+(?P<x>.+)",
    ],
}
_SAID_COMPILED = {kind: [re.compile(rf"^(?:{p})$", _F) for p in patterns] for kind, patterns in _SAID.items()}
_PAST_AND = re.compile(rf"\s+and\s+(?=(?:{_PAST}|took|went|bought|paid|wrote|made|sent|got|gave|did)\b)", _F)


def _mentioned(clause: str) -> Intent | None:
    """ "walked the dog already, check it off": the statement names the todo the pronoun means."""
    if not (m := _MENTION_ACTION.match(clause)):
        return None
    action = m.group("action")
    kind, ref = next(
        (k, " ".join(f.group("ref").lower().split())) for p, k in _ACTION_KIND if (f := p.match(action))
    )
    said = next((x.group("x") for p in _SAID_COMPILED[kind] if (x := p.match(m.group("said")))), None)
    if said is None:
        return None
    parts = [said] if kind == "add" else _PAST_AND.split(said)
    texts = [t for t in (_name(p) for p in parts) if t]
    reference = todo_reference(ref)
    wanted = reference.count if reference is not None else None
    if len(texts) != len(parts) or (wanted is not None and wanted != len(texts)):
        return None  # "I did A and B, mark it done": "it" is one, the statement names two
    # A statement and its pronoun are one clause: rules.plan must not take the statement alone
    # ("forget about calling the bank" is a delete of its own) and leave "delete it" unbound.
    made = _adding(clause, texts) if kind == "add" else _each(clause, kind, texts)
    return None if made is None else replace(made, weight=len(parts) + 2)


# --- adding -----------------------------------------------------------------------------------

_HEADER = (
    rf"(?:(?:these|the\s+following|some|(?P<n>\d+|{'|'.join(lexicon.SMALL_NUMBERS)}))\s*)?(?:new\s+)?"
    r"(?:for\s+me\s*)?"
)
_ADD_MANY = re.compile(
    rf"^(?:(?:todos?|tasks?)\s+add|add|create|make|new|put|note)\s*{_HEADER}(?:{_NOUNS}|{_NOUN}s?)?(?:\s+please)?(?:\s*{_TO_LIST})?"
    r"\s*(?::|-)\s*(?P<list>.+)$",
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
    rf"^(?:add|create|make|put|insert|record|new|set\s+up|save)\s+(?:(?:a|an|one|new|another)\s+)*{_NOUN}"
    r"(?:\s+item)?(?:\s*[:\-]\s*|\s+(?:to|for|that\s+says|saying|called|named|about|reading)\s+|\s+)(?P<text>.+)$",
    _F,
)
_REMIND = re.compile(
    r"^(?:remind\s+me\s+(?:to|that\s+i\s+(?:need|have)\s+to)|(?:do\s+not|never)\s+let\s+me\s+forget\s+to"
    r"|do\s+not\s+forget\s+to|remember\s+to)\s+(?P<text>.+)$",
    _F,
)
_NOTE = re.compile(rf"^(?:new\s+)?{_NOUN}\s*:\s*(?P<text>.+)$", _F)  # "todo: buy milk"
_CLOCK = re.compile(
    r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\bat\s+\d{1,2}(?::\d\d)?\b|\bo'clock\b|\b(?:at|by)\s+(?:noon|midnight)\b"
    r"|\bin\s+\d+\s+(?:minutes?|hours?)\b",
    _F,
)
_INSIDE_TO_LIST = re.compile(rf"\s{_TO_LIST}\b", _F)
_BARE_ADD = re.compile(r"^(?:add|jot\s+down|note\s+down|write\s+down)\s+(?P<text>.+)$", _F)
# A destination that is not the todo list: "add a meeting to my calendar" is not a todo.
_ELSEWHERE = re.compile(
    r"\s(?:to|on|onto|in|into)\s+(?:my|the|our|your|a)\s+(?:(?:work|home|family|google|outlook|shared|phone)\s+)?"
    r"(?:calendar|schedule|agenda|diary|planner|cart|basket|playlist|contacts|address\s+book|notes|email|e-mail|inbox"
    r"|document|doc|file|spreadsheet|sheet|order|favou?rites|bookmarks|wish\s*list|reading\s+list|watch\s*list"
    r"|blog|website|post|group|chat|channel|account|budget)\b",
    _F,
)
# What "add" is followed by when it is not a todo: a number ("add 3 and 4"), a reference ("add it
# to 5"), or a destination with no todo named ("add to my list").
_NOT_A_TODO_START = re.compile(
    r"^[-+(]?\d|^(?:up|it|that|this|them|the\s+(?:result|answer|value|number))\b|^(?:to|on|onto|in|into)\s",
    _F,
)
_TODO_ADD_RESULT = [
    re.compile(
        rf"^(?:add|create|make|put|record|save)\s+(?:(?:a|an|one|new|another)\s+)*{_NOUN}(?:\s+item)?\s+"
        r"(?:with|containing|for|of|saying|that\s+says|about)\s+(?P<ref>(?:the|that|this)\s+(?:result|answer|value|number)"
        r"|that|it|this)$",
        _F,
    ),
    re.compile(
        r"^(?:add|put|save|record|write|stick|note)\s+(?P<ref>(?:the|that|this)\s+(?:result|answer|value|number)|that|it"
        rf"|this)\s+(?:down\s+)?(?:{_TO_LIST}|as\s+(?:(?:a|an|one|new|another)\s+)*{_NOUN}(?:\s+item)?)$",
        _F,
    ),
    re.compile(
        r"^(?:make|turn)\s+(?P<ref>(?:the|that|this)\s+(?:result|answer|value|number)|that|it|this)\s+(?:into\s+)?"
        rf"(?:(?:a|an|one|new|another)\s+)*{_NOUN}$",
        _F,
    ),
]
# "some things: a, b": the words that announce a list are not its first item.
_ITEMS_HEADER = re.compile(
    rf"^(?:(?:these|the\s+following|some|a\s+few|\d+|{'|'.join(lexicon.SMALL_NUMBERS)})\s*)?(?:new\s+)?"
    r"(?:things|items|todos|tasks|to-dos)?\s*:\s*",
    _F,
)
_TOO = re.compile(r"\s+(?:too|as\s+well)$", _F)
_ITEM_SPLIT = re.compile(
    r"\s*[,;]\s*(?:and\s+)?(?:also\s+)?(?:to\s+)?|\s+and\s+(?:also\s+|then\s+)?(?:to\s+)?|\s+also\s+", _F
)
_AND_SPLIT = re.compile(r"\s+and\s+(?:also\s+|then\s+)?(?:to\s+)?|\s+also\s+", _F)


def _items(text: str) -> list[str] | None:
    """The todos `text` names: "milk, eggs and bread" is three; "wash the car and change the oil"
    two (both halves start with a verb); "buy salt and pepper" one. None if one is empty."""
    text = _ITEMS_HEADER.sub("", text.strip()).strip().strip("\"'").strip()
    if re.search(r"[,;]", text):
        parts = _ITEM_SPLIT.split(text)
    elif re.search(r"\s+(?:and|also)\s+", text, _F):
        parts = _AND_SPLIT.split(text)
        starts = [p.split()[0].lower() if p.split() else "" for p in parts]
        explicit = bool(re.search(r"\s+and\s+(?:also|to)\s+|\s+also\s+", text, _F))
        if not (
            explicit
            or all(s in lexicon.TODO_VERBS for s in starts)
            or all(len(p.split()) == 1 for p in parts)
        ):
            parts = [text]
    else:
        parts = [text]
    items = [_TOO.sub("", p.strip()).strip().strip("\"'").strip() for p in parts]
    return items if all(items) else None


def _adding(clause: str, texts: list[str]) -> Intent | None:
    texts = [t for t in texts if t]
    names = _NOT_A_NAME if len(texts) == 1 else _PRONOUNS  # "add todos: a, b and c" is three names
    if not texts or any(t.lower() in names for t in texts):
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


def _add(clause: str) -> Intent | None:
    for pattern in _TODO_ADD_RESULT:
        if m := pattern.match(clause):
            arguments = {"action": "add", "text": RESULT_TEXT}
            return Intent(
                clause, "todo_store", arguments, f'"{clause}" adds the result', SUMMARY, refers=m.group("ref")
            )
    if m := _ADD_MANY.match(clause):
        items = _items(m.group("list"))
        wanted = m.group("n")
        count = None if wanted is None else lexicon.SMALL_NUMBERS.get(wanted.lower()) or int(wanted)
        if items and count in (None, len(items)):
            return _adding(clause, items)
        return None  # "add three todos: x and y" says one thing and lists another: not a guess
    if m := _ADD_ONE.match(clause):  # "add a todo to ...": one todo, as the user said
        return _adding(clause, [m.group("text").strip().strip("\"'").strip()])
    for pattern in (*_ADD, _REMIND, _NOTE):
        if (m := pattern.match(clause)) and not _ELSEWHERE.search(f" {m.group('text')}"):
            if pattern is _REMIND and _CLOCK.search(m.group("text")):
                return None  # "remind me at 6pm": a todo list cannot remind anyone at a time
            return _adding(clause, _items(m.group("text")) or [])
    if (m := _BARE_ADD.match(clause)) and not _NOT_A_TODO_START.match(normalize.numeric(m.group("text"))):
        text = re.sub(r"^(?:both|all\s+of)\s+", "", m.group("text"), flags=_F)
        first = text.split()[0].lower().strip("\"'")
        if (
            _ELSEWHERE.search(f" {text}")
            or _INSIDE_TO_LIST.search(text)
            or not (first in lexicon.TODO_VERBS or len(text.split()) <= 4)
        ):
            return None
        return _adding(clause, _items(text) or [])
    return None


# --- completing and deleting by text or reference ----------------------------------------------

_DONE_TAIL = (
    r"(?:done|complete|completed|finished|ticked\s+off|crossed\s+off|checked\s+off|sorted|taken\s+care\s+of)"
)
_COMPLETE = [
    r"(?:i\s+am|we\s+are|i\s+have)?\s*(?:done|finished)\s+with\s+(?P<x>.+)",
    r"(?:mark|set)\s+(?P<x>.+?)\s+(?:as\s+|to\s+)?(?:done|complete|completed|finished)",
    r"(?:mark|set)\s+(?:as\s+)?(?:done|complete|completed|finished)\s*:?\s+(?P<x>.+)",
    r"(?:complete|finish|check\s+off|tick\s+off|cross\s+off|cross\s+of|cross\s+out|mark\s+off|strike\s+off|close)\s+(?P<x>.+)",
    rf"(?:cross|tick|check|mark|strike)\s+(?P<x>.+?)\s+off(?:\s+{_MY}{_LIST})?",
    rf"(?P<x>.+?)\s+(?:is|are|was|has\s+been|have\s+been)\s+(?:now\s+|all\s+|already\s+|finally\s+)?{_DONE_TAIL}",
    r"(?P<x>.+?)\s*[:\-]\s*(?:done|finished|complete)",
    r"(?:done|finished|completed)\s*:\s*(?P<x>.+)",
    # "laundry done": a short name and the word, nothing else ("mark as done" names nothing).
    r"(?P<x>(?!(?:mark|set|i|we|all|it|that|everything|is|are)\b)(?:\S+\s+){0,4}\S+)(?<!\sas)(?<!\sis)(?<!\sare)\s+"
    r"(?:done|finished|completed)",
    r"(?:i\s+)?(?:have\s+|just\s+|already\s+|finally\s+)*(?:finished|completed|done|did)\s+(?P<x>.+?)"
    r"(?:\s+(?:already|now|today|just\s+now))?",
    # "I called mom": a past tense reports a todo done (todo_store finds "call mom" by its words).
    # Not a question about it ("I bought 3 shirts at $24.99 each, what's the total" is arithmetic).
    rf"(?:i\s+)?(?:have\s+)?(?:just\s+|already\s+|finally\s+)?(?!.*(?:\b(?:what|how|which|each|total|per)\b|\d\.\d|\$))"
    rf"(?P<x>(?:{_PAST}|took|went|bought|paid|wrote|made|sent|got"
    r"|gave|drove|ran|swept|fed|brought|sold|met|found)\s.+?)(?:\s+(?:already|now|today|just\s+now))?",
]
_DELETE = [
    rf"(?:remove|delete|take|drop|erase)\s+(?:from|off)\s+{_MY}{_LIST}\s+(?P<x>.+)",
    rf"(?:take|cross|strike)\s+(?P<x>.+?)\s+(?:off|out\s+of|from)\s+{_MY}{_LIST}",
    rf"(?:{_alt(lexicon.DELETE_VERBS)})\s*:?\s+(?P<x>.+?)(?:\s+(?:from|off)\s+{_MY}{_LIST})?",
    r"(?:clear|wipe|empty|purge)\s+(?P<x>them(?:\s+all)?|those|these|all\s+of\s+(?:them|those|these))",
]
_BY_TEXT = [
    *[(re.compile(rf"^(?:{p})$", _F), "complete") for p in _COMPLETE],
    *[(re.compile(rf"^(?:{p})$", _F), "delete") for p in _DELETE],
]
_LEADING = re.compile(
    rf"^(?:with\s+)?(?:(?:the|my|a|an|our)\s+)?(?:(?:{_NOUN})\s+(?:of|to|about|called|named|for|saying|that\s+says)\s+)?",
    _F,
)
_TRAILING = re.compile(
    rf"\s+(?:{_NOUN}|one|thing)$|\s+(?:please|now|already|again|today|tonight|yesterday|earlier|finally)$"
    r"|\s+(?:this|last)\s+(?:morning|afternoon|evening|night|week)$|\s+just\s+now$|[\s\-:,!]+$",
    _F,
)


def _name(text: str) -> str:
    """The words that name a todo: "the buy eggs todo" -> "buy eggs", "the gas one" -> "gas"."""
    text = text.strip().strip("\"'").strip()
    for _ in range(2):
        text = _TRAILING.sub("", _LEADING.sub("", text)).strip().strip("\"'").strip()
    if not text or text.lstrip("#").isdigit() or text.lower() in _NOT_A_NAME or text.lower() in _STATE_WORDS:
        return ""  # "delete my finished todo" does not name one: "finished" would find "finish the report"
    return text


def _each(clause: str, action: str, texts: list[str]) -> Intent:
    """A complete or delete of the todos named by `texts` (one step each: rules._bind)."""
    named = ", ".join(repr(t) for t in texts)
    reasoning = f'"{clause}" {action}s the todo{"s" if len(texts) > 1 else ""} matching {named}'
    if len(texts) == 1:
        return Intent(clause, "todo_store", {"action": action, "text": texts[0]}, reasoning, SUMMARY)
    return Intent(clause, "todo_store", {"action": action}, reasoning, SUMMARY, each=tuple(texts))


def _referring(clause: str, action: str, reference: TodoReference) -> Intent:
    """A complete or delete of earlier todos ("mark it as done"): _bind makes it one step per todo."""
    reasoning = f'"{clause}" {action}s {reference.words!r}'
    return Intent(clause, "todo_store", {"action": action}, reasoning, SUMMARY, todos=reference)


_IRREGULAR_PAST = (
    "took|went|bought|paid|wrote|made|sent|got|gave|drove|ran|swept|fed|brought|sold|met|found"
    "|did|hung|ate|read|put"
)


def _starts_a_task(part: str) -> bool:
    """Whether `part` starts like a task of its own: a verb ("pay rent"), or one in the past ("paid
    the rent"), so that "X and Y" is two todos."""
    words = part.strip().strip("\"'").split()
    if not words:
        return False
    first = words[0].lower()
    return first in lexicon.TODO_VERBS or bool(re.fullmatch(rf"{_PAST}|{_IRREGULAR_PAST}", first))


def _by_text(clause: str) -> Intent | None:
    for pattern, action in _BY_TEXT:
        if not (m := pattern.match(clause)):
            continue
        said = m.group("x").strip()
        if reference := todo_reference(said):
            return _referring(clause, action, reference)
        parts = _AND_SPLIT.split(said)
        if len(parts) > 1 and all(_starts_a_task(p) for p in parts):
            texts = [_name(p) for p in parts]  # "delete buy stamps and pay rent": two todos
        else:
            texts = [_name(said)]
        if any(re.match(r"(?:all|every|everything)\b", t, _F) for t in texts):
            return None  # "delete all completed tasks and ...": not one todo's name
        if all(texts):
            return _each(clause, action, texts)
    return None


def parse(clause: str) -> Intent | None:
    """The todo_store call(s) `clause` asks for, or None."""
    return (
        _question(clause)
        or _clear(clause)
        or _by_id(clause)
        or _mentioned(clause)
        or _add(clause)
        or _by_text(clause)
    )
