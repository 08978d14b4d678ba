"""Cancellation and restart resume with the fault-injection harness."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest

from agentrt.config import Settings
from agentrt.core.values import value_to_py
from tests.harness import Harness, R, step, step_history


@pytest.fixture
async def harness(settings: Settings) -> AsyncIterator[Harness]:
    async with Harness(settings.replace(retry_base_delay_s=0.01, retry_max_delay_s=0.05)) as h:
        yield h


async def test_cancel_during_a_long_step_cancels_the_tool_call(harness: Harness) -> None:
    run = await harness.create(step("s1", "gate", label="a"), step("s2", "echo", ("s1",), value=1))
    assert await harness.gate.next_started() == "a"

    cancelled = (await harness.runs.CancelRun(R.CancelRunRequest(run_id=run.run_id), timeout=5)).run
    assert cancelled.status == R.RUN_STATUS_CANCELLED
    assert [s.status for s in cancelled.steps] == [R.STEP_STATUS_CANCELLED, R.STEP_STATUS_SKIPPED]
    assert cancelled.error.reason == "RUN_CANCELLED"
    # The in-flight gRPC call was cancelled: the tool saw the cancellation and never finished.
    for _ in range(100):
        if harness.gate.cancelled:
            break
        await asyncio.sleep(0.02)
    assert harness.gate.cancelled == ["a"]
    assert harness.gate.completed == []

    events = await harness.events(run.run_id)
    assert events[-1].status_changed.status == R.RUN_STATUS_CANCELLED
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await harness.runs.CancelRun(R.CancelRunRequest(run_id=run.run_id))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_cancel_while_a_step_waits_to_retry(harness: Harness) -> None:
    policy = R.RetryPolicy(max_attempts=5)
    policy.base_delay.FromSeconds(30)
    policy.max_delay.FromSeconds(30)
    run = await harness.create(step("s1", "flaky", label="x", failures=3), retry_policy=policy)
    waiting = await harness.wait_step(run.run_id, "s1", R.STEP_STATUS_RETRYING)
    assert waiting.HasField("next_attempt_time")
    cancelled = (await harness.runs.CancelRun(R.CancelRunRequest(run_id=run.run_id), timeout=5)).run
    assert cancelled.status == R.RUN_STATUS_CANCELLED
    assert cancelled.steps[0].status == R.STEP_STATUS_CANCELLED
    assert harness.flaky.calls["x"] == 1


async def test_executor_restart_resumes_an_unfinished_run(harness: Harness) -> None:
    run = await harness.create(step("s1", "gate", label="a"), step("s2", "gate", ("s1",), label="b"))
    assert await harness.gate.next_started() == "a"
    harness.gate.release("a")
    await harness.wait_step(run.run_id, "s1", R.STEP_STATUS_SUCCEEDED)
    assert await harness.gate.next_started() == "b"

    await harness.restart_executor()  # s2 is in flight; the old executor is gone
    stored = (await harness.runs.GetRun(R.GetRunRequest(run_id=run.run_id))).run
    assert stored.status == R.RUN_STATUS_RUNNING

    assert await harness.gate.next_started() == "b"  # re-invoked after resume
    harness.gate.release("b")
    final, events = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED
    assert value_to_py(final.result) == {"label": "b"}
    assert [s.attempts for s in final.steps] == [1, 2]  # s1 kept, s2 re-run once
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert step_history(events, "s1") == ["RUNNING", "SUCCEEDED"]
    assert harness.gate.completed == ["a", "b"]
