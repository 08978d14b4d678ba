"""Group commit: a run's transitions are saved with their events, many runs per transaction.

A run's state change and the events describing it are saved in one transaction, so the stored
run and its event history never disagree. A new run's insert (CreateRun) joins the same batches:
at 50 clients a transaction of its own per run wrote the runs table's index pages to the WAL
once per run, where a batch writes each page once for all its runs.

Every save is fenced by the run's lease: it names the lease epoch its replica claimed, and a
replica whose lease was taken over (it stalled, or was presumed dead) finds its save refused
with `LeaseLost` instead of overwriting the new owner's progress. Saves queued while a
transaction runs (on SQLite, whose transactions run on the event loop: while the writer task
waits for its turn) share the next one. On PostgreSQL each save also NOTIFYs `RUN_CHANNEL`, so
every replica can wake its watchers of that run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.core.runstate import TERMINAL, wake_at
from agentrt.server.db import Database, executemany
from agentrt.v1 import run_pb2
from executor_svc.leases import Lease, LeaseLost
from executor_svc.schema import run_events, runs

# LISTEN/NOTIFY channel: run events were saved ("<run_id> <owner>").
RUN_CHANNEL = "agentrt_run_events"
MAX_BATCH = 256  # saves and inserts per group commit


def releases(status: int) -> bool:
    """Whether the save of a run in `status` gives its lease up (an ended run; a waiting one,
    due back at its approval deadline): see GroupCommit.save."""
    return status in TERMINAL or status == run_pb2.RUN_STATUS_WAITING


@dataclass
class _Pending:
    """A save waiting for the next group commit."""

    run_id: str
    epoch: int
    values: dict[str, object]  # the UPDATE's parameters: the snapshot and its columns
    events: list[dict[str, object]]
    notice: str
    done: asyncio.Future[None]

    def write(self, conn: Connection) -> bool:
        """This save on its own: False (and nothing written) if the lease moved on."""
        if conn.dialect.name == "postgresql":
            # The NOTIFY rides on the UPDATE: one round trip fewer on every transition.
            updated = len(conn.execute(_SAVE_NOTIFY, {**self.values, "notice": self.notice}).all())
        else:
            updated = executemany(conn, _SAVE, [self.values])
        if updated != 1:
            return False
        if self.events:
            executemany(conn, INSERT_EVENTS, self.events)
        return True

    def resolve(self) -> None:
        if not self.done.done():  # else the saver was cancelled; the write stands regardless
            self.done.set_result(None)

    def fail(self, exc: Exception) -> None:
        if not self.done.done():
            self.done.set_exception(exc)


@dataclass
class _Create:
    """A new run waiting for the next group commit: `insert` writes it in the batch's transaction
    and answers the run its owner already made with the same idempotency key (None: inserted).
    Nothing else is queued for the run until this is done (its driver starts after), so it never
    shares a batch with a save of its own run."""

    run_id: str
    insert: Callable[[Connection], bytes | None]
    done: asyncio.Future[bytes | None]
    existing: bytes | None = field(default=None, init=False)

    def write(self, conn: Connection) -> bool:
        self.existing = self.insert(conn)  # again if the batch was rolled back and rewritten
        return True

    def resolve(self) -> None:
        if not self.done.done():
            self.done.set_result(self.existing)

    def fail(self, exc: Exception) -> None:
        if not self.done.done():
            self.done.set_exception(exc)


# The statements of the hot path (every transition of every run), built once: constructing a
# SQLAlchemy statement costs several times more than executing the cached compiled form.
_SAVE = runs.update().where(
    runs.c.run_id == sa.bindparam("b_run_id"), runs.c.lease_epoch == sa.bindparam("b_epoch")
)
# PostgreSQL: the same UPDATE, announcing the write with NOTIFY (sent if the transaction commits).
_SAVE_NOTIFY = _SAVE.returning(sa.func.pg_notify(RUN_CHANNEL, sa.bindparam("notice", type_=sa.String)))
INSERT_EVENTS = run_events.insert()


class GroupCommit:
    """Queues saves and writes them in batches, in call order per run."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._queue: list[_Pending | _Create] = []
        self._busy_runs: set[str] = set()
        self._writers = 0
        self._writer_tasks: set[asyncio.Task[None]] = set()
        # Batches committed side by side: one on SQLite; on PostgreSQL half the pool (a lone
        # save or create still gets a transaction of its own at once, and reads and a thread's
        # new turns keep the other half).
        self._max_writers = max(1, db.concurrency // 2)

    async def close(self) -> None:
        for task in list(self._writer_tasks):
            task.cancel()
        await asyncio.gather(*self._writer_tasks, return_exceptions=True)
        for pending in self._queue:
            pending.fail(RuntimeError("run store closed"))
        self._queue = []

    def save(
        self, run: run_pb2.Run, events: Sequence[run_pb2.RunEvent], lease: Lease
    ) -> asyncio.Future[None]:
        """Replace the stored snapshot of `run` and append `events` atomically, if `lease` still
        holds the run; else fail with LeaseLost and change nothing. A finished run's lease is
        released with its last save.

        Not a coroutine: `run` is captured and the save queued at the call, so the caller may
        go on changing `run` and saves of one run are written in call order. The future is done
        when the save is committed."""
        finished = run.status in TERMINAL
        values: dict[str, object] = {
            "b_run_id": run.run_id,
            "b_epoch": lease.epoch,
            "status": run.status,
            "last_seq": run.last_seq,
            "data": run.SerializeToString(),
            "end_time_us": run.end_time.ToMicroseconds() if finished else None,
        }
        if releases(run.status):
            # A waiting run is nobody's too: released, and due back at its first approval
            # deadline (leases.py claims it then, to time the approval out).
            values.update(lease_owner=None, lease_expires=None if finished else wake_at(run))
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        pending = _Pending(
            run.run_id, lease.epoch, values, event_rows(events), notice(run.run_id, lease.owner), done
        )
        self._enqueue(pending)
        return done

    def create(
        self, run_id: str, insert: Callable[[Connection], bytes | None]
    ) -> asyncio.Future[bytes | None]:
        """Queue a new run's insert (`insert`, run in the next batch's transaction). The future is
        done when it is committed, with what `insert` answered; with its error if it failed (a
        batch that fails is written again one by one, so only the failing insert's own error)."""
        done: asyncio.Future[bytes | None] = asyncio.get_running_loop().create_future()
        self._enqueue(_Create(run_id, insert, done))
        return done

    def _enqueue(self, pending: _Pending | _Create) -> None:
        self._queue.append(pending)
        if self._writers < self._max_writers:
            self._writers += 1
            task = asyncio.create_task(self._write_batches(), name="run-store-writer")
            self._writer_tasks.add(task)
            task.add_done_callback(self._writer_tasks.discard)

    async def _write_batches(self) -> None:
        """Group commit: every save queued while the previous transaction ran is written in the
        next one, so concurrent runs share BEGIN/COMMIT."""
        batch: list[_Pending | _Create] = []
        try:
            while batch := self._take_batch():
                runs_in_batch = {p.run_id for p in batch}
                self._busy_runs |= runs_in_batch
                try:
                    await self._write_batch(batch)
                finally:
                    self._busy_runs -= runs_in_batch
                batch = []
        except BaseException:
            for pending in batch:  # cancelled mid-transaction (the store is closing)
                pending.fail(RuntimeError("run store closed"))
            raise
        finally:
            self._writers -= 1

    def _take_batch(self) -> list[_Pending | _Create]:
        """The next batch, in queue order, leaving behind saves of runs that another writer's
        batch is committing right now: a run's saves are written in order, never side by side."""
        batch: list[_Pending | _Create] = []
        rest: list[_Pending | _Create] = []
        for pending in self._queue:
            if isinstance(pending, _Create) and pending.done.cancelled():
                # Its caller went away (a client gone) before the batch: no run is left behind, as
                # when CreateRun was a transaction of its own. Once its batch has begun, the run
                # stands (on SQLite a batch runs on the loop without a pause: no cancellation
                # comes in between; elsewhere the lease's expiry hands the run to a replica).
                continue
            if len(batch) < MAX_BATCH and pending.run_id not in self._busy_runs:
                batch.append(pending)
            else:
                rest.append(pending)
        self._queue = rest
        return batch

    async def _write_batch(self, batch: list[_Pending | _Create]) -> None:
        try:
            written = await self.db.transaction(lambda c: _write_all(c, batch))
        except Exception as exc:
            if len(batch) == 1:
                self._failed(batch[0], exc)
                return
            # One bad save must not fail the others: write each on its own.
            failed: set[str] = set()
            for pending in batch:
                try:
                    if pending.run_id in failed:
                        raise exc
                    self._written(pending, await self.db.transaction(pending.write))
                except Exception as single:
                    self._failed(pending, single)
                    failed.add(pending.run_id)
            return
        for pending, ok in zip(batch, written, strict=True):
            self._written(pending, ok)

    def _written(self, pending: _Pending | _Create, ok: bool) -> None:
        if ok:
            pending.resolve()
        else:
            self._failed(pending, LeaseLost(pending.run_id))

    def _failed(self, pending: _Pending | _Create, exc: Exception) -> None:
        """Fail a save and every save of its run queued after it: a run's events must not be
        stored with a gap where this save's events should have been."""
        pending.fail(exc)
        later = [p for p in self._queue if p.run_id == pending.run_id]
        if later:
            self._queue = [p for p in self._queue if p.run_id != pending.run_id]
            for p in later:
                p.fail(exc)


# PostgreSQL: a whole batch of saves in two statements (one UPDATE of every run it touches, with
# their NOTIFYs, and one INSERT of their events) instead of two per save: each statement is a
# round trip to the server. The statement text never changes, so it is prepared once.
_SAVE_ALL = sa.text(
    """
    UPDATE runs SET
        status = v.status, last_seq = v.last_seq, data = v.data, end_time_us = v.end_time_us,
        lease_owner = CASE WHEN v.release THEN NULL ELSE runs.lease_owner END,
        lease_expires = CASE WHEN v.release THEN v.expires ELSE runs.lease_expires END
    FROM unnest(
        CAST(:run_ids AS TEXT[]), CAST(:epochs AS BIGINT[]), CAST(:statuses AS INTEGER[]),
        CAST(:last_seqs AS INTEGER[]), CAST(:datas AS BYTEA[]), CAST(:end_times AS BIGINT[]),
        CAST(:releases AS BOOLEAN[]), CAST(:expires AS DOUBLE PRECISION[]), CAST(:notices AS TEXT[])
    ) AS v(run_id, epoch, status, last_seq, data, end_time_us, release, expires, notice)
    WHERE runs.run_id = v.run_id AND runs.lease_epoch = v.epoch
    RETURNING runs.run_id, pg_notify(:channel, v.notice)
    """
)


class _Fenced(Exception):
    """A save of a SQLite batch found its lease moved on: the batch is rolled back and its saves
    written one by one (GroupCommit._write_batch), so each learns its own fate."""


def _write_all(conn: Connection, batch: list[_Pending | _Create]) -> list[bool]:
    """Write a batch of new runs and saves (in one transaction); whether each was written."""
    saves = [p for p in batch if isinstance(p, _Pending)]
    if len(saves) == len(batch):
        return _write_saves(conn, saves)
    for create in batch:
        if isinstance(create, _Create):
            create.write(conn)
    written = iter(_write_saves(conn, saves) if saves else [])
    return [True if isinstance(p, _Create) else next(written) for p in batch]


def _write_saves(conn: Connection, batch: list[_Pending]) -> list[bool]:
    """Write a batch of saves (in one transaction); whether each was written."""
    if len(batch) == 1:
        return [batch[0].write(conn)]
    # A run saved more than once in the batch: its last snapshot is the one to store, and all
    # its events are appended. Its saves share their fate: one lease epoch, one UPDATE.
    latest = {p.run_id: p for p in batch}
    if any(p.epoch != latest[p.run_id].epoch for p in batch):
        return [p.write(conn) for p in batch]  # the run was re-leased in between: one by one
    if conn.dialect.name != "postgresql":
        return _write_all_sqlite(conn, batch, list(latest.values()))
    rows = [p.values for p in latest.values()]
    written = {
        row[0]
        for row in conn.execute(
            _SAVE_ALL,
            {
                "run_ids": [r["b_run_id"] for r in rows],
                "epochs": [r["b_epoch"] for r in rows],
                "statuses": [r["status"] for r in rows],
                "last_seqs": [r["last_seq"] for r in rows],
                "datas": [r["data"] for r in rows],
                "end_times": [r["end_time_us"] for r in rows],
                "releases": ["lease_owner" in r for r in rows],  # save() clears it when the run ends
                "expires": [r.get("lease_expires") for r in rows],
                "notices": [p.notice for p in latest.values()],
                "channel": RUN_CHANNEL,
            },
        )
    }
    events = [e for p in batch if p.run_id in written for e in p.events]
    if events:
        conn.execute(INSERT_EVENTS, events)
    return [p.run_id in written for p in batch]


def _write_all_sqlite(conn: Connection, batch: list[_Pending], latest: list[_Pending]) -> list[bool]:
    """SQLite: each run's last snapshot in one executemany UPDATE per shape of row (a run that
    ends or waits also clears its lease), every event in one executemany INSERT: a statement's
    cost is mostly SQLAlchemy's, paid once per batch instead of twice per save. Their rowcounts
    add up, so a fenced save shows only as a short count: then one by one (_Fenced). Straight to
    pysqlite (db.executemany): SQLAlchemy's execution was most of a batch's cost."""
    shapes: dict[frozenset[str], list[dict[str, object]]] = {}
    for pending in latest:
        shapes.setdefault(frozenset(pending.values), []).append(pending.values)
    for rows in shapes.values():
        if executemany(conn, _SAVE, rows) != len(rows):
            raise _Fenced()
    if events := [e for p in batch for e in p.events]:
        executemany(conn, INSERT_EVENTS, events)
    return [True] * len(batch)


def event_rows(events: Iterable[run_pb2.RunEvent]) -> list[dict[str, object]]:
    return [{"run_id": e.run_id, "seq": e.seq, "data": e.SerializeToString()} for e in events]


def notice(run_id: str, owner: str) -> str:
    """The RUN_CHANNEL payload: which run was written, and by which replica."""
    return f"{run_id} {owner}"
