"""Tools from MCP servers, over real sessions: `mcp-server-time` from PyPI over stdio, and a server
written with the SDK (tests/mcp_server.py) over Streamable HTTP in its own process, which the
tests grow, kill and restart. Nothing of the protocol is mocked."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from pydantic import SecretStr

from agentrt.config import LLMModel, McpServerConfig, Settings
from agentrt.core.values import dict_to_struct, duration_of, value_to_py
from agentrt.v1 import agent_pb2, run_pb2, tool_pb2, tool_service_pb2
from tests.conftest import Stack, start_stack, watch_all
from tests.integration.test_agent_loop import last_tool_results
from tests.integration.test_providers import rpc_error
from tests.integration.test_providers import spec as provider_spec
from tests.mcp_process import McpServerProcess
from tests.scripted_llm import Reply, ScriptedLLM, answer, call

R = run_pb2
T = tool_service_pb2
AGENT = agent_pb2.RUN_MODE_AGENT
TOKEN = "mount-token"
AUTH = (("authorization", f"Bearer {TOKEN}"),)
TIME_SERVER = McpServerConfig(
    name="time",
    command=str(Path(sys.executable).parent / "mcp-server-time"),
    args=["--local-timezone", "UTC"],
)
# Notice a dead server and reconnect quickly: the tests wait for both.
FAST = {"mcp_ping_interval_s": 0.3, "mcp_reconnect_max_s": 0.5}


async def until(check: Callable[[], Awaitable[Any]], what: str, seconds: float = 60) -> Any:
    """Poll `check` until it returns something true; fail saying what never happened."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not (result := await check()):
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)
    return result


async def server_state(stack: Stack, name: str) -> T.McpServer | None:
    # wait_for_ready: after a restart, gRPC's shared subchannel may still be backing off.
    servers = (await stack.tools.ListMcpServers(T.ListMcpServersRequest(), wait_for_ready=True)).servers
    return next((s for s in servers if s.name == name), None)


async def connected(stack: Stack, name: str) -> T.McpServer:
    async def check() -> T.McpServer | None:
        server = await server_state(stack, name)
        return server if server and server.state == T.MCP_SERVER_STATE_CONNECTED else None

    return await until(check, f"MCP server {name} to connect")


async def catalog(stack: Stack) -> dict[str, tool_pb2.Tool]:
    return {t.name: t for t in (await stack.tools.ListTools(T.ListToolsRequest())).tools}


async def invoke(stack: Stack, tool: str, key: str = "", **arguments: Any) -> Any:
    request = T.InvokeToolRequest(tool=tool, arguments=dict_to_struct(arguments), idempotency_key=key)
    return value_to_py((await stack.tools.InvokeTool(request, timeout=20)).output)


def one_call(tool: str, then: Callable[[Any], str], **arguments: Any) -> Callable[[dict[str, Any]], Reply]:
    """A scripted model that calls `tool` once, then answers with `then(the tool's result)`."""

    def model(request: dict[str, Any]) -> Reply:
        results = last_tool_results(request)
        return answer(then(results[0])) if results else call(tool, **arguments)

    return model


async def agent_run(stack: Stack, prompt: str, **request: Any) -> R.Run:
    created = await stack.gateway.CreateRun(R.CreateRunRequest(prompt=prompt, mode=AGENT, **request))
    await watch_all(stack.gateway, created.run.run_id)
    return (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run.run_id))).run


async def mount(stack: Stack, server: McpServerProcess, name: str = "t") -> T.McpServer:
    request = T.MountMcpServerRequest(name=name, url=server.url, headers={"x-test": "yes"})
    await stack.tools.MountMcpServer(request, metadata=AUTH)
    return await connected(stack, name)


@pytest.fixture
async def mcp_server() -> AsyncIterator[McpServerProcess]:
    server = McpServerProcess()
    await server.start()
    yield server
    await server.kill()


@pytest.fixture
async def stack(settings: Settings, llm: ScriptedLLM) -> AsyncIterator[Stack]:
    built = await start_stack(
        settings.replace(
            llm_models=[LLMModel(**llm.model())],
            registration_token=SecretStr(TOKEN),
            mcp_servers=[TIME_SERVER],
            **FAST,
        )
    )
    yield built
    await built.close()


