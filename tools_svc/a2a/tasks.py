"""The remote tasks our calls started, kept in tools_svc's database by the call's idempotency
key. The executor retries a step with the same key (after a restart, after a lost connection):
the call then waits on the task the first attempt started, and never sends the agent its message
a second time. A run cancelled here is cancelled there: its calls' tasks are found by run."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.server.db import Database
from tools_svc.schema import a2a_tasks


@dataclass(frozen=True)
class RemoteTask:
    agent: str
    task_id: str


class RemoteTasks:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str, owner: str) -> RemoteTask | None:
        """The task the call with this key started, if one did (and for this principal: a key
        names one principal's call, so another's is never re-attached to)."""

        def read(conn: Connection) -> RemoteTask | None:
            row = conn.execute(
                sa.select(a2a_tasks.c.agent, a2a_tasks.c.task_id).where(
                    a2a_tasks.c.idempotency_key == key, a2a_tasks.c.owner == owner
                )
            ).first()
            return None if row is None else RemoteTask(row[0], row[1])

        return await self._db.read(read)

    async def put(self, key: str, task: RemoteTask, owner: str, run_id: str) -> None:
        """Record the task a call started; a record already there (a concurrent attempt on
        another replica) is kept: the key is the table's, so the second insert fails alone."""
        row = {
            "idempotency_key": key,
            "agent": task.agent,
            "task_id": task.task_id,
            "owner": owner,
            "run_id": run_id,
            "created_at": time.time(),
        }
        with contextlib.suppress(sa.exc.IntegrityError):
            await self._db.transaction(lambda conn: conn.execute(a2a_tasks.insert().values(**row)))

    async def of_run(self, owner: str, run_id: str) -> list[RemoteTask]:
        def read(conn: Connection) -> list[RemoteTask]:
            rows = conn.execute(
                sa.select(a2a_tasks.c.agent, a2a_tasks.c.task_id)
                .where(a2a_tasks.c.owner == owner, a2a_tasks.c.run_id == run_id)
                .order_by(a2a_tasks.c.created_at)
            ).all()
            return [RemoteTask(r[0], r[1]) for r in rows]

        return await self._db.read(read)
