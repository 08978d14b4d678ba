"""The idempotency record of a tool call against a real database: what it costs and what it keeps."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from agentrt.config import ToolsSettings
from agentrt.server.db import SqliteDatabase, open_database
from tools_svc import calculator, invocations
from tools_svc.invocations import InvocationLog
from tools_svc.server import MIGRATIONS
from tools_svc.service import ToolServicer
from tools_svc.todos import TodoStore


def traced(db: SqliteDatabase) -> list[str]:
    """Every statement SQLite runs on the store's connection from now on, BEGIN and COMMIT included
    (the store sends those to pysqlite directly, past SQLAlchemy's events)."""
    statements: list[str] = []
    # StaticPool: the engine's one connection is the one the store's calls use.
    db.engine.raw_connection().driver_connection.set_trace_callback(
        lambda sql: statements.append(" ".join(sql.split()))
    )
    return statements


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    database = await open_database(ToolsSettings(data_dir=tmp_path), "tools", MIGRATIONS)
    assert isinstance(database, SqliteDatabase)
    yield database
    await database.close()


async def test_a_tool_recording_in_its_own_transaction_is_recorded_once(db: SqliteDatabase) -> None:
    statements = traced(db)
    log, todos = InvocationLog(db), TodoStore(db)
    arguments = {"action": "add", "text": "milk"}

    first = await log.run_once("run-1/s1", "todo_store", arguments, lambda: todos.run(arguments))
    assert first["summary"] == "Added 'milk' (#1)."
    # The todo and its record commit together, and nothing inserts the record a second time
    # (which used to fail on the key, roll back, and read the record back: two wasted trips).
    records = [s for s in statements if s.startswith("INSERT INTO tool_invocations")]
    assert len(records) == 1
    assert "ROLLBACK" not in statements

    again = await log.run_once("run-1/s1", "todo_store", arguments, lambda: todos.run(arguments))
    assert again == first
    listed = await todos.run({"action": "list"})
    assert [t["text"] for t in listed["todos"]] == ["milk"]


async def test_a_tool_that_looks_up_its_record_itself_costs_one_trip_and_stays_once(
    db: SqliteDatabase,
) -> None:
    """todo_store reads the call's record in the transaction of its change: no read before it,
    and a call made again (its answer lost) gets that answer, nothing done twice, even where doing
    it again would fail (the todo it deleted is gone)."""
    statements = traced(db)
    log, todos = InvocationLog(db), TodoStore(db)
    await todos.run({"action": "add", "texts": ["milk", "eggs"]})
    delete = {"action": "delete", "text": "milk"}

    statements.clear()
    first = await log.run_once(
        "run-2/s1", "todo_store", delete, lambda: todos.run(delete), looks_up_itself=True
    )
    assert first["summary"] == "Deleted 'milk'."
    # one transaction: BEGIN, the record's lookup, the change, the record, COMMIT; no read before it
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert sum(s.startswith("SELECT tool_invocations") for s in statements) == 1

    again = await log.run_once(
        "run-2/s1", "todo_store", delete, lambda: todos.run(delete), looks_up_itself=True
    )
    assert again == first
    listed = await todos.run({"action": "list"})
    assert [t["text"] for t in listed["todos"]] == ["eggs"]
    # the key of another call is refused, and nothing is deleted
    other = {"action": "delete", "text": "eggs"}
    with pytest.raises(Exception, match="already used for a different invocation"):
        await log.run_once("run-2/s1", "todo_store", other, lambda: todos.run(other), looks_up_itself=True)
    assert [t["text"] for t in (await todos.run({"action": "list"}))["todos"]] == ["eggs"]


async def test_other_tools_are_recorded_after_they_return(db: SqliteDatabase) -> None:
    log, calls = InvocationLog(db), []

    async def tool() -> dict[str, int]:
        calls.append(1)
        return {"value": 42}

    assert await log.run_once("k", "calculator", {"expression": "6*7"}, tool) == {"value": 42}
    assert await log.run_once("k", "calculator", {"expression": "6*7"}, tool) == {"value": 42}
    assert len(calls) == 1


@pytest.mark.parametrize("records_itself", [True, False])
async def test_an_output_is_encoded_once_for_its_size_check_and_its_record(
    db: SqliteDatabase, monkeypatch: pytest.MonkeyPatch, records_itself: bool
) -> None:
    """The servicer checks an output's size on its JSON and the record stores JSON: one encoding,
    whichever comes first (todo_store records inside its own transaction, before the check)."""
    encoded: list[object] = []
    real = invocations.encode
    monkeypatch.setattr(invocations, "encode", lambda output: encoded.append(output) or real(output))
    servicer = ToolServicer(None, InvocationLog(db), None, max_output_bytes=1000)  # type: ignore[arg-type]
    log, todos = InvocationLog(db), TodoStore(db)
    arguments = {"action": "add", "text": "thé"}

    async def call() -> object:
        output = await (todos.run(arguments) if records_itself else calculator.run({"expression": "6*7"}))
        servicer._check_output_size("tool", output)  # as ToolServicer.InvokeTool's call() does
        return output

    output = await log.run_once("k", "todo_store" if records_itself else "calculator", arguments, call)
    assert encoded == [output]
    stored = await db.read(lambda c: c.execute(sa.text("SELECT output FROM tool_invocations")).scalar_one())
    assert json.loads(stored) == output and stored == invocations.encode(output)
