"""Threads: conversations whose runs (turns) see the earlier ones, and the rule that a thread
works on one turn at a time.

A thread is a row of its own (owner, labels, turn count); its turns are runs with `thread_id`
and `thread_turn` set. A message sent to a thread becomes its next turn in one transaction that
first increments the thread's turn count: that locks the thread's row (PostgreSQL; SQLite has
one writer), so two messages sent at once are admitted one after the other, whichever replica
took each. Admitted to a thread with an unfinished turn, the message follows its multitask
strategy: REJECT refuses it (THREAD_BUSY, naming the turn), ENQUEUE stores it QUEUED and leased
to nobody, INTERRUPT stores it QUEUED and returns the unfinished turns for the engine to cancel.
A QUEUED turn is claimed (leases.py) only when no earlier turn of its thread is unfinished, so
turns run one at a time and in the order they were sent, across replicas; runs_one_active_turn
(schema.py) is the database's guard that they never overlap.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.core.errors import FailedPrecondition, NotFound, ResourceExhausted
from agentrt.core.runstate import ONGOING
from agentrt.server.db import Database
from agentrt.v1 import planner_service_pb2, run_pb2
from executor_svc.run.history import prior_turns
from executor_svc.schema import run_events, runs, threads
from executor_svc.store import PageCursor, existing_run, insert_run

S = run_pb2
# A new turn: (its place in the thread, whether it waits behind unfinished turns) -> the run
# and its first events, made inside the admitting transaction.
BuildTurn = Callable[[int, bool], tuple[run_pb2.Run, Sequence[run_pb2.RunEvent]]]
# GetThread's page of turns stops at about this size (a prompt may be 8000 characters, an
# answer 4 KiB: a hundred turns could otherwise approach gRPC's 4 MiB message limit).
MAX_PAGE_BYTES = 1 << 20


def thread_not_found(thread_id: str) -> NotFound:
    """One answer for "no such thread" and "another principal's thread"."""
    return NotFound(f"thread {thread_id} not found", reason="THREAD_NOT_FOUND")


@dataclass(frozen=True)
class Admitted:
    run: run_pb2.Run
    events: Sequence[run_pb2.RunEvent]  # its first events (none: `existing`)
    leased: bool  # False: QUEUED, leased to nobody
    interrupt: list[str]  # unfinished turns to cancel (INTERRUPT), queued ones first
    existing: bool = False  # the idempotency key's earlier run, not a new one


def _unfinished(conn: Connection, thread_id: str) -> list[tuple[str, int]]:
    """The thread's unfinished turns (run id, status), in turn order."""
    return [
        (row[0], row[1])
        for row in conn.execute(
            sa.select(runs.c.run_id, runs.c.status)
            .where(runs.c.thread_id == thread_id, runs.c.status.in_(sorted(ONGOING)))
            .order_by(runs.c.thread_turn)
        )
    ]


def _turn_of(run: run_pb2.Run) -> run_pb2.ThreadTurn:
    turn = run_pb2.ThreadTurn(
        run_id=run.run_id,
        turn=run.thread_turn,
        prompt=run.prompt,
        answer=run.answer,
        status=run.status,
        create_time=run.create_time,
    )
    if run.HasField("error"):
        turn.error.CopyFrom(run.error)
    return turn


def _cancel_order(unfinished: list[tuple[str, int]]) -> list[str]:
    """Queued turns first: cancelling the working turn first could let a queued one start."""
    queued = [run_id for run_id, status in unfinished if status == S.RUN_STATUS_QUEUED]
    return queued + [run_id for run_id, status in unfinished if status != S.RUN_STATUS_QUEUED]


