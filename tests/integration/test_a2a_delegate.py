"""A run that delegates to another agent over A2A: agentrt A mounts agentrt B (its card read at
B's gateway) and B's skills are tools of A's catalog; a call sends B one message and waits for
B's task to end. Two real stacks, in this process."""

from __future__ import annotations

import asyncio
import http.server
import itertools
import json
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import grpc
import pytest
import structlog

from agentrt.config import A2aAgentConfig, Settings
from agentrt.core.errors import ErrorDetails, Unavailable
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.tools_sdk import ToolProvider, tool
from agentrt.v1 import run_pb2, tool_pb2, tool_service_pb2
from tests.conftest import Stack, start_stack, watch_all

R = run_pb2


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[tuple[Stack, Stack]]:
    base = {"log_level": "warning", "step_timeout_s": 30, "shutdown_grace_s": 0.5}
    remote = await start_stack(Settings(data_dir=tmp_path / "b", **base))
    local = await start_stack(
        Settings(data_dir=tmp_path / "a", a2a_agents=[{"name": "helper", "url": remote.http}], **base)
    )
    try:
        yield local, remote
    finally:
        await local.close()
        await remote.close()


async def catalog(stack: Stack) -> dict[str, tool_pb2.Tool]:
    tools = (await stack.tools.ListTools(tool_service_pb2.ListToolsRequest())).tools
    return {t.name: t for t in tools}


async def mounted(stack: Stack) -> dict[str, tool_pb2.Tool]:
    async with asyncio.timeout(30):  # the card is read in the background, at start
        async for response in stack.tools.WatchTools(tool_service_pb2.WatchToolsRequest()):
            if "helper__task" in {t.name for t in response.tools}:
                return await catalog(stack)
    raise AssertionError("the catalog never listed helper__task")


async def run(stack: Stack, prompt: str) -> R.Run:
    created = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt=prompt))).run
    await watch_all(stack.gateway, created.run_id)
    return (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run_id))).run


def use(message: str) -> str:
    return f"use helper__task with {json.dumps({'message': message})}"


async def test_the_remote_agents_skills_are_tools_and_a_run_delegates_to_it(
    pair: tuple[Stack, Stack],
) -> None:
    local, remote = pair
    tools = await mounted(local)
    task = tools["helper__task"]
    assert task.source == tool_pb2.TOOL_SOURCE_A2A and task.a2a_agent == "helper" and task.a2a_skill == "task"
    assert "Run a task" in task.description
    skills = {t.a2a_skill: name for name, t in tools.items() if t.a2a_agent == "helper"}
    assert set(skills) == {"task", "tool:calculator", "tool:todo_store"}
    assert skills["tool:calculator"].startswith("helper__tool_calculator_")  # ':' does not fit a name

    done = await run(local, use("what is 6 times 7, then add the answer as a todo"))
    assert done.status == R.RUN_STATUS_SUCCEEDED, done.error.message
    output = value_to_py(done.steps[0].output)
    assert output["state"] == "completed" and output["answer"].startswith("6 * 7 = 42. Added '42'")
    # The work happened at the remote agent, as its run in a thread of its own (the A2A context).
    (theirs,) = (await remote.gateway.ListRuns(R.ListRunsRequest())).runs
    assert theirs.run_id == output["task_id"] and theirs.thread_id == output["context_id"]
    assert theirs.prompt == "what is 6 times 7, then add the answer as a todo"


async def test_one_idempotency_key_is_one_remote_task(pair: tuple[Stack, Stack]) -> None:
    local, remote = pair
    await mounted(local)
    request = tool_service_pb2.InvokeToolRequest(
        tool="helper__task",
        arguments=dict_to_struct({"message": "add call the plumber to my list"}),
        idempotency_key="run-1:s1",
    )
    first = value_to_py((await local.tools.InvokeTool(request)).output)
    again = value_to_py((await local.tools.InvokeTool(request)).output)
    assert again == first
    runs = (await remote.gateway.ListRuns(R.ListRunsRequest())).runs
    assert [r.run_id for r in runs] == [first["task_id"]]


