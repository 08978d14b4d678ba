"""The `todo_store` tool: a persistent todo list in the tools database (shared by replicas)."""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.client.errors import ToolError
from agentrt.server.db import Database
from tools_svc.invocations import current_invocation
from tools_svc.schema import todos

MAX_TEXT_CHARS = 1000
# A list returns at most this many todos per call (with the total and where the next page
# starts), so one call's output stays far below the tool output limit however long the list.
MAX_PAGE = 100
# Ids are the database's INTEGER (32 bits on PostgreSQL); a larger id or offset (1e300 arrives
# as a double) would reach the database as a value it cannot bind.
MAX_ID = 2**31 - 1

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {
            "enum": ["add", "list", "complete", "delete"],
            "description": "add needs text; complete and delete need id; list needs nothing.",
        },
        "text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS, "description": "Todo text."},
        "id": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_ID,
            "description": "Todo id, as returned by add or list.",
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
    "allOf": [
        {"if": {"properties": {"action": {"const": "add"}}}, "then": {"required": ["text"]}},
        {
            "if": {"properties": {"action": {"enum": ["complete", "delete"]}}},
            "then": {"required": ["id"]},
        },
    ],
}
DESCRIPTION = (
    "A persistent todo list. action=add with text adds a todo; action=list returns the todos "
    f"(at most {MAX_PAGE} at a time: count is the total, and when more remain, truncated is true "
    "and next_offset is the offset of the next page); action=complete with id marks one done; "
    "action=delete with id removes one."
)


class TodoStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def run(self, arguments: dict[str, Any]) -> dict[str, Any]:
        action = arguments["action"]
        if action == "list":
            offset, limit = arguments.get("offset", 0), arguments.get("limit", MAX_PAGE)
            todos, count = await self._db.read(lambda c: _list(c, offset, limit))
            page: dict[str, Any] = {"todos": todos, "count": count}
            if offset + len(todos) < count:
                page |= {"truncated": True, "next_offset": offset + len(todos)}
            return page
        if action == "add":
            text = arguments["text"]
            if "\x00" in text:  # PostgreSQL refuses NUL in text; say so rather than fail INTERNAL
                raise ToolError("todo text must not contain NUL characters", reason="INVALID_TODO_TEXT")
            return await self._write(lambda c: {"todo": _add(c, text)})
        if action == "complete":
            return await self._write(lambda c: {"todo": _complete(c, arguments["id"])})
        return await self._write(lambda c: {"deleted": _delete(c, arguments["id"])})

    async def _write(self, change: Any) -> dict[str, Any]:
        # The change and its idempotency record commit together: a caller cancelled mid-call
        # can never leave a todo added but unrecorded (which a retry would then add again).
        invocation = current_invocation()

        def transaction(conn: Connection) -> dict[str, Any]:
            output = change(conn)
            if invocation is not None:
                invocation.record_in(conn, output)
            return output

        return await self._db.transaction(transaction)


def _add(conn: Connection, text: str) -> dict[str, Any]:
    todo_id = conn.execute(
        todos.insert().values(text=text.strip(), created_at=time.time()).returning(todos.c.id)
    ).scalar_one()
    return _get(conn, todo_id)


def _list(conn: Connection, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
    count = conn.execute(sa.select(sa.func.count()).select_from(todos)).scalar_one()
    rows = conn.execute(
        sa.select(todos.c.id, todos.c.text, todos.c.done).order_by(todos.c.id).offset(offset).limit(limit)
    )
    return [_row(r) for r in rows], count


def _complete(conn: Connection, todo_id: int) -> dict[str, Any]:
    _get(conn, todo_id)
    # Completing twice keeps the first completion time: the operation is idempotent.
    conn.execute(
        todos.update()
        .where(todos.c.id == todo_id)
        .values(done=1, completed_at=sa.func.coalesce(todos.c.completed_at, time.time()))
    )
    return _get(conn, todo_id)


def _delete(conn: Connection, todo_id: int) -> dict[str, Any]:
    todo = _get(conn, todo_id)
    conn.execute(todos.delete().where(todos.c.id == todo_id))
    return todo


def _get(conn: Connection, todo_id: int) -> dict[str, Any]:
    row = conn.execute(sa.select(todos.c.id, todos.c.text, todos.c.done).where(todos.c.id == todo_id)).first()
    if row is None:
        raise ToolError(f"todo {todo_id} does not exist", reason="TODO_NOT_FOUND")
    return _row(row)


def _row(row: Any) -> dict[str, Any]:
    return {"id": row[0], "text": row[1], "done": bool(row[2])}
