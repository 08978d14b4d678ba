"""Who drives each run: leases in the store, and the keeper that renews and claims them.

A replica drives only runs it holds a lease on. It renews them every TTL/3 and claims runs whose
lease lapsed (their replica died) or was released (it shut down). Every write is fenced by the
lease epoch (see groupcommit.py), so a replica that lost a run stops at its next write instead of
racing the new owner.

The keeper knows nothing of runs or tasks: the engine hands it callbacks (which leases it holds,
how much room it has, what to do with a claimed or a lost run), so this module imports nothing
of the engine's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import sqlalchemy as sa
import structlog
from sqlalchemy.engine import Connection

from agentrt.core.runstate import ONGOING
from agentrt.server.db import Database, epoch_now, notify
from agentrt.server.periodic import run_every
from agentrt.v1 import run_pb2
from executor_svc.schema import runs

log = structlog.get_logger("executor_svc.leases")

UNFINISHED = frozenset({run_pb2.RUN_STATUS_PENDING, run_pb2.RUN_STATUS_PLANNING, run_pb2.RUN_STATUS_RUNNING})
# LISTEN/NOTIFY channel: leases were released (idle replicas should look for runs to claim).
CLAIM_CHANNEL = "agentrt_run_claimable"


@dataclass(frozen=True)
class Lease:
    """The right to write one run: held by `owner` at fencing token `epoch`."""

    owner: str
    epoch: int


@dataclass(frozen=True)
class Claim:
    lease: Lease
    takeover: bool  # the run was leased to another replica, whose lease lapsed


class LeaseLost(Exception):
    """The run's lease is held by another replica now: this replica must stop driving it."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"lease of run {run_id} was taken over by another executor")
        self.run_id = run_id


def _renew_statement(conn: Connection) -> sa.Update:
    """Extend `ids` leased to `replica` by `ttl` seconds: the same shape for any number of ids.
    (Not "owner": that is the runs' column naming the principal that owns a run.)"""
    return (
        runs.update()
        .where(
            runs.c.lease_owner == sa.bindparam("replica"),
            runs.c.run_id.in_(sa.bindparam("ids", expanding=True)),
        )
        .values(lease_expires=epoch_now(conn) + sa.bindparam("ttl", type_=sa.Float))
        .returning(runs.c.run_id, runs.c.lease_epoch)
    )


def _next_turn(free: sa.ColumnElement[bool]) -> sa.ColumnElement[bool]:
    """A queued turn of a thread (threads.py) whose time has come: no earlier turn of its thread
    is unfinished. Only one turn of a thread can be so at a time; its driver dequeues it."""
    earlier = runs.alias("earlier")
    return sa.and_(
        runs.c.status == run_pb2.RUN_STATUS_QUEUED,
        free,
        ~sa.exists().where(
            earlier.c.thread_id == runs.c.thread_id,
            earlier.c.thread_turn < runs.c.thread_turn,
            earlier.c.status.in_(sorted(ONGOING)),
        ),
    )


class LeaseStore:
    """The lease columns of the runs table."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
            # A waiting run is claimed only once its first approval deadline passed (its
            # lease_expires, see groupcommit.py), to time the approval out.
            due = sa.and_(runs.c.status == run_pb2.RUN_STATUS_WAITING, runs.c.lease_expires < now)
            rows = conn.execute(
                sa.select(runs.c.run_id, runs.c.lease_owner)
                .where(sa.or_(sa.and_(runs.c.status.in_(UNFINISHED), free), due, _next_turn(free)))
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
            kept: set[str] = set()
            run_ids = list(leases)
            owner = next(iter(leases.values())).owner  # this replica's leases: one owner
            # One statement shape whatever the number of leases (an expanding IN), so SQLAlchemy
            # compiles it once: an OR of (run_id, epoch) pairs had one shape per count held, and
            # its compiled cache kept megabytes of them (measured with 10,000 waiting runs). The
            # epoch is checked on the rows it returns; another replica's lease has another owner.
            statement = _renew_statement(conn)
            for start in range(0, len(run_ids), 500):
                rows = conn.execute(
                    statement, {"replica": owner, "ids": run_ids[start : start + 500], "ttl": ttl_s}
                )
                kept.update(run_id for run_id, epoch in rows if leases[run_id].epoch == epoch)
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


class LeaseKeeper:
    """Renews the leases the engine holds and claims runs nobody holds, every TTL/3 (sooner
    after `claim_soon`). A failed round (the database is unreachable) is retried next round;
    leases not renewed within the TTL go to other replicas, and our next write to those runs is
    refused."""

    def __init__(
        self,
        leases: LeaseStore,
        ttl_s: float,
        *,
        held: Callable[[], dict[str, Lease]],
        room: Callable[[], int],
        claimed: Callable[[str, Claim], None],
        lost: Callable[[str, Lease], None],
    ) -> None:
        self._leases = leases
        self._ttl = ttl_s
        self._held = held
        self._room = room
        self._claimed = claimed
        self._lost = lost
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.owner = ""

    async def start(self, owner: str) -> None:
        """Become replica `owner`: take back the runs still leased to it (it restarted in place)
        and any unleased ones, then keep renewing and claiming."""
        self.owner = owner
        await self._claim(reclaim_own=True)
        self._task = asyncio.create_task(
            run_every(self._ttl / 3, self._round, "lease.keeper_failed", wake=self._wake, first_now=False),
            name="lease-keeper",
        )

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def claim_soon(self) -> None:
        """Look for claimable runs now rather than at the next renewal (leases were released)."""
        self._wake.set()

    async def take_over(self, run_id: str, statuses: frozenset[int]) -> Lease | None:
        return await self._leases.take_over(run_id, self.owner, self._ttl, statuses)

    async def release(self, leases: dict[str, Lease]) -> None:
        try:
            await self._leases.release(leases)
        except Exception:
            log.exception("lease.release_failed")  # they lapse after the TTL instead

    async def _round(self) -> None:
        held = self._held()
        kept = await self._leases.renew(held, self._ttl)
        for run_id in held.keys() - kept:
            self._lost(run_id, held[run_id])
        await self._claim()

    async def _claim(self, reclaim_own: bool = False) -> None:
        room = self._room()
        if room <= 0:
            return
        claims = await self._leases.claim(self.owner, self._ttl, room, reclaim_own)
        for run_id, claim in claims.items():
            self._claimed(run_id, claim)
