"""RunService end to end in one process: gateway -> executor -> planner/tools, real gRPC."""

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agentrt.core.errors import ErrorDetails
from agentrt.core.runstate import is_terminal_event
from agentrt.core.values import struct_to_dict, value_to_py
from agentrt.v1 import run_pb2
from tests.conftest import Stack, watch_all

R = run_pb2


async def run_to_end(stack: Stack, prompt: str, **kw: object) -> tuple[run_pb2.Run, list[run_pb2.RunEvent]]:
    created = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt=prompt, **kw))).run  # type: ignore[arg-type]
    events = await watch_all(stack.gateway, created.run_id)
    run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run_id))).run
    return run, events


def shape(events: list[run_pb2.RunEvent]) -> list[str]:
    out = []
    for e in events:
        kind = e.WhichOneof("kind")
        if kind == "status_changed":
            out.append(R.RunStatus.Name(e.status_changed.status).removeprefix("RUN_STATUS_"))
        elif kind == "plan_created":
            out.append("PLAN")
        else:
            step = e.step_updated.step
            out.append(f"{step.step_id}:{R.StepStatus.Name(step.status).removeprefix('STEP_STATUS_')}")
    return out


@pytest.mark.parametrize(
    ("prompt", "value"),
    [("calculate (10 + 5) * 2", 30), ("Calculate (41 * 7) + 13", 300), ("divide 100 by 8", 12.5)],
)
async def test_arithmetic_seed_prompts(stack: Stack, prompt: str, value: float) -> None:
    run, events = await run_to_end(stack, prompt)
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    assert value_to_py(run.result)["value"] == value
    assert shape(events) == [
        "PENDING",
        "PLANNING",
        "PLAN",
        "RUNNING",
        "s1:RUNNING",
        "s1:SUCCEEDED",
        "SUCCEEDED",
    ]


async def test_multi_step_todo_prompt(stack: Stack) -> None:
    run, events = await run_to_end(stack, "Add a todo to buy milk, then show me all my tasks")
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    assert [t["text"] for t in value_to_py(run.result)["todos"]] == ["buy milk"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert run.last_seq == len(events)
    assert shape(events) == [
        "PENDING",
        "PLANNING",
        "PLAN",
        "RUNNING",
        "s1:RUNNING",
        "s1:SUCCEEDED",
        "s2:RUNNING",
        "s2:SUCCEEDED",
        "SUCCEEDED",
    ]
    assert is_terminal_event(events[-1]) and not any(is_terminal_event(e) for e in events[:-1])
    assert events[-1].status_changed.result == run.result
    # The stored run carries the plan and a state per step.
    assert run.plan.planner == "rules"
    assert [(s.step_id, s.tool, s.status, s.attempts) for s in run.steps] == [
        ("s1", "todo_store", R.STEP_STATUS_SUCCEEDED, 1),
        ("s2", "todo_store", R.STEP_STATUS_SUCCEEDED, 1),
    ]
    assert struct_to_dict(run.steps[0].arguments) == {"action": "add", "text": "buy milk"}
    assert list(run.steps[1].depends_on) == ["s1"]
    assert run.result == run.steps[-1].output
    for step in run.steps:
        assert step.start_time.ToNanoseconds() <= step.end_time.ToNanoseconds()
    assert run.create_time.ToNanoseconds() <= run.start_time.ToNanoseconds() <= run.end_time.ToNanoseconds()


async def test_gateway_and_executor_serve_the_same_run(stack: Stack) -> None:
    run, _ = await run_to_end(stack, "what is 41*7+13")
    direct = (await stack.executor.GetRun(R.GetRunRequest(run_id=run.run_id))).run
    assert direct == run


async def test_watch_resumes_from_every_after_seq_with_exactly_the_missing_suffix(stack: Stack) -> None:
    run, events = await run_to_end(stack, "add 3 and 4, then add a todo to check the sum, then list my todos")
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    for after in range(len(events) + 2):
        suffix = await watch_all(stack.gateway, run.run_id, after_seq=after)
        assert suffix == events[after:], f"after_seq={after}"


async def test_live_watchers_see_every_event_once_in_order(stack: Stack) -> None:
    created = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt="add 1 and 2 then list my tasks"))).run
    watchers = await asyncio.gather(*(watch_all(stack.gateway, created.run_id) for _ in range(5)))
    stored = await watch_all(stack.gateway, created.run_id)
    for seen in watchers:
        assert seen == stored
    assert [e.seq for e in stored] == list(range(1, len(stored) + 1))


