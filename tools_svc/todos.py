"""The `todo_store` tool: a persistent todo list in the tools database (shared by replicas).

Each principal has a list of its own (the caller, `current_call().principal`), numbered from 1
on its own: alice's first todo is #1 and so is bob's. Every action reads and changes only the
caller's list, so another principal's todo is one that does not exist (TODO_NOT_FOUND).
"""

from __future__ import annotations

import re
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from agentrt.core import wordforms
from agentrt.core.annotations import hints
from agentrt.core.errors import ToolError
from agentrt.server.db import Database, execute
from tools_svc.callcontext import current_call
from tools_svc.invocations import current_invocation
from tools_svc.schema import todo_owners, todos

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
    "delete": hints(destructive=True, idempotent=True, open_world=False, title="Delete a todo"),
    "delete_all": hints(destructive=True, idempotent=True, open_world=False, title="Delete all todos"),
}
# list, count and delete_all may be narrowed to the open or the done todos.
STATES = ("open", "done")

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {
            "enum": ["add", "list", "count", "complete", "delete", "delete_all", "find"],
            "description": "add needs text (or texts); complete and delete need id or text (or ids or "
            "texts: several at once, all or none); find names todos as complete would, changing nothing; "
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
            "description": "complete/delete: several todos by id; if any is not a todo, none changes.",
        },
        "id": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_ID,
            "description": "Todo id, as returned by add or list (never a guess: without one, use text).",
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
                "properties": {"action": {"enum": ["complete", "delete", "find"]}},
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
                "properties": {"action": {"enum": ["complete", "delete", "find"]}},
                "not": {"anyOf": [{"required": [k]} for k in ("id", "text", "ids", "texts", "state")]},
                "description": "position names one todo to complete, delete or find, alone",
            },
        },
        {
            "if": {"not": {"properties": {"action": {"enum": ["complete", "delete", "find"]}}}},
            "then": {
                "not": {"required": ["ids"]},
                "description": "ids names todos to complete, delete or find",
            },
        },
        {
            "if": {"required": ["matching"]},
            "then": {
                "required": ["text"],
                "not": {"required": ["every"]},
                "properties": {"action": {"enum": ["complete", "delete", "find"]}},
                "description": "matching says how many todos one text names, to complete, delete or find",
            },
        },
        {
            "if": {"required": ["every"]},
            "then": {
                "required": ["text"],
                "properties": {"action": {"enum": ["complete", "delete", "find"]}},
                "description": "every says one text names all the todos it fits, to complete, delete or find",
            },
        },
        {
            "if": {"properties": {"action": {"const": "add"}}},
            "then": {"not": {"required": ["state"]}, "description": "state does not narrow add"},
        },
        {
            # By id the todo is named already: a state beside it could only contradict it.
            "if": {"required": ["state"], "properties": {"action": {"enum": ["complete", "delete", "find"]}}},
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
    "action=complete marks one done and action=delete removes one, either by id or by text (the "
    "todo whose text is, or contains, the given text; several matches are an error listing them); "
    "ids or texts complete or delete several at once, all or none; position names one by its place "
    "on the list (1 the first, -1 the last). action=find names todos (id, "
    "text, ids or texts) as complete would and changes nothing: an error if one is not one todo. "
    "action=delete_all removes every todo. state=open or state=done narrows list, count and "
    "delete_all to the open or the done todos, and complete, delete and find to a todo in that state "
    "(with no text: the one todo in it). "
    "Name a todo by the user's words (text) unless you have its id from an earlier answer; when "
    "nothing matches, the error names the closest todos. Every answer has a summary sentence."
)


class TodoStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def run(self, arguments: dict[str, Any]) -> dict[str, Any]:
        action = arguments["action"]
        owner = current_call().principal
        state = arguments.get("state")
        if action == "list":
            offset, limit = arguments.get("offset", 0), arguments.get("limit", MAX_PAGE)
            todos, count, total = await self._db.read(lambda c: _list(c, owner, state, offset, limit))
            page: dict[str, Any] = {"todos": todos, "count": count}
            if offset + len(todos) < count:
                page |= {"truncated": True, "next_offset": offset + len(todos)}
            return page | {"summary": _list_summary(todos, count, offset, state, total)}
        if action == "count":
            return await self._db.read(lambda c: _count(c, owner, state))
        if action == "delete_all":
            return await self._write(lambda c: _delete_all(c, owner, state))
        if action == "add":
            texts = arguments["texts"] if "texts" in arguments else [arguments["text"]]
            if any("\x00" in t for t in texts):  # PostgreSQL refuses NUL; say so rather than fail INTERNAL
                raise ToolError("todo text must not contain NUL characters", reason="INVALID_TODO_TEXT")
            if "texts" in arguments:
                return await self._write(lambda c: _add_many(c, owner, texts))
            return await self._write(lambda c: _added(_add(c, owner, texts)[0]))
        if "position" in arguments:  # "the second one on my list": which one when the call runs
            place = arguments["position"]
            if action == "find":
                return await self._db.read(lambda c: _found(c, owner, [_at(c, owner, place)]))
            if action == "complete":
                return await self._write(lambda c: _completed(_complete(c, owner, _at(c, owner, place))))
            return await self._write(lambda c: _deleted(_delete(c, owner, _at(c, owner, place))))
        if "matching" in arguments or "every" in arguments:
            # "paid both bills": every todo one text names, so many of them (or however many:
            # "delete all the milk ones")
            text, matching = arguments["text"], arguments.get("matching")

            if action == "find":
                return await self._db.read(
                    lambda c: _found(c, owner, list(_every_named(c, owner, text, matching, state)))
                )

            def every(conn: Connection) -> dict[str, Any]:
                numbers = _every_named(conn, owner, text, matching, state)
                return _change_many(conn, owner, action, numbers, state)

            return await self._write(every)
        if action == "find":  # a plan checks its names before it changes anything (rules._checked_first)
            which_all: list[int | str | None] = list(
                arguments.get("ids", arguments.get("texts", [arguments.get("id", arguments.get("text"))]))
            )
            return await self._db.read(lambda c: _found(c, owner, which_all, state))
        if "ids" in arguments or "texts" in arguments:
            several: list[int | str] = list(arguments.get("ids", arguments.get("texts", [])))
            return await self._write(lambda c: _change_many(c, owner, action, several, state))
        which = arguments.get("id", arguments.get("text"))

        def named(conn: Connection) -> int:  # completing prefers the open todo of a text
            return _find(conn, owner, which, open_first=action == "complete", state=state)

        if action == "complete":
            return await self._write(lambda c: _completed(_complete(c, owner, named(c))))
        return await self._write(lambda c: _deleted(_delete(c, owner, named(c))))

    async def _write(self, change: Any) -> dict[str, Any]:
        # The change and its idempotency record commit together: a caller cancelled mid-call
        # can never leave a todo added but unrecorded (which a retry would then add again).
        invocation = current_invocation()

        def transaction(conn: Connection) -> dict[str, Any]:
            if invocation is not None:
                # A call made before (a step retried after its answer was lost): its answer, and
                # nothing done again. Read here, in the change's own transaction, so run_once
                # need not read it first (it is told so: looks_up_itself).
                found, recorded = invocation.recorded_in(conn)
                if found:
                    return recorded  # type: ignore[no-any-return]
            output = change(conn)
            if invocation is not None:
                invocation.record_in(conn, output)
            return output

        return await self._db.transaction(transaction)


# The statements every call makes, built once: building one per call (and SQLAlchemy keying it
# for its compiled-statement cache) was ~15% of tools_svc's CPU on the compared work. Their
# parameters are not named after columns: an INSERT or UPDATE takes a parameter named after a
# column as a value to set, and refuses one in its WHERE.
_COLUMNS = (todos.c.number, todos.c.text, todos.c.done)
_MINE = todos.c.owner == sa.bindparam("caller")
_THE_ONE = sa.and_(_MINE, todos.c.number == sa.bindparam("todo_number"))
_INSERT = (
    todos.insert()
    .values(
        owner=sa.bindparam("caller"),
        number=sa.bindparam("todo_number"),
        text=sa.bindparam("todo_text"),
        created_at=sa.bindparam("now"),
    )
    .returning(*_COLUMNS)
)
_TALLY = sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(todos.c.done), 0)).where(_MINE)
# Each statement that reads or deletes "the todos" once per state: all of them, or only the
# open or the done ones.
_IN_STATE = {
    None: _MINE,
    "open": sa.and_(_MINE, todos.c.done == 0),
    "done": sa.and_(_MINE, todos.c.done == 1),
}
_COUNT = {state: sa.select(sa.func.count()).select_from(todos).where(w) for state, w in _IN_STATE.items()}
_PAGE = {
    state: sa.select(*_COLUMNS)
    .where(w)
    .order_by(todos.c.number)
    .offset(sa.bindparam("offset"))
    .limit(sa.bindparam("limit"))
    for state, w in _IN_STATE.items()
}
_DELETE_ALL = {state: todos.delete().where(w) for state, w in _IN_STATE.items()}
_GET = sa.select(*_COLUMNS).where(_THE_ONE)
# Open todos whose text is one of :texts (compared as _same does), oldest first.
_OPEN_WITH_TEXT = (
    sa.select(*_COLUMNS)
    .where(_MINE, todos.c.done == 0, sa.func.lower(todos.c.text).in_(sa.bindparam("texts", expanding=True)))
    .order_by(todos.c.number)
)
# The same for one text (almost every add): an expanding IN is rendered again at each execution.
_OPEN_WITH_ONE_TEXT = (
    sa.select(*_COLUMNS)
    .where(_MINE, todos.c.done == 0, sa.func.lower(todos.c.text) == sa.bindparam("text"))
    .order_by(todos.c.number)
)
_LATEST = sa.select(*_COLUMNS).where(_MINE).order_by(todos.c.number.desc()).limit(MAX_SCANNED)
# Completing twice keeps the first completion time: the operation is idempotent.
_COMPLETE = (
    todos.update()
    .where(_THE_ONE)
    .values(done=1, completed_at=sa.func.coalesce(todos.c.completed_at, sa.bindparam("now")))
)
_DELETE = todos.delete().where(_THE_ONE)