async def test_a_task_the_agent_refuses_fails_the_step_saying_why(pair: tuple[Stack, Stack]) -> None:
    local, _ = pair
    await mounted(local)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await local.tools.InvokeTool(
            tool_service_pb2.InvokeToolRequest(
                tool="helper__task", arguments=dict_to_struct({"message": "what's the weather in Oslo?"})
            )
        )
    details = ErrorDetails.from_rpc_error(refused.value)
    assert details.reason == "A2A_AGENT_FAILED" and "rejected" in details.message
    bad = tool_service_pb2.InvokeToolRequest(tool="helper__task", arguments=dict_to_struct({"message": ""}))
    with pytest.raises(grpc.aio.AioRpcError) as invalid:
        await local.tools.InvokeTool(bad)
    assert ErrorDetails.from_rpc_error(invalid.value).reason == "INVALID_TOOL_ARGUMENTS"


async def test_an_agent_that_cannot_be_reached_is_unavailable_not_unknown(tmp_path: Path) -> None:
    stack = await start_stack(
        Settings(
            data_dir=tmp_path / "a",
            log_level="warning",
            a2a_agents=[{"name": "gone", "url": "http://127.0.0.1:9"}],  # nothing listens on port 9
            a2a_card_timeout_s=2,
        )
    )
    try:
        with pytest.raises(grpc.aio.AioRpcError) as down:
            await stack.tools.InvokeTool(
                tool_service_pb2.InvokeToolRequest(
                    tool="gone__task", arguments=dict_to_struct({"message": "hi"})
                )
            )
        details = ErrorDetails.from_rpc_error(down.value)
        assert details.code == grpc.StatusCode.UNAVAILABLE and details.reason == "A2A_AGENT_UNAVAILABLE"
        assert "gone" in details.message
    finally:
        await stack.close()


