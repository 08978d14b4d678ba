"""SQL storage for the services: SQLite (the embedded default) or PostgreSQL, one code path.

Stores are written once, as plain functions of a SQLAlchemy `Connection` run inside
`transaction(fn)` or `read(fn)`; only how they are run differs:

- SQLite: a transaction runs on the event loop itself, at once: SQLite's own work for one is
  tens of microseconds, while a hop to a thread and back costs several times that in CPU
  (futures, the loop's self-pipe, a futex) and as much again in latency. It never waits on the
  loop: it asks for the write lock without waiting (busy_timeout 0), and the WAL is checkpointed
  on a thread, not by a commit. When another connection holds the lock (another process on the
  same file, or executor and tools sharing one), the transaction goes to the store's thread,
  whose connection waits up to busy_timeout, and every call after it follows it there until the
  thread is idle again: transactions run strictly in call order, never interleaved. Work that
  may be long (retention's deletes: `bulk=True`) runs on the thread too.
- PostgreSQL: asyncpg through SQLAlchemy's asyncio engine and its connection pool. `run_sync`
  runs the same function in a greenlet whose every statement awaits asyncpg on the event loop,
  so nothing blocks the loop and many transactions run at once.

The schema of each service is managed by Alembic (its own migration folder and version table),
upgraded when the service starts. On PostgreSQL an advisory lock makes replicas that start
together migrate one after the other.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.resources
import os
import re
import socket
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import sqlalchemy as sa
import structlog
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.expression import Executable

from agentrt.config import CommonSettings, StartupError
from agentrt.core.text import register_secrets

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

T = TypeVar("T")
log = structlog.get_logger("agentrt.server.db")


# pg_advisory_xact_lock key held while migrating: a constant derived from a fixed name.
MIGRATION_LOCK_ID = int.from_bytes(hashlib.sha256(b"agentrt:migrations").digest()[:8], "big", signed=True)


class DatabaseConfigError(StartupError):
    """The database URL or schema setting cannot be used."""


def database_url(settings: CommonSettings, name: str) -> sa.URL:
    """The URL service `name` ("executor", "tools") stores its data at."""
    if settings.database_url is None:
        return sa.URL.create("sqlite", database=str(settings.data_dir / f"{name}.db"))
    raw = settings.database_url.get_secret_value()
    register_secrets([urlsplit(raw).password])
    try:
        url = sa.make_url(raw)
    except sa.exc.ArgumentError:
        raise DatabaseConfigError("AGENTRT_DATABASE_URL is not a database URL") from None
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+asyncpg")
    if backend == "sqlite":
        return url.set(drivername="sqlite")
    raise DatabaseConfigError(
        f"AGENTRT_DATABASE_URL: unsupported database '{backend}' (use postgresql://... or sqlite:///path)"
    )


class Database:
    """Runs store functions as transactions; see the module docstring."""

    # Transactions that can usefully run at once (SQLite has one writer; PostgreSQL, the pool).
    concurrency = 1

    def __init__(self, url: sa.URL) -> None:
        self.url = url

    async def transaction(self, fn: Callable[[Connection], T], *, bulk: bool = False) -> T:
        """`fn` in one transaction. `bulk`: work that may be long (retention's deletes), which on
        SQLite runs on the store's thread, as the event loop must not wait for it."""
        raise NotImplementedError

    async def read(self, fn: Callable[[Connection], T]) -> T:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        return self.url.render_as_string(hide_password=True)


class SqliteDatabase(Database):
    # Inline write transactions between two checkpoints of the WAL (on the thread): about what
    # SQLite's own automatic checkpoint (every 1,000 pages) would do for small transactions.
    CHECKPOINT_EVERY = 500
    # False: every call on the thread, as before (tests that slow the thread's commits down).
    INLINE = True

    def __init__(self, url: sa.URL) -> None:
        super().__init__(url)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")
        # Two connections, each used from one thread only (StaticPool hands out its one): the
        # loop's (`engine`, where calls go), which never waits for a lock, and the thread's,
        # which waits up to busy_timeout and also checkpoints the loop's WAL.
        self.engine: Engine = _sqlite_engine(url, busy_timeout_ms=0, autocheckpoint=False)
        self._thread_engine = _sqlite_engine(url, busy_timeout_ms=5000)
        self._conn: Connection | None = None
        self._inline_conn: Connection | None = None
        self._on_thread = 0  # calls queued or running on the thread: later calls queue behind
        self._writes = 0  # inline write transactions since the last checkpoint was asked for

    async def transaction(self, fn: Callable[[Connection], T], *, bulk: bool = False) -> T:
        if self.INLINE and not self._on_thread and not bulk:
            conn = self._loop_connection()
            try:
                _sql(conn, "BEGIN IMMEDIATE")
            except sa.exc.OperationalError as exc:
                if not _locked(exc.orig):
                    raise
                # Another connection is writing: wait for it on the thread, not here.
            else:
                result = _run_transaction(conn, fn)
                self._wrote()
                return result
        return await self._thread_call(self._transaction, fn)

    def _transaction(self, fn: Callable[[Connection], T]) -> T:
        conn = self._connection()
        # IMMEDIATE takes the write lock up front: a read-then-write transaction never fails
        # half-way with "database is locked" when another process writes to the same file.
        _sql(conn, "BEGIN IMMEDIATE")
        return _run_transaction(conn, fn)

    async def read(self, fn: Callable[[Connection], T]) -> T:
        if self.INLINE and not self._on_thread:
            try:
                return fn(self._loop_connection())
            except sa.exc.OperationalError as exc:
                if not _locked(exc.orig):  # a WAL being recovered by another process: rare, brief
                    raise
        return await self._thread_call(self._read, fn)

    def _read(self, fn: Callable[[Connection], T]) -> T:
        return fn(self._connection())

    async def _thread_call(
        self, call: Callable[[Callable[[Connection], T]], T], fn: Callable[[Connection], T]
    ) -> T:
        self._on_thread += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, call, fn)
        finally:
            self._on_thread -= 1

    def _wrote(self) -> None:
        """Checkpoint the WAL on the thread now and then (PASSIVE: writers go on meanwhile), so
        that no commit on the loop pays for copying pages back and syncing the file."""
        self._writes += 1
        if self._writes >= self.CHECKPOINT_EVERY:
            self._writes = 0
            self._executor.submit(self._checkpoint)

    def _checkpoint(self) -> None:
        try:
            self._connection().exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
        except sa.exc.SQLAlchemyError as exc:  # the next one tries again; the WAL stays valid
            log.warning("sqlite.checkpoint_failed", error=str(exc)[:200])

    def _connection(self) -> Connection:
        # Kept open for the life of the store and in driver autocommit mode: transactions are the
        # explicit BEGIN/COMMIT above, a read is a statement, and no call pays for a pool
        # checkout or an empty BEGIN ... ROLLBACK around its reads.
        if self._conn is None:
            self._conn = _held_open(self._thread_engine)
        return self._conn

    def _loop_connection(self) -> Connection:
        if self._inline_conn is None:
            self._inline_conn = _held_open(self.engine)
        return self._inline_conn

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._thread_engine.dispose()

    async def close(self) -> None:
        if self._inline_conn is not None:
            self._inline_conn.close()
        self.engine.dispose()
        await asyncio.get_running_loop().run_in_executor(self._executor, self._close)
        self._executor.shutdown(wait=True)


