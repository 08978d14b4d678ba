"""The `todo_store` tool: a persistent todo list in the tools database (shared by replicas)."""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.db import Database
from agentrt.errors import ToolError
from tools_svc.invocations import current_invocation
from tools_svc.schema import todos

MAX_TEXT_CHARS = 1000

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {
            "enum": ["add", "list", "complete", "delete"],
            "description": "add needs text; complete and delete need id; list needs nothing.",
        },
        "text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS, "description": "Todo text."},
        "id": {"type": "integer", "minimum": 1, "description": "Todo id, as returned by add or list."},
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
    "A persistent todo list. action=add with text adds a todo; action=list returns all todos; "
    "action=complete with id marks one done; action=delete with id removes one."
)


class TodoStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def run(self, arguments: dict[str, Any]) -> dict[str, Any]:
        action = arguments["action"]
        if action == "list":
            todos = await self._db.read(_list)
            return {"todos": todos, "count": len(todos)}
        if action == "add":
            return await self._write(lambda c: {"todo": _add(c, arguments["text"])})
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


def _list(conn: Connection) -> list[dict[str, Any]]:
    rows = conn.execute(sa.select(todos.c.id, todos.c.text, todos.c.done).order_by(todos.c.id))
    return [_row(r) for r in rows]


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