async def test_a_pypi_server_over_stdio_serves_an_agent_run_through_the_gateway(
    stack: Stack, llm: ScriptedLLM
) -> None:
    server = await connected(stack, "time")
    assert server.transport == "stdio" and server.origin == "config"
    assert server.server_info.startswith("mcp-time ")
    assert sorted(server.tools) == ["time__convert_time", "time__get_current_time"]
    tools = await catalog(stack)
    now = tools["time__get_current_time"]
    assert now.source == tool_pb2.TOOL_SOURCE_MCP and now.health == tool_pb2.TOOL_HEALTH_HEALTHY
    assert (now.mcp_server, now.mcp_tool) == ("time", "get_current_time")
    assert "timezone" in value_to_py(now.input_schema.fields["properties"])  # type: ignore[arg-type]
    assert now.HasField("output_schema")
    # MCP's hints, as the server declared them.
    assert now.annotations.read_only_hint and not now.annotations.open_world_hint
    assert now.annotations.idempotent_hint
    # convert_time's output schema uses a local $ref: accepted, like a provider's.
    assert tools["time__convert_time"].HasField("output_schema")

    llm.script = one_call(
        "time__get_current_time",
        lambda now: f"In Tokyo it is {now['datetime']} ({now['day_of_week']}).",
        timezone="Asia/Tokyo",
    )
    run = await agent_run(stack, "what time is it in Tokyo?")
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    (step,) = run.steps
    output = value_to_py(step.output)
    assert output["timezone"] == "Asia/Tokyo" and output["datetime"].endswith("+09:00")
    assert run.answer == f"In Tokyo it is {output['datetime']} ({output['day_of_week']})."
    # A read-only tool: the default approval policy (destructive) did not stop for it.
    assert not step.HasField("approval")


async def test_an_is_error_result_is_a_tool_error_the_model_sees(stack: Stack, llm: ScriptedLLM) -> None:
    await connected(stack, "time")
    details = await rpc_error(
        stack.tools.InvokeTool(
            T.InvokeToolRequest(
                tool="time__get_current_time", arguments=dict_to_struct({"timezone": "Mars/Base"})
            )
        )
    )
    assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "TOOL_ERROR")
    assert "Invalid timezone" in details.message and "Mars/Base" in details.message

    llm.script = one_call(
        "time__get_current_time", lambda error: f"That failed: {error}", timezone="Mars/Base"
    )
    run = await agent_run(stack, "what time is it on Mars?")
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    assert run.steps[0].status == R.STEP_STATUS_FAILED and run.steps[0].error.reason == "TOOL_ERROR"
    assert "Invalid timezone" in run.answer


async def test_arguments_are_checked_against_the_servers_schema_before_the_call(stack: Stack) -> None:
    await connected(stack, "time")
    details = await rpc_error(
        stack.tools.InvokeTool(
            T.InvokeToolRequest(tool="time__get_current_time", arguments=dict_to_struct({}))
        )
    )
    assert details.reason == "INVALID_TOOL_ARGUMENTS" and "timezone" in details.message


async def test_runtime_mounts_are_guarded(stack: Stack, mcp_server: McpServerProcess) -> None:
    request = T.MountMcpServerRequest(name="t", url=mcp_server.url)
    for metadata in ((), (("authorization", "Bearer wrong"),)):
        details = await rpc_error(stack.tools.MountMcpServer(request, metadata=metadata))
        assert details.code == grpc.StatusCode.UNAUTHENTICATED
    for bad, code, reason in (
        (
            T.MountMcpServerRequest(name="t", url="http://10.1.2.3/mcp"),
            "PERMISSION_DENIED",
            "ENDPOINT_NOT_ALLOWED",
        ),
        (T.MountMcpServerRequest(name="t", url="file:///etc/passwd"), "INVALID_ARGUMENT", "INVALID_MCP_URL"),
        (
            T.MountMcpServerRequest(name="T__x", url=mcp_server.url),
            "INVALID_ARGUMENT",
            "INVALID_MCP_SERVER_NAME",
        ),
        (T.MountMcpServerRequest(name="time", url=mcp_server.url), "ALREADY_EXISTS", "MCP_SERVER_NAME_TAKEN"),
        (
            T.MountMcpServerRequest(name="t", url=mcp_server.url, headers={"bad header": "x"}),
            "INVALID_ARGUMENT",
            "INVALID_ARGUMENT",
        ),
    ):
        details = await rpc_error(stack.tools.MountMcpServer(bad, metadata=AUTH))
        assert (details.code.name, details.reason) == (code, reason), details.message
    details = await rpc_error(
        stack.tools.UnmountMcpServer(T.UnmountMcpServerRequest(name="time"), metadata=AUTH)
    )
    assert details.reason == "MCP_SERVER_CONFIGURED"
    assert [s.name for s in (await stack.tools.ListMcpServers(T.ListMcpServersRequest())).servers] == ["time"]
    # Nothing in the API can start a command: the request has no field for one.
    assert set(T.MountMcpServerRequest.DESCRIPTOR.fields_by_name) == {
        "name",
        "url",
        "headers",
        "replace",
        "principal_headers",
        "caller_signing_secret",
    }