def _held_open(engine: Engine) -> Connection:
    """A connection in driver autocommit mode whose SQLAlchemy-level transaction is begun once and
    never ended (in autocommit mode it sends nothing to SQLite): a store function that begins
    and commits one of its own (Alembic's migrations) then nests in it, and never commits the
    SQLite transaction that BEGIN IMMEDIATE opened around it."""
    conn = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    conn.begin()
    return conn


def _run_transaction(conn: Connection, fn: Callable[[Connection], T]) -> T:
    """`fn` in the transaction just begun on `conn`: committed, or rolled back if it raises."""
    try:
        result = fn(conn)
    except BaseException:
        _sql(conn, "ROLLBACK")
        raise
    _sql(conn, "COMMIT")
    return result


# SQLite's statements in the text pysqlite runs, parameters by name (a row's dict as it is).
_NAMED_SQLITE = sqlite_dialect(paramstyle="named")


@functools.lru_cache(maxsize=64)
def _sqlite_sql(statement: Executable, keys: frozenset[str]) -> tuple[str, dict[str, Any]]:
    """The statement's text for parameters named `keys`, and the values it holds itself (a
    literal such as `done == 0` is a parameter of its own, :done_1)."""
    compiled = statement.compile(dialect=_NAMED_SQLITE, column_keys=sorted(keys))  # type: ignore[call-arg]
    return str(compiled), {k: v for k, v in compiled.params.items() if k not in keys}


