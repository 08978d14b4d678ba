"""Fault-injection harness: the real executor against a scripted planner and a tools server
built from the real registry, servicer, idempotency log and todo store, plus test tools:

- gate {label}: records the call, then blocks until the test releases that label
- flaky {label, failures, kind}: fails `failures` times per label (kind: unavailable,
  retryable = a tool error flagged retryable, permanent), then succeeds
- echo {value, ...}: returns its arguments
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import grpc

from agentrt.config import Settings
from agentrt.core.annotations import hints
from agentrt.core.errors import ToolError, Unavailable
from agentrt.core.values import dict_to_struct
from agentrt.server.db import Database
from agentrt.server.grpcserver import BuiltServer, new_server
from agentrt.v1 import (
    plan_pb2,
    planner_service_pb2,
    planner_service_pb2_grpc,
    run_pb2,
    run_pb2_grpc,
)
from executor_svc import server as executor_server
from planner_svc.service import PlannerServicer
from tools_svc import server as tools_server
from tools_svc.registry import ToolRegistry

R = run_pb2
OBJECT = {"type": "object"}


class Gate:
    def __init__(self) -> None:
        self.started: asyncio.Queue[str] = asyncio.Queue()
        self.releases: dict[str, asyncio.Event] = {}
        self.cancelled: list[str] = []
        self.completed: list[str] = []
        self.active = 0
        self.max_active = 0

    def release(self, *labels: str) -> None:
        for label in labels:
            self.releases.setdefault(label, asyncio.Event()).set()

    async def next_started(self) -> str:
        return await asyncio.wait_for(self.started.get(), 5.0)

    async def __call__(self, arguments: dict[str, Any]) -> dict[str, Any]:
        label = arguments["label"]
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        await self.started.put(label)
        try:
            await self.releases.setdefault(label, asyncio.Event()).wait()
        except asyncio.CancelledError:
            self.cancelled.append(label)
            raise
        finally:
            self.active -= 1
        self.completed.append(label)
        return {"label": label}


class Flaky:
    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    async def __call__(self, arguments: dict[str, Any]) -> dict[str, Any]:
        label = arguments["label"]
        self.calls[label] += 1
        if self.calls[label] <= arguments["failures"]:
            message = f"{label} failure {self.calls[label]}"
            kind = arguments.get("kind", "unavailable")
            if kind == "unavailable":
                raise Unavailable(message)
            raise ToolError(message, retryable=kind == "retryable")
        return {"label": label, "calls": self.calls[label]}


async def echo(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


class ScriptedPlanner(planner_service_pb2_grpc.PlannerServiceServicer):
    def __init__(self) -> None:
        self.plan = plan_pb2.Plan()
        self.requests: list[planner_service_pb2.CreatePlanRequest] = []

    async def CreatePlan(self, request: Any, context: Any) -> planner_service_pb2.CreatePlanResponse:
        self.requests.append(request)
        return planner_service_pb2.CreatePlanResponse(plan=self.plan)


def step(step_id: str, tool: str, depends_on: tuple[str, ...] = (), **arguments: Any) -> plan_pb2.PlanStep:
    return plan_pb2.PlanStep(
        id=step_id, tool=tool, arguments=dict_to_struct(arguments), depends_on=depends_on
    )


class Harness:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.gate = Gate()
        self.flaky = Flaky()
        self.planner = ScriptedPlanner()
        self.servers: dict[str, BuiltServer] = {}
        self.channel: grpc.aio.Channel | None = None

    @property
    def runs(self) -> run_pb2_grpc.RunServiceStub:
        assert self.channel is not None
        return run_pb2_grpc.RunServiceStub(self.channel)

    async def start(self) -> None:
        await self.start_tools(0)
        # With an LLM configured (agent-loop tests), the real planner service decides the turns.
        servicer = (
            PlannerServicer(self.settings.planner) if self.settings.planner.llm_models else self.planner
        )
        planner = new_server(
            "127.0.0.1",
            0,
            [(planner_service_pb2_grpc.add_PlannerServiceServicer_to_server, servicer, "p")],
        )
        await planner.start()
        self.servers["planner"] = planner
        self.settings = self.settings.replace(
            tools_addr=f"127.0.0.1:{self.servers['tools'].port}", planner_addr=f"127.0.0.1:{planner.port}"
        )
        await self.start_executor(0)
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{self.servers['executor'].port}")

    def _builtins(self, db: Database) -> ToolRegistry:
        registry = tools_server.builtin_tools(db)
        # They change nothing outside the test: read-only, so no call waits for a person unless
        # a test asks for it (approval_policy "always").
        quiet = hints(read_only=True)
        registry.add_builtin("gate", "blocks until released", OBJECT, self.gate, annotations=quiet)
        registry.add_builtin("flaky", "fails, then succeeds", OBJECT, self.flaky, annotations=quiet)
        registry.add_builtin("echo", "returns its arguments", OBJECT, echo, annotations=quiet)
        return registry

    async def start_tools(self, port: int) -> None:
        built = await tools_server.build_server(self.settings.tools, port, builtins=self._builtins)
        await built.start()
        self.servers["tools"] = built

    async def stop_tools(self) -> int:
        built = self.servers.pop("tools")
        await built.stop(0)
        return built.port

    async def start_executor(self, port: int) -> None:
        self.servers["executor"] = await executor_server.build_server(self.settings.executor, port)
        await self.servers["executor"].start()

    async def restart_executor(self) -> None:
        port = self.servers["executor"].port
        await self.servers.pop("executor").stop(0)
        await self.start_executor(port)

    async def __aenter__(self) -> Harness:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        self.gate.release(*self.gate.releases, *[f"{c}" for c in "abcdefgh"])
        if self.channel is not None:
            await self.channel.close()
        for name in ("executor", "planner", "tools"):
            if name in self.servers:
                await self.servers.pop(name).stop(0)

    async def create(self, *steps: plan_pb2.PlanStep, **request: Any) -> run_pb2.Run:
        self.planner.plan = plan_pb2.Plan(steps=steps, planner="scripted")
        response = await self.runs.CreateRun(
            R.CreateRunRequest(prompt=request.pop("prompt", "scripted"), **request)
        )
        return response.run

    async def events(self, run_id: str, after_seq: int = 0) -> list[run_pb2.RunEvent]:
        stream = self.runs.WatchRun(R.WatchRunRequest(run_id=run_id, after_seq=after_seq), timeout=30)
        return [response.event async for response in stream]

    async def finish(self, run_id: str) -> tuple[run_pb2.Run, list[run_pb2.RunEvent]]:
        events = await self.events(run_id)
        return (await self.runs.GetRun(R.GetRunRequest(run_id=run_id))).run, events

    async def wait_step(self, run_id: str, step_id: str, status: int) -> run_pb2.StepState:
        async for response in self.runs.WatchRun(R.WatchRunRequest(run_id=run_id), timeout=30):
            state = response.event.step_updated.step
            if state.step_id == step_id and state.status == status:
                return state
        raise AssertionError(f"run ended before {step_id} reached {R.StepStatus.Name(status)}")


def step_history(events: list[run_pb2.RunEvent], step_id: str) -> list[str]:
    """The statuses a step went through, e.g. ['RUNNING', 'RETRYING', 'RUNNING', 'SUCCEEDED']."""
    return [
        R.StepStatus.Name(e.step_updated.step.status).removeprefix("STEP_STATUS_")
        for e in events
        if e.WhichOneof("kind") == "step_updated" and e.step_updated.step.step_id == step_id
    ]