async def test_unplannable_prompt_fails_the_run_saying_what_was_understood(stack: Stack) -> None:
    run, events = await run_to_end(stack, "calculate 2+2 and then book me a flight to Rome")
    assert run.status == R.RUN_STATUS_FAILED
    assert run.error.reason == "UNPLANNABLE"
    assert run.error.code == "INVALID_ARGUMENT"
    assert "'book me a flight to Rome'" in run.error.message
    assert "'calculate 2+2' -> calculator" in run.error.message
    assert not run.HasField("plan")
    assert shape(events) == ["PENDING", "PLANNING", "FAILED"]
    assert events[-1].status_changed.error == run.error


async def test_max_steps_is_enforced(stack: Stack) -> None:
    run, _ = await run_to_end(stack, "calculate 1+1 then calculate 2+2", max_steps=1)
    assert run.status == R.RUN_STATUS_FAILED
    assert "needs 2 steps but max_steps is 1" in run.error.message


async def test_failing_step_fails_the_run_and_skips_the_rest(stack: Stack) -> None:
    run, events = await run_to_end(stack, "divide 1 by 0 then add a todo to never happen")
    assert run.status == R.RUN_STATUS_FAILED
    assert run.error.step_id == "s1"
    assert run.error.reason == "TOOL_ERROR"
    assert "step s1 (calculator) failed: division by zero" in run.error.message
    assert [s.status for s in run.steps] == [R.STEP_STATUS_FAILED, R.STEP_STATUS_SKIPPED]
    assert run.steps[0].error.message == run.error.message
    assert shape(events)[-3:] == ["s1:FAILED", "s2:SKIPPED", "FAILED"]


async def test_idempotency_key_returns_the_same_run(stack: Stack) -> None:
    request = R.CreateRunRequest(prompt="add 2 and 2", idempotency_key="k-1")
    first, second = await asyncio.gather(stack.gateway.CreateRun(request), stack.gateway.CreateRun(request))
    third = await stack.gateway.CreateRun(request)
    assert first.run.run_id == second.run.run_id == third.run.run_id
    assert len((await stack.gateway.ListRuns(R.ListRunsRequest())).runs) == 1

    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.gateway.CreateRun(R.CreateRunRequest(prompt="add 3 and 3", idempotency_key="k-1"))
    details = ErrorDetails.from_rpc_error(info.value)
    assert details.code == grpc.StatusCode.ALREADY_EXISTS
    assert details.reason == "IDEMPOTENCY_KEY_REUSED"
    assert details.metadata["run_id"] == first.run.run_id