def _bound(statement: Executable, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    sql, held = _sqlite_sql(statement, frozenset(params))
    return sql, {**held, **params} if held else params


def executemany(conn: Connection, statement: Executable, rows: list[dict[str, Any]]) -> int:
    """`statement` (an INSERT or UPDATE built once at import) for each of `rows` (at least one):
    how many rows it changed. On SQLite straight to pysqlite, compiled once per set of keys:
    through SQLAlchemy each execution cost five times SQLite's own work. The values go as they are
    (no type's bind processing): ints, floats, str, bytes and None. On PostgreSQL SQLAlchemy's."""
    if conn.dialect.name != "sqlite":
        return conn.execute(statement, rows).rowcount
    sql, held = _sqlite_sql(statement, frozenset(rows[0]))
    return _sql(conn, sql, [{**held, **row} for row in rows] if held else rows, many=True).rowcount


def execute(conn: Connection, statement: Executable, params: dict[str, Any]) -> Any:
    """`statement`, built once at import (a hot statement's), with `params`: on SQLite straight to
    pysqlite like executemany, its rows plain tuples; on PostgreSQL SQLAlchemy's execute.
    Either way the result has what stores use of SQLAlchemy's: all, first, one, scalar,
    scalar_one, rowcount, iteration. (Not for a statement built per call: each would be compiled
    again, where SQLAlchemy's cache knows it by its shape.)"""
    if conn.dialect.name != "sqlite":
        return conn.execute(statement, params)
    return _Rows(_sql(conn, *_bound(statement, params)))


class _Rows:
    """A pysqlite cursor with the parts of SQLAlchemy's Result that stores use."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor
        self.rowcount = cursor.rowcount

    def __iter__(self) -> Any:
        return iter(self._cursor)

    def all(self) -> list[Any]:
        return self._cursor.fetchall()

    def first(self) -> Any:
        row = self._cursor.fetchone()
        self._cursor.fetchall()  # the rest, so that the statement is finished
        return row

    def one(self) -> Any:
        rows = self._cursor.fetchall()
        if not rows:
            raise sa.exc.NoResultFound("No row was found when one was required")
        if len(rows) > 1:
            raise sa.exc.MultipleResultsFound("Multiple rows were found when exactly one was required")
        return rows[0]

    def scalar(self) -> Any:
        row = self.first()
        return None if row is None else row[0]

    def scalar_one(self) -> Any:
        return self.one()[0]


def _sql(conn: Connection, sql: str, params: Any = (), many: bool = False) -> sqlite3.Cursor:
    """`sql` straight to pysqlite's own connection: BEGIN and COMMIT this way cost a fifth of
    what they cost through SQLAlchemy's execution (which, in autocommit mode, does not track
    them anyway). Its errors are SQLAlchemy's, as every other statement's (one vocabulary:
    outage.py tells an outage from a bug by them)."""
    driver: sqlite3.Connection = conn.connection.driver_connection  # type: ignore[assignment]
    try:
        return driver.executemany(sql, params) if many else driver.execute(sql, params)
    except sqlite3.Error as exc:
        raise sa.exc.DBAPIError.instance(sql, params, exc, sqlite3.Error) from exc


def _locked(exc: BaseException | None) -> bool:
    """SQLITE_BUSY (any of its extended codes): another connection holds the lock (the loop's
    connection does not wait)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == sqlite3.SQLITE_BUSY


