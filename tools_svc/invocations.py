"""Completed tool invocations, keyed by idempotency key: each key's side effect happens once.

A step retried by the executor, or re-run after an executor restart, sends the same key; the
recorded output is returned instead of running the tool again. Two details make this hold when
callers vanish mid-call:

- Tools whose side effect is a write to this database record the invocation *in the same
  transaction* (`record_in`), so "todo added" and "invocation recorded" commit together even if
  the caller's RPC is cancelled halfway; other tools are recorded right after they return.
- Concurrent calls with one key wait for the first; if the first caller is cancelled, a waiter
  re-checks the record and runs the tool itself only if nothing was recorded.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Invocation:
    key: str
    tool: str
    digest: str

    def record_in(self, conn: sqlite3.Connection, output: Any) -> None:
        """Record this invocation inside the caller's open transaction."""
        conn.execute(
            "INSERT OR IGNORE INTO tool_invocations VALUES (?, ?, ?, ?, ?)",
            (self.key, self.tool, self.digest, json.dumps(output), time.time()),
        )


_current: contextvars.ContextVar[Invocation | None] = contextvars.ContextVar("invocation", default=None)


def current_invocation() -> Invocation | None:
    """The idempotent invocation being served, for tools that record it in their own transaction."""
    return _current.get()


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
        invocation = Invocation(key, tool, _digest(tool, arguments))
        while True:
            found, output = await self._recorded(invocation)
            if found:
                return output
            pending = self._inflight.get(key)
            if pending is None:
                break
            try:
                return await asyncio.shield(pending)
            except asyncio.CancelledError:
                if not pending.cancelled():
                    raise  # we were cancelled ourselves
                # The first caller went away mid-call: look at the record again.

        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        token = _current.set(invocation)
        try:
            output = await call()
            await self._db.transaction(lambda c: invocation.record_in(c, output))
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: no "never retrieved" warning when nobody waits
            raise
        else:
            future.set_result(output)
            return output
        finally:
            _current.reset(token)
            self._inflight.pop(key, None)

    async def _recorded(self, invocation: Invocation) -> tuple[bool, Any]:
        row = await self._db.read(lambda c: _lookup(c, invocation.key))
        if row is None:
            return False, None
        if (row[0], row[1]) != (invocation.tool, invocation.digest):
            raise FailedPrecondition(
                f"idempotency key '{invocation.key}' was already used for a different invocation",
                reason="IDEMPOTENCY_KEY_REUSED",
            )
        return True, json.loads(row[2])


def _lookup(conn: sqlite3.Connection, key: str) -> tuple[str, str, str] | None:
    return conn.execute(
        "SELECT tool, arguments_sha256, output FROM tool_invocations WHERE idempotency_key = ?", (key,)
    ).fetchone()
