"""Completing or deleting todos by their number ("delete #3", "mark 2 and 4 done")."""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon
from planner_svc.grammar.intent import SUMMARY, Intent
from planner_svc.grammar.todos.todo_words import _F, _NOUN, _alt

# --- by number --------------------------------------------------------------------------------

_ID = (
    rf"(?:(?:the\s+)?{_NOUN}\s*)?(?:number\s+|no\.?\s*|#)?"
    rf"(?P<id>\d+|{'|'.join(w for w in lexicon.SMALL_NUMBERS if w != 'zero')})"
)
_OFF_THE_LIST = r"(?:from|off)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?list"
_BY_ID = [
    # "todo number 1 is done", "#3's done", "item two is finished"
    (
        re.compile(
            rf"^{_ID}(?:'s|\s+is|\s+has\s+been)\s+(?:now\s+)?(?:done|complete|completed|finished)$", _F
        ),
        "complete",
    ),
    (re.compile(rf"^(?:mark|set)\s+{_ID}\s+(?:as\s+)?(?:done|complete|completed|finished)$", _F), "complete"),
    # "#4 done", "todo 2: finished"
    (re.compile(rf"^{_ID}\s*[:\-]?\s*(?:done|complete|completed|finished)$", _F), "complete"),
    (re.compile(rf"^(?:complete|finish|check\s+off|tick\s+off|cross\s+off|close)\s+{_ID}$", _F), "complete"),
    # "finished number 3", "I did todo 2"
    (
        re.compile(
            rf"^(?:i\s+(?:have\s+)?)?(?:finished|completed|did|done|done\s+with|am\s+done\s+with)\s+{_ID}$",
            _F,
        ),
        "complete",
    ),
    (re.compile(rf"^(?:{_alt(lexicon.DELETE_VERBS)})\s+{_ID}(?:\s+{_OFF_THE_LIST})?$", _F), "delete"),
]


# "remove #2 and #4", "delete todos 2, 3 and 5", "mark #1 and #3 done": several by number.
_IDS = r"(?P<ids>#?\d+(?:\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)#?\d+)+)"
_NOUNS_NAMED = rf"(?:(?:the\s+)?{_NOUN}s?\s+(?:numbers?\s+)?)?"
_BY_IDS = [
    (re.compile(rf"^(?:{_alt(lexicon.DELETE_VERBS)})\s+{_NOUNS_NAMED}{_IDS}$", _F), "delete"),
    (
        re.compile(
            rf"^(?:mark|set)\s+{_NOUNS_NAMED}{_IDS}\s+(?:as\s+)?(?:done|complete|completed|finished)$", _F
        ),
        "complete",
    ),
    (
        re.compile(
            rf"^(?:complete|finish|check\s+off|tick\s+off|cross\s+off|close|(?:i\s+(?:have\s+)?)?(?:finished|completed"
            rf"|did|done\s+with))\s+{_NOUNS_NAMED}{_IDS}$",
            _F,
        ),
        "complete",
    ),
]


def _by_ids(clause: str) -> Intent | None:
    for pattern, action in _BY_IDS:
        m = pattern.match(clause)
        # Numbers alone need a todo word or "#": "delete 2 and 4" might not mean todos.
        if m and (m.group("ids").count("#") >= 2 or re.search(rf"\b{_NOUN}s?\b", clause, _F)):
            ids = [int(i) for i in re.findall(r"\d+", m.group("ids"))]
            if len(set(ids)) != len(ids):
                return None
            reasoning = f'"{clause}" {action}s todos {", ".join(map(str, ids))}'
            return Intent(clause, "todo_store", {"action": action}, reasoning, SUMMARY, each=tuple(ids))
    return None


def _by_id(clause: str) -> Intent | None:
    if (several := _by_ids(clause)) is not None:
        return several
    for pattern, action in _BY_ID:
        m = pattern.match(clause)
        # A bare number needs a todo word or "#": "delete 3" might not mean todo #3.
        if m and (re.search(rf"#|\b{_NOUN}\b|\bnumber\b|\bno\b|{_OFF_THE_LIST}", clause, _F)):
            word = m.group("id").lower()
            todo_id = int(word) if word.isdigit() else lexicon.SMALL_NUMBERS[word]
            return Intent(
                clause,
                "todo_store",
                {"action": action, "id": todo_id},
                f'"{clause}" {action}s todo {todo_id}',
                SUMMARY,
            )
    return None
