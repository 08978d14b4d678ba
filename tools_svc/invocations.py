"""Completed tool invocations, keyed by idempotency key.

A step retried by the executor (or re-run after an executor restart) sends the same key; the
recorded output is returned instead of running the tool again, so `todo_store add` never adds
twice. Concurrent calls with one key are coalesced onto the first.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import Any

from agentrt.errors import FailedPrecondition
from agentrt.sqlite import SqliteDB

MIGRATION = """
CREATE TABLE tool_invocations (
    idempotency_key TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    arguments_sha256 TEXT NOT NULL,
    output TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


def _digest(tool: str, arguments: dict[str, Any]) -> str:
    canonical = json.dumps([tool, arguments], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class InvocationLog:
    def __init__(self, db: SqliteDB) -> None:
        self._db = db
        self._inflight: dict[str, asyncio.Future[Any]] = {}

    async def run_once(
        self, key: str, tool: str, arguments: dict[str, Any], call: Callable[[], Awaitable[Any]]
    ) -> Any:
        """Run `call` at most once per key and return its (recorded) output."""
        digest = _digest(tool, arguments)
        row = await self._db.read(lambda c: _lookup(c, key))
        if row is not None:
            if (row[0], row[1]) != (tool, digest):
                raise FailedPrecondition(
                    f"idempotency key '{key}' was already used for a different invocation",
                    reason="IDEMPOTENCY_KEY_REUSED",
                )
            return json.loads(row[2])
        pending = self._inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            output = await call()
            record = (key, tool, digest, json.dumps(output), time.time())
            await self._db.transaction(
                lambda c: c.execute("INSERT OR IGNORE INTO tool_invocations VALUES (?,?,?,?,?)", record)
            )
            future.set_result(output)
            return output
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            del self._inflight[key]


def _lookup(conn: sqlite3.Connection, key: str) -> tuple[str, str, str] | None:
    return conn.execute(
        "SELECT tool, arguments_sha256, output FROM tool_invocations WHERE idempotency_key = ?", (key,)
    ).fetchone()
