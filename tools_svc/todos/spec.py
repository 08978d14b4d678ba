"""todo_store as the catalog publishes it: its limits, its arguments' JSON Schema, its
description and what each action does to the list (MCP's hints)."""

from __future__ import annotations

from typing import Any

from agentrt.core import toolrefs
from agentrt.core.annotations import hints

MAX_TEXT_CHARS = 1000
# A list returns at most this many todos per call (with the total and where the next page
# starts), so one call's output stays far below the tool output limit however long the list.
MAX_PAGE = 100
# Ids are the database's INTEGER (32 bits on PostgreSQL); a larger id or offset (1e300 arrives
# as a double) would reach the database as a value it cannot bind.
MAX_ID = 2**31 - 1

MAX_ADD = 50  # todos one add call may create
# A summary (the sentence people read) names at most this many todos, each cut to this length.
SUMMARY_TODOS = 10
SUMMARY_TEXT_CHARS = 80
# Todos a "several match" error lists.
MAX_LISTED_MATCHES = 8
# A "no such todo" error names at most MAX_SUGGESTED todos of the caller's, the nearest by shared
# words among its latest MAX_SCANNED: whoever asked (a model, mostly) can try again with one of
# them instead of giving up, or guessing another id.
MAX_SUGGESTED = 5
MAX_SCANNED = 200
# A deleted todo can be restored (undo) for this long, then it is gone for good.
RESTORABLE_S = 30 * 24 * 3600.0

