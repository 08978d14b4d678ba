"""Retries, deadlines, DAG parallelism, references and RetryRun, with injected faults."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2

from agentrt.config import Settings, ToolPolicy
from agentrt.core.values import struct_to_dict, value_to_py
from agentrt.v1 import plan_pb2, planner_service_pb2
from tests.harness import Harness, R, ScriptedPlanner, step, step_history


@pytest.fixture
def fast_settings(settings: Settings) -> Settings:
    # The scripted planner's todo writes stand for any plan's steps: retries, not approvals, are
    # what these tests are about (the default policy would hold a scripted plan's writes).
    return settings.replace(retry_base_delay_s=0.01, retry_max_delay_s=0.05, approval_policy="never")


@pytest.fixture
async def harness(fast_settings: Settings) -> AsyncIterator[Harness]:
    async with Harness(fast_settings) as h:
        yield h


def policy(max_attempts: int = 0, step_timeout: float = 0, base: float = 0, cap: float = 0) -> R.RetryPolicy:
    p = R.RetryPolicy(max_attempts=max_attempts)
    for field, seconds in (("step_timeout", step_timeout), ("base_delay", base), ("max_delay", cap)):
        if seconds:
            getattr(p, field).FromNanoseconds(int(seconds * 1e9))
    return p


@pytest.mark.parametrize("kind", ["unavailable", "retryable"])
async def test_flaky_tool_succeeds_after_n_plus_one_attempts(harness: Harness, kind: str) -> None:
    run = await harness.create(step("s1", "flaky", label="f", failures=2, kind=kind))
    final, events = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED, final.error.message
    assert final.steps[0].attempts == 3
    assert harness.flaky.calls["f"] == 3
    assert value_to_py(final.result) == {"label": "f", "calls": 3}
    assert step_history(events, "s1") == [
        "RUNNING",
        "RETRYING",
        "RUNNING",
        "RETRYING",
        "RUNNING",
        "SUCCEEDED",
    ]
    retrying = [e.step_updated.step for e in events if e.step_updated.step.status == R.STEP_STATUS_RETRYING]
    assert [s.attempts for s in retrying] == [1, 2]
    for n, state in enumerate(retrying, start=1):
        expected_code = "UNAVAILABLE" if kind == "unavailable" else "INVALID_ARGUMENT"
        assert state.error.code == expected_code
        assert f"f failure {n}" in state.error.message
        assert f"on attempt {n} of 3" in state.error.message
        # Full jitter: somewhere between 0 and the capped exponential (base 0.01s * 2^(n-1)).
        assert 0 <= state.retry_delay.ToNanoseconds() <= 0.01 * 2 ** (n - 1) * 1e9
        assert state.next_attempt_time.ToNanoseconds() >= state.start_time.ToNanoseconds()


async def test_permanent_error_fails_after_one_attempt(harness: Harness) -> None:
    run = await harness.create(step("s1", "flaky", label="p", failures=5, kind="permanent"))
    final, events = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert final.steps[0].attempts == 1
    assert harness.flaky.calls["p"] == 1
    assert final.error.message == "step s1 (flaky) failed: p failure 1"
    assert step_history(events, "s1") == ["RUNNING", "FAILED"]


async def test_exhausted_retries_fail_naming_the_attempts(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "flaky", label="e", failures=10, kind="retryable"), retry_policy=policy(max_attempts=3)
    )
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert final.steps[0].attempts == 3
    assert final.error.code == "INVALID_ARGUMENT"
    assert final.error.message == "step s1 (flaky) after 3 attempts failed: e failure 3"


async def test_unavailable_is_waited_for_past_max_attempts(harness: Harness) -> None:
    """A service restarting takes longer than the attempt budget: UNAVAILABLE is retried (with
    capped backoff) until it answers, and each wait is visible as a RETRYING step event."""
    run = await harness.create(
        step("s1", "flaky", label="w", failures=6), retry_policy=policy(max_attempts=2)
    )
    final, events = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED, final.error.message
    assert final.steps[0].attempts == 7
    assert harness.flaky.calls["w"] == 7
    assert step_history(events, "s1").count("RETRYING") == 6
    waits = [
        e.step_updated.step.error.message
        for e in events
        if e.WhichOneof("kind") == "step_updated" and e.step_updated.step.status == R.STEP_STATUS_RETRYING
    ]
    assert "on attempt 1 of 2" in waits[0]
    assert "on attempt 3 (unavailable: retried until the run's deadline)" in waits[2]


async def test_unavailable_forever_ends_at_the_run_deadline(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "flaky", label="down", failures=10_000),
        retry_policy=policy(max_attempts=2),
        timeout=duration_pb2.Duration(seconds=1),
    )
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert final.error.reason == "RUN_DEADLINE_EXCEEDED"
    assert harness.flaky.calls["down"] > 2


async def test_policy_precedence_run_over_tool_over_default(fast_settings: Settings) -> None:
    tuned = fast_settings.replace(tool_policies={"flaky": ToolPolicy(max_attempts=5)})
    h = Harness(tuned)
    await h.start()
    try:
        by_tool = await h.create(step("s1", "flaky", label="t", failures=4, kind="retryable"))
        final, _ = await h.finish(by_tool.run_id)
        assert final.status == R.RUN_STATUS_SUCCEEDED  # default 3 would have failed; the tool allows 5
        assert final.steps[0].attempts == 5

        by_run = await h.create(
            step("s1", "flaky", label="r", failures=4, kind="retryable"), retry_policy=policy(max_attempts=2)
        )
        final, _ = await h.finish(by_run.run_id)
        assert final.status == R.RUN_STATUS_FAILED
        assert final.steps[0].attempts == 2
    finally:
        await h.close()


async def test_hanging_tool_hits_the_step_deadline(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "gate", label="hang"), retry_policy=policy(max_attempts=2, step_timeout=0.2)
    )
    final, events = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert final.error.reason == "STEP_DEADLINE_EXCEEDED"
    assert final.error.step_id == "s1"
    assert (
        final.error.message
        == "step s1 (gate) after 2 attempts exceeded the step deadline (step timeout 0.2s)"
    )
    assert final.steps[0].attempts == 2
    assert step_history(events, "s1") == ["RUNNING", "RETRYING", "RUNNING", "FAILED"]


async def test_run_deadline_names_the_limit_and_the_step(harness: Harness) -> None:
    # Long enough that planning ends before it on a loaded machine (the gate holds s1 forever).
    timeout = R.CreateRunRequest().timeout
    timeout.FromSeconds(3)
    run = await harness.create(
        step("s1", "gate", label="slow"), step("s2", "echo", ("s1",), v=1), timeout=timeout
    )
    assert await harness.gate.next_started() == "slow"
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert final.error.reason == "RUN_DEADLINE_EXCEEDED"
    assert final.error.message == "run exceeded its deadline (timeout 3s) while step s1 was running"
    assert final.error.step_id == "s1"
    assert [s.status for s in final.steps] == [R.STEP_STATUS_CANCELLED, R.STEP_STATUS_SKIPPED]
    # The tool call was cancelled too; tools_svc hears of it a moment after the run's end.
    for _ in range(100):
        if harness.gate.cancelled:
            break
        await asyncio.sleep(0.05)
    assert harness.gate.cancelled == ["slow"]


async def test_max_steps_fails_with_the_limit_named(harness: Harness) -> None:
    run = await harness.create(*(step(f"s{i}", "echo", v=i) for i in range(3)), max_steps=2)
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert final.error.reason == "MAX_STEPS_EXCEEDED"
    assert "the plan has 3 steps, more than max_steps=2" in final.error.message


async def test_tools_service_restarted_within_the_retry_window(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "gate", label="a"),
        step("s2", "todo_store", ("s1",), action="add", text="after the outage"),
        retry_policy=policy(max_attempts=30, base=0.05, cap=0.2),
    )
    assert await harness.gate.next_started() == "a"
    port = await harness.stop_tools()  # the in-flight call fails UNAVAILABLE; retries start
    await harness.wait_step(run.run_id, "s1", R.STEP_STATUS_RETRYING)
    await asyncio.sleep(0.3)  # a few retries hit the closed port
    harness.gate.release("a")
    await harness.start_tools(port)
    final, events = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED, final.error.message
    assert final.steps[0].attempts >= 2
    assert step_history(events, "s1")[-1] == "SUCCEEDED"
    assert value_to_py(final.result)["todo"]["text"] == "after the outage"


async def test_independent_steps_really_overlap(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "gate", label="a"),
        step("s2", "gate", label="b"),
        step("s3", "echo", ("s1", "s2"), joined=True),
    )
    # Both gates are entered while neither has been released: the steps run at the same time.
    assert {await harness.gate.next_started(), await harness.gate.next_started()} == {"a", "b"}
    assert harness.gate.active == 2
    mid = (await harness.runs.GetRun(R.GetRunRequest(run_id=run.run_id))).run
    assert [s.status for s in mid.steps] == [
        R.STEP_STATUS_RUNNING,
        R.STEP_STATUS_RUNNING,
        R.STEP_STATUS_PENDING,
    ]
    harness.gate.release("a", "b")
    final, events = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED
    s3_start = final.steps[2].start_time.ToNanoseconds()
    assert s3_start >= max(final.steps[0].end_time.ToNanoseconds(), final.steps[1].end_time.ToNanoseconds())
    assert [e.seq for e in events] == list(range(1, len(events) + 1))


async def test_parallelism_is_bounded(fast_settings: Settings) -> None:
    h = Harness(fast_settings.replace(max_parallel_steps=2))
    await h.start()
    try:
        run = await h.create(*(step(f"s{i}", "gate", label=label) for i, label in enumerate("abc", 1)))
        first = {await h.gate.next_started(), await h.gate.next_started()}
        mid = (await h.runs.GetRun(R.GetRunRequest(run_id=run.run_id))).run
        assert sorted(s.status for s in mid.steps) == sorted(
            [R.STEP_STATUS_RUNNING, R.STEP_STATUS_RUNNING, R.STEP_STATUS_PENDING]
        )
        h.gate.release(*first)
        third = await h.gate.next_started()
        assert third not in first
        h.gate.release(third)
        final, _ = await h.finish(run.run_id)
        assert final.status == R.RUN_STATUS_SUCCEEDED
        assert h.gate.max_active == 2
    finally:
        await h.close()


async def test_a_failing_step_cancels_its_running_sibling(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "gate", label="a"),
        step("s2", "flaky", label="x", failures=1, kind="permanent"),
        step("s3", "echo", ("s1", "s2"), v=1),
    )
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert final.error.step_id == "s2"
    assert [s.status for s in final.steps] == [
        R.STEP_STATUS_CANCELLED,
        R.STEP_STATUS_FAILED,
        R.STEP_STATUS_SKIPPED,
    ]
    assert harness.gate.cancelled == ["a"]


async def test_step_references_are_resolved_just_before_the_step_runs(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "echo", value=5, items=[{"name": "x"}]),
        step(
            "s2",
            "echo",
            ("s1",),
            value={"$ref": "steps.s1.output.value"},
            text="got {{steps.s1.output.value}} and {{ steps.s1.output.items.0.name }}",
        ),
    )
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED, final.error.message
    assert value_to_py(final.result) == {"value": 5, "text": "got 5 and x"}
    assert struct_to_dict(final.steps[1].arguments) == {"value": 5, "text": "got 5 and x"}
    # The plan keeps the references themselves.
    assert struct_to_dict(final.plan.steps[1].arguments)["value"] == {"$ref": "steps.s1.output.value"}


async def test_unresolvable_reference_fails_the_step_permanently(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "echo", value=5), step("s2", "echo", ("s1",), v={"$ref": "steps.s1.output.nope"})
    )
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert final.error.reason == "INVALID_REFERENCE"
    assert "steps.s1.output has no 'nope'" in final.error.message


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        (
            [step("s1", "echo", v=1), step("s2", "echo", v={"$ref": "steps.s1.output.v"})],
            "step s2 references the output of step 's1', which it does not depend on",
        ),
        ([step("s1", "echo", ("s2",), v=1), step("s2", "echo", ("s1",), v=1)], "dependency cycle"),
        ([step("s1", "nope")], "unknown tool 'nope'"),
        ([step("s1", "echo", ("zz",))], "unknown step 'zz'"),
    ],
)
async def test_invalid_plans_are_rejected_before_any_step_runs(
    harness: Harness, steps: list, message: str
) -> None:
    run = await harness.create(*steps)
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert message in final.error.message
    assert not final.steps


async def test_retry_run_continues_from_where_it_stopped(harness: Harness) -> None:
    run = await harness.create(
        step("s1", "todo_store", action="add", text="kept once"),
        step("s2", "flaky", ("s1",), label="once", failures=1, kind="permanent"),
        step("s3", "echo", ("s2",), done=True),
    )
    failed, first_events = await harness.finish(run.run_id)
    assert failed.status == R.RUN_STATUS_FAILED
    assert [s.status for s in failed.steps] == [
        R.STEP_STATUS_SUCCEEDED,
        R.STEP_STATUS_FAILED,
        R.STEP_STATUS_SKIPPED,
    ]

    retried = (await harness.runs.RetryRun(R.RetryRunRequest(run_id=run.run_id))).run
    assert retried.run_id == run.run_id
    assert retried.retry_count == 1
    assert retried.status == R.RUN_STATUS_RUNNING
    final, all_events = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED, final.error.message
    assert [s.attempts for s in final.steps] == [1, 2, 1]
    assert final.steps[0].output == failed.steps[0].output  # kept, not re-run
    assert all_events[: len(first_events)] == first_events
    assert [e.seq for e in all_events] == list(range(1, len(all_events) + 1))
    # A watcher from the start passes the old FAILED event and ends at the final one.
    assert all_events[-1].status_changed.status == R.RUN_STATUS_SUCCEEDED
    todos = (await harness.create(step("s1", "todo_store", action="list"))).run_id
    listed, _ = await harness.finish(todos)
    assert [t["text"] for t in value_to_py(listed.result)["todos"]] == ["kept once"]

    with pytest.raises(grpc.aio.AioRpcError) as info:
        await harness.runs.RetryRun(R.RetryRunRequest(run_id=run.run_id))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert info.value.details() == (
        f"run {run.run_id} has already succeeded; only failed or cancelled runs can be retried"
    )


async def test_retry_run_after_cancel_and_after_failed_planning(harness: Harness) -> None:
    run = await harness.create(step("s1", "gate", label="a"))
    assert await harness.gate.next_started() == "a"
    await harness.runs.CancelRun(R.CancelRunRequest(run_id=run.run_id))
    harness.gate.release("a")
    await harness.runs.RetryRun(R.RetryRunRequest(run_id=run.run_id))
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED

    unplanned = await harness.create(step("s1", "nope"))
    failed, _ = await harness.finish(unplanned.run_id)
    assert failed.status == R.RUN_STATUS_FAILED and not failed.HasField("plan")
    harness.planner.plan = plan_pb2.Plan(steps=[step("s1", "echo", fixed=True)], planner="scripted")
    retried = (await harness.runs.RetryRun(R.RetryRunRequest(run_id=unplanned.run_id))).run
    assert retried.status == R.RUN_STATUS_PENDING
    final, _ = await harness.finish(unplanned.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED
    assert value_to_py(final.result) == {"fixed": True}


async def test_concurrent_retry_runs_restart_the_run_once(harness: Harness) -> None:
    run = await harness.create(step("s1", "flaky", label="c", failures=1, kind="permanent"))
    await harness.finish(run.run_id)
    results = await asyncio.gather(
        *(harness.runs.RetryRun(R.RetryRunRequest(run_id=run.run_id)) for _ in range(5)),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, Exception) for r in results) == 1
    final, _ = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED
    assert harness.flaky.calls["c"] == 2


async def test_a_watcher_that_never_reads_does_not_hold_up_the_run(harness: Harness) -> None:
    run = await harness.create(
        *(step(f"s{i}", "echo", (f"s{i - 1}",) if i > 1 else (), v=i) for i in range(1, 21))
    )
    stalled = harness.runs.WatchRun(R.WatchRunRequest(run_id=run.run_id))
    await stalled.read()  # connected, then never reads again
    for _ in range(200):
        current = (await harness.runs.GetRun(R.GetRunRequest(run_id=run.run_id))).run
        if current.status == R.RUN_STATUS_SUCCEEDED:
            break
        await asyncio.sleep(0.025)
    assert current.status == R.RUN_STATUS_SUCCEEDED
    stalled.cancel()


class ReplanningPlanner(ScriptedPlanner):
    """First plan fails at s2; the revised plan (asked with the failure) takes another route."""

    def __init__(self) -> None:
        super().__init__()
        self.replans: list[Any] = []

    async def CreatePlan(self, request: Any, context: Any) -> Any:
        if request.HasField("replan"):
            self.replans.append(request.replan)
            revised = plan_pb2.Plan(steps=[step("s1", "echo", note="recovered")], planner="scripted")
            revised.usage.llm_calls = 1
            return planner_service_pb2.CreatePlanResponse(plan=revised)
        return await super().CreatePlan(request, context)


async def test_replanning_after_a_failed_step(fast_settings: Settings) -> None:
    h = Harness(fast_settings.replace(replan_max=1))
    h.planner = ReplanningPlanner()
    await h.start()
    try:
        run = await h.create(
            step("s1", "todo_store", action="add", text="done before the failure"),
            step("s2", "flaky", ("s1",), label="boom", failures=5, kind="permanent"),
            step("s3", "echo", ("s2",), never=True),
        )
        final, events = await h.finish(run.run_id)
        assert final.status == R.RUN_STATUS_SUCCEEDED, final.error.message
        assert final.replan_count == 1
        assert value_to_py(final.result) == {"note": "recovered"}
        (context,) = h.planner.replans
        assert context.failure.step_id == "s2" and "boom failure 1" in context.failure.message
        assert [s.status for s in context.steps] == [
            R.STEP_STATUS_SUCCEEDED,
            R.STEP_STATUS_FAILED,
            R.STEP_STATUS_PENDING,
        ]
        replans = [
            e.plan_created for e in events if e.WhichOneof("kind") == "plan_created" and e.plan_created.replan
        ]
        assert len(replans) == 1 and "boom failure 1" in replans[0].reason
        assert final.usage.llm_calls == 1
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert step_history(events, "s3") == ["SKIPPED"]
    finally:
        await h.close()


async def test_replanning_is_off_by_default(harness: Harness) -> None:
    run = await harness.create(step("s1", "flaky", label="p", failures=5, kind="permanent"))
    final, events = await harness.finish(run.run_id)
    assert final.status == R.RUN_STATUS_FAILED
    assert final.replan_count == 0
    assert not [e for e in events if e.WhichOneof("kind") == "plan_created" and e.plan_created.replan]
