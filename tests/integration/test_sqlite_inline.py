"""SQLite transactions on the event loop (agentrt.server.db.SqliteDatabase): they never wait
there. A lock held by another connection sends the call, and the calls after it, to the store's
thread, in call order; the WAL is checkpointed on that thread."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.config import ToolsSettings
from agentrt.server.db import SqliteDatabase, open_database
from executor_svc.threads import ThreadStore
from tools_svc.server import MIGRATIONS


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    database = await open_database(ToolsSettings(data_dir=tmp_path), "tools", MIGRATIONS)
    assert isinstance(database, SqliteDatabase)
    await database.transaction(lambda c: c.exec_driver_sql("CREATE TABLE t (n INTEGER, who TEXT)"))
    yield database
    await database.close()


def insert(n: int, who: str = "loop"):  # type: ignore[no-untyped-def]
    def fn(conn: Connection) -> int:
        conn.execute(sa.text("INSERT INTO t (n, who) VALUES (:n, :who)"), {"n": n, "who": who})
        return n

    return fn


def rows(conn: Connection) -> list[int]:
    return [n for (n,) in conn.execute(sa.text("SELECT n FROM t ORDER BY rowid"))]


async def test_a_transaction_runs_at_once_on_the_loop(db: SqliteDatabase) -> None:
    # No await suspends it: the task is done by the time it is first scheduled.
    task = asyncio.ensure_future(db.transaction(insert(1)))
    await asyncio.sleep(0)
    assert task.done() and task.result() == 1
    assert await db.read(rows) == [1]


async def test_a_lock_held_elsewhere_is_waited_for_on_the_thread_and_later_calls_queue_behind(
    db: SqliteDatabase, tmp_path: Path
) -> None:
    other = sqlite3.connect(tmp_path / "tools.db", isolation_level=None, timeout=0)
    other.execute("BEGIN IMMEDIATE")  # another process writing the same file
    other.execute("INSERT INTO t (n, who) VALUES (0, 'other')")
    first = asyncio.ensure_future(db.transaction(insert(1)))
    await asyncio.sleep(0.05)
    read = asyncio.ensure_future(db.read(rows))
    # The loop is free meanwhile (this test goes on), and nothing overtook the waiting call.
    for _ in range(5):
        await asyncio.sleep(0.02)
    assert not first.done() and not read.done()
    other.execute("COMMIT")
    other.close()
    # The lock is free now, but the first call still waits on the thread (its busy handler
    # sleeps between tries): a call made now must not overtake it on the loop.
    second = asyncio.ensure_future(db.transaction(insert(2)))
    assert await asyncio.wait_for(asyncio.gather(first, second), 30) == [1, 2]
    assert await read == [0, 1]  # asked for before the second call, and answered in that order
    # The thread idle again, calls run on the loop again.
    third = asyncio.ensure_future(db.transaction(insert(3)))
    await asyncio.sleep(0)
    assert third.done()
    assert await db.read(rows) == [0, 1, 2, 3]


async def test_a_failed_transaction_on_the_loop_is_rolled_back(db: SqliteDatabase) -> None:
    def fails(conn: Connection) -> None:
        insert(1)(conn)
        raise ValueError("no")

    with pytest.raises(ValueError):
        await db.transaction(fails)
    await db.transaction(insert(2))  # the lock was released with the rollback
    assert await db.read(rows) == [2]


async def test_the_wal_is_checkpointed_on_the_thread(
    db: SqliteDatabase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop's connection never checkpoints (wal_autocheckpoint=0): every CHECKPOINT_EVERY
    writes the thread copies the WAL into the database file."""
    monkeypatch.setattr(db, "CHECKPOINT_EVERY", 20)
    path = tmp_path / "tools.db"
    await db.read(lambda c: c.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)"))
    db._writes = 0
    before = path.stat().st_size
    blob = "x" * 4000  # a page or so each: the database file grows once they are copied into it
    for n in range(19):
        await db.transaction(insert(n, blob))
    await asyncio.sleep(0.2)
    assert path.stat().st_size == before  # all of it still in the WAL
    await db.transaction(insert(19, blob))  # the 20th: a checkpoint is asked for
    for _ in range(100):
        if path.stat().st_size > before + 19 * 4000:
            break
        await asyncio.sleep(0.05)
    assert path.stat().st_size > before + 19 * 4000
    assert len(await db.read(rows)) == 20


async def test_bulk_work_runs_on_the_thread(db: SqliteDatabase) -> None:
    """Retention's deletes (bulk=True) may be long: the loop does not wait for them."""
    threads: list[str] = []

    def work(conn: Connection) -> int:
        threads.append(threading.current_thread().name)
        return insert(1)(conn)

    assert await db.transaction(work, bulk=True) == 1
    await db.transaction(lambda conn: threads.append(threading.current_thread().name))
    assert threads[0].startswith("sqlite") and threads[1] == threading.main_thread().name


async def test_deleting_a_thread_is_bulk_work() -> None:
    """A thread's delete takes its runs (up to AGENTRT_THREAD_MAX_TURNS) and all their events with
    it: as long as retention's deletes, so it goes where they go (above)."""
    asked: list[bool] = []

    class Recording:
        async def transaction(self, fn: object, *, bulk: bool = False) -> None:
            asked.append(bulk)

    await ThreadStore(Recording(), max_turns=5).delete("t1")  # type: ignore[arg-type]
    assert asked == [True]
