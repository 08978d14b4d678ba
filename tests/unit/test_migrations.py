"""Alembic migrations: they build exactly the tables the code describes, on both backends, and
upgrade databases made by earlier releases (before Alembic; before todo owners) losing nothing."""

import asyncio
import importlib.resources
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from agentrt.config import ExecutorSettings, Settings
from agentrt.server.db import (
    Database,
    PostgresDatabase,
    SqliteDatabase,
    database_url,
    head_revision,
    open_database,
)
from agentrt.v1 import run_pb2
from executor_svc import schema as executor_schema
from executor_svc import server as executor_server
from executor_svc.store import RunStore
from tools_svc import schema as tools_schema
from tools_svc import server as tools_server
from tools_svc.callcontext import CallContext, serving
from tools_svc.todos import TodoStore

SERVICES = [
    ("executor", executor_server.MIGRATIONS, executor_schema.metadata),
    ("tools", tools_server.MIGRATIONS, tools_schema.metadata),
]


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, settings: Settings) -> Settings:
    return request.getfixturevalue("pg_settings") if request.param == "postgres" else settings


@pytest.mark.parametrize(("name", "migrations", "metadata"), SERVICES, ids=[s[0] for s in SERVICES])
async def test_migrated_schema_matches_the_tables_the_code_uses(
    backend: Settings, name: str, migrations: str, metadata: object
) -> None:
    db = await open_database(backend, name, migrations)

    def differences(conn: Connection) -> list[object]:
        context = MigrationContext.configure(conn, opts={"version_table": f"alembic_version_{name}"})
        return [d for d in compare_metadata(context, metadata) if not _is_version_table(d)]

    try:
        assert await db.read(differences) == []
    finally:
        await db.close()


def _is_version_table(diff: object) -> bool:
    return (
        isinstance(diff, tuple) and diff[0] == "remove_table" and diff[1].name.startswith("alembic_version")
    )


async def test_a_database_from_before_alembic_is_upgraded_in_place(tmp_path: Path) -> None:
    # The executor database exactly as the previous release left it (PRAGMA user_version 1).
    path = tmp_path / "executor.db"
    run = run_pb2.Run(run_id="old", status=run_pb2.RUN_STATUS_RUNNING, last_seq=0)
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """
            CREATE TABLE runs (run_id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE,
                status INTEGER NOT NULL, create_time_us INTEGER NOT NULL, last_seq INTEGER NOT NULL,
                data BLOB NOT NULL);
            CREATE INDEX runs_by_time ON runs (create_time_us DESC, run_id DESC);
            CREATE INDEX runs_by_status ON runs (status, create_time_us DESC, run_id DESC);
            CREATE TABLE run_events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL,
                PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
            PRAGMA user_version = 1;
            """
        )
        conn.execute(
            "INSERT INTO runs VALUES ('old', NULL, ?, 1, 0, ?)", (run.status, run.SerializeToString())
        )
    store = RunStore(
        await open_database(ExecutorSettings(data_dir=tmp_path), "executor", executor_server.MIGRATIONS)
    )
    try:
        run.owner = "local"  # what the previous releases stored belongs to the one principal they had
        assert (await store.get_run("old")) == run
        # The unfinished run of the old release is claimable: a new executor resumes it.
        assert list(await store.leases.claim("me", 10, limit=10)) == ["old"]
    finally:
        await store.close()


async def test_services_and_replicas_starting_together_migrate_one_after_another(
    pg_settings: Settings,
) -> None:
    # As under `agentrt up` or `docker compose up --scale`: all at once, into a schema not yet made.
    opening = [open_database(pg_settings, name, migrations) for name, migrations, _ in SERVICES * 2]
    databases = await asyncio.gather(*opening)
    for db in databases:
        await db.close()


@pytest.mark.parametrize(("name", "migrations", "metadata"), SERVICES, ids=[s[0] for s in SERVICES])
def test_the_head_read_from_the_scripts_is_alembics(name: str, migrations: str, metadata: object) -> None:
    package, _, folder = migrations.partition(":")
    location = Path(str(importlib.resources.files(package) / folder))
    config = Config()
    config.set_main_option("script_location", str(location))
    assert head_revision(location) == ScriptDirectory.from_config(config).get_current_head()


