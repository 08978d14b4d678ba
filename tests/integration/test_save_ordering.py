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
from agentrt.core.runstate import TERMINAL
from agentrt.core.values import value_to_py
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
    monkeypatch.setattr(SqliteDatabase, "INLINE", False)  # every commit on the (slowed) thread
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


async def test_the_last_steps_success_is_stored_by_the_time_the_run_is_seen_to_end(harness: Harness) -> None:
    """The success of a step nothing depends on is queued, not awaited (Recorder.pipeline): it
    commits with the run's end, so a watcher that sees the run end finds every step's output
    stored, with events 1, 2, 3, ... and no gap."""
    run = await harness.create(
        step("s1", "echo", value=1),
        step("s2", "echo", ("s1",), value=2),
        step("s3", "echo", value=3),  # a second leaf, beside the chain
    )
    async for response in harness.runs.WatchRun(run_pb2.WatchRunRequest(run_id=run.run_id), timeout=30):
        event = response.event
        if event.WhichOneof("kind") == "status_changed" and event.status_changed.status in TERMINAL:
            break
    stored = stored_steps(harness.settings.data_dir, run.run_id)
    assert stored == {s: run_pb2.STEP_STATUS_SUCCEEDED for s in ("s1", "s2", "s3")}
    finished, events = await harness.finish(run.run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert finished.status == run_pb2.RUN_STATUS_SUCCEEDED
    assert {s.step_id: value_to_py(s.output)["value"] for s in finished.steps} == {"s1": 1, "s2": 2, "s3": 3}
