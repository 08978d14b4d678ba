"""Delegation per principal to a mounted A2A agent: a call made for alice reaches the agent with
alice's credential, bob's with bob's, and a principal the mount has no credential for is refused
before anything is sent; with a caller signing secret, every request names its principal, signed
so the agent can check it. Real stacks over real gRPC and HTTP: agentrt A with API keys mounts
agentrt B with API keys (B's runs are owned by whoever's key reached it), and a plain HTTP agent
records what reached it."""

from __future__ import annotations

import asyncio
import http.server
import json
import secrets
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog
from pydantic import SecretStr

from agentrt.config import ApiKey, Settings
from agentrt.core import callerid
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.v1 import run_pb2, tool_pb2, tool_service_pb2
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack
from tests.unit.test_delegation import remote_verifies

R, T = run_pb2, tool_service_pb2
BASE = {"log_level": "warning", "step_timeout_s": 30, "shutdown_grace_s": 0.5}
LIMITS = {"rate_limit_rps": 1000.0, "rate_limit_burst": 1000}
TOKEN = "mount-token"
AUTH = (("authorization", f"Bearer {TOKEN}"),)
SECRET = secrets.token_urlsafe(32)
# Each principal's key at the remote agentrt (B), and at the local one (A).
THERE = {name: secrets.token_urlsafe(32) for name in ("alice", "bob", "root")}
HERE = {name: secrets.token_urlsafe(32) for name in ("alice", "bob", "carol")}


def bearer(key: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {key}"),)


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[tuple[Stack, Stack]]:
    """B with keys for alice, bob and root (an admin, to count every run there); A with keys for
    alice, bob and carol, mounting B with credentials for alice and bob only."""
    remote = await start_stack(
        Settings(
            data_dir=tmp_path / "b",
            api_keys={
                "alice": SecretStr(THERE["alice"]),
                "bob": SecretStr(THERE["bob"]),
                "root": ApiKey(key=SecretStr(THERE["root"]), roles=["admin"]),
            },
            internal_token=INTERNAL_TOKEN,
            **LIMITS,
            **BASE,
        )
    )
    helper = {
        "name": "helper",
        "url": remote.http,
        "principal_headers": {name: {"Authorization": f"Bearer {THERE[name]}"} for name in ("alice", "bob")},
    }
    local = await start_stack(
        Settings(
            data_dir=tmp_path / "a",
            api_keys={name: SecretStr(key) for name, key in HERE.items()},
            internal_token=INTERNAL_TOKEN,
            a2a_agents=[helper],
            **LIMITS,
            **BASE,
        )
    )
    try:
        yield local, remote
    finally:
        await local.close()
        await remote.close()


async def listed(stack: Stack, name: str) -> None:
    async with asyncio.timeout(30):  # the card is read in the background
        async for response in stack.tools.WatchTools(T.WatchToolsRequest(), wait_for_ready=True):
            if name in {t.name for t in response.tools}:
                return


async def run_as(stack: Stack, who: str, message: str) -> R.Run:
    """A run of `who`'s through A's gateway, with its key, until it ends."""
    prompt = f"use helper__task with {json.dumps({'message': message})}"
    created = (
        await stack.gateway.CreateRun(R.CreateRunRequest(prompt=prompt), metadata=bearer(HERE[who]))
    ).run
    async with asyncio.timeout(60):
        while True:
            got = (
                await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run_id), metadata=bearer(HERE[who]))
            ).run
            if got.status in (R.RUN_STATUS_SUCCEEDED, R.RUN_STATUS_FAILED, R.RUN_STATUS_CANCELLED):
                return got
            await asyncio.sleep(0.1)


async def prompts_there(remote: Stack, who: str) -> list[str]:
    """The prompts of the runs B holds for `who` (root: every principal's)."""
    owner = "*" if who == "root" else ""
    runs = (await remote.gateway.ListRuns(R.ListRunsRequest(owner=owner), metadata=bearer(THERE[who]))).runs
    return sorted(r.prompt for r in runs)