def _reserve_statement(insert: Any) -> Any:
    """Take the next `count` numbers of an owner's list: its counter row (made by the owner's
    first add) goes up by `count`, and the new last number comes back. One statement, which
    holds the row until the transaction ends, so concurrent adds on PostgreSQL take turns;
    SQLite's write lock already does that. (ON CONFLICT ... RETURNING: SQLite 3.35+ and
    PostgreSQL.)"""
    upsert = insert(todo_owners).values(owner=sa.bindparam("caller"), last_number=sa.bindparam("count"))
    return upsert.on_conflict_do_update(
        index_elements=[todo_owners.c.owner],
        set_={"last_number": todo_owners.c.last_number + upsert.excluded.last_number},
    ).returning(todo_owners.c.last_number)


_RESERVE = {"sqlite": _reserve_statement(sqlite.insert), "postgresql": _reserve_statement(postgresql.insert)}


def _add(conn: Connection, owner: str, texts: list[str]) -> list[dict[str, Any]]:
    """Add each text, except one an open todo has already (any case and spacing: "add buy milk"
    twice is one todo), which comes back as it is, marked `already`."""
    found: dict[str, dict[str, Any] | None] = {_same(t): None for t in texts}
    if len(found) == 1:
        open_with_text = execute(conn, _OPEN_WITH_ONE_TEXT, {"caller": owner, "text": next(iter(found))})
    else:
        open_with_text = conn.execute(_OPEN_WITH_TEXT, {"caller": owner, "texts": list(found)})
    for row in open_with_text.all():
        found[_same(row[1])] = found[_same(row[1])] or {**_row(row), "already": True}
    new = [t for t in dict.fromkeys(t.strip() for t in texts) if found[_same(t)] is None]
    if new:
        last = execute(conn, _RESERVE[conn.dialect.name], {"caller": owner, "count": len(new)}).scalar_one()
        now = time.time()
        for number, text in enumerate(new, start=last - len(new) + 1):
            row = execute(
                conn, _INSERT, {"caller": owner, "todo_number": number, "todo_text": text, "now": now}
            ).one()
            found[_same(text)] = _row(row)
    out, seen = [], set()
    for text in texts:
        if (key := _same(text)) not in seen:
            seen.add(key)
            out.append(found[key])
    return out


def _one_text(rows: list[Any]) -> bool:
    """Whether the matching todos are one errand written again (the same text): then the open one
    is meant. Different todos ("buy milk" done, "buy milk for Anna" open) are a real choice."""
    return len({_same(r[1]) for r in rows}) == 1


def _same(text: str) -> str:
    """A todo's text as compared for "already there": case and runs of spaces do not matter."""
    return " ".join(text.split()).lower()


def _list(
    conn: Connection, owner: str, state: str | None, offset: int, limit: int
) -> tuple[list[dict[str, Any]], int, int]:
    """(a page of the todos in `state`, how many are in it, how many todos there are in all)."""
    count = execute(conn, _COUNT[state], {"caller": owner}).scalar_one()
    total = count if state is None else execute(conn, _COUNT[None], {"caller": owner}).scalar_one()
    rows = execute(conn, _PAGE[state], {"caller": owner, "offset": offset, "limit": limit})
    return [_row(r) for r in rows], count, total


def _delete_all(conn: Connection, owner: str, state: str | None) -> dict[str, Any]:
    """Delete every todo (in `state`): how many, and the first few by name."""
    named = conn.execute(_PAGE[state], {"caller": owner, "offset": 0, "limit": SUMMARY_TODOS}).all()
    deleted = conn.execute(_DELETE_ALL[state], {"caller": owner}).rowcount
    which = {None: "", "open": " open", "done": " done"}[state]
    if not deleted:
        return {"deleted_count": 0, "summary": f"There were no{which} todos to delete."}
    names = ", ".join(_quoted(r[1]) for r in named)
    more = f" and {deleted - len(named)} more" if deleted > len(named) else ""
    noun = "todo" if deleted == 1 else "todos"
    return {"deleted_count": deleted, "summary": f"Deleted {deleted}{which} {noun}: {names}{more}."}


