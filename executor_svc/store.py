"""The run store: runs (as Run protobuf snapshots) and their events, on SQLite or PostgreSQL.

Here: creating a run, reading runs and events, and retention. A run's later saves go through
group commit (groupcommit.py, `store.commits`), and who may write a run through its lease
(leases.py, `store.leases`); all three share one database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.core.runstate import TERMINAL
from agentrt.server.db import Database, epoch_now, execute, executemany
from agentrt.v1 import run_pb2
from executor_svc.groupcommit import INSERT_EVENTS, RUN_CHANNEL, GroupCommit, event_rows, notice
from executor_svc.leases import UNFINISHED, Lease, LeaseStore
from executor_svc.schema import run_events, runs

_GET_RUN = sa.select(runs.c.data).where(runs.c.run_id == sa.bindparam("run_id"))
_GET_PROGRESS = sa.select(runs.c.status, runs.c.last_seq).where(runs.c.run_id == sa.bindparam("run_id"))
_GET_OWNER = sa.select(runs.c.owner).where(runs.c.run_id == sa.bindparam("run_id"))
_BY_KEY = sa.select(runs.c.data).where(
    runs.c.owner == sa.bindparam("principal"), runs.c.idempotency_key == sa.bindparam("key")
)
_LIST_EVENTS = (
    sa.select(run_events.c.data)
    .where(run_events.c.run_id == sa.bindparam("run_id"), run_events.c.seq > sa.bindparam("after_seq"))
    .order_by(run_events.c.seq)
    .limit(sa.bindparam("limit"))
)


@dataclass(frozen=True)
class PageCursor:
    """Position after the last run of a page (runs are listed newest first)."""

    create_time_us: int
    run_id: str


_INSERT_RUN: dict[str, sa.Insert] = {}


def _insert_run(conn: Connection) -> sa.Insert:
    """INSERT of a new run, leased for :ttl_s seconds of the database's clock. On PostgreSQL it
    also NOTIFYs RUN_CHANNEL with :notice (a round trip fewer than a NOTIFY of its own)."""
    statement = _INSERT_RUN.get(conn.dialect.name)
    if statement is None:
        expires = epoch_now(conn) + sa.bindparam("ttl_s", type_=sa.Float)
        statement = runs.insert().values(lease_expires=expires)
        if conn.dialect.name == "postgresql":
            statement = statement.returning(
                sa.func.pg_notify(RUN_CHANNEL, sa.bindparam("notice", type_=sa.String))
            )
        _INSERT_RUN[conn.dialect.name] = statement
    return statement


def existing_run(conn: Connection, principal: str, key: str) -> run_pb2.Run | None:
    """The run `principal` created with idempotency key `key`, if any."""
    data = execute(conn, _BY_KEY, {"principal": principal, "key": key}).scalar() if key else None
    return None if data is None else run_pb2.Run.FromString(data)


def insert_run(
    conn: Connection, run: run_pb2.Run, events: Sequence[run_pb2.RunEvent], replica: str | None, ttl_s: float
) -> None:
    """Insert `run` with its first events, leased to `replica` (None: to nobody, a queued turn,
    which the keeper claims when its turn comes: leases.py)."""
    row = {
        "run_id": run.run_id,
        "owner": run.owner,
        "idempotency_key": run.idempotency_key or None,
        "status": run.status,
        "create_time_us": run.create_time.ToMicroseconds(),
        "last_seq": run.last_seq,
        "data": run.SerializeToString(),
        "lease_owner": replica,
        "lease_epoch": 1 if replica is not None else 0,
        "thread_id": run.thread_id or None,
        "thread_turn": run.thread_turn or None,
        "ttl_s": ttl_s if replica is not None else None,
    }
    if conn.dialect.name == "postgresql":
        row["notice"] = notice(run.run_id, replica or "")
    execute(conn, _insert_run(conn), row)
    if blobs := event_rows(events):  # (an empty parameter list would insert one row of defaults)
        executemany(conn, INSERT_EVENTS, blobs)


class RunStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.commits = GroupCommit(db)
        self.leases = LeaseStore(db)

    async def close(self) -> None:
        await self.commits.close()
        await self.db.close()

    async def create_run(
        self, run: run_pb2.Run, events: Sequence[run_pb2.RunEvent], owner: str, ttl_s: float
    ) -> tuple[run_pb2.Run, Lease | None]:
        """Insert `run` with its first events, leased to replica `owner`, in the next group
        commit. If its owner already used its idempotency key, return (the existing run, None)."""
        key = {"principal": run.owner, "key": run.idempotency_key}

        def insert(conn: Connection) -> bytes | None:
            if run.idempotency_key:
                existing = execute(conn, _BY_KEY, key).scalar()
                if existing is not None:
                    return bytes(existing)
            insert_run(conn, run, events, owner, ttl_s)
            return None

        try:
            existing = await self.commits.create(run.run_id, insert)
        except sa.exc.IntegrityError:
            # Two replicas raced on one idempotency key (SQLite serializes them; PostgreSQL
            # makes the second fail on the unique index): the winner's run is the answer.
            existing = await self.db.read(lambda c: execute(c, _BY_KEY, key).scalar())
            if existing is None:
                raise
        if existing is None:
            return run, Lease(owner, 1)
        return run_pb2.Run.FromString(existing), None

    # -- retention -------------------------------------------------------------------------

    async def prune(self, finished_before_us: int | None, keep_newest: int, batch: int = 500) -> int:
        """Delete finished one-shot runs (with their events) that ended before
        `finished_before_us`, or beyond the newest `keep_newest` finished runs (0: no count
        limit). Returns runs deleted. A thread's turns go with their thread (its own time to
        live, threads.py), never one by one: the later turns refer to them. Works in batches so
        a large backlog never holds one long transaction."""
        finished = sa.func.coalesce(runs.c.end_time_us, runs.c.create_time_us)
        total = 0
        while True:

            def prune_batch(conn: Connection) -> int:
                doomed: set[str] = set()
                terminal = sa.and_(runs.c.status.in_(sorted(TERMINAL)), runs.c.thread_id.is_(None))
                if finished_before_us is not None:
                    doomed.update(
                        conn.execute(
                            sa.select(runs.c.run_id)
                            .where(terminal, finished < finished_before_us)
                            .limit(batch)
                        ).scalars()
                    )
                if keep_newest and len(doomed) < batch:
                    doomed.update(
                        conn.execute(
                            sa.select(runs.c.run_id)
                            .where(terminal)
                            .order_by(finished.desc(), runs.c.run_id.desc())
                            .offset(keep_newest)
                            .limit(batch - len(doomed))
                        ).scalars()
                    )
                if doomed:
                    conn.execute(run_events.delete().where(run_events.c.run_id.in_(doomed)))
                    conn.execute(runs.delete().where(runs.c.run_id.in_(doomed), terminal))
                return len(doomed)

            deleted = await self.db.transaction(prune_batch, bulk=True)
            total += deleted
            if deleted < batch:
                return total

    # -- reading ---------------------------------------------------------------------------

    async def get_run(self, run_id: str) -> run_pb2.Run | None:
        data = await self.db.read(lambda c: execute(c, _GET_RUN, {"run_id": run_id}).scalar())
        return None if data is None else run_pb2.Run.FromString(data)

    async def get_owner(self, run_id: str) -> str | None:
        """A run's owner, or None if there is no such run (who may see it, without reading it)."""
        return await self.db.read(lambda c: execute(c, _GET_OWNER, {"run_id": run_id}).scalar())

    async def get_progress(self, run_id: str) -> tuple[int, int] | None:
        """A run's status and last seq, or None if there is no such run: what a watcher needs to
        know, without reading and parsing the whole run (its steps' outputs)."""
        row = await self.db.read(lambda c: execute(c, _GET_PROGRESS, {"run_id": run_id}).first())
        return None if row is None else (row[0], row[1])

    async def list_runs(
        self, page_size: int, after: PageCursor | None, status: int, owner: str | None = None
    ) -> list[run_pb2.Run]:
        """A page of runs, newest first: `owner`'s (None: every owner's)."""
        query = sa.select(runs.c.data)
        if owner is not None:
            query = query.where(runs.c.owner == owner)
        if status:
            query = query.where(runs.c.status == status)
        if after is not None:
            query = query.where(
                sa.tuple_(runs.c.create_time_us, runs.c.run_id)
                < sa.tuple_(after.create_time_us, after.run_id)
            )
        query = query.order_by(runs.c.create_time_us.desc(), runs.c.run_id.desc()).limit(page_size)
        rows = await self.db.read(lambda c: list(c.execute(query).scalars()))
        return [run_pb2.Run.FromString(r) for r in rows]

    async def list_events(self, run_id: str, after_seq: int, limit: int) -> list[run_pb2.RunEvent]:
        params = {"run_id": run_id, "after_seq": after_seq, "limit": limit}
        rows = await self.db.read(lambda c: [r[0] for r in execute(c, _LIST_EVENTS, params)])
        return [run_pb2.RunEvent.FromString(r) for r in rows]

    async def unfinished_run_ids(self) -> list[str]:
        query = sa.select(runs.c.run_id).where(runs.c.status.in_(UNFINISHED)).order_by(runs.c.create_time_us)
        return await self.db.read(lambda c: list(c.execute(query).scalars()))


def page_cursor_of(run: run_pb2.Run) -> PageCursor:
    return PageCursor(run.create_time.ToMicroseconds(), run.run_id)