async def test_an_http_server_mounted_at_runtime_grows_and_a_run_uses_the_new_tool(
    stack: Stack, llm: ScriptedLLM, mcp_server: McpServerProcess
) -> None:
    watch = stack.tools.WatchTools(T.WatchToolsRequest())
    snapshot = await watch.read()
    assert snapshot.change == T.TOOL_CHANGE_TYPE_SNAPSHOT
    server = await mount(stack, mcp_server)
    assert (server.transport, server.origin, server.target) == ("streamable_http", "runtime", mcp_server.url)
    assert server.protocol_version and server.server_info == "agentrt-test-server 1.0.0"
    # Names that do not fit our rule are made to fit, with a digest of the original.
    fail_name = next(n for n in server.tools if n.startswith("t__fail_loudly_"))
    assert sorted(server.tools) == sorted(
        ["t__add_note", "t__big", "t__echo", fail_name, "t__slow", "t__whoami"]
    )
    tools = await catalog(stack)
    assert tools[fail_name].mcp_tool == "Fail-Loudly"
    # The configured "time" server connects on its own schedule: its tools may be announced on
    # this watch too (they were, once, instead of these), so only this mount's count here.
    added: set[str] = set()
    while len(added) < len(server.tools):
        message = await watch.read()
        if message.change == T.TOOL_CHANGE_TYPE_ADDED:
            added |= {t.name for t in message.tools if t.name.startswith("t__")}
    assert added == set(server.tools)

    # The server announces a new tool (tools list_changed): the catalog and watchers follow.
    assert "shout" in await mcp_server.grow()
    while True:
        message = await watch.read()
        names = {t.name for t in message.tools if t.name.startswith("t__")}
        if message.change == T.TOOL_CHANGE_TYPE_ADDED and names:
            assert names == {"t__shout"}
            break
    watch.cancel()

    # An isError result from this server too: a tool error with its message.
    details = await rpc_error(
        stack.tools.InvokeTool(
            T.InvokeToolRequest(tool=fail_name, arguments=dict_to_struct({"reason": "test"}))
        )
    )
    assert (details.reason, details.retryable) == ("TOOL_ERROR", False)
    assert "refused on purpose: test" in details.message

    llm.script = one_call("t__shout", lambda said: f"The server said {said['result']}", text="hello mcp")
    run = await agent_run(stack, "shout hello mcp")
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    # The SDK wraps a tool's plain return value as structuredContent {"result": ...}.
    assert value_to_py(run.steps[0].output) == {"result": "HELLO MCP"}
    assert run.answer == "The server said HELLO MCP"
    assert "shout:hello mcp" in (await mcp_server.state())["calls"]


