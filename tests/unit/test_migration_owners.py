"""The owners migration on a database made by the previous release (executor revision 0002):
every run is kept, belongs to `local`, and keeps its idempotency key, now scoped to `local`."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.config import Settings
from agentrt.server.db import (
    Database,
    PostgresDatabase,
    SqliteDatabase,
    database_url,
    open_database,
    run_migrations,
)
from executor_svc import server as executor_server
from executor_svc.run import transitions as tr
from executor_svc.store import RunStore


async def test_runs_of_the_previous_release_belong_to_local_and_lose_nothing(backend: Settings) -> None:
    url = database_url(backend, "executor")
    old_runs = []
    for n in range(3):  # as the previous release wrote them: no owner anywhere
        run, _ = tr.new_run(f"what is {n}+1", 5, f"key-{n}" if n else "", None, 60.0)
        run.ClearField("owner")
        old_runs.append(run)

    def previous_release(conn: Connection) -> None:
        if backend.database_schema:
            conn.execute(sa.text(f'CREATE SCHEMA IF NOT EXISTS "{backend.database_schema}"'))
        run_migrations(conn, executor_server.MIGRATIONS, "alembic_version_executor", revision="0002")
        for run in old_runs:
            conn.execute(
                sa.text(
                    "INSERT INTO runs (run_id, idempotency_key, status, create_time_us, last_seq, data) "
                    "VALUES (:id, :key, :status, :t, 0, :data)"
                ),
                {
                    "id": run.run_id,
                    "key": run.idempotency_key or None,
                    "status": run.status,
                    "t": run.create_time.ToMicroseconds(),
                    "data": run.SerializeToString(),
                },
            )

    old: Database
    if url.get_backend_name() == "sqlite":
        Path(str(url.database)).parent.mkdir(parents=True, exist_ok=True)
        old = SqliteDatabase(url)
    else:
        old = PostgresDatabase(url, backend.database_schema, 1)
    try:
        await old.transaction(previous_release)
    finally:
        await old.close()

    store = RunStore(await open_database(backend, "executor", executor_server.MIGRATIONS))
    try:
        for old in old_runs:
            stored = await store.get_run(old.run_id)
            assert stored is not None and stored.owner == "local"
            stored.ClearField("owner")
            assert stored == old  # every other field as it was
        listed = await store.list_runs(10, None, 0, "local")
        assert sorted(r.run_id for r in listed) == sorted(r.run_id for r in old_runs)
        assert await store.list_runs(10, None, 0, "alice") == []
        # local's keys still return local's runs; another principal may use the same key.
        again, _ = tr.new_run("what is 1+1", 5, "key-1", None, 60.0)
        existing, lease = await store.create_run(again, [], "replica", 10.0)
        assert lease is None and existing.run_id == old_runs[1].run_id
        alices, _ = tr.new_run("what is 1+1", 5, "key-1", None, 60.0, owner="alice")
        created, lease = await store.create_run(alices, [], "replica", 10.0)
        assert lease is not None and created.run_id == alices.run_id
    finally:
        await store.close()
