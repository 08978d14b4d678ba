"""Delegation per principal to a mounted MCP server over Streamable HTTP: each principal's calls
go over a session of its own carrying its own credential (and its name, signed), a principal
without a credential is refused before any session is opened, and the sessions are bounded
(how many, how long idle). The test server (tests/mcp_server.py) runs in its own process and
records the credentials of every request that reached it."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import structlog
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core import callerid
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.v1 import tool_pb2, tool_service_pb2
from tests.conftest import Stack, start_stack
from tests.integration.test_mcp_tools import FAST, connected, until
from tests.mcp_process import McpServerProcess
from tests.unit.test_delegation import remote_verifies

T = tool_service_pb2
TOKEN = "mount-token"
AUTH = (("authorization", f"Bearer {TOKEN}"),)
SECRET = secrets.token_urlsafe(32)
CATALOG = "Bearer for-the-catalog-only"
OWN = {"alice": {"Authorization": "Bearer alices-own"}, "bob": {"X-Api-Key": "bobs-own"}}


@pytest.fixture
async def mcp_server() -> AsyncIterator[McpServerProcess]:
    server = McpServerProcess()
    await server.start()
    yield server
    await server.kill()


async def stack_with(settings: Settings, **more: Any) -> Stack:
    return await start_stack(settings.replace(registration_token=SecretStr(TOKEN), **FAST, **more))


async def mount(stack: Stack, server: McpServerProcess, signed: bool = True) -> T.McpServer:
    request = T.MountMcpServerRequest(
        name="t",
        url=server.url,
        headers={"Authorization": CATALOG},
        principal_headers={p: T.PrincipalHeaders(headers=h) for p, h in OWN.items()},
        caller_signing_secret=SECRET if signed else "",
    )
    await stack.tools.MountMcpServer(request, metadata=AUTH)
    return await connected(stack, "t")


async def call(stack: Stack, who: str, tool: str = "t__whoami", **arguments: Any) -> Any:
    request = T.InvokeToolRequest(
        tool=tool, arguments=dict_to_struct(arguments), context=tool_pb2.CallContext(principal=who)
    )
    return value_to_py((await stack.tools.InvokeTool(request, timeout=30)).output)


async def refusal(stack: Stack, who: str, tool: str = "t__whoami", **arguments: Any) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call(stack, who, tool, **arguments)
    return ErrorDetails.from_rpc_error(refused.value)


async def test_each_principals_calls_carry_its_own_credential_over_its_own_session(
    settings: Settings, mcp_server: McpServerProcess
) -> None:
    stack = await stack_with(settings)
    try:
        with structlog.testing.capture_logs() as logs:
            await mount(stack, mcp_server)
            assert (await call(stack, "alice"))["agentrt/principal"] == "alice"
            assert (await call(stack, "bob"))["agentrt/principal"] == "bob"
            assert (await call(stack, "alice"))["agentrt/principal"] == "alice"  # its session, kept
            details = await refusal(stack, "carol")
            assert (details.code, details.reason) == (
                grpc.StatusCode.PERMISSION_DENIED,
                "NO_PRINCIPAL_CREDENTIAL",
            )
            assert "'carol'" in details.message
            server = (await stack.tools.ListMcpServers(T.ListMcpServersRequest())).servers[0]
        state = await mcp_server.state()
    finally:
        await stack.close()

    alice, bob, again = state["callers"]  # carol's call never reached the server
    assert alice["authorization"] == again["authorization"] == "Bearer alices-own"
    assert bob["x-api-key"] == "bobs-own" and "authorization" not in bob  # nothing of the shared ones
    assert (alice["agentrt-caller"], bob["agentrt-caller"]) == ("alice", "bob")
    assert remote_verifies(SECRET, alice) and remote_verifies(SECRET, bob)
    assert callerid.verify(SECRET, again) == "alice"
    # Every request that reached it: each principal's session with its own credential only, the
    # catalog's with the shared one and no caller; none for carol.
    for headers in state["requests"]:
        who = headers.get("agentrt-caller")
        assert who in (None, "alice", "bob"), headers
        expected = {None: {"authorization": CATALOG}, **OWN}[who]
        assert {k.lower(): v for k, v in expected.items()}.items() <= headers.items(), headers
        if who == "alice":
            assert "x-api-key" not in headers
    assert {h.get("agentrt-caller") for h in state["requests"]} == {None, "alice", "bob"}

    assert list(server.credential_principals) == ["alice", "bob"] and server.signs_caller
    assert server.principal_sessions == 2
    for secret in (CATALOG, "alices-own", "bobs-own", SECRET):
        assert secret not in str(server) and secret not in str(logs)


async def test_principals_sessions_are_bounded_and_closed_when_idle(
    settings: Settings, mcp_server: McpServerProcess
) -> None:
    stack = await stack_with(settings, mcp_max_principal_sessions=1, mcp_principal_session_idle_s=1.0)
    try:
        await mount(stack, mcp_server, signed=False)

        async def sessions() -> int:
            return (await stack.tools.ListMcpServers(T.ListMcpServersRequest())).servers[0].principal_sessions

        # alice's session is busy with a call: bob's first call finds no room, and may retry.
        slow = asyncio.ensure_future(call(stack, "alice", "t__slow", seconds=2, tag="a"))
        await until(lambda: _calls_with(mcp_server, "slow:a"), "alice's call to reach the server")
        details = await refusal(stack, "bob")
        assert (details.code, details.reason) == (grpc.StatusCode.UNAVAILABLE, "MCP_SESSIONS_EXHAUSTED")
        assert details.retryable
        assert "slept 2" in str(await slow)
        # alice's session is idle now: bob's first call closes it for one of its own.
        assert (await call(stack, "bob"))["agentrt/principal"] == "bob"
        assert await sessions() == 1
        # Idle for longer than allowed: closed by the catalog's refresh.
        await until(lambda: _no_sessions(sessions), "bob's idle session to be closed", seconds=15)
        assert (await call(stack, "bob"))["agentrt/principal"] == "bob"  # opened again when needed
    finally:
        await stack.close()


async def _calls_with(server: McpServerProcess, call: str) -> bool:
    return call in (await server.state())["calls"]


async def _no_sessions(sessions: Any) -> bool:
    return await sessions() == 0