async def test_a_server_that_crashes_is_reconnected_and_calls_fail_unavailable_meanwhile(
    stack: Stack, llm: ScriptedLLM, mcp_server: McpServerProcess
) -> None:
    await mount(stack, mcp_server)
    assert await invoke(stack, "t__echo", text="before") == {"result": "before"}
    await mcp_server.kill()

    async def down() -> bool:
        server = await server_state(stack, "t")
        return server is not None and server.state == T.MCP_SERVER_STATE_DISCONNECTED

    await until(down, "the server to be seen disconnected")
    server = await server_state(stack, "t")
    assert server is not None and server.last_error
    # Its tools stay listed, unhealthy; calls fail UNAVAILABLE, which the executor retries.
    tools = await catalog(stack)
    assert tools["t__echo"].health == tool_pb2.TOOL_HEALTH_UNREACHABLE
    details = await rpc_error(
        stack.tools.InvokeTool(T.InvokeToolRequest(tool="t__echo", arguments=dict_to_struct({"text": "x"})))
    )
    assert (details.code, details.reason, details.retryable) == (
        grpc.StatusCode.UNAVAILABLE,
        "MCP_SERVER_UNAVAILABLE",
        True,
    )

    # A run started during the outage retries the call until the server is back.
    llm.script = one_call("t__echo", lambda echoed: f"echoed {echoed['result']}", text="during")
    created = await stack.gateway.CreateRun(
        R.CreateRunRequest(
            prompt="echo during",
            mode=AGENT,
            retry_policy=R.RetryPolicy(
                max_attempts=100, base_delay=duration_of(0.2), max_delay=duration_of(0.5)
            ),
        )
    )

    async def retried() -> bool:
        run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run.run_id))).run
        return bool(run.steps) and run.steps[0].attempts >= 2

    await until(retried, "the step to be retried while the server is down")
    await mcp_server.start()  # the same port, a new process: agentrt is not restarted
    await connected(stack, "t")
    assert (await catalog(stack))["t__echo"].health == tool_pb2.TOOL_HEALTH_HEALTHY
    assert await invoke(stack, "t__echo", text="after") == {"result": "after"}
    await watch_all(stack.gateway, created.run.run_id)
    run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run.run_id))).run
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    assert run.answer == "echoed during" and run.steps[0].attempts >= 2


async def test_cancelling_a_run_cancels_the_call_on_the_server(
    stack: Stack, llm: ScriptedLLM, mcp_server: McpServerProcess
) -> None:
    await mount(stack, mcp_server)
    llm.script = lambda request: call("t__slow", seconds=120, tag="cancel-me")
    created = await stack.gateway.CreateRun(R.CreateRunRequest(prompt="wait a long time", mode=AGENT))

    async def started() -> bool:
        return "slow:cancel-me" in (await mcp_server.state())["calls"]

    await until(started, "the slow call to reach the server")
    await stack.gateway.CancelRun(R.CancelRunRequest(run_id=created.run.run_id))

    async def cancelled() -> bool:
        return "cancel-me" in (await mcp_server.state())["cancelled"]

    await until(cancelled, "the server to see the call cancelled")
    run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run.run_id))).run
    assert run.status == R.RUN_STATUS_CANCELLED


async def test_the_step_deadline_reaches_the_server_as_a_cancellation(
    stack: Stack, mcp_server: McpServerProcess
) -> None:
    await mount(stack, mcp_server)
    request = T.InvokeToolRequest(tool="t__slow", arguments=dict_to_struct({"seconds": 120, "tag": "late"}))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.tools.InvokeTool(request, timeout=1.0)
    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED

    async def cancelled() -> bool:
        return "late" in (await mcp_server.state())["cancelled"]

    await until(cancelled, "the server to see the call cancelled")


async def test_an_idempotency_key_makes_a_repeated_call_run_once(
    stack: Stack, mcp_server: McpServerProcess
) -> None:
    await mount(stack, mcp_server)
    first = await invoke(stack, "t__add_note", key="run-1/t1-1", note="milk")
    again = await invoke(stack, "t__add_note", key="run-1/t1-1", note="milk")
    assert first == again == {"kept": "milk"}
    assert (await mcp_server.state())["calls"].count("add_note:milk") == 1
    # A different key is a different call.
    await invoke(stack, "t__add_note", key="run-1/t1-2", note="milk")
    assert (await mcp_server.state())["calls"].count("add_note:milk") == 2


async def test_the_call_context_reaches_the_server_in_meta(
    stack: Stack, mcp_server: McpServerProcess
) -> None:
    await mount(stack, mcp_server)
    request = T.InvokeToolRequest(
        tool="t__whoami",
        idempotency_key="run-9/t1-1",
        context=tool_pb2.CallContext(principal="alice", run_id="run-9", step_id="t1-1", attempt=2),
    )
    assert value_to_py((await stack.tools.InvokeTool(request, timeout=20)).output) == {
        "agentrt/principal": "alice",
        "agentrt/run_id": "run-9",
        "agentrt/step_id": "t1-1",
        "agentrt/attempt": 2,
        "agentrt/idempotency_key": "run-9/t1-1",
    }
    # A call from no run: `local`'s, every key there all the same.
    assert await invoke(stack, "t__whoami") == {
        "agentrt/principal": "local",
        "agentrt/run_id": "",
        "agentrt/step_id": "",
        "agentrt/attempt": 0,
        "agentrt/idempotency_key": "",
    }