async def test_each_principals_call_reaches_the_agent_as_that_principal_and_others_are_refused(
    pair: tuple[Stack, Stack],
) -> None:
    local, remote = pair
    await listed(local, "helper__task")
    with structlog.testing.capture_logs() as logs:
        done = await run_as(local, "alice", "add buy oat milk to my list")
        assert done.status == R.RUN_STATUS_SUCCEEDED, done.error.message
        assert "Added 'buy oat milk'" in value_to_py(done.steps[0].output)["answer"]
        done = await run_as(local, "bob", "add call the plumber to my list")
        assert done.status == R.RUN_STATUS_SUCCEEDED, done.error.message
        # At B, each run is its own principal's: alice's key reached it for alice, bob's for bob.
        assert await prompts_there(remote, "alice") == ["add buy oat milk to my list"]
        assert await prompts_there(remote, "bob") == ["add call the plumber to my list"]

        # carol has a key here, and no credential on the mount: refused, and B never heard of it.
        refused = await run_as(local, "carol", "add steal the todos to my list")
        assert refused.status == R.RUN_STATUS_FAILED
        (step,) = refused.steps
        assert step.error.reason == "NO_PRINCIPAL_CREDENTIAL", step.error.message
        assert "'carol'" in step.error.message and "nothing was sent" in step.error.message
        assert len(await prompts_there(remote, "root")) == 2
        # The same refusal for a call made straight to tools_svc, whatever it asks.
        with pytest.raises(grpc.aio.AioRpcError) as direct:
            await local.tools.InvokeTool(
                T.InvokeToolRequest(
                    tool="helper__task",
                    arguments=dict_to_struct({"message": "list my todos"}),
                    context=tool_pb2.CallContext(principal="carol"),
                )
            )
        details = ErrorDetails.from_rpc_error(direct.value)
        assert (details.code, details.reason) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "NO_PRINCIPAL_CREDENTIAL",
        )
        assert not details.retryable
        assert len(await prompts_there(remote, "root")) == 2

        (agent,) = (await local.tools.ListA2aAgents(T.ListA2aAgentsRequest())).agents
    assert list(agent.credential_principals) == ["alice", "bob"] and not agent.signs_caller
    for key in THERE.values():  # B's keys: never returned, never logged
        assert key not in str(agent) and key not in str(logs)


