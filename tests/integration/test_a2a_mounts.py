"""A2A agents mounted at runtime (ToolService.MountA2aAgent and `agentrt tools mount-agent`):
stored like MCP mounts, so a restart and another replica hold them; guarded like them (the
registration token, the allow-list, names checked); one namespace with MCP servers. Two real
agentrt stacks, in this process: A mounts B."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core.values import value_to_py
from agentrt.v1 import run_pb2, tool_service_pb2, tool_service_pb2_grpc
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack, watch_all
from tests.integration.test_providers import rpc_error
from tests.keys import key_for
from tools_svc import server as tools_server

R, T = run_pb2, tool_service_pb2
TOKEN = "mount-token"
AUTH = (("authorization", f"Bearer {TOKEN}"),)
BASE = {"log_level": "warning", "step_timeout_s": 30, "shutdown_grace_s": 0.5}


@pytest.fixture
async def pair(tmp_path: Path, backend: Settings) -> AsyncIterator[tuple[Stack, Stack]]:
    """B, and A mounting B: A on each store backend (mounts are stored there)."""
    remote = await start_stack(Settings(data_dir=tmp_path / "b", **BASE))
    local = await start_stack(
        backend.replace(
            registration_token=SecretStr(TOKEN),
            a2a_agents=[{"name": "helper", "url": "http://127.0.0.1:9"}],  # configured; never read
            a2a_card_timeout_s=2,
            **BASE,
        )
    )
    try:
        yield local, remote
    finally:
        await local.close()
        await remote.close()


async def listed(tools: tool_service_pb2_grpc.ToolServiceStub, name: str, present: bool = True) -> None:
    """Wait until the catalog lists the tool (or, present=False, no longer does)."""
    async with asyncio.timeout(30):  # the card is read in the background
        # wait_for_ready: after a restart the channel may still be backing off from the old server.
        async for response in tools.WatchTools(T.WatchToolsRequest(), wait_for_ready=True):
            if (name in {t.name for t in response.tools}) == present:
                return
    raise AssertionError(f"the catalog never {'listed' if present else 'dropped'} {name}")


async def agents(tools: tool_service_pb2_grpc.ToolServiceStub) -> dict[str, T.A2aAgentInfo]:
    return {a.name: a for a in (await tools.ListA2aAgents(T.ListA2aAgentsRequest())).agents}


async def test_an_agent_mounted_at_runtime_serves_runs_outlives_a_restart_and_goes_when_unmounted(
    pair: tuple[Stack, Stack],
) -> None:
    local, remote = pair
    # Another replica on the same database, started before the mount: it learns of it too.
    replica = local.servers["replica"] = await tools_server.build_server(local.settings.tools, 0)
    await replica.start()  # stopped with the stack
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}")
    local.channels.append(channel)
    other = tool_service_pb2_grpc.ToolServiceStub(channel)
    request = T.MountA2aAgentRequest(name="peer", url=remote.http, headers={"X-Team": "ops"})
    for metadata in ((), (("authorization", "Bearer wrong"),)):
        details = await rpc_error(local.tools.MountA2aAgent(request, metadata=metadata))
        assert details.code == grpc.StatusCode.UNAUTHENTICATED
    mounted = (await local.tools.MountA2aAgent(request, metadata=AUTH)).agent
    assert (mounted.name, mounted.origin, mounted.url) == ("peer", "runtime", remote.http)
    await listed(local.tools, "peer__task")
    peer = (await agents(local.tools))["peer"]
    assert peer.state == T.A2A_AGENT_STATE_READY and peer.card_info.startswith("agentrt ")
    assert "peer__task" in peer.tools and not peer.last_error
    assert "X-Team" not in str(peer) and "ops" not in str(peer)  # a credential is never returned
    await listed(other, "peer__task")

    created = (
        await local.gateway.CreateRun(
            R.CreateRunRequest(prompt=f"use peer__task with {json.dumps({'message': 'what is 6 times 7'})}")
        )
    ).run
    await watch_all(local.gateway, created.run_id)
    done = (await local.gateway.GetRun(R.GetRunRequest(run_id=created.run_id))).run
    assert done.status == R.RUN_STATUS_SUCCEEDED, done.error.message
    assert value_to_py(done.steps[0].output)["answer"].startswith("6 * 7 = 42")

    # Stored: a restarted tools_svc holds the mount.
    port = local.servers["tools"].port
    await local.servers["tools"].stop(0)
    local.servers["tools"] = await tools_server.build_server(local.settings.tools, port)
    await local.servers["tools"].start()
    await listed(local.tools, "peer__task")

    details = await rpc_error(local.tools.MountA2aAgent(request, metadata=AUTH))
    assert (details.code, details.reason) == (grpc.StatusCode.ALREADY_EXISTS, "A2A_AGENT_NAME_TAKEN")
    await local.tools.MountA2aAgent(
        T.MountA2aAgentRequest(name="peer", url=remote.http, replace=True), metadata=AUTH
    )
    await local.tools.UnmountA2aAgent(T.UnmountA2aAgentRequest(name="peer"), metadata=AUTH)
    names = {t.name for t in (await local.tools.ListTools(T.ListToolsRequest())).tools}
    assert not any(name.startswith("peer__") for name in names)
    assert list(await agents(local.tools)) == ["helper"]
    await listed(other, "peer__task", present=False)
    details = await rpc_error(
        local.tools.UnmountA2aAgent(T.UnmountA2aAgentRequest(name="peer"), metadata=AUTH)
    )
    assert (details.code, details.reason) == (grpc.StatusCode.NOT_FOUND, "A2A_AGENT_NOT_FOUND")


async def test_runtime_mounts_are_guarded_and_share_one_namespace_with_mcp_servers(
    pair: tuple[Stack, Stack],
) -> None:
    local, remote = pair
    await local.tools.MountMcpServer(
        T.MountMcpServerRequest(name="docs", url="http://127.0.0.1:9/mcp"), metadata=AUTH
    )
    for bad, code, reason in (
        (
            T.MountA2aAgentRequest(name="p", url="http://10.1.2.3"),
            "PERMISSION_DENIED",
            "ENDPOINT_NOT_ALLOWED",
        ),
        (T.MountA2aAgentRequest(name="p", url="file:///etc/passwd"), "INVALID_ARGUMENT", "INVALID_A2A_URL"),
        # A base URL only: a credential goes in a header (never shown), not in the URL (shown).
        (
            T.MountA2aAgentRequest(name="p", url=f"http://u:pw@{remote.http[7:]}"),
            "INVALID_ARGUMENT",
            "INVALID_A2A_URL",
        ),
        (T.MountA2aAgentRequest(name="p", url=f"{remote.http}?key=k"), "INVALID_ARGUMENT", "INVALID_A2A_URL"),
        (T.MountA2aAgentRequest(name="P__x", url=remote.http), "INVALID_ARGUMENT", "INVALID_A2A_AGENT_NAME"),
        (T.MountA2aAgentRequest(name="helper", url=remote.http), "ALREADY_EXISTS", "A2A_AGENT_NAME_TAKEN"),
        (T.MountA2aAgentRequest(name="docs", url=remote.http), "ALREADY_EXISTS", "A2A_AGENT_NAME_TAKEN"),
        (
            T.MountA2aAgentRequest(name="p", url=remote.http, headers={"bad header": "x"}),
            "INVALID_ARGUMENT",
            "INVALID_ARGUMENT",
        ),
    ):
        details = await rpc_error(local.tools.MountA2aAgent(bad, metadata=AUTH))
        assert (details.code.name, details.reason) == (code, reason), details.message
    # The other way round: an MCP server may not take an agent's name either.
    await local.tools.MountA2aAgent(T.MountA2aAgentRequest(name="peer", url=remote.http), metadata=AUTH)
    for name in ("peer", "helper"):
        details = await rpc_error(
            local.tools.MountMcpServer(T.MountMcpServerRequest(name=name, url=remote.http), metadata=AUTH)
        )
        assert (details.code, details.reason) == (grpc.StatusCode.ALREADY_EXISTS, "MCP_SERVER_NAME_TAKEN")
        assert "A2A agent" in details.message
    details = await rpc_error(
        local.tools.UnmountA2aAgent(T.UnmountA2aAgentRequest(name="helper"), metadata=AUTH)
    )
    assert details.reason == "A2A_AGENT_CONFIGURED"
    assert list(await agents(local.tools)) == ["helper", "peer"]


async def test_an_agent_whose_card_cannot_be_read_says_why(pair: tuple[Stack, Stack]) -> None:
    local, _ = pair
    for _ in range(300):  # the first reading fails within a2a_card_timeout_s
        helper = (await agents(local.tools))["helper"]
        if helper.state == T.A2A_AGENT_STATE_UNREACHABLE:
            break
        await asyncio.sleep(0.1)
    assert helper.origin == "config" and "could not be read" in helper.last_error and not helper.tools


async def test_the_cli_mounts_lists_and_unmounts_an_agent(
    pair: tuple[Stack, Stack], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentrt import cli  # noqa: PLC0415

    local, remote = pair
    monkeypatch.setenv("AGENTRT_TOOLS_ADDR", f"127.0.0.1:{local.port('tools')}")

    async def command(*args: str) -> tuple[int, str]:
        # In a thread: the command blocks, and tools_svc runs on this test's event loop.
        code = await asyncio.to_thread(cli.main, ["tools", *args])
        captured = capsys.readouterr()
        lines = [line for line in captured.out.splitlines() if not line.startswith("20")]  # no log lines
        return code, "\n".join([*lines, captured.err])

    code, out = await command("mount-agent", "peer", remote.http)
    assert code == 2 and "UNAUTHENTICATED" in out  # no registration token
    monkeypatch.setenv("AGENTRT_REGISTRATION_TOKEN", TOKEN)
    code, out = await command("mount-agent", "peer", remote.http, "--header", "broken")
    assert code == 2 and "must be 'NAME: VALUE'" in out
    code, out = await command("mount-agent", "peer", remote.http, "--header", "Authorization: Bearer k")
    assert code == 0, out
    assert f"peer: ready (runtime) {remote.http}" in out and "card: agentrt " in out
    assert "peer__task" in out and "Bearer k" not in out
    code, out = await command("agents")
    assert code == 0 and "helper: " in out and "(config) http://127.0.0.1:9" in out and "peer: ready" in out
    code, out = await command("agents", "--json")
    assert code == 0 and [json.loads(line)["name"] for line in out.splitlines()] == ["helper", "peer"]
    code, out = await command("unmount-agent", "peer")
    assert (code, out.strip()) == (0, "unmounted peer")
    code, out = await command("unmount-agent", "peer")
    assert code == 2 and "NOT_FOUND: no A2A agent named 'peer' is mounted" in out


async def test_with_api_keys_on_a_mount_needs_the_registration_token_not_the_internal_one(
    tmp_path: Path,
) -> None:
    """`agentrt tools mount-agent` holds the registration token only, as tool providers do."""
    remote = await start_stack(Settings(data_dir=tmp_path / "b", **BASE))
    local = await start_stack(
        Settings(
            data_dir=tmp_path / "a",
            registration_token=SecretStr(TOKEN),
            api_keys={"ci": SecretStr(key_for("ci"))},
            internal_token=INTERNAL_TOKEN,
            **BASE,
        )
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{local.port('tools')}") as channel:
            tools = tool_service_pb2_grpc.ToolServiceStub(channel)  # no internal credential
            request = T.MountA2aAgentRequest(name="peer", url=remote.http)
            details = await rpc_error(tools.MountA2aAgent(request))
            assert details.code == grpc.StatusCode.UNAUTHENTICATED
            mounted = (await tools.MountA2aAgent(request, metadata=AUTH)).agent
            assert mounted.name == "peer"
            await tools.UnmountA2aAgent(T.UnmountA2aAgentRequest(name="peer"), metadata=AUTH)
            # Everything else still needs the internal credential.
            details = await rpc_error(tools.ListTools(T.ListToolsRequest()))
            assert details.code == grpc.StatusCode.UNAUTHENTICATED
    finally:
        await local.close()
        await remote.close()