def test_a_start_at_head_does_not_load_alembic(tmp_path: Path) -> None:
    """The first start migrates (Alembic loaded); later starts find the schema at head and leave
    Alembic (~10 MB resident) unloaded. Each start is its own process, as a service's is."""
    start = (
        "import asyncio, sys\n"
        "from agentrt.config import ToolsSettings\n"
        "from agentrt.server.db import open_database\n"
        "from tools_svc.server import MIGRATIONS\n"
        f"db = asyncio.run(open_database(ToolsSettings(data_dir={str(tmp_path)!r}), 'tools', MIGRATIONS))\n"
        "print('alembic' in sys.modules)\n"
    )
    command = [sys.executable, "-c", start]
    # The last line printed (the service logs go to stdout before it).
    loaded = [
        subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()[-1] for _ in "12"
    ]
    assert loaded == ["True", "False"]


async def _tools_database_at(settings: Settings, revision: str) -> Database:
    """The tools database migrated only up to `revision`, as that release left it."""
    url = database_url(settings, "tools")
    if url.get_backend_name() == "sqlite":
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        db: Database = SqliteDatabase(url)
    else:
        db = PostgresDatabase(url, settings.database_schema, 2)
    package, _, folder = tools_server.MIGRATIONS.partition(":")

    def migrate(conn: Connection) -> None:
        if isinstance(db, PostgresDatabase):
            conn.execute(sa.text(f'CREATE SCHEMA "{settings.database_schema}"'))
        config = Config()
        config.set_main_option("script_location", str(importlib.resources.files(package) / folder))
        config.attributes["connection"] = conn
        config.attributes["version_table"] = "alembic_version_tools"
        command.upgrade(config, revision)

    await db.transaction(migrate)
    return db


OLD_TODOS = [  # id, text, done, created_at, completed_at
    (1, "buy milk", 1, 100.0, 150.0),
    (2, "walk dog", 0, 101.0, None),
    (3, "pay rent", 0, 102.0, None),
]


async def test_todos_from_before_owners_become_locals_and_keep_their_numbers(backend: Settings) -> None:
    db = await _tools_database_at(backend, "0002")

    def fill(conn: Connection) -> None:
        todos = sa.table("todos", *(sa.column(c) for c in ("text", "done", "created_at", "completed_at")))
        # Given ids 1, 2, 3 by the table, as that release did; then #4, deleted: its number must
        # not be given again.
        conn.execute(todos.insert(), [dict(zip(todos.c.keys(), row[1:], strict=True)) for row in OLD_TODOS])
        conn.execute(todos.insert().values(text="gone", done=0, created_at=103.0))
        conn.execute(todos.delete().where(todos.c.text == "gone"))
        conn.execute(sa.text("INSERT INTO mcp_mounts VALUES ('m', 'http://x/mcp', '{}', 1.0)"))

    await db.transaction(fill)
    await db.close()

    db = await open_database(backend, "tools", tools_server.MIGRATIONS)  # upgrades to head
    try:
        kept = await db.read(
            lambda c: c.execute(
                sa.text(
                    "SELECT id, text, done, created_at, completed_at, owner, number FROM todos ORDER BY id"
                )
            ).all()
        )
        assert [tuple(r) for r in kept] == [(*row, "local", row[0]) for row in OLD_TODOS]
        counters = await db.read(
            lambda c: c.execute(sa.text("SELECT owner, last_number FROM todo_owners")).all()
        )
        assert [tuple(r) for r in counters] == [("local", 4)]
        assert await db.read(lambda c: c.execute(sa.text("SELECT name FROM mcp_mounts")).scalars().all()) == [
            "m"
        ]

        store = TodoStore(db)
        listed = await store.run({"action": "list"})  # outside any call: `local`'s list
        assert listed["summary"] == "You have 3 todos: 1. buy milk (done); 2. walk dog; 3. pay rent."
        assert (await store.run({"action": "add", "text": "read"}))["todo"]["id"] == 5
        # The table's own ids go on after the deleted #4 too (SQLite copied the table to alter it).
        read = sa.text("SELECT id FROM todos WHERE text = 'read'")
        assert await db.read(lambda c: c.execute(read).scalar_one()) == 5
        assert (await store.run({"action": "complete", "text": "walk"}))["todo"] == {
            "id": 2,
            "text": "walk dog",
            "done": True,
        }
        with serving(CallContext(principal="bob")):
            assert (await store.run({"action": "count"}))["count"] == 0
            assert (await store.run({"action": "add", "text": "bob's"}))["todo"]["id"] == 1
    finally:
        await db.close()
