"""The run store: runs (as Run protobuf snapshots) and their events.

`RunStore` is the interface the engine and servicer depend on; `SqliteRunStore` is the embedded
default. A run's state change and the events describing it are saved in one transaction, so the
stored run and its event history can never disagree.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentrt.sqlite import SqliteDB
from agentrt.v1 import run_pb2

UNFINISHED = (run_pb2.RUN_STATUS_PENDING, run_pb2.RUN_STATUS_PLANNING, run_pb2.RUN_STATUS_RUNNING)


@dataclass(frozen=True)
class PageCursor:
    """Position after the last run of a page (runs are listed newest first)."""

    create_time_us: int
    run_id: str


class RunStore(Protocol):
    async def create_run(
        self, run: run_pb2.Run, events: Sequence[run_pb2.RunEvent]
    ) -> tuple[run_pb2.Run, bool]:
        """Insert `run` with its first events; if its idempotency key exists, return (existing, False)."""
        ...

    async def save(self, run: run_pb2.Run, events: Sequence[run_pb2.RunEvent]) -> None:
        """Replace the stored snapshot of `run` and append `events` atomically."""
        ...

    async def get_run(self, run_id: str) -> run_pb2.Run | None: ...

    async def list_runs(self, page_size: int, after: PageCursor | None, status: int) -> list[run_pb2.Run]: ...

    async def list_events(self, run_id: str, after_seq: int, limit: int) -> list[run_pb2.RunEvent]: ...

    async def unfinished_run_ids(self) -> list[str]: ...

    async def close(self) -> None: ...


MIGRATIONS = [
    """
    CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        idempotency_key TEXT UNIQUE,
        status INTEGER NOT NULL,
        create_time_us INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        data BLOB NOT NULL
    );
    CREATE INDEX runs_by_time ON runs (create_time_us DESC, run_id DESC);
    CREATE INDEX runs_by_status ON runs (status, create_time_us DESC, run_id DESC);
    CREATE TABLE run_events (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID
    """
]


def _create_time_us(run: run_pb2.Run) -> int:
    return run.create_time.seconds * 1_000_000 + run.create_time.nanos // 1000


class SqliteRunStore:
    def __init__(self, db: SqliteDB) -> None:
        self._db = db

    @classmethod
    async def open(cls, path: Path) -> SqliteRunStore:
        return cls(await SqliteDB.open(path, MIGRATIONS))

    async def close(self) -> None:
        await self._db.close()

    async def create_run(
        self, run: run_pb2.Run, events: Sequence[run_pb2.RunEvent]
    ) -> tuple[run_pb2.Run, bool]:
        row = (
            run.run_id,
            run.idempotency_key or None,
            run.status,
            _create_time_us(run),
            run.last_seq,
            run.SerializeToString(),
        )
        blobs = [(e.run_id, e.seq, e.SerializeToString()) for e in events]

        def insert(conn: sqlite3.Connection) -> bytes | None:
            if run.idempotency_key:
                existing = conn.execute(
                    "SELECT data FROM runs WHERE idempotency_key = ?", (run.idempotency_key,)
                ).fetchone()
                if existing is not None:
                    return bytes(existing[0])
            conn.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)", row)
            conn.executemany("INSERT INTO run_events VALUES (?, ?, ?)", blobs)
            return None

        # BEGIN IMMEDIATE serializes concurrent duplicates: the second sees the first's row.
        existing = await self._db.transaction(insert)
        if existing is None:
            return run, True
        return run_pb2.Run.FromString(existing), False

    async def save(self, run: run_pb2.Run, events: Sequence[run_pb2.RunEvent]) -> None:
        row = (run.status, run.last_seq, run.SerializeToString(), run.run_id)
        blobs = [(e.run_id, e.seq, e.SerializeToString()) for e in events]

        def update(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE runs SET status = ?, last_seq = ?, data = ? WHERE run_id = ?", row)
            conn.executemany("INSERT INTO run_events VALUES (?, ?, ?)", blobs)

        await self._db.transaction(update)

    async def get_run(self, run_id: str) -> run_pb2.Run | None:
        row = await self._db.read(
            lambda c: c.execute("SELECT data FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        )
        return None if row is None else run_pb2.Run.FromString(row[0])

    async def list_runs(self, page_size: int, after: PageCursor | None, status: int) -> list[run_pb2.Run]:
        where, params = [], []
        if status:
            where.append("status = ?")
            params.append(status)
        if after is not None:
            where.append("(create_time_us, run_id) < (?, ?)")
            params += [after.create_time_us, after.run_id]
        sql = "SELECT data FROM runs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY create_time_us DESC, run_id DESC LIMIT ?"
        params.append(page_size)
        rows = await self._db.read(lambda c: c.execute(sql, params).fetchall())
        return [run_pb2.Run.FromString(r[0]) for r in rows]

    async def list_events(self, run_id: str, after_seq: int, limit: int) -> list[run_pb2.RunEvent]:
        rows = await self._db.read(
            lambda c: c.execute(
                "SELECT data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (run_id, after_seq, limit),
            ).fetchall()
        )
        return [run_pb2.RunEvent.FromString(r[0]) for r in rows]

    async def unfinished_run_ids(self) -> list[str]:
        marks = ",".join("?" * len(UNFINISHED))
        rows = await self._db.read(
            lambda c: c.execute(
                f"SELECT run_id FROM runs WHERE status IN ({marks}) ORDER BY create_time_us", UNFINISHED
            ).fetchall()
        )
        return [r[0] for r in rows]


def page_cursor_of(run: run_pb2.Run) -> PageCursor:
    return PageCursor(_create_time_us(run), run.run_id)
