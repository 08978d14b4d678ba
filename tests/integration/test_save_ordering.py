"""What the executor lets run while a run's saves are still committing (engine._save).

Planning and a step's tool call go ahead while the save before them commits, but a step starts
only once the outputs of the steps it depends on are stored: a run resumed after a crash must
repeat a call with side effects with the same arguments and idempotency key.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agentrt.config import Settings
from agentrt.server.db import SqliteDatabase
from agentrt.v1 import run_pb2
from tests.harness import Harness, step

SLOW_COMMIT_S = 0.05


@pytest.fixture
async def harness(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    transaction = SqliteDatabase._transaction

    def slow(self: SqliteDatabase, fn):  # type: ignore[no-untyped-def]
        time.sleep(SLOW_COMMIT_S)  # on the database thread: every commit lands late
        return transaction(self, fn)

    monkeypatch.setattr(SqliteDatabase, "_transaction", slow)
    async with Harness(settings) as h:
        yield h


def stored_steps(data_dir: Path, run_id: str) -> dict[str, int]:
    """Step statuses as committed, read over a connection of our own."""
    with sqlite3.connect(data_dir / "executor.db") as conn:
        (data,) = conn.execute("SELECT data FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    return {s.step_id: s.status for s in run_pb2.Run.FromString(data).steps}


async def test_a_tool_with_side_effects_is_called_after_its_inputs_are_stored(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "echo", value=1),
        step("s2", "gate", ("s1",), label="a", previous="{{steps.s1.output.value}}"),
    )
    assert await harness.gate.next_started() == "a"
    # The gate started: s1's output, which its arguments came from, is stored.
    assert stored_steps(harness.settings.data_dir, run.run_id)["s1"] == run_pb2.STEP_STATUS_SUCCEEDED
    harness.gate.release("a")
    finished, _ = await harness.finish(run.run_id)
    assert finished.status == run_pb2.RUN_STATUS_SUCCEEDED
    assert finished.steps[1].arguments["previous"] == "1"  # a string template