class ThreadStore:
    def __init__(self, db: Database, max_turns: int) -> None:
        self.db = db
        self._max_turns = max_turns

    async def create(self, owner: str, metadata: dict[str, str], now_us: int) -> run_pb2.Thread:
        thread_id = uuid.uuid4().hex
        row = {
            "thread_id": thread_id,
            "owner": owner,
            "metadata": json.dumps(metadata, sort_keys=True),
            "create_time_us": now_us,
            "update_time_us": now_us,
            "turn_count": 0,
        }
        await self.db.transaction(lambda c: c.execute(threads.insert(), row))
        return _thread(row)

    async def admit(
        self,
        *,
        thread_id: str,
        principal: str,
        strategy: int,
        idempotency_key: str,
        build: BuildTurn,
        replica: str,
        ttl_s: float,
    ) -> Admitted:
        """Store the thread's next turn (see the module's docstring), or raise: the thread is not
        `principal`'s (NOT_FOUND), it is busy and the strategy rejects (THREAD_BUSY), or it has
        its maximum of turns (THREAD_FULL)."""

        def admit(conn: Connection) -> Admitted:
            if (earlier := existing_run(conn, principal, idempotency_key)) is not None:
                return Admitted(earlier, (), False, [], existing=True)
            # Increment first: the row stays locked until this transaction ends.
            turn = conn.execute(
                threads.update()
                .where(threads.c.thread_id == thread_id, threads.c.owner == principal)
                .values(turn_count=threads.c.turn_count + 1)
                .returning(threads.c.turn_count)
            ).scalar()
            if turn is None:
                raise thread_not_found(thread_id)
            if turn > self._max_turns:
                raise ResourceExhausted(
                    f"thread {thread_id} has its maximum of {self._max_turns} turns "
                    "(AGENTRT_THREAD_MAX_TURNS); start a new thread",
                    reason="THREAD_FULL",
                    retryable=False,
                )
            unfinished = _unfinished(conn, thread_id)
            if unfinished and strategy in (S.MULTITASK_STRATEGY_UNSPECIFIED, S.MULTITASK_STRATEGY_REJECT):
                active = unfinished[0][0]
                raise FailedPrecondition(
                    f"thread {thread_id} is still working on run {active}; wait for it to finish, "
                    "or send with multitask_strategy ENQUEUE (run after it) or INTERRUPT (cancel it)",
                    reason="THREAD_BUSY",
                    metadata={"run_id": active},
                )
            run, events = build(turn, bool(unfinished))
            insert_run(conn, run, events, None if unfinished else replica, ttl_s)
            conn.execute(
                threads.update()
                .where(threads.c.thread_id == thread_id)
                .values(update_time_us=run.create_time.ToMicroseconds())
            )
            interrupt: list[str] = []
            if unfinished and strategy == S.MULTITASK_STRATEGY_INTERRUPT:
                interrupt = _cancel_order(unfinished)
            return Admitted(run, events, not unfinished, interrupt)

        return await self.db.transaction(admit)

    async def owner(self, thread_id: str) -> str | None:
        query = sa.select(threads.c.owner).where(threads.c.thread_id == thread_id)
        return await self.db.read(lambda c: c.execute(query).scalar())

    async def turn_count(self, thread_id: str) -> int | None:
        query = sa.select(threads.c.turn_count).where(threads.c.thread_id == thread_id)
        return await self.db.read(lambda c: c.execute(query).scalar())

    async def get(
        self, thread_id: str, page_size: int, before_turn: int | None = None
    ) -> tuple[run_pb2.Thread, int] | None:
        """The thread with its latest `page_size` turns before `before_turn` (all, if None),
        oldest first, and the turn to continue below (0: these reach turn 1). A page also stops
        at MAX_PAGE_BYTES of turns, so however long the prompts and answers, it fits a message."""

        def read(conn: Connection) -> tuple[run_pb2.Thread, int] | None:
            row = conn.execute(sa.select(threads).where(threads.c.thread_id == thread_id)).mappings().first()
            if row is None:
                return None
            thread = _thread(dict(row))
            if unfinished := _unfinished(conn, thread_id):
                thread.active_run_id = unfinished[0][0]
            query = sa.select(runs.c.data).where(runs.c.thread_id == thread_id)
            if before_turn is not None:
                query = query.where(runs.c.thread_turn < before_turn)
            newest_first = conn.execute(query.order_by(runs.c.thread_turn.desc()).limit(page_size)).scalars()
            page: list[run_pb2.ThreadTurn] = []
            size = 0
            for data in newest_first:
                turn = _turn_of(run_pb2.Run.FromString(data))
                size += turn.ByteSize()
                if page and size > MAX_PAGE_BYTES:
                    break
                page.append(turn)
            thread.turns.extend(reversed(page))
            below = page[-1].turn if page and page[-1].turn > 1 else 0
            return thread, below

        return await self.db.read(read)

    async def history(
        self, thread_id: str, before_turn: int, budget_bytes: int
    ) -> list[planner_service_pb2.PriorTurn]:
        """What turn `before_turn` sees of the thread (run/history.py): the turns before it, read
        newest first and parsed only until the budget is spent."""

        def read(conn: Connection) -> list[planner_service_pb2.PriorTurn]:
            query = (
                sa.select(runs.c.data)
                .where(runs.c.thread_id == thread_id, runs.c.thread_turn < before_turn)
                .order_by(runs.c.thread_turn.desc())
            )
            newest_first = (run_pb2.Run.FromString(d) for d in conn.execute(query).scalars())
            return prior_turns(newest_first, budget_bytes)

        return await self.db.read(read)

    async def list(self, owner: str, page_size: int, after: PageCursor | None) -> list[run_pb2.Thread]:
        """A page of `owner`'s threads, newest first (without their turns)."""
        query = sa.select(threads).where(threads.c.owner == owner)
        if after is not None:
            query = query.where(
                sa.tuple_(threads.c.create_time_us, threads.c.thread_id)
                < sa.tuple_(after.create_time_us, after.run_id)
            )
        query = query.order_by(threads.c.create_time_us.desc(), threads.c.thread_id.desc()).limit(page_size)
        rows = await self.db.read(lambda c: [dict(r) for r in c.execute(query).mappings()])
        return [_thread(r) for r in rows]

    async def unfinished(self, thread_id: str) -> list[str]:
        """The thread's unfinished turns, queued ones first (the order to cancel them in)."""
        return _cancel_order(await self.db.read(lambda c: _unfinished(c, thread_id)))

    async def delete(self, thread_id: str) -> None:
        """Delete the thread, its runs and their events (the caller cancelled its turns)."""

        def delete(conn: Connection) -> None:
            ids = sa.select(runs.c.run_id).where(runs.c.thread_id == thread_id).scalar_subquery()
            conn.execute(run_events.delete().where(run_events.c.run_id.in_(ids)))
            conn.execute(runs.delete().where(runs.c.thread_id == thread_id))
            conn.execute(threads.delete().where(threads.c.thread_id == thread_id))

        await self.db.transaction(delete, bulk=True)  # up to max_turns runs and their events: long

    async def idle_since(self, before_us: int, limit: int) -> list[str]:
        """Threads whose last turn was sent before `before_us` (retention)."""
        query = (
            sa.select(threads.c.thread_id)
            .where(threads.c.update_time_us < before_us)
            .order_by(threads.c.update_time_us)
            .limit(limit)
        )
        return await self.db.read(lambda c: list(c.execute(query).scalars()))


def _thread(row: dict[str, object]) -> run_pb2.Thread:
    thread = run_pb2.Thread(
        thread_id=str(row["thread_id"]),
        owner=str(row["owner"]),
        metadata=json.loads(str(row["metadata"])),
        turn_count=int(row["turn_count"]),  # type: ignore[call-overload]
    )
    thread.create_time.FromMicroseconds(int(row["create_time_us"]))  # type: ignore[call-overload]
    thread.update_time.FromMicroseconds(int(row["update_time_us"]))  # type: ignore[call-overload]
    return thread


def thread_cursor_of(thread: run_pb2.Thread) -> PageCursor:
    return PageCursor(thread.create_time.ToMicroseconds(), thread.thread_id)