def _add_many(conn: Connection, owner: str, texts: list[str]) -> dict[str, Any]:
    todos_ = _add(conn, owner, texts)
    added = [t for t in todos_ if not t.get("already")]
    there = [t for t in todos_ if t.get("already")]
    parts = []
    if added:
        names = ", ".join(_quoted(t["text"]) for t in added[:SUMMARY_TODOS])
        more = f" and {len(added) - SUMMARY_TODOS} more" if len(added) > SUMMARY_TODOS else ""
        parts.append(f"Added {len(added)} {'todo' if len(added) == 1 else 'todos'}: {names}{more}.")
    if there:
        names = ", ".join(f"{_quoted(t['text'])} (#{t['id']})" for t in there[:SUMMARY_TODOS])
        more = f" and {len(there) - SUMMARY_TODOS} more" if len(there) > SUMMARY_TODOS else ""
        parts.append(f"Already on your list: {names}{more}.")
    return {"todos": todos_, "summary": " ".join(parts)}


def _change_many(
    conn: Connection, owner: str, action: str, which: list[int | str], state: str | None = None
) -> dict[str, Any]:
    """Complete or delete every todo `which` names, or none: each is found before any changes
    ("mark A and B done" with no B leaves A open), and two names of one todo are an error (which
    one was meant twice is not known)."""
    numbers = [_find(conn, owner, w, open_first=action == "complete", state=state) for w in which]
    for k, number in enumerate(numbers):
        if number in numbers[:k]:
            first = which[numbers.index(number)]
            raise ToolError(
                f"{_named(first)} and {_named(which[k])} are the same todo (#{number}); name each todo once",
                reason="AMBIGUOUS_TODO",
            )
    for number in numbers:
        _get(conn, owner, number)  # an id no todo has is refused before anything changes
    change = _complete if action == "complete" else _delete
    changed = [change(conn, owner, number) for number in numbers]
    names = ", ".join(_quoted(t["text"]) for t in changed[:SUMMARY_TODOS])
    more = f" and {len(changed) - SUMMARY_TODOS} more" if len(changed) > SUMMARY_TODOS else ""
    todos_ = f"{len(changed)} todo{'' if len(changed) == 1 else 's'}"
    if action == "complete":
        return {"todos": changed, "summary": f"Marked {todos_} done: {names}{more}."}
    return {"todos": changed, "summary": f"Deleted {todos_}: {names}{more}."}


def _found(
    conn: Connection, owner: str, which: list[int | str | None], state: str | None = None
) -> dict[str, Any]:
    """The todos `which` names, each found as complete finds it; an error if one is not one todo."""
    found = [_get(conn, owner, _find(conn, owner, w, open_first=True, state=state)) for w in which]
    names = ", ".join(_quoted(t["text"]) for t in found[:SUMMARY_TODOS])
    more = f" and {len(found) - SUMMARY_TODOS} more" if len(found) > SUMMARY_TODOS else ""
    return {
        "todos": found,
        "summary": f"Found {len(found)} {'todo' if len(found) == 1 else 'todos'}: {names}{more}.",
    }


def _named(which: int | str) -> str:
    return f"#{which}" if isinstance(which, int) else _quoted(which)


def _added(todo: dict[str, Any]) -> dict[str, Any]:
    if todo.get("already"):
        return {"todo": todo, "summary": f"{_quoted(todo['text'])} is already on your list (#{todo['id']})."}
    return {"todo": todo, "summary": f"Added {_quoted(todo['text'])} (#{todo['id']})."}


def _completed(todo: dict[str, Any]) -> dict[str, Any]:
    return {"todo": todo, "summary": f"Marked {_quoted(todo['text'])} as done."}


def _deleted(todo: dict[str, Any]) -> dict[str, Any]:
    return {"deleted": todo, "summary": f"Deleted {_quoted(todo['text'])}."}


def _count(conn: Connection, owner: str, state: str | None) -> dict[str, Any]:
    """The tally (count: in `state`; open and done always), and a sentence answering for `state`."""
    total, done = conn.execute(_TALLY, {"caller": owner}).one()
    total, done = int(total), int(done)
    tally = {"open": total - done, "done": done}
    count = total if state is None else tally[state]
    noun = "todo" if count == 1 else "todos"
    if state is None:
        detail = f" ({total - done} open, {done} done)" if done else ""
        summary = f"You have {total} {noun}{detail}."
    elif state == "open":
        summary = f"You have {count} open {noun} ({total} in all)."
    else:
        summary = f"You have done {count} {noun} ({total} in all)."
    return {"count": count, **tally, "summary": summary}