def _sqlite_engine(url: sa.URL, busy_timeout_ms: int, autocheckpoint: bool = True) -> Engine:
    engine = sa.create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False})

    def connect(dbapi_conn: Any, _record: Any) -> None:
        # Transactions are begun explicitly, not by the driver's own heuristics.
        dbapi_conn.isolation_level = None
        # WAL + NORMAL: a killed process loses nothing committed; only an OS crash can drop the
        # last transactions. busy_timeout: how long a call waits for another writer's lock.
        pragmas = ["journal_mode=WAL", "synchronous=NORMAL", f"busy_timeout={busy_timeout_ms}"]
        if not autocheckpoint:
            pragmas.append("wal_autocheckpoint=0")  # SqliteDatabase._wrote checkpoints instead
        for pragma in pragmas:
            dbapi_conn.execute(f"PRAGMA {pragma}")

    sa.event.listen(engine, "connect", connect)
    return engine


class PostgresDatabase(Database):
    def __init__(self, url: sa.URL, schema: str, pool_size: int) -> None:
        super().__init__(url)
        self.schema = schema
        self.concurrency = pool_size
        connect_args: dict[str, Any] = {}
        if schema:
            connect_args["server_settings"] = {"search_path": schema}
        # Imported here: SQLAlchemy's asyncio layer (~6 MB resident) serves PostgreSQL only.
        from sqlalchemy.ext.asyncio import create_async_engine  # noqa: PLC0415

        self.engine: AsyncEngine = create_async_engine(
            url,
            pool_size=pool_size,
            # No overflow: connections opened for a burst and closed after it cost a connect
            # and re-preparing every statement each time; calls wait for a pooled one instead.
            max_overflow=0,
            # No pre-ping: it would cost a round trip on every checkout. A connection broken by a
            # database restart fails its call (UNAVAILABLE, which callers retry) and the pool
            # drops all its connections at once, so the next call reconnects.
            connect_args=connect_args,
        )
        # Reads run in autocommit: one statement, no BEGIN ... ROLLBACK round trips around it.
        self._reader = self.engine.execution_options(isolation_level="AUTOCOMMIT")

    async def transaction(self, fn: Callable[[Connection], T], *, bulk: bool = False) -> T:
        async with self.engine.begin() as conn:
            return await conn.run_sync(fn)

    async def read(self, fn: Callable[[Connection], T]) -> T:
        async with self._reader.connect() as conn:
            return await conn.run_sync(fn)

    async def close(self) -> None:
        await self.engine.dispose()

    def asyncpg_dsn(self) -> str:
        """The URL in asyncpg's own form, for connections outside the pool (LISTEN)."""
        return self.url.set(drivername="postgresql").render_as_string(hide_password=False)


async def open_database(settings: CommonSettings, name: str, migrations: str) -> Database:
    """Connect service `name`'s store and upgrade its schema to the newest Alembic revision.

    `migrations` is the service's Alembic folder as "package:folder"."""
    url = database_url(settings, name)
    db: Database
    if url.get_backend_name() == "sqlite":
        if url.database:
            try:
                Path(url.database).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StartupError(_unusable(url, exc)) from exc
        db = SqliteDatabase(url)
    else:
        db = PostgresDatabase(url, settings.database_schema, settings.database_pool_size)

    def upgrade(conn: Connection) -> None:
        if isinstance(db, PostgresDatabase):
            # Every service's migrations take one lock: replicas starting together migrate one
            # after the other, and so do services sharing a schema (CREATE SCHEMA IF NOT EXISTS
            # is not safe against a concurrent CREATE).
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK_ID})
            if settings.database_schema:
                conn.execute(sa.text(f'CREATE SCHEMA IF NOT EXISTS "{settings.database_schema}"'))
        run_migrations(conn, migrations, f"alembic_version_{name}")

    try:
        await db.transaction(upgrade)
    except (OSError, sa.exc.DBAPIError) as exc:
        # Not reachable, not there, not ours (refused, unknown host or database, wrong password,
        # no permission): the operator's to fix, said in one line.
        await db.close()
        raise StartupError(_unusable(url, exc)) from exc
    except BaseException:
        await db.close()
        raise
    log.info("db.ready", service=name, database=db.describe())
    return db