class RecordingAgent:
    """A plain HTTP A2A agent (JSON-RPC) that answers every message at once, with a message, and
    records the headers of every request that reached it."""

    def __init__(self) -> None:
        from a2a.types import AgentCard, AgentInterface, AgentSkill  # noqa: PLC0415
        from google.protobuf import json_format  # noqa: PLC0415

        self.requests: list[tuple[str, dict[str, str]]] = []  # (method or "card", headers)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        interface = AgentInterface(url=f"{self.url}/a2a", protocol_binding="JSONRPC", protocol_version="1.0")
        skill = AgentSkill(id="task", name="Task", description="Does it", tags=["t"])
        card = AgentCard(
            name="recorder", description="d", version="1", supported_interfaces=[interface], skills=[skill]
        )
        card_body = json.dumps(json_format.MessageToDict(card)).encode()
        agent = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                agent.requests.append(("card", {k.lower(): v for k, v in self.headers.items()}))
                self._send(card_body if self.path == "/.well-known/agent-card.json" else b"{}")

            def do_POST(self) -> None:
                from a2a.types import Message, Part, Role, SendMessageResponse  # noqa: PLC0415

                call = json.loads(self.rfile.read(int(self.headers["content-length"])))
                agent.requests.append((call["method"], {k.lower(): v for k, v in self.headers.items()}))
                said = Message(role=Role.ROLE_AGENT, message_id="answer", parts=[Part(text="done")])
                result = json_format.MessageToDict(SendMessageResponse(message=said))
                self._send(json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": result}).encode())

            def _send(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server.RequestHandlerClass = Handler
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def sent(self) -> list[dict[str, str]]:
        """The headers of each message sent (not the card's reads)."""
        return [headers for method, headers in self.requests if method == "SendMessage"]

    def close(self) -> None:
        self._server.shutdown()


@pytest.fixture
def recorder() -> Iterator[RecordingAgent]:
    agent = RecordingAgent()
    yield agent
    agent.close()


@pytest.fixture
async def stack(backend: Settings) -> AsyncIterator[Stack]:
    """A stack on each store backend: runtime mounts' credentials are stored there."""
    built = await start_stack(backend.replace(registration_token=SecretStr(TOKEN), **BASE))
    yield built
    await built.close()


async def call_as(stack: Stack, who: str) -> Any:
    request = T.InvokeToolRequest(
        tool="rec__task",
        arguments=dict_to_struct({"message": "hello"}),
        context=tool_pb2.CallContext(principal=who),
    )
    return value_to_py((await stack.tools.InvokeTool(request, timeout=20)).output)


async def test_a_runtime_mount_sends_each_principals_credential_and_its_name_signed(
    stack: Stack, recorder: RecordingAgent
) -> None:
    request = T.MountA2aAgentRequest(
        name="rec",
        url=recorder.url,
        headers={"Authorization": "Bearer shared-for-the-card"},
        principal_headers={
            "alice": T.PrincipalHeaders(headers={"Authorization": "Bearer alices-own"}),
            "bob": T.PrincipalHeaders(headers={"X-Api-Key": "bobs-own"}),
        },
        caller_signing_secret=SECRET,
    )
    with structlog.testing.capture_logs() as logs:
        mounted = (await stack.tools.MountA2aAgent(request, metadata=AUTH)).agent
        await listed(stack, "rec__task")
        assert (await call_as(stack, "alice"))["answer"] == "done"
        assert (await call_as(stack, "bob"))["answer"] == "done"
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call_as(stack, "carol")
        assert ErrorDetails.from_rpc_error(refused.value).reason == "NO_PRINCIPAL_CREDENTIAL"
        listed_agents = str((await stack.tools.ListA2aAgents(T.ListA2aAgentsRequest())).agents)

    alice, bob = recorder.sent()  # carol's call sent nothing
    assert alice["authorization"] == "Bearer alices-own" and "x-api-key" not in alice
    assert bob["x-api-key"] == "bobs-own" and "authorization" not in bob  # nothing of the shared headers
    # Each request names its principal, signed as the README tells a remote to check it.
    assert (alice["agentrt-caller"], bob["agentrt-caller"]) == ("alice", "bob")
    assert remote_verifies(SECRET, alice) and remote_verifies(SECRET, bob)
    assert callerid.verify(SECRET, alice) == "alice" and callerid.verify(SECRET, bob) == "bob"
    assert alice["agentrt-caller-signature"] != bob["agentrt-caller-signature"]
    forged = alice | {"agentrt-caller": "bob"}  # alice's signature does not make bob's call
    assert not remote_verifies(SECRET, forged)
    # The card is read for nobody: the shared headers, no caller.
    cards = [headers for method, headers in recorder.requests if method == "card"]
    assert cards and all(h["authorization"] == "Bearer shared-for-the-card" for h in cards)
    assert not any("agentrt-caller" in h for h in cards)

    assert list(mounted.credential_principals) == ["alice", "bob"] and mounted.signs_caller
    for secret in ("shared-for-the-card", "alices-own", "bobs-own", SECRET):
        assert secret not in listed_agents and secret not in str(logs)

    # Mounted again with one shared credential and the caller signed: every principal's calls
    # carry that credential (what it sees, they all see), and say whose they are.
    request.principal_headers.clear()
    request.replace = True
    await stack.tools.MountA2aAgent(request, metadata=AUTH)
    await listed(stack, "rec__task")
    assert (await call_as(stack, "carol"))["answer"] == "done"
    carol = recorder.sent()[-1]
    assert (
        carol["authorization"] == "Bearer shared-for-the-card" and callerid.verify(SECRET, carol) == "carol"
    )


async def test_the_cli_mounts_an_agent_with_credentials_per_principal(
    stack: Stack,
    recorder: RecordingAgent,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentrt import cli  # noqa: PLC0415

    monkeypatch.setenv("AGENTRT_TOOLS_ADDR", f"127.0.0.1:{stack.port('tools')}")
    monkeypatch.setenv("AGENTRT_REGISTRATION_TOKEN", TOKEN)
    args = [
        "tools", "mount-agent", "rec", recorder.url,
        "--principal-header", "alice", "Authorization: Bearer alices-own",
        "--principal-header", "alice", "X-Team: ops",
        "--caller-signing-secret", SECRET,
    ]  # fmt: skip
    code = await asyncio.to_thread(cli.main, args)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "credentials: per principal (alice), the caller signed" in out
    assert "alices-own" not in out and SECRET not in out
    await call_as(stack, "alice")
    assert (
        recorder.sent()[-1]["x-team"] == "ops" and recorder.sent()[-1]["authorization"] == "Bearer alices-own"
    )
    code = await asyncio.to_thread(
        cli.main,
        ["tools", "mount-agent", "rec", recorder.url, "--principal-header", "bob", "nocolon", "--replace"],
    )
    assert code == 2 and "--principal-header 'nocolon' must be 'NAME: VALUE'" in capsys.readouterr().err
