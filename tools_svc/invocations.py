"""Completed tool invocations, keyed by idempotency key: each key's side effect happens once.

A step retried by the executor, or re-run after an executor restart, sends the same key; the
recorded output is returned instead of running the tool again. Two details make this hold when
callers vanish mid-call:

- Tools whose side effect is a write to this database record the invocation *in the same
  transaction* (`record_in`), so "todo added" and "invocation recorded" commit together even if
  the caller's RPC is cancelled halfway; other tools are recorded right after they return.
- Concurrent calls with one key on one replica wait for the first; if the first caller is
  cancelled, a waiter re-checks the record and runs the tool itself only if nothing was recorded.
  On two replicas (sharing PostgreSQL) the second to commit its record fails on the key, rolling
  back its own write, and returns the first's output.

A key names one invocation by one principal: the same key with other arguments, or from another
principal, is refused (IDEMPOTENCY_KEY_REUSED), never answered with the first's output, which
may hold another principal's data.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.core.errors import AlreadyExists
from agentrt.core.principals import LOCAL_NAME
from agentrt.server.db import Database, execute
from tools_svc.schema import tool_invocations


def encode(output: Any) -> str:
    """A tool's output as JSON: the text whose size the servicer checks and the record stores."""
    return json.dumps(output, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Invocation:
    key: str
    tool: str
    digest: str
    # Set once the tool recorded the invocation in its own transaction: a call that returns
    # normally then committed it, and run_once must not insert the record a second time.
    recorded: bool = False
    # The output last encoded for this call, with its JSON: the size check and the record
    # (whichever comes first) encode an output once between them.
    encoded: tuple[Any, str] | None = None

    def encode(self, output: Any) -> str:
        if self.encoded is None or self.encoded[0] is not output:
            self.encoded = (output, encode(output))
        return self.encoded[1]

    def recorded_in(self, conn: Connection) -> tuple[bool, Any]:
        """This key's recorded output, read inside the caller's transaction: (True, output) if
        the call was made before (then nothing is to be done again, and run_once records nothing),
        else (False, None). A key recorded for another call is IDEMPOTENCY_KEY_REUSED."""
        row = _lookup(conn, self.key)
        if row is None:
            return False, None
        if (row[0], row[1]) != (self.tool, self.digest):
            raise _reused(self.key)
        self.recorded = True
        return True, json.loads(row[2])

    def record_in(self, conn: Connection, output: Any) -> None:
        """Record this invocation inside the caller's open transaction. If the key is recorded
        already (a concurrent call on another replica won), this raises IntegrityError and the
        caller's whole transaction rolls back."""
        self.recorded = True
        execute(
            conn,
            _RECORD,
            {
                "idempotency_key": self.key,
                "tool": self.tool,
                "arguments_sha256": self.digest,
                "output": self.encode(output),
                "created_at": time.time(),
            },
        )


_current: contextvars.ContextVar[Invocation | None] = contextvars.ContextVar("invocation", default=None)


def current_invocation() -> Invocation | None:
    """The idempotent invocation being served, for tools that record it in their own transaction."""
    return _current.get()


def _digest(tool: str, arguments: dict[str, Any], principal: str) -> str:
    # `local`'s digests are those recorded before principals existed: a step retried across the
    # upgrade still finds its record.
    signed = [tool, arguments] if principal == LOCAL_NAME else [tool, arguments, principal]
    canonical = json.dumps(signed, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class InvocationLog:
    def __init__(self, db: Database) -> None:
        self._db = db
        # key -> (digest, the output to come) of the calls running on this replica
        self._inflight: dict[str, tuple[str, asyncio.Future[Any]]] = {}

    async def run_once(
        self,
        key: str,
        tool: str,
        arguments: dict[str, Any],
        call: Callable[[], Awaitable[Any]],
        principal: str = LOCAL_NAME,
        *,
        looks_up_itself: bool = False,
    ) -> Any:
        """Run `call` at most once per key and return its (recorded) output. A tool that
        `looks_up_itself` reads the record in the transaction of its change (Invocation.recorded_in,
        then record_in), so the lookup here would be a second trip to the store for nothing."""
        invocation = Invocation(key, tool, _digest(tool, arguments, principal))
        while True:
            if not looks_up_itself:
                found, output = await self._recorded(invocation)
                if found:
                    return output
            running = self._inflight.get(key)
            if running is None:
                break
            digest, pending = running
            if digest != invocation.digest:
                raise _reused(key)
            try:
                return await asyncio.shield(pending)
            except asyncio.CancelledError:
                if not pending.cancelled():
                    raise  # we were cancelled ourselves
                # The first caller went away mid-call: look at the record again.

        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inflight[key] = (invocation.digest, future)
        token = _current.set(invocation)
        try:
            try:
                output = await call()
                if not invocation.recorded:
                    await self._db.transaction(lambda c: invocation.record_in(c, output))
            except sa.exc.IntegrityError:
                # Another replica recorded this key first. A tool that records in its own
                # transaction (todo_store) was rolled back with the record: its effect happened
                # once, there. Either way the first recorded output is the answer.
                found, output = await self._recorded(invocation)
                if not found:
                    raise
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

    async def prune(self, recorded_before: float) -> int:
        """Forget invocations recorded before `recorded_before` (seconds since the epoch)."""
        return await self._db.transaction(
            lambda c: (
                c.execute(
                    tool_invocations.delete().where(tool_invocations.c.created_at < recorded_before)
                ).rowcount
            ),
            bulk=True,
        )

    async def _recorded(self, invocation: Invocation) -> tuple[bool, Any]:
        return await self._db.read(invocation.recorded_in)


def _reused(key: str) -> AlreadyExists:
    return AlreadyExists(
        f"idempotency key '{key}' was already used for a different invocation",
        reason="IDEMPOTENCY_KEY_REUSED",
    )


def _lookup(conn: Connection, key: str) -> Any:
    return execute(conn, _LOOKUP, {"key": key}).first()


# Built once (every keyed call makes them): see todos.py.
_RECORD = tool_invocations.insert()
_LOOKUP = sa.select(
    tool_invocations.c.tool, tool_invocations.c.arguments_sha256, tool_invocations.c.output
).where(tool_invocations.c.idempotency_key == sa.bindparam("key"))
