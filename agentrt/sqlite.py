"""SQLite for asyncio services: one connection on one dedicated thread.

Each `transaction(fn)` runs `fn(connection)` start to finish on that thread inside
BEGIN IMMEDIATE ... COMMIT, so a state change and its events are one atomic hop off the event
loop, and concurrent callers can never interleave statements inside each other's transaction.
Schema changes are an ordered list of SQL scripts tracked by PRAGMA user_version.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


class SqliteDB:
    def __init__(self, path: Path, executor: ThreadPoolExecutor, conn: sqlite3.Connection) -> None:
        self.path = path
        self._executor = executor
        self._conn = conn

    @classmethod
    async def open(cls, path: Path, migrations: Sequence[str]) -> SqliteDB:
        path.parent.mkdir(parents=True, exist_ok=True)
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"sqlite-{path.stem}")

        def connect() -> sqlite3.Connection:
            conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            # WAL + NORMAL: a killed process loses nothing committed; only an OS crash can drop
            # the last transactions. busy_timeout covers a second process briefly holding the lock.
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=5000")
            _migrate(conn, migrations)
            return conn

        conn = await asyncio.get_running_loop().run_in_executor(executor, connect)
        return cls(path, executor, conn)

    async def transaction(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._in_transaction, fn)

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, self._conn)

    def _in_transaction(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn(self._conn)
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")
        return result

    async def close(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._executor, self._conn.close)
        self._executor.shutdown(wait=True)


def _migrate(conn: sqlite3.Connection, migrations: Sequence[str]) -> None:
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current > len(migrations):
        raise RuntimeError(
            f"database schema version {current} is newer than this release knows ({len(migrations)})"
        )
    for version, script in enumerate(migrations[current:], start=current + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in script.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