async def test_list_runs_pages_and_filters(stack: Stack) -> None:
    ids = []
    for i in range(5):
        run, _ = await run_to_end(stack, f"add {i} and 1" if i != 2 else "divide 1 by 0")
        ids.append(run.run_id)
    seen, token, pages = [], "", 0
    while True:
        page = await stack.gateway.ListRuns(R.ListRunsRequest(page_size=2, page_token=token))
        seen += [r.run_id for r in page.runs]
        pages += 1
        token = page.next_page_token
        if not token:
            break
    assert seen == list(reversed(ids))
    assert pages == 3
    failed = await stack.gateway.ListRuns(R.ListRunsRequest(status=R.RUN_STATUS_FAILED))
    assert [r.run_id for r in failed.runs] == [ids[2]]

    for bad in (R.ListRunsRequest(page_token="garbage!"), R.ListRunsRequest(page_size=-1)):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stack.gateway.ListRuns(bad)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (R.CreateRunRequest(prompt=""), "prompt"),
        (R.CreateRunRequest(prompt="   "), "prompt"),
        (R.CreateRunRequest(prompt="x" * 8001), "prompt"),
        (R.CreateRunRequest(prompt="add 1 and 1", max_steps=-1), "max_steps"),
        (R.CreateRunRequest(prompt="add 1 and 1", max_steps=101), "max_steps"),
        (R.CreateRunRequest(prompt="add 1 and 1", idempotency_key="k" * 201), "idempotency_key"),
    ],
)
async def test_bad_create_run_requests_are_invalid_argument(
    stack: Stack, request_: run_pb2.CreateRunRequest, field: str
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.gateway.CreateRun(request_)
    details = ErrorDetails.from_rpc_error(info.value)
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in details.violations] == [field]
    assert (await stack.gateway.ListRuns(R.ListRunsRequest())).runs == []


async def test_not_found_and_finished_runs(stack: Stack) -> None:
    for call in (
        stack.gateway.GetRun(R.GetRunRequest(run_id="missing")),
        stack.gateway.CancelRun(R.CancelRunRequest(run_id="missing")),
        watch_all(stack.gateway, "missing"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
    run, _ = await run_to_end(stack, "add 1 and 1")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.gateway.CancelRun(R.CancelRunRequest(run_id=run.run_id))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "already finished (succeeded)" in info.value.details()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await watch_all(stack.gateway, run.run_id, after_seq=-1)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_every_service_reports_health_per_service(stack: Stack) -> None:
    expected = {
        "gateway": "agentrt.v1.RunService",
        "executor": "agentrt.v1.RunService",
        "planner": "agentrt.v1.PlannerService",
        "tools": "agentrt.v1.ToolService",
    }
    for name, service in expected.items():
        health = health_pb2_grpc.HealthStub(stack.channel(name))
        for service_name in ("", service):
            response = await health.Check(health_pb2.HealthCheckRequest(service=service_name))
            assert response.status == health_pb2.HealthCheckResponse.SERVING, (name, service_name)


async def test_rule_planner_references_flow_through_to_the_tools(stack: Stack) -> None:
    run, _ = await run_to_end(stack, "calculate 2+3, then add a todo with the result")
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    assert struct_to_dict(run.plan.steps[1].arguments)["text"] == "{{steps.s1.output.value}}"
    todo = value_to_py(run.result)["todo"]
    assert todo["text"] == "5"  # the result itself, as text

    chained, _ = await run_to_end(stack, "calculate 2+3 then multiply the result by 4 then add 1 to it")
    assert chained.status == R.RUN_STATUS_SUCCEEDED, chained.error.message
    assert value_to_py(chained.result)["value"] == 21
    assert struct_to_dict(chained.steps[2].arguments) == {"expression": "1 + (20)"}


async def test_retry_run_through_the_gateway(stack: Stack) -> None:
    run, first = await run_to_end(stack, "add a todo to stay, then divide 1 by 0")
    assert run.status == R.RUN_STATUS_FAILED
    retried = (await stack.gateway.RetryRun(R.RetryRunRequest(run_id=run.run_id))).run
    assert retried.retry_count == 1
    events = await watch_all(stack.gateway, run.run_id, after_seq=len(first))
    assert [e.seq for e in events] == list(range(len(first) + 1, len(first) + len(events) + 1))
    final = (await stack.gateway.GetRun(R.GetRunRequest(run_id=run.run_id))).run
    assert final.status == R.RUN_STATUS_FAILED  # division by zero is permanent: it fails again
    assert [s.attempts for s in final.steps] == [1, 2]
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.gateway.RetryRun(R.RetryRunRequest(run_id="missing"))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