async def test_mcp_annotations_drive_approvals(
    stack: Stack, llm: ScriptedLLM, mcp_server: McpServerProcess
) -> None:
    """add_note declares a write that destroys nothing: the default policy lets it run, the
    "writes" policy stops it for a person."""
    await mount(stack, mcp_server)
    note = (await catalog(stack))["t__add_note"].annotations
    assert note.HasField("read_only_hint") and not note.read_only_hint and not note.destructive_hint
    llm.script = one_call("t__add_note", lambda _: "noted", note="approve me")
    created = await stack.gateway.CreateRun(
        R.CreateRunRequest(prompt="note this", mode=AGENT, approval_policy=R.APPROVAL_POLICY_WRITES)
    )

    async def waiting() -> R.Run | None:
        run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run.run_id))).run
        return run if run.status == R.RUN_STATUS_WAITING else None

    run = await until(waiting, "the run to wait for approval")
    assert "add_note:approve me" not in (await mcp_server.state())["calls"]
    await stack.gateway.ApproveStep(R.ApproveStepRequest(run_id=run.run_id, step_id=run.steps[0].step_id))
    await watch_all(stack.gateway, run.run_id)
    run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=run.run_id))).run
    assert run.status == R.RUN_STATUS_SUCCEEDED and run.answer == "noted"
    assert (await mcp_server.state())["calls"].count("add_note:approve me") == 1


async def test_runtime_mounts_survive_a_restart_and_unmount_removes_the_tools(
    stack: Stack, mcp_server: McpServerProcess
) -> None:
    await mount(stack, mcp_server)
    details = await rpc_error(
        stack.tools.MountMcpServer(T.MountMcpServerRequest(name="t", url=mcp_server.url), metadata=AUTH)
    )
    assert details.code == grpc.StatusCode.ALREADY_EXISTS
    # A provider cannot register a tool into a mounted server's namespace.
    details = await rpc_error(
        stack.tools.RegisterTool(
            T.RegisterToolRequest(spec=provider_spec("t__echo"), endpoint="127.0.0.1:1"), metadata=AUTH
        )
    )
    assert (details.code, details.reason) == (grpc.StatusCode.ALREADY_EXISTS, "TOOL_NAME_TAKEN")
    port = stack.servers["tools"].port
    await stack.servers["tools"].stop(0)
    from tools_svc import server as tools_server  # noqa: PLC0415

    stack.servers["tools"] = await tools_server.build_server(stack.settings.tools, port)
    await stack.servers["tools"].start()
    await connected(stack, "t")
    assert await invoke(stack, "t__echo", text="still here") == {"result": "still here"}
    await stack.tools.UnmountMcpServer(T.UnmountMcpServerRequest(name="t"), metadata=AUTH)
    assert not any(name.startswith("t__") for name in await catalog(stack))
    details = await rpc_error(
        stack.tools.InvokeTool(T.InvokeToolRequest(tool="t__echo", arguments=dict_to_struct({"text": "x"})))
    )
    assert details.code == grpc.StatusCode.NOT_FOUND
    details = await rpc_error(
        stack.tools.UnmountMcpServer(T.UnmountMcpServerRequest(name="t"), metadata=AUTH)
    )
    assert details.reason == "MCP_SERVER_NOT_FOUND"