class Gate:
    """A tool of the remote agent that holds its task until the test opens the gate."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.entered = asyncio.Event()

        @tool(name="wait_for_gate", version="1.0.0")
        async def wait_for_gate(label: str) -> dict[str, str]:
            """Waits until the gate opens.

            Args:
                label: Said back.
            """
            self.entered.set()
            await self.opened.wait()
            return {"gate": f"open for {label}"}

        self.tool = wait_for_gate


@pytest.fixture
async def gate(pair: tuple[Stack, Stack]) -> AsyncIterator[Gate]:
    _, remote = pair
    held = Gate()
    provider = ToolProvider([held.tool], tools_addr=f"127.0.0.1:{remote.port('tools')}", ttl_s=5.0)
    await provider.start()
    try:
        yield held
    finally:
        held.opened.set()
        await provider.stop(0)


GATED = 'use wait_for_gate with {"label": "A"}'


async def test_a_call_made_again_waits_on_the_task_its_first_attempt_started(
    pair: tuple[Stack, Stack], gate: Gate
) -> None:
    local, remote = pair
    await mounted(local)
    request = tool_service_pb2.InvokeToolRequest(
        tool="helper__task",
        arguments=dict_to_struct({"message": GATED}),
        idempotency_key="run-7/s1",
        context=tool_pb2.CallContext(
            principal="local", run_id="run-7", step_id="s1", idempotency_key="run-7/s1"
        ),
    )
    # The first attempt's caller goes away (a deadline here; an executor restart alike) while
    # the remote task waits at the gate.
    with pytest.raises(grpc.aio.AioRpcError):
        await local.tools.InvokeTool(request, timeout=3)
    assert gate.entered.is_set()
    with structlog.testing.capture_logs() as logs:
        again = asyncio.ensure_future(local.tools.InvokeTool(request, timeout=30))
        await asyncio.sleep(0.5)
        gate.opened.set()
        output = value_to_py((await again).output)
    assert output["state"] == "completed" and "open for A" in output["answer"]
    assert [e for e in logs if e["event"] == "a2a.reattached"]  # asked for the task; sent nothing
    (theirs,) = (await remote.gateway.ListRuns(R.ListRunsRequest())).runs
    assert theirs.run_id == output["task_id"]


async def test_cancelling_a_run_cancels_the_remote_task_it_started(
    pair: tuple[Stack, Stack], gate: Gate
) -> None:
    local, remote = pair
    await mounted(local)
    created = (await local.gateway.CreateRun(R.CreateRunRequest(prompt=use(GATED)))).run
    async with asyncio.timeout(30):
        await gate.entered.wait()
    (theirs,) = (await remote.gateway.ListRuns(R.ListRunsRequest())).runs
    cancelled = (await local.gateway.CancelRun(R.CancelRunRequest(run_id=created.run_id))).run
    assert cancelled.status == R.RUN_STATUS_CANCELLED
    remote_run = (await remote.gateway.GetRun(R.GetRunRequest(run_id=theirs.run_id))).run
    assert remote_run.status == R.RUN_STATUS_CANCELLED  # cancelled there before CancelRun returned here
    # Another principal's run id cancels nothing of this one's (and a call with no run is refused).
    other = tool_service_pb2.CancelInvocationsRequest(
        context=tool_pb2.CallContext(principal="someone-else", run_id=created.run_id)
    )
    assert (await local.tools.CancelInvocations(other)).cancelled == 0
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await local.tools.CancelInvocations(tool_service_pb2.CancelInvocationsRequest())
    assert missing.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_the_remote_tasks_progress_shows_on_the_step_as_it_goes(
    pair: tuple[Stack, Stack], gate: Gate
) -> None:
    local, _ = pair
    await mounted(local)
    created = (await local.gateway.CreateRun(R.CreateRunRequest(prompt=use(GATED)))).run
    events: list[R.RunEvent] = []
    progressed = asyncio.Event()

    async def watch() -> None:
        async for response in local.gateway.WatchRun(R.WatchRunRequest(run_id=created.run_id), timeout=60):
            events.append(response.event)
            if (
                response.event.HasField("step_progress")
                and "wait_for_gate" in response.event.step_progress.message
            ):
                progressed.set()

    watching = asyncio.ensure_future(watch())
    async with asyncio.timeout(30):
        await progressed.wait()  # while the remote task is still at the gate
    gate.opened.set()
    await watching
    progress = [e for e in events if e.HasField("step_progress")]
    assert all(e.transient and e.step_progress.step_id == "s1" for e in progress)
    said = [e.step_progress.message for e in progress]
    assert "working: running wait_for_gate (step s1)" in said
    assert all(a != b for a, b in itertools.pairwise(said))  # a report when the words change
    stored = [e.seq for e in events if not e.transient]
    assert stored == list(range(1, len(stored) + 1))  # progress takes no place among stored events
    assert events[-1].status_changed.status == R.RUN_STATUS_SUCCEEDED


async def test_a_streamed_call_fails_the_step_with_the_agents_reason(pair: tuple[Stack, Stack]) -> None:
    local, _ = pair
    await mounted(local)  # in the held catalog: the step's call is InvokeToolStream
    failed = await run(local, use("what's the weather in Oslo?"))
    assert failed.status == R.RUN_STATUS_FAILED
    (step,) = failed.steps
    assert step.error.reason == "A2A_AGENT_FAILED" and "rejected" in step.error.message


def _serve_card(make: Callable[[str], dict[str, object]]) -> tuple[http.server.HTTPServer, str]:
    """A plain HTTP server on port 0 whose agent card is `make(its own origin)`."""
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    body = json.dumps(make(origin)).encode()

    class Card(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/.well-known/agent-card.json" else 404)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server.RequestHandlerClass = Card
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, origin


def _card(*urls: str) -> dict[str, object]:
    from a2a.types import AgentCard, AgentInterface, AgentSkill  # noqa: PLC0415
    from google.protobuf import json_format  # noqa: PLC0415

    interfaces = [AgentInterface(url=u, protocol_binding="JSONRPC", protocol_version="1.0") for u in urls]
    skill = AgentSkill(id="task", name="Task", description="d", tags=["t"])
    made = AgentCard(name="x", description="d", version="1", supported_interfaces=interfaces, skills=[skill])
    return json_format.MessageToDict(made)


async def test_calls_go_only_to_an_interface_on_the_configured_origin(tmp_path: Path) -> None:
    from tools_svc.a2a.agents import A2aAgent, Mount  # noqa: PLC0415

    settings = Settings(data_dir=tmp_path).tools
    # The first interface listed is on another host (the SDK would pick it): only ours is kept.
    server, origin = _serve_card(lambda origin: _card("http://attacker.example/a2a", f"{origin}/a2a"))
    try:
        agent = A2aAgent(Mount.of(A2aAgentConfig(name="x", url=origin)), settings, tasks=None)  # type: ignore[arg-type]
        await agent.read_card()
        assert [i.url for i in agent._card.supported_interfaces] == [f"{origin}/a2a"]
        assert list(agent.tools) == ["x__task"]
    finally:
        server.shutdown()
    # None on the configured origin: no tools, and the error says why.
    server, origin = _serve_card(lambda origin: _card("http://attacker.example/a2a"))
    try:
        agent = A2aAgent(Mount.of(A2aAgentConfig(name="x", url=origin)), settings, tasks=None)  # type: ignore[arg-type]
        with pytest.raises(Unavailable) as refused:
            await agent.read_card()
        assert "no JSON-RPC interface" in refused.value.message and not agent.tools
    finally:
        server.shutdown()