def _unusable(url: sa.URL, exc: BaseException) -> str:
    """One line: which database (no password), what it said, and what to check."""
    cause = exc.orig if isinstance(exc, sa.exc.DBAPIError) and exc.orig is not None else exc
    what = " ".join(str(cause).split()) or type(cause).__name__
    if isinstance(cause, socket.gaierror):
        what = f"host name {url.host!r} does not resolve"
    elif isinstance(cause, OSError) and cause.errno:
        what = os.strerror(cause.errno).lower()  # asyncpg's own text names no cause
    shown = url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True)
    if url.get_backend_name() == "sqlite":
        return (
            f"cannot use the SQLite database {url.database}: {what}; check that AGENTRT_DATA_DIR "
            "(or AGENTRT_DATABASE_URL) names a folder this user can write"
        )
    return (
        f"cannot use the database at {shown}: {what}; check "
        "AGENTRT_DATABASE_URL (host, port, user, password, database name) and that PostgreSQL runs there"
    )


def run_migrations(conn: Connection, migrations: str, version_table: str, revision: str = "head") -> None:
    """Upgrade to `revision` (the newest, unless a test builds a database of an older release)."""
    package, _, folder = migrations.partition(":")
    location = importlib.resources.files(package) / folder
    if revision == "head" and _stamped(conn, version_table) == head_revision(Path(str(location))):
        return  # the usual start: at head already, and Alembic (~10 MB resident) stays unloaded
    from alembic import command  # noqa: PLC0415
    from alembic.config import Config  # noqa: PLC0415

    config = Config()
    config.set_main_option("script_location", str(location))
    config.attributes["connection"] = conn
    config.attributes["version_table"] = version_table
    command.upgrade(config, revision)


def head_revision(location: Path) -> str:
    """The newest revision in an Alembic folder, read from its scripts' `revision` and
    `down_revision` (one linear history, as ours is): the one no other script revises.
    tests/unit/test_migrations.py checks it against Alembic's own answer."""
    revisions: dict[str, str | None] = {}
    for script in (location / "versions").glob("*.py"):
        found = dict(_REVISION_LINE.findall(script.read_text()))
        revisions[found["revision"]] = found.get("down_revision")
    heads = set(revisions) - set(revisions.values())
    if len(heads) != 1:
        raise RuntimeError(f"{location}: expected one head revision, found {sorted(heads)}")
    return heads.pop()


# `revision: str = "0002"` / `down_revision: str | None = "0001"` (None for the first).
_REVISION_LINE = re.compile(r'^(revision|down_revision)\b[^=\n]*=\s*"([^"]+)"', re.MULTILINE)


def _stamped(conn: Connection, version_table: str) -> str | None:
    """The revision the database is at, or None (a new database: no version table yet)."""
    if not sa.inspect(conn).has_table(version_table):
        return None
    rows = conn.execute(sa.text(f'SELECT version_num FROM "{version_table}"')).scalars().all()
    return rows[0] if len(rows) == 1 else None


def run_env(target_metadata: sa.MetaData) -> None:
    """The body of each service's Alembic env.py: migrate on the connection we were handed."""
    from alembic import context  # noqa: PLC0415 -- only importable while Alembic runs env.py

    conn: Connection = context.config.attributes["connection"]
    context.configure(
        connection=conn,
        target_metadata=target_metadata,
        version_table=context.config.attributes["version_table"],
        render_as_batch=conn.dialect.name == "sqlite",  # SQLite alters tables by copying them
    )
    with context.begin_transaction():
        context.run_migrations()


def epoch_now(conn: Connection) -> sa.ColumnElement[float]:
    """The database server's clock in seconds since the epoch: lease expiry is judged by one
    clock, the database's, whatever the clocks of the replicas say."""
    if conn.dialect.name == "postgresql":
        return sa.func.extract("epoch", sa.func.clock_timestamp()).cast(sa.Float)
    return sa.literal_column("((julianday('now') - 2440587.5) * 86400.0)", sa.Float)


def notify(conn: Connection, channel: str, payload: str = "") -> None:
    """PostgreSQL NOTIFY, delivered to listeners when (and only if) the transaction commits. SQLite
    has no listeners: there, one process is all there is to tell."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.select(sa.func.pg_notify(channel, payload)))


def serialize_on(conn: Connection, key: str) -> None:
    """Make transactions naming the same `key` run one after another, even when the rows they
    will touch do not exist yet (SQLite's write lock already serializes every transaction)."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(sa.func.hashtext(key))))