_TEXT = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS}
# What each action does to the list (MCP's hints): list and count only read it; add only adds;
# complete changes a todo in a way that repeating leaves as it is; delete destroys. An unknown
# action is treated as the worst case (destructive).
ANNOTATIONS = hints(destructive=True, open_world=False, title="Todo list")
ACTION_ANNOTATIONS = {
    "list": hints(read_only=True, idempotent=True, open_world=False, title="List todos"),
    "count": hints(read_only=True, idempotent=True, open_world=False, title="Count todos"),
    "find": hints(read_only=True, idempotent=True, open_world=False, title="Find todos by name"),
    "add": hints(destructive=False, idempotent=False, open_world=False, title="Add todos"),
    "complete": hints(destructive=False, idempotent=True, open_world=False, title="Mark a todo done"),
    "reopen": hints(destructive=False, idempotent=True, open_world=False, title="Mark a todo not done"),
    "restore": hints(destructive=False, idempotent=True, open_world=False, title="Restore a deleted todo"),
    "delete": hints(destructive=True, idempotent=True, open_world=False, title="Delete a todo"),
    "delete_all": hints(destructive=True, idempotent=True, open_world=False, title="Delete all todos"),
}
# list, count and delete_all may be narrowed to the open or the done todos.
STATES = ("open", "done")
# The actions that name todos on the list (by id, text, position or state); restore names
# deleted ones, by id only.
NAMING = ["complete", "reopen", "delete", "find"]
_NOT_FOR_RESTORE = ("text", "texts", "position", "state", "matching", "every")

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {
            "enum": ["add", "list", "count", "complete", "reopen", "delete", "restore", "delete_all", "find"],
            "description": "add needs text (or texts); complete, reopen and delete need id or text (or "
            "ids or texts: several at once, all or none); restore needs id or ids (deleted todos); find "
            "names todos as complete would, changing nothing; "
            "list, count and delete_all need nothing (state narrows them, and the todo complete, "
            "delete and find name).",
        },
        "state": {
            "enum": list(STATES),
            "description": "list, count, delete_all: only the open (not done) or only the done todos "
            "(default: all of them). complete, delete, find: only a todo in this state is named, by "
            'text or texts ("the finished \'water the plants\'"), or alone the one todo in it ("the '
            'done one").',
        },
        "text": {
            **_TEXT,
            "description": "add: the todo's text. complete/delete: which todo, by its text (a whole "
            "text, or a part of it that only one todo contains; case does not matter).",
        },
        "texts": {
            "type": "array",
            "items": _TEXT,
            "minItems": 1,
            "maxItems": MAX_ADD,
            "description": f"add: several todos at once (at most {MAX_ADD}). complete/delete: several "
            "todos, each by its text as for text; if any is not one todo, none changes.",
        },
        "matching": {
            "type": "integer",
            "minimum": 2,
            "maximum": MAX_ADD,
            "description": "complete/delete/find with text: every todo the text names, which must be exactly "
            'this many ("both bills": text "bills", matching 2); otherwise an error naming those it fits.',
        },
        "every": {
            "const": True,
            "description": "complete/delete/find with text: every todo the text names, however many "
            f'("delete all the milk ones"; at most {MAX_LISTED_MATCHES}, else an error naming them).',
        },
        "ids": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
            "minItems": 1,
            "maxItems": MAX_ADD,
            "uniqueItems": True,
            "description": "complete/reopen/delete/restore: several todos by id; if any is not a todo, none "
            "changes.",
        },
        "id": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_ID,
            "description": "Todo id, as returned by add, list or delete (never a guess: without one, use "
            "text).",
        },
        "unchanged": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
                    "done": {"type": "boolean"},
                },
                "required": ["id"],
            },
            "minItems": 1,
            "maxItems": MAX_ADD,
            "description": "complete/reopen/delete by id or ids (an undo): each todo as the change being "
            "reversed left it (its id and done); a todo that changed since (done or open now where "
            "that change left it otherwise) fails the call with TODO_CHANGED and nothing changes.",
        },
        "position": {
            "type": "integer",
            "minimum": -MAX_ID,
            "maximum": MAX_ID,
            "not": {"const": 0},
            "description": "complete/delete/find: the todo at this place of the whole list as list "
            "shows it (1 the first, 2 the second; -1 the last, -2 the one before it), when the user "
            'names it by its place ("the second one on my list").',
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_ID,
            "description": "list: how many todos to skip (a page's next_offset).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_PAGE,
            "description": f"list: at most this many todos (default and maximum {MAX_PAGE}).",
        },
    },
    "required": ["action"],
    "additionalProperties": False,
    # Written so that what is missing is named ('"text" is a required property'), which a
    # oneOf of alternatives would not say.
    "allOf": [
        {
            "if": {"properties": {"action": {"const": "add"}}, "not": {"required": ["texts"]}},
            "then": {"required": ["text"]},
        },
        {
            "if": {
                "properties": {"action": {"enum": NAMING}},
                "not": {
                    "anyOf": [
                        {"required": ["text"]},
                        {"required": ["texts"]},
                        {"required": ["ids"]},
                        {"required": ["position"]},
                        {"required": ["state"]},
                    ]
                },
            },
            "then": {"required": ["id"]},
        },
        {"not": {"required": ["text", "texts"]}, "description": "text or texts, not both"},
        {"not": {"required": ["id", "text"]}, "description": "id or text, not both"},
        *(
            {"not": {"required": pair}, "description": "one of id, text, ids and texts"}
            for pair in (["id", "ids"], ["id", "texts"], ["ids", "text"], ["ids", "texts"])
        ),
        {
            "if": {"required": ["position"]},
            "then": {
                "properties": {"action": {"enum": NAMING}},
                "not": {"anyOf": [{"required": [k]} for k in ("id", "text", "ids", "texts", "state")]},
                "description": "position names one todo to complete, delete or find, alone",
            },
        },
        {
            "if": {"not": {"properties": {"action": {"enum": [*NAMING, "restore"]}}}},
            "then": {
                "not": {"required": ["ids"]},
                "description": "ids names todos to complete, reopen, delete, restore or find",
            },
        },
        {
            "if": {"required": ["unchanged"]},
            "then": {
                "properties": {"action": {"enum": ["complete", "reopen", "delete"]}},
                "anyOf": [{"required": ["id"]}, {"required": ["ids"]}],
                "description": "unchanged goes with complete, reopen or delete by id or ids",
            },
        },
        {
            # A deleted todo is named by the id its delete returned: its text may be on the list again.
            "if": {"properties": {"action": {"const": "restore"}}},
            "then": {
                "anyOf": [{"required": ["id"]}, {"required": ["ids"]}],
                "not": {"anyOf": [{"required": [k]} for k in _NOT_FOR_RESTORE]},
                "description": "restore names deleted todos by id or ids, and nothing else",
            },
        },
        {
            "if": {"required": ["matching"]},
            "then": {
                "required": ["text"],
                "not": {"required": ["every"]},
                "properties": {"action": {"enum": NAMING}},
                "description": "matching says how many todos one text names, to complete, delete or find",
            },
        },
        {
            "if": {"required": ["every"]},
            "then": {
                "required": ["text"],
                "properties": {"action": {"enum": NAMING}},
                "description": "every says one text names all the todos it fits, to complete, delete or find",
            },
        },
        {
            "if": {"properties": {"action": {"const": "add"}}},
            "then": {"not": {"required": ["state"]}, "description": "state does not narrow add"},
        },
        {
            # By id the todo is named already: a state beside it could only contradict it.
            "if": {"required": ["state"], "properties": {"action": {"enum": NAMING}}},
            "then": {
                "not": {"anyOf": [{"required": [k]} for k in ("id", "ids")]},
                "description": "state narrows a todo named by text, or names the one todo in it; not an id",
            },
        },
    ],
}
DESCRIPTION = (
    "A persistent todo list. action=add with text (or texts, a list) adds todos; action=list returns "
    f"the todos (at most {MAX_PAGE} at a time: count is how many there are, and when more remain, "
    "truncated is "
    "true and next_offset is the offset of the next page); action=count counts them (open and done); "
    "action=complete marks one done, action=reopen marks a done one not done, and action=delete "
    "removes one, either by id or by text (the "
    "todo whose text is, or contains, the given text; several matches are an error listing them); "
    "ids or texts complete or delete several at once, all or none; position names one by its place "
    "on the list (1 the first, -1 the last). action=find names todos (id, "
    "text, ids or texts) as complete would and changes nothing: an error if one is not one todo. "
    "action=delete_all removes every todo. action=restore brings deleted todos back by id "
    "(delete and delete_all return the deleted todos). state=open or state=done narrows list, count and "
    "delete_all to the open or the done todos, and complete, delete and find to a todo in that state "
    "(with no text: the one todo in it). "
    "Name a todo by the user's words (text) unless you have its id from an earlier answer; when "
    "nothing matches, the error names the closest todos. Every answer has a summary sentence."
)

# What its outputs mean to a conversation (agentrt/core/toolrefs.py): the todos an answer names
# ("todo", "todos", "deleted"), what each action did to them and the action that undoes it.
REFERENCES = toolrefs.references(
    entities=[("todo", pointer, "id", "text") for pointer in ("/todo", "/todos", "/deleted")],
    actions={
        "list": (toolrefs.SHOWN, ""),
        "add": (toolrefs.ADDED, "delete", "unchanged"),
        "complete": (toolrefs.CHANGED, "reopen", "unchanged"),
        "reopen": (toolrefs.CHANGED, "complete", "unchanged"),
        "delete": (toolrefs.REMOVED, "restore"),
        "delete_all": (toolrefs.REMOVED, "restore"),
        "restore": (toolrefs.ADDED, "delete", "unchanged"),
    },
)