async def test_the_cli_mounts_lists_and_unmounts_a_server(
    stack: Stack,
    mcp_server: McpServerProcess,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentrt import cli  # noqa: PLC0415

    monkeypatch.setenv("AGENTRT_TOOLS_ADDR", f"127.0.0.1:{stack.port('tools')}")

    async def command(*args: str) -> tuple[int, str]:
        # In a thread: the command blocks, and tools_svc runs on this test's event loop.
        code = await asyncio.to_thread(cli.main, ["tools", *args])
        captured = capsys.readouterr()
        lines = [line for line in captured.out.splitlines() if not line.startswith("20")]  # no log lines
        return code, "\n".join([*lines, captured.err])

    code, out = await command("mount", "notes", mcp_server.url)
    assert code == 2 and "UNAUTHENTICATED" in out  # no registration token
    monkeypatch.setenv("AGENTRT_REGISTRATION_TOKEN", TOKEN)
    code, out = await command("mount", "notes", mcp_server.url, "--header", "X-Team: tools")
    assert code == 0, out
    assert f"notes: connected (streamable_http, runtime) {mcp_server.url}" in out
    assert "notes__echo" in out and "server agentrt-test-server 1.0.0" in out
    code, out = await command("servers")
    assert code == 0 and "time: connected (stdio, config)" in out and "notes: connected" in out
    code, out = await command("list")
    assert code == 0
    echo = next(line for line in out.splitlines() if line.startswith("notes__echo "))
    assert "mcp" in echo and "healthy" in echo and "Return the text as it was given" in echo
    code, out = await command("unmount", "notes")
    assert (code, out.strip()) == (0, "unmounted notes")
    assert "notes__echo" not in await catalog(stack)


async def test_outputs_are_bounded_before_anyone_stores_them(
    stack: Stack, mcp_server: McpServerProcess
) -> None:
    """Past AGENTRT_MAX_TOOL_OUTPUT_BYTES the call is a tool error; an answer so large that it
    is not even worth reading is cut off as it arrives, and the session carries on."""
    await mount(stack, mcp_server)
    assert len((await invoke(stack, "t__big", kilobytes=10))["result"]) == 10 * 1024
    details = await rpc_error(
        stack.tools.InvokeTool(
            T.InvokeToolRequest(tool="t__big", arguments=dict_to_struct({"kilobytes": 300}))
        )
    )
    assert details.reason == "TOOL_OUTPUT_TOO_LARGE"
    details = await rpc_error(
        stack.tools.InvokeTool(
            T.InvokeToolRequest(tool="t__big", arguments=dict_to_struct({"kilobytes": 4000})), timeout=30
        )
    )
    assert (details.reason, details.retryable) == ("TOOL_OUTPUT_TOO_LARGE", False)
    assert "more than tools_svc reads" in details.message
    await connected(stack, "t")
    assert await invoke(stack, "t__echo", text="still fine") == {"result": "still fine"}


async def test_a_server_on_the_2025_handshake_announces_changes_by_notification(
    settings: Settings, mcp_server: McpServerProcess
) -> None:
    """protocol "legacy": the initialize handshake, the session kept alive by pings, and
    list_changed arriving as a notification on the session rather than a listen stream."""
    legacy = McpServerConfig(name="old", url=mcp_server.url, protocol="legacy")
    stack = await start_stack(settings.replace(mcp_servers=[legacy], **FAST))
    try:
        server = await connected(stack, "old")
        assert server.protocol_version == "2025-11-25"
        assert await invoke(stack, "old__echo", text="hi") == {"result": "hi"}  # the server notes the session
        await mcp_server.grow()

        async def grown() -> bool:
            return "old__shout" in await catalog(stack)

        await until(grown, "the notification to add old__shout")
        assert await invoke(stack, "old__shout", text="hi") == {"result": "HI"}
        await mcp_server.kill()
        await until(
            lambda: _state_is(stack, "old", T.MCP_SERVER_STATE_DISCONNECTED),
            "pings to notice the server is gone",
        )
    finally:
        await stack.close()


async def _state_is(stack: Stack, name: str, state: int) -> bool:
    server = await server_state(stack, name)
    return server is not None and server.state == state


async def test_a_stdio_server_whose_command_is_missing_says_so_and_what_to_do(settings: Settings) -> None:
    missing = McpServerConfig(name="gone", command="no-such-mcp-server-xyz", args=[])
    stack = await start_stack(settings.replace(mcp_servers=[missing], **FAST))
    try:

        async def said() -> str:
            server = await server_state(stack, "gone")
            return server.last_error if server is not None else ""

        error = await until(said, "the missing command to be reported")
        assert error.startswith("command 'no-such-mcp-server-xyz' not found where tools_svc runs: install it")
        assert "FileNotFoundError" not in error and "Errno" not in error
    finally:
        await stack.close()
