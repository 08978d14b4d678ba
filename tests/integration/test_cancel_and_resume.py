"""Cancellation and restart resume, with a scripted planner and a tool that blocks on demand."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from agentrt.config import Settings
from agentrt.grpcserver import BuiltServer, new_server
from agentrt.sqlite import SqliteDB
from agentrt.v1 import (
    plan_pb2,
    planner_service_pb2,
    planner_service_pb2_grpc,
    run_pb2,
    run_pb2_grpc,
    tool_service_pb2_grpc,
)
from agentrt.values import dict_to_struct, value_to_py
from executor_svc import server as executor_server
from tests.conftest import watch_all
from tools_svc import invocations
from tools_svc.invocations import InvocationLog
from tools_svc.registry import ToolRegistry
from tools_svc.service import ToolServicer

R = run_pb2


class Gate:
    """A tool that records each call, then waits until released (or is cancelled)."""

    def __init__(self) -> None:
        self.started: asyncio.Queue[str] = asyncio.Queue()
        self.releases: dict[str, asyncio.Event] = {}
        self.cancelled: list[str] = []
        self.completed: list[str] = []

    def release(self, label: str) -> None:
        self.releases.setdefault(label, asyncio.Event()).set()

    async def __call__(self, arguments: dict[str, Any]) -> dict[str, Any]:
        label = arguments["label"]
        await self.started.put(label)
        try:
            await self.releases.setdefault(label, asyncio.Event()).wait()
        except asyncio.CancelledError:
            self.cancelled.append(label)
            raise
        self.completed.append(label)
        return {"label": label}


class ScriptedPlanner(planner_service_pb2_grpc.PlannerServiceServicer):
    def __init__(self, plan: plan_pb2.Plan) -> None:
        self.plan = plan

    async def CreatePlan(self, request: Any, context: Any) -> planner_service_pb2.CreatePlanResponse:
        return planner_service_pb2.CreatePlanResponse(plan=self.plan)


def gate_plan(*labels: str) -> plan_pb2.Plan:
    steps = [
        plan_pb2.PlanStep(
            id=f"s{n}",
            tool="gate",
            arguments=dict_to_struct({"label": label}),
            depends_on=[f"s{n - 1}"] if n > 1 else [],
        )
        for n, label in enumerate(labels, start=1)
    ]
    return plan_pb2.Plan(steps=steps, planner="scripted")


class Harness:
    def __init__(self, settings: Settings, gate: Gate, servers: dict[str, BuiltServer]) -> None:
        self.settings = settings
        self.gate = gate
        self.servers = servers
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{servers['executor'].port}")
        self.runs = run_pb2_grpc.RunServiceStub(self.channel)

    async def restart_executor(self) -> None:
        port = self.servers["executor"].port
        await self.servers["executor"].stop(0)
        self.servers["executor"] = await executor_server.build_server(self.settings, port)
        await self.servers["executor"].start()

    async def wait_step(self, run_id: str, step_id: str, status: int) -> None:
        async for response in self.runs.WatchRun(R.WatchRunRequest(run_id=run_id)):
            step = response.event.step_updated.step
            if step.step_id == step_id and step.status == status:
                return
        raise AssertionError(f"run ended before {step_id} reached {status}")


@pytest.fixture
async def harness(settings: Settings) -> AsyncIterator[Harness]:
    gate = Gate()
    db = await SqliteDB.open(settings.data_dir / "tools.db", [invocations.MIGRATION])
    registry = ToolRegistry()
    registry.add_builtin(
        "gate",
        "waits until the test releases it",
        {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]},
        gate,
    )
    tools = new_server(
        "127.0.0.1",
        0,
        [
            (
                tool_service_pb2_grpc.add_ToolServiceServicer_to_server,
                ToolServicer(registry, InvocationLog(db)),
                "t",
            )
        ],
    )
    tools.cleanups.append(db.close)
    planner = new_server(
        "127.0.0.1",
        0,
        [
            (
                planner_service_pb2_grpc.add_PlannerServiceServicer_to_server,
                ScriptedPlanner(gate_plan("a", "b")),
                "p",
            )
        ],
    )
    await tools.start()
    await planner.start()
    settings = settings.model_copy(
        update={"tools_addr": f"127.0.0.1:{tools.port}", "planner_addr": f"127.0.0.1:{planner.port}"}
    )
    executor = await executor_server.build_server(settings, 0)
    await executor.start()
    h = Harness(settings, gate, {"tools": tools, "planner": planner, "executor": executor})
    try:
        yield h
    finally:
        for label in ("a", "b"):
            h.gate.release(label)
        await h.channel.close()
        for built in h.servers.values():
            await built.stop(0)


async def test_cancel_during_a_long_step_cancels_the_tool_call(harness: Harness) -> None:
    run = (await harness.runs.CreateRun(R.CreateRunRequest(prompt="two slow steps"))).run
    assert await asyncio.wait_for(harness.gate.started.get(), 5) == "a"

    cancelled = (await harness.runs.CancelRun(R.CancelRunRequest(run_id=run.run_id), timeout=5)).run
    assert cancelled.status == R.RUN_STATUS_CANCELLED
    assert [s.status for s in cancelled.steps] == [R.STEP_STATUS_CANCELLED, R.STEP_STATUS_SKIPPED]
    assert cancelled.error.reason == "RUN_CANCELLED"
    # The in-flight gRPC call was cancelled: the tool saw the cancellation and never finished.
    for _ in range(50):
        if harness.gate.cancelled:
            break
        await asyncio.sleep(0.02)
    assert harness.gate.cancelled == ["a"]
    assert harness.gate.completed == []

    events = await watch_all(harness.runs, run.run_id)
    assert events[-1].status_changed.status == R.RUN_STATUS_CANCELLED
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await harness.runs.CancelRun(R.CancelRunRequest(run_id=run.run_id))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_executor_restart_resumes_an_unfinished_run(harness: Harness) -> None:
    run = (await harness.runs.CreateRun(R.CreateRunRequest(prompt="two slow steps"))).run
    assert await asyncio.wait_for(harness.gate.started.get(), 5) == "a"
    harness.gate.release("a")
    await harness.wait_step(run.run_id, "s1", R.STEP_STATUS_SUCCEEDED)
    assert await asyncio.wait_for(harness.gate.started.get(), 5) == "b"

    await harness.restart_executor()  # s2 is in flight; the old executor is gone
    stored = (await harness.runs.GetRun(R.GetRunRequest(run_id=run.run_id))).run
    assert stored.status == R.RUN_STATUS_RUNNING

    assert await asyncio.wait_for(harness.gate.started.get(), 5) == "b"  # re-invoked after resume
    harness.gate.release("b")
    events = await watch_all(harness.runs, run.run_id)
    final = (await harness.runs.GetRun(R.GetRunRequest(run_id=run.run_id))).run
    assert final.status == R.RUN_STATUS_SUCCEEDED
    assert value_to_py(final.result) == {"label": "b"}
    assert [s.attempts for s in final.steps] == [1, 2]  # s1 kept, s2 re-run once
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert harness.gate.completed == ["a", "b"]
