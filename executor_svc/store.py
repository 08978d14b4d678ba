"""The run store: runs (as Run protobuf snapshots), their events, and who drives each run.

A run's state change and the events describing it are saved in one transaction, so the stored
run and its event history never disagree. Every save is fenced by the run's lease: it names the
lease epoch its replica claimed, and a replica whose lease was taken over (it stalled, or was
presumed dead) finds its save refused with `LeaseLost` instead of overwriting the new owner's
progress. On PostgreSQL each save also NOTIFYs `RUN_CHANNEL`, so every replica can wake its
watchers of that run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.db import Database, epoch_now, notify
from agentrt.runstate import TERMINAL
from agentrt.v1 import run_pb2
from executor_svc.schema import run_events, runs

UNFINISHED = frozenset({run_pb2.RUN_STATUS_PENDING, run_pb2.RUN_STATUS_PLANNING, run_pb2.RUN_STATUS_RUNNING})
# LISTEN/NOTIFY channels: run events were saved ("<run_id> <owner>"), and leases were released
# (idle replicas should look for runs to claim).
RUN_CHANNEL = "agentrt_run_events"
CLAIM_CHANNEL = "agentrt_run_claimable"
MAX_BATCH = 256  # saves per group commit


@dataclass(frozen=True)
class PageCursor:
    """Position after the last run of a page (runs are listed newest first)."""

    create_time_us: int
    run_id: str


@dataclass(frozen=True)
class Lease:
    """The right to write one run: held by `owner` at fencing token `epoch`."""

    owner: str
    epoch: int


@dataclass(frozen=True)
class Claim:
    lease: Lease
    takeover: bool  # the run was leased to another replica, whose lease lapsed


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
            updated = conn.execute(_SAVE, self.values).rowcount
        if updated != 1:
            return False
        if self.events:
            conn.execute(_INSERT_EVENTS, self.events)
        return True

    def resolve(self) -> None:
        if not self.done.done():  # else the saver was cancelled; the write stands regardless
            self.done.set_result(None)

    def fail(self, exc: Exception) -> None:
        if not self.done.done():
            self.done.set_exception(exc)


class LeaseLost(Exception):
    """The run's lease is held by another replica now: this replica must stop driving it."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"lease of run {run_id} was taken over by another executor")
        self.run_id = run_id


# The statements of the hot path (every transition of every run), built once: constructing a
# SQLAlchemy statement costs several times more than executing the cached compiled form.
_SAVE = runs.update().where(
    runs.c.run_id == sa.bindparam("b_run_id"), runs.c.lease_epoch == sa.bindparam("b_epoch")
)
# PostgreSQL: the same UPDATE, announcing the write with NOTIFY (sent if the transaction commits).
_SAVE_NOTIFY = _SAVE.returning(sa.func.pg_notify(RUN_CHANNEL, sa.bindparam("notice", type_=sa.String)))
_INSERT_EVENTS = run_events.insert()
_GET_RUN = sa.select(runs.c.data).where(runs.c.run_id == sa.bindparam("run_id"))
_LIST_EVENTS = (
    sa.select(run_events.c.data)
    .where(run_events.c.run_id == sa.bindparam("run_id"), run_events.c.seq > sa.bindparam("after_seq"))
    .order_by(run_events.c.seq)
    .limit(sa.bindparam("limit"))
)


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


def _notice(run_id: str, owner: str) -> str:
    """The RUN_CHANNEL payload: which run was written, and by which replica."""
    return f"{run_id} {owner}"


class RunStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._queue: list[_Pending] = []
        self._busy_runs: set[str] = set()
        self._writers = 0
        self._writer_tasks: set[asyncio.Task[None]] = set()
        # Batches committed side by side: one on SQLite; on PostgreSQL half the pool (a lone
        # save still gets a transaction of its own at once, and creates and reads keep the
        # other half).
        self._max_writers = max(1, db.concurrency // 2)

    async def close(self) -> None:
        for task in list(self._writer_tasks):
            task.cancel()
        await asyncio.gather(*self._writer_tasks, return_exceptions=True)
        for pending in self._queue:
            pending.fail(RuntimeError("run store closed"))
        self._queue = []
        await self.db.close()

    # -- writing ---------------------------------------------------------------------------

    async def create_run(
        self, run: run_pb2.Run, events: Sequence[run_pb2.RunEvent], owner: str, ttl_s: float
    ) -> tuple[run_pb2.Run, Lease | None]:
        """Insert `run` with its first events, leased to `owner`. If its idempotency key exists,
        return (the existing run, None)."""
        row = {
            "run_id": run.run_id,
            "idempotency_key": run.idempotency_key or None,
            "status": run.status,
            "create_time_us": run.create_time.ToMicroseconds(),
            "last_seq": run.last_seq,
            "data": run.SerializeToString(),
            "lease_owner": owner,
            "lease_epoch": 1,
        }
        blobs = _event_rows(events)

        def insert(conn: Connection) -> bytes | None:
            if run.idempotency_key:
                existing = conn.execute(
                    sa.select(runs.c.data).where(runs.c.idempotency_key == run.idempotency_key)
                ).scalar()
                if existing is not None:
                    return bytes(existing)
            params = {**row, "ttl_s": ttl_s}
            if conn.dialect.name == "postgresql":
                params["notice"] = _notice(run.run_id, owner)
            conn.execute(_insert_run(conn), params)
            if blobs:  # (an empty parameter list would insert one row of defaults)
                conn.execute(_INSERT_EVENTS, blobs)
            return None

        try:
            existing = await self.db.transaction(insert)
        except sa.exc.IntegrityError:
            # Two replicas raced on one idempotency key (SQLite serializes them; PostgreSQL
            # makes the second fail on the unique index): the winner's run is the answer.
            existing = await self.db.read(
                lambda c: c.execute(
                    sa.select(runs.c.data).where(runs.c.idempotency_key == run.idempotency_key)
                ).scalar()
            )
            if existing is None:
                raise
        if existing is None:
            return run, Lease(owner, 1)
        return run_pb2.Run.FromString(existing), None

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
        if finished:
            values.update(lease_owner=None, lease_expires=None)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        pending = _Pending(
            run.run_id, lease.epoch, values, _event_rows(events), _notice(run.run_id, lease.owner), done
        )
        self._queue.append(pending)
        if self._writers < self._max_writers:
            self._writers += 1
            task = asyncio.create_task(self._write_batches(), name="run-store-writer")
            self._writer_tasks.add(task)
            task.add_done_callback(self._writer_tasks.discard)
        return done

    async def _write_batches(self) -> None:
        """Group commit: every save queued while the previous transaction ran is written in the
        next one, so concurrent runs share BEGIN/COMMIT (and, on SQLite, the hop to its thread)."""
        batch: list[_Pending] = []
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

    def _take_batch(self) -> list[_Pending]:
        """The next batch, in queue order, leaving behind saves of runs that another writer's
        batch is committing right now: a run's saves are written in order, never side by side."""
        batch: list[_Pending] = []
        rest: list[_Pending] = []
        for pending in self._queue:
            if len(batch) < MAX_BATCH and pending.run_id not in self._busy_runs:
                batch.append(pending)
            else:
                rest.append(pending)
        self._queue = rest
        return batch

    async def _write_batch(self, batch: list[_Pending]) -> None:
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

    def _written(self, pending: _Pending, ok: bool) -> None:
        if ok:
            pending.resolve()
        else:
            self._failed(pending, LeaseLost(pending.run_id))

    def _failed(self, pending: _Pending, exc: Exception) -> None:
        """Fail a save and every save of its run queued after it: a run's events must not be
        stored with a gap where this save's events should have been."""
        pending.fail(exc)
        later = [p for p in self._queue if p.run_id == pending.run_id]
        if later:
            self._queue = [p for p in self._queue if p.run_id != pending.run_id]
            for p in later:
                p.fail(exc)

    # -- leases ----------------------------------------------------------------------------

    async def claim(
        self, owner: str, ttl_s: float, limit: int, reclaim_own: bool = False
    ) -> dict[str, Claim]:
        """Lease up to `limit` unfinished runs nobody holds (never leased, released, or lapsed:
        their replica died). `reclaim_own` also takes runs still leased to `owner` itself: a
        replica restarted in place takes its runs back without waiting for the leases to lapse.
        Oldest runs first; rows another replica is claiming right now are skipped, not waited for."""

        def claim(conn: Connection) -> dict[str, Claim]:
            now = epoch_now(conn)
            free = sa.or_(runs.c.lease_expires.is_(None), runs.c.lease_expires < now)
            if reclaim_own:
                free = sa.or_(free, runs.c.lease_owner == owner)
            rows = conn.execute(
                sa.select(runs.c.run_id, runs.c.lease_owner)
                .where(runs.c.status.in_(UNFINISHED), free)
                .order_by(runs.c.create_time_us)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
            previous = {run_id: holder for run_id, holder in rows}
            if not previous:
                return {}
            claimed = conn.execute(
                runs.update()
                .where(runs.c.run_id.in_(previous))
                .values(lease_owner=owner, lease_epoch=runs.c.lease_epoch + 1, lease_expires=now + ttl_s)
                .returning(runs.c.run_id, runs.c.lease_epoch)
            )
            return {
                run_id: Claim(Lease(owner, epoch), previous[run_id] not in (None, owner))
                for run_id, epoch in claimed
            }

        return await self.db.transaction(claim)

    async def take_over(self, run_id: str, owner: str, ttl_s: float, statuses: Iterable[int]) -> Lease | None:
        """Lease `run_id` to `owner`, whoever holds it now, if its status is one of `statuses`
        (CancelRun and RetryRun served by a replica that is not driving the run): the previous
        holder's next save is refused. None when the run is not in those statuses."""
        allowed = sorted(statuses)

        def take(conn: Connection) -> Lease | None:
            epoch = conn.execute(
                runs.update()
                .where(runs.c.run_id == run_id, runs.c.status.in_(allowed))
                .values(
                    lease_owner=owner,
                    lease_epoch=runs.c.lease_epoch + 1,
                    lease_expires=epoch_now(conn) + ttl_s,
                )
                .returning(runs.c.lease_epoch)
            ).scalar()
            return None if epoch is None else Lease(owner, epoch)

        return await self.db.transaction(take)

    async def renew(self, leases: dict[str, Lease], ttl_s: float) -> set[str]:
        """Extend the given leases; returns the run ids whose lease is still ours."""
        if not leases:
            return set()

        def renew(conn: Connection) -> set[str]:
            now = epoch_now(conn)
            kept: set[str] = set()
            # One statement per epoch value would be tidier; leases rarely share one, so a
            # single UPDATE over (run_id, epoch) pairs it is.
            pairs = [
                sa.and_(runs.c.run_id == r, runs.c.lease_epoch == lease.epoch) for r, lease in leases.items()
            ]
            for chunk in _chunks(pairs, 500):
                rows = conn.execute(
                    runs.update()
                    .where(sa.or_(*chunk))
                    .values(lease_expires=now + ttl_s)
                    .returning(runs.c.run_id)
                )
                kept.update(rows.scalars())
            return kept

        return await self.db.transaction(renew)

    async def release(self, leases: dict[str, Lease]) -> None:
        """Give leases up (clean shutdown) so another replica can claim the runs at once."""
        if not leases:
            return

        def release(conn: Connection) -> None:
            for run_id, lease in leases.items():
                conn.execute(
                    runs.update()
                    .where(runs.c.run_id == run_id, runs.c.lease_epoch == lease.epoch)
                    .values(lease_owner=None, lease_expires=None)
                )
            notify(conn, CLAIM_CHANNEL)

        await self.db.transaction(release)

    # -- retention -------------------------------------------------------------------------

    async def prune(self, finished_before_us: int | None, keep_newest: int, batch: int = 500) -> int:
        """Delete finished runs (with their events) that ended before `finished_before_us`, or
        beyond the newest `keep_newest` finished runs (0: no count limit). Returns runs deleted.
        Works in batches so a large backlog never holds one long transaction."""
        finished = sa.func.coalesce(runs.c.end_time_us, runs.c.create_time_us)
        total = 0
        while True:

            def prune_batch(conn: Connection) -> int:
                doomed: set[str] = set()
                terminal = runs.c.status.in_(sorted(TERMINAL))
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

            deleted = await self.db.transaction(prune_batch)
            total += deleted
            if deleted < batch:
                return total

    # -- reading ---------------------------------------------------------------------------

    async def get_run(self, run_id: str) -> run_pb2.Run | None:
        data = await self.db.read(lambda c: c.execute(_GET_RUN, {"run_id": run_id}).scalar())
        return None if data is None else run_pb2.Run.FromString(data)

    async def list_runs(self, page_size: int, after: PageCursor | None, status: int) -> list[run_pb2.Run]:
        query = sa.select(runs.c.data)
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
        rows = await self.db.read(lambda c: list(c.execute(_LIST_EVENTS, params).scalars()))
        return [run_pb2.RunEvent.FromString(r) for r in rows]

    async def unfinished_run_ids(self) -> list[str]:
        query = sa.select(runs.c.run_id).where(runs.c.status.in_(UNFINISHED)).order_by(runs.c.create_time_us)
        return await self.db.read(lambda c: list(c.execute(query).scalars()))


# PostgreSQL: a whole batch of saves in two statements (one UPDATE of every run it touches, with
# their NOTIFYs, and one INSERT of their events) instead of two per save: each statement is a
# round trip to the server. The statement text never changes, so it is prepared once.
_SAVE_ALL = sa.text(
    """
    UPDATE runs SET
        status = v.status, last_seq = v.last_seq, data = v.data, end_time_us = v.end_time_us,
        lease_owner = CASE WHEN v.release THEN NULL ELSE runs.lease_owner END,
        lease_expires = CASE WHEN v.release THEN NULL ELSE runs.lease_expires END
    FROM unnest(
        CAST(:run_ids AS TEXT[]), CAST(:epochs AS BIGINT[]), CAST(:statuses AS INTEGER[]),
        CAST(:last_seqs AS INTEGER[]), CAST(:datas AS BYTEA[]), CAST(:end_times AS BIGINT[]),
        CAST(:releases AS BOOLEAN[]), CAST(:notices AS TEXT[])
    ) AS v(run_id, epoch, status, last_seq, data, end_time_us, release, notice)
    WHERE runs.run_id = v.run_id AND runs.lease_epoch = v.epoch
    RETURNING runs.run_id, pg_notify(:channel, v.notice)
    """
)


def _write_all(conn: Connection, batch: list[_Pending]) -> list[bool]:
    """Write a batch of saves (in one transaction); whether each was written."""
    if conn.dialect.name != "postgresql" or len(batch) == 1:
        return [p.write(conn) for p in batch]
    # A run saved more than once in the batch: its last snapshot is the one to store, and all
    # its events are appended. Its saves share their fate: one lease epoch, one UPDATE.
    latest = {p.run_id: p for p in batch}
    if any(p.epoch != latest[p.run_id].epoch for p in batch):
        return [p.write(conn) for p in batch]  # the run was re-leased in between: one by one
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
                "notices": [p.notice for p in latest.values()],
                "channel": RUN_CHANNEL,
            },
        )
    }
    events = [e for p in batch if p.run_id in written for e in p.events]
    if events:
        conn.execute(_INSERT_EVENTS, events)
    return [p.run_id in written for p in batch]


def _event_rows(events: Iterable[run_pb2.RunEvent]) -> list[dict[str, object]]:
    return [{"run_id": e.run_id, "seq": e.seq, "data": e.SerializeToString()} for e in events]


def _chunks(items: list[sa.ColumnElement[bool]], size: int) -> Iterable[list[sa.ColumnElement[bool]]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def page_cursor_of(run: run_pb2.Run) -> PageCursor:
    return PageCursor(run.create_time.ToMicroseconds(), run.run_id)