def _at(conn: Connection, owner: str, place: int) -> int:
    """The number of the todo at `place` of `owner`'s whole list, in list's order (by number):
    1 the first, -1 the last."""
    order = todos.c.number if place > 0 else todos.c.number.desc()
    found = conn.execute(
        sa.select(todos.c.number)
        .where(todos.c.owner == owner)
        .order_by(order)
        .offset(abs(place) - 1)
        .limit(1)
    ).scalar()
    if found is None:
        total = conn.execute(_COUNT[None], {"caller": owner}).scalar_one()
        which = (
            f"{place}{_ordinal(place)}"
            if place > 0
            else ("last" if place == -1 else f"{-place}{_ordinal(-place)} from the end")
        )
        raise ToolError(f"there is no {which} todo: the list has {total}", reason="TODO_NOT_FOUND")
    return int(found)


def _ordinal(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _find(
    conn: Connection,
    owner: str,
    which: int | str | None,
    *,
    open_first: bool,
    state: str | None = None,
    as_said: bool = True,
) -> int:
    """The number of the todo `which` names in `owner`'s list: a number, or a text that one todo
    has (any case), or that only one todo contains as whole words, or else whose words (in any form: "walked"
    is "walk", "groceries" "grocery") only one todo has among its latest MAX_SCANNED. Completing
    prefers open todos: "buy milk" completes the open one when an older one is already done.
    A `state` narrows the todos a text may name ("the finished 'water the plants'"); with no
    text, it names the one todo in that state ("the done one")."""
    if isinstance(which, int):
        return which
    in_state = [] if state is None else [todos.c.done == (1 if state == "done" else 0)]
    if which is None:
        return _only(conn, owner, state or "open", in_state)
    needle = _needle(which)
    for whole, condition in ((True, _lowered() == needle), (False, _contains(needle))):
        rows = _rows_where(conn, owner, condition, in_state)
        if open_first and _one_text(rows) and any(not r[2] for r in rows):
            rows = [r for r in rows if not r[2]]
        # a part of one todo's text, and the words of another in some form ("the ironing": "do
        # the ironing" and "iron Tom's suit"): a choice for the person, not a guess
        if (
            len(rows) == 1
            and not whole
            and (others := [r for r in _by_words_in(conn, owner, needle, state) if r[0] != rows[0][0]])
        ):
            raise _several(
                sorted([*rows, *others], key=lambda r: r[0]),
                f"match {_quoted(which)}",
                "by more of its text",
            )
        if len(rows) == 1:
            return int(rows[0][0])
        if rows:
            raise _several(rows, f"match {_quoted(which)}", "by more of its text")
    by_words = _by_words_in(conn, owner, needle, state)
    if open_first and _one_text(by_words) and any(not r[2] for r in by_words):
        by_words = [r for r in by_words if not r[2]]
    if len(by_words) == 1:
        return int(by_words[0][0])
    if by_words:
        raise _several(by_words, f"match {_quoted(which)}", "by more of its text")
    by_slips = _by_words_in(conn, owner, needle, state, slips=True)
    if len(by_slips) == 1:
        return int(by_slips[0][0])
    if by_slips:
        raise _several(by_slips, f"match {_quoted(which)}", "by more of its text")
    first, _, rest = needle.partition(" ")
    if as_said and first in _ALREADY_THERE and rest:
        # "delete the old dentist one (and add the new one)": the one already on the list, when no
        # todo says "old"; then the rest must name it alone, as any name does (once: "old old old
        # ..." is not looked up once per word)
        try:
            return _find(conn, owner, rest, open_first=open_first, state=state, as_said=False)
        except ToolError as error:
            if error.reason != "TODO_NOT_FOUND":
                raise
    raise _no_match(conn, owner, which, needle, state)


# Words that say a todo is the one already on the list, not part of its name (unless a todo has
# them: _find tries the whole name first).
_ALREADY_THERE = frozenset(["old", "existing", "original", "previous", "current"])


def _every_named(
    conn: Connection, owner: str, which: str, matching: int | None, state: str | None
) -> list[int]:
    """The numbers of the todos `which` names, as a part of their text or by their words, when they
    are exactly `matching` ("both bills": two), or (None) however many they are, up to
    MAX_LISTED_MATCHES ("all the milk ones"); else an error naming those it fits."""
    needle = _needle(which)
    rows = {int(r[0]): r for r in _by_words_in(conn, owner, needle, state)}
    in_state = [] if state is None else [todos.c.done == (1 if state == "done" else 0)]
    for r in _rows_where(conn, owner, _contains(needle), in_state):
        rows[int(r[0])] = r
    if not rows:
        raise _no_match(conn, owner, which, needle, state)
    if matching is None:
        if len(rows) > MAX_LISTED_MATCHES:  # each query stops at MAX_LISTED_MATCHES + 1: there may be more
            fits = sorted(rows.values(), key=lambda r: r[0])[: MAX_LISTED_MATCHES + 1]
            raise _several(fits, f"match {_quoted(which)}", "by more of its text")
        return sorted(rows)
    if len(rows) == 1:
        (only,) = rows.values()
        raise ToolError(
            f"only one todo matches {_quoted(which)} (#{only[0]} {_quoted(only[1])}), not {matching}; "
            "say which todos (by id, or by their text)",
            reason="AMBIGUOUS_TODO",
        )
    if len(rows) != matching:
        fits = sorted(rows.values(), key=lambda r: r[0])[: MAX_LISTED_MATCHES + 1]
        raise _several(fits, f"match {_quoted(which)}, not {matching}", "by its text")
    return sorted(rows)


def _rows_where(conn: Connection, owner: str, condition: Any, in_state: list[Any]) -> list[Any]:
    """The caller's first MAX_LISTED_MATCHES + 1 todos (by number) that meet `condition`."""
    return conn.execute(
        sa.select(*_COLUMNS)
        .where(todos.c.owner == owner, condition, *in_state)
        .order_by(todos.c.number)
        .limit(MAX_LISTED_MATCHES + 1)
    ).all()


def _no_match(conn: Connection, owner: str, which: str, needle: str, state: str | None) -> ToolError:
    which_state = "" if state is None else f"{state} "
    return _not_found(conn, owner, f"no {which_state}todo matches {_quoted(which)}", needle)


def _lowered() -> Any:
    """A todo's text as a needle is: case, runs of spaces and hyphens do not matter ("pay-rent"
    finds "Pay rent")."""
    return sa.func.replace(sa.func.lower(todos.c.text), "-", " ")


def _needle(which: str) -> str:
    return " ".join(which.replace("-", " ").split()).lower()


def _contains(needle: str) -> Any:
    """A todo's text has `needle` as whole words: "new" is not a part of "renew passport"; and a
    word with its "'s" is that word ("the grandma one" is in "call grandma's neighbour" too)."""
    spaced = sa.func.replace(sa.literal(" ") + _lowered() + sa.literal(" "), "'s ", " ")
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return spaced.like("%" + f" {escaped} ".replace("'s ", " ") + "%", escape="\\")


def _by_words_in(
    conn: Connection, owner: str, needle: str, state: str | None, *, slips: bool = False
) -> list[Any]:
    """_by_words, of the todos in `state` (all of them for None)."""
    found = _by_words(conn, owner, needle, slips=slips)
    return [r for r in found if state is None or bool(r[2]) == (state == "done")]


def _only(conn: Connection, owner: str, state: str, in_state: list[Any]) -> int:
    """The one todo in `state` ("remove the done one"): none, or several, is an error naming them."""
    rows = conn.execute(
        sa.select(*_COLUMNS)
        .where(todos.c.owner == owner, *in_state)
        .order_by(todos.c.number)
        .limit(MAX_LISTED_MATCHES + 1)
    ).all()
    if len(rows) == 1:
        return int(rows[0][0])
    if not rows:
        raise _not_found(conn, owner, f"no todo is {state}")
    raise _several(rows, f"are {state}", "by its text")


def _several(rows: list[Any], what: str, how: str) -> ToolError:
    """AMBIGUOUS_TODO naming the todos (rows of at most MAX_LISTED_MATCHES + 1) that fit."""
    listed = "; ".join(f"#{r[0]} {_quoted(r[1])}" for r in rows[:MAX_LISTED_MATCHES])
    many = len(rows) > MAX_LISTED_MATCHES
    how_many = f"more than {MAX_LISTED_MATCHES}" if many else str(len(rows))
    return ToolError(
        f"{how_many} todos {what}: {listed}{' and more' if many else ''}; say which (by id, or {how})",
        reason="AMBIGUOUS_TODO",
    )


# Words that say which todo without being part of its name ("the task of washing the car").
# Not "to": "my email to Sam" has a "to" that the todo "email Sam" has not, and is another
# thing (an email, not the task of writing one). "coffee with Sarah" is still "meet Sarah for
# coffee": the other small words may differ.
_FILLER_WORDS = frozenset(["the", "a", "an", "my", "our", "your", "of", "for", "on", "in", "at", "with",
                           "and", "one", "todo", "task", "item", "thing", "that", "this", "is", "are", "was",
                           "were", "been", "be", "has", "have", "had", "all", "already"])  # fmt: skip
# Irregular past forms people report a todo done with ("took out the trash" is "take out the trash").
_IRREGULAR = wordforms.IRREGULAR


def _by_words(conn: Connection, owner: str, needle: str, *, slips: bool = False) -> list[Any]:
    """The latest MAX_SCANNED todos (and at most MAX_LISTED_MATCHES + 1) that have every word of
    `needle` but its fillers, each word in some form: a third way to find the todo a person
    named, after its whole text and a part of it. Every word must be there, so "call" alone is
    no closer to "call mom" than to "call the bank"."""
    # Not "'s"; but a digit, which tells "read chapter 3" from "read chapter 4".
    words = [
        w
        for w in re.findall(r"[^\W_]+", _one_word_verbs(needle))
        if w not in _FILLER_WORDS and (len(w) > 1 or w.isdigit())
    ]
    if not any(len(_SHORT_FORMS.get(w, w)) >= 3 and not w.isdigit() for w in words):
        return []  # "2 and 3", "we": nothing that names a todo
    wanted = [_forms(w) for w in words]
    rows = [
        (row, [_forms(w) for w in re.findall(r"[^\W_]+", _one_word_verbs(row[1].lower()))])
        for row in conn.execute(_LATEST, {"caller": owner}).all()
    ]
    if slips:
        # Last: a long word typed with one slip ("the mechanc one": "call the mechanic"), each word
        # of the todo's long enough that one slip cannot make it another word of the list.
        slipped = [
            row
            for row, has in rows
            if all(
                any(forms & other for other in has)
                or (_MIN_SLIP_CHARS <= len(w) <= _MAX_SLIP_CHARS and any(_slipped(w, other) for other in has))
                for w, forms in zip(words, wanted, strict=True)
            )
        ]
        return sorted(slipped, key=lambda r: r[0])[: MAX_LISTED_MATCHES + 1]
    found = [row for row, has in rows if all(any(forms & other for other in has) for forms in wanted)]
    # None with every word: a particle may be what a todo leaves out ("hung the washing out" is
    # "hang the washing"), beside a word that names something ("50% off" needs its "off"); never
    # when a todo has it ("called mom back": "call mom back", not "call mom").
    if not found and any(w in _PARTICLES for w in words):
        kept = [forms for w, forms in zip(words, wanted, strict=True) if w not in _PARTICLES]
        if any(len(w) >= 3 and w not in _PARTICLES and not w.isdigit() for w in words):
            found = [row for row, has in rows if all(any(forms & other for other in has) for forms in kept)]
    # Several that have every word in some form stay a choice for the person, even when one has
    # them as said ("done with the ironing": "do the ironing" and "iron Tom's suit"; "ordered the
    # new glasses": "order new glasses" and "order new glass for the door"): people asked
    # disagreed, and refusing changes nothing.
    return sorted(found, key=lambda r: r[0])[: MAX_LISTED_MATCHES + 1]


_MIN_SLIP_CHARS = 5  # "cal" is one slip from "call" and from "car": too short to read a slip in
# A word longer than any word is no typo of one, and comparing two such words costs their length
# squared (a 1,000-character name against 200 todos of 999-character words).
_MAX_SLIP_CHARS = 30


def _slipped(typed: str, forms: frozenset[str]) -> bool:
    return any(_MIN_SLIP_CHARS <= len(f) <= _MAX_SLIP_CHARS and wordforms.one_slip(typed, f) for f in forms)


# The small word of a verb of two words, which a todo may leave out (_by_words).
_PARTICLES = frozenset(["out", "up", "off", "away", "back", "down"])


# Verbs a todo and the person reporting it done say differently ("got the bread" is "buy bread").
_SAME_TASK = {"buy": "get", "bought": "get", "grab": "get", "phone": "call", "ring": "call", "rang": "call",
              "telephone": "call", "hoover": "vacuum", "renewal": "renew", "scrub": "clean",
              "mum": "mom", "mam": "mom", "mummy": "mommy", "granny": "grandma", "gran": "grandma",
              # British and American spellings of one word
              "tyre": "tire", "colour": "color", "cheque": "check"}  # fmt: skip
# A verb of two words that is one of _SAME_TASK's ("picked up the dog food" is "buy dog food",
# "got the prescription" is "pick up prescription"): one word, so that "up" need not be in both.
_PICK_UP = re.compile(r"\b(?:pick|picked|picking|picks)\s+up\b")
# "spoke to grandma's neighbour" is "call grandma's neighbour" done: the point of the call was to speak
# (and "got off the phone with grandma": the call, over)
_TALK_TO = re.compile(
    r"\b(?:(?:speak|speaks|spoke|spoken|speaking|talk|talks|talked|talking)\s+(?:to|with)"
    r"|(?:got|get|gotten)\s+off\s+the\s+phone\s+(?:with|to))\b"
)


# "sent the email to Sarah" is "email Sarah" done: the thing sent is the task's verb.
_SENT_A = re.compile(
    r"\b(?:sent|send|sends|sending)\s+(?:(?:the|an|a|my|that)\s+)?(email|e-mail|text|message)\s+to\b"
)


# "sent the dress back", "took the books back": returned.
_SENT_BACK = re.compile(r"\b(?:sent|send|took|take|brought|bring)\s+((?:\S+\s+){1,3}?)back\b")


def _one_word_verbs(text: str) -> str:
    text = _SENT_BACK.sub(r"return \1", text)
    return _SENT_A.sub(r"\1", _TALK_TO.sub("call", _PICK_UP.sub("get", text)))


# Short forms everyone writes for a word a todo spells out ("the vet appt": "book vet appointment"):
# only those that mean one word.
_SHORT_FORMS = {"appt": "appointment", "appts": "appointments", "mtg": "meeting", "mtgs": "meetings",
                "bday": "birthday", "bdays": "birthdays", "hw": "homework", "mgr": "manager",
                "ch": "chapter", "chap": "chapter", "pg": "page", "pgs": "pages", "dr": "doctor",
                "re": "about"}  # fmt: skip


def _forms(word: str) -> frozenset[str]:
    """A word and the forms it may have come from: "walked" -> walk, "watering" -> water,
    "running" -> run, "groceries" -> grocery, "took" -> take, "bought" and "got" -> get."""
    word = _SHORT_FORMS.get(word, word)
    forms = {word, _SAME_TASK.get(word, word)}
    if word in _IRREGULAR:
        forms |= {_IRREGULAR[word], _SAME_TASK.get(_IRREGULAR[word], _IRREGULAR[word])}
    for suffix in ("ing", "ed", "es", "s"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3 and not word.endswith("ss"):
            forms |= {base, base + "e"}
            if base[-1] == base[-2]:
                forms.add(base[:-1])  # running -> run, stopped -> stop
    if word.endswith("ies") and len(word) > 4:
        forms.add(word[:-3] + "y")  # groceries -> grocery
    if word.endswith("ied") and len(word) > 4:
        forms.add(word[:-3] + "y")  # carried -> carry
    # "phoned", "telephoned": the task a base form says ("phone" is "call")
    return frozenset(forms | {_SAME_TASK[f] for f in forms if f in _SAME_TASK})


def _not_found(conn: Connection, owner: str, what: str, needle: str = "") -> ToolError:
    """TODO_NOT_FOUND, naming the caller's todos nearest to `needle` (by shared words), else its
    latest open ones, and what to do next."""
    rows = conn.execute(_LATEST, {"caller": owner}).all()
    if not rows:
        return ToolError(f"{what}: the todo list is empty", reason="TODO_NOT_FOUND")
    wanted = _stems(needle)
    shared = {int(r[0]): len(wanted & _stems(r[1])) for r in rows}
    near = sorted((r for r in rows if shared[int(r[0])]), key=lambda r: (-shared[int(r[0])], r[2], r[0]))
    shown = near or sorted(rows, key=lambda r: (r[2], -r[0]))
    listed = ", ".join(f"#{r[0]} {_quoted(r[1])}{' (done)' if r[2] else ''}" for r in shown[:MAX_SUGGESTED])
    which = "the closest are" if near else "the latest are"
    return ToolError(
        f"{what}; {which} {listed}. Try again with one of these (its id, or its text), "
        "or list the todos to see them all",
        reason="TODO_NOT_FOUND",
    )


def _stems(text: str) -> set[str]:
    """A text's words as comparable stems: lower case, at most 4 letters ("groceries" and
    "grocery" share "groc"), words of one or two letters ("a", "to") left out."""
    return {w[:4] for w in re.findall(r"[^\W_]+", text.lower()) if len(w) > 2}


def _cut(text: str) -> str:
    return text if len(text) <= SUMMARY_TEXT_CHARS else text[: SUMMARY_TEXT_CHARS - 1] + "…"


def _quoted(text: str) -> str:
    return f"'{_cut(text)}'"


def _list_summary(page: list[dict[str, Any]], count: int, offset: int, state: str | None, total: int) -> str:
    which = {None: "", "open": " open", "done": " done"}[state]
    if total == 0:
        return "Your todo list is empty."
    if count == 0:
        return f"You have no{which} todos ({total} in all)."
    shown = [
        f"{t['id']}. {_cut(t['text'])}{' (done)' if t['done'] and state is None else ''}"
        for t in page[:SUMMARY_TODOS]
    ]
    rest = count - offset - len(shown)
    more = f"; and {rest} more" if rest > 0 else ""
    noun = "todo" if count == 1 else "todos"
    return f"You have {count}{which} {noun}: " + "; ".join(shown) + more + "."


def _complete(conn: Connection, owner: str, number: int) -> dict[str, Any]:
    _get(conn, owner, number)
    conn.execute(_COMPLETE, {"caller": owner, "todo_number": number, "now": time.time()})
    return _get(conn, owner, number)


def _delete(conn: Connection, owner: str, number: int) -> dict[str, Any]:
    todo = _get(conn, owner, number)
    conn.execute(_DELETE, {"caller": owner, "todo_number": number})
    return todo


def _get(conn: Connection, owner: str, number: int) -> dict[str, Any]:
    # Another principal's todo is one that does not exist: the same answer, so a caller cannot
    # even learn which numbers others have used.
    row = conn.execute(_GET, {"caller": owner, "todo_number": number}).first()
    if row is None:
        raise _not_found(conn, owner, f"todo {number} does not exist")
    return _row(row)


def _row(row: Any) -> dict[str, Any]:
    return {"id": row[0], "text": row[1], "done": bool(row[2])}
