"""Shared fixtures: settings on a temporary data dir and the four services in-process on port 0."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core.channels import aio_channel
from agentrt.server.grpcserver import BuiltServer
from agentrt.server.internal import credential_interceptors
from agentrt.v1 import planner_service_pb2_grpc, run_pb2, run_pb2_grpc, tool_service_pb2_grpc
from executor_svc import server as executor_server
from gateway import server as gateway_server
from planner_svc import server as planner_server
from tests import pg
from tests.keys import key_for
from tests.scripted_llm import ScriptedLLM
from tools_svc import server as tools_server

# The internal credential of test stacks that configure API keys (which require one).
INTERNAL_TOKEN = SecretStr("internal-test-credential")

# The longest test files, longest first (`make test` runs two pytest-xdist workers, a file per
# worker at a time): started first, they run beside the many short files instead of being the
# suite's tail. Measured with --durations. (The schemathesis file, once a third of the suite's
# time, takes about 30 s since its Hypothesis builds each regex class once: not among these.)
LONGEST_FIRST = (
    "tests/e2e/test_llm_planner.py",
    "tests/e2e/test_browser.py",
    "tests/e2e/test_processes.py",
    "tests/e2e/test_replicas.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: n for n, path in enumerate(LONGEST_FIRST)}
    # A stable sort: within a file, and among the other files, the order stays as collected.
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", log_level="warning", step_timeout_s=5, shutdown_grace_s=0.5)


@pytest.fixture
async def llm() -> AsyncIterator[ScriptedLLM]:
    """A scripted OpenAI-compatible server (tests/scripted_llm.py) for agent-loop tests."""
    server = ScriptedLLM()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def pg_schema() -> AsyncIterator[str]:
    """A fresh PostgreSQL schema for this test (skips without PostgreSQL)."""
    schema = await pg.new_schema()
    try:
        yield schema
    finally:
        await pg.drop_schema(schema)


@pytest.fixture
def pg_settings(settings: Settings, pg_schema: str) -> Settings:
    """`settings` with both stores on PostgreSQL, in this test's own schema."""
    return settings.replace(database_url=SecretStr(pg.TEST_URL), database_schema=pg_schema)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, settings: Settings) -> Settings:
    """`settings` on each store backend in turn: SQLite files, then PostgreSQL."""
    return request.getfixturevalue("pg_settings") if request.param == "postgres" else settings


@dataclass
class Stack:
    settings: Settings
    servers: dict[str, BuiltServer]
    channels: list[grpc.aio.Channel]

    def port(self, name: str) -> int:
        return self.servers[name].port

    @property
    def http(self) -> str:
        """Base URL of the gateway's REST/SSE bridge."""
        return f"http://127.0.0.1:{self.servers['gateway'].http_port}"

    def channel(self, name: str) -> grpc.aio.Channel:
        """A channel to service `name`; to an internal one with the internal credential, if any
        (tests that check calls without it make their own channel)."""
        internal = credential_interceptors(self.settings.internal_secret()) if name != "gateway" else None
        channel = aio_channel(f"127.0.0.1:{self.port(name)}", interceptors=internal)
        self.channels.append(channel)
        return channel

    @property
    def gateway(self) -> run_pb2_grpc.RunServiceStub:
        return run_pb2_grpc.RunServiceStub(self.channel("gateway"))

    @property
    def executor(self) -> run_pb2_grpc.RunServiceStub:
        return run_pb2_grpc.RunServiceStub(self.channel("executor"))

    @property
    def tools(self) -> tool_service_pb2_grpc.ToolServiceStub:
        return tool_service_pb2_grpc.ToolServiceStub(self.channel("tools"))

    @property
    def planner(self) -> planner_service_pb2_grpc.PlannerServiceStub:
        return planner_service_pb2_grpc.PlannerServiceStub(self.channel("planner"))

    async def restart_executor(self) -> None:
        await self.servers["executor"].stop(0)
        port = self.servers["executor"].port
        self.servers["executor"] = await executor_server.build_server(self.settings.executor, port)
        await self.servers["executor"].start()

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()
        for name in ("gateway", "executor", "planner", "tools"):
            if name in self.servers:
                await self.servers[name].stop(0)
        for name in set(self.servers) - {"gateway", "executor", "planner", "tools"}:  # a test's extras
            await self.servers[name].stop(0)


async def start_stack(settings: Settings) -> Stack:
    """Start tools and planner, point the executor at them, and the gateway at the executor."""
    servers: dict[str, BuiltServer] = {}
    servers["tools"] = await tools_server.build_server(settings.tools, 0)
    servers["planner"] = await planner_server.build_server(settings.planner, 0)
    for built in servers.values():
        await built.start()
    settings = settings.replace(
        tools_addr=f"127.0.0.1:{servers['tools'].port}", planner_addr=f"127.0.0.1:{servers['planner'].port}"
    )
    servers["executor"] = await executor_server.build_server(settings.executor, 0)
    await servers["executor"].start()
    settings = settings.replace(executor_addr=f"127.0.0.1:{servers['executor'].port}")
    servers["gateway"] = await gateway_server.build_server(settings.gateway, 0, http_port=0)
    await servers["gateway"].start()
    return Stack(settings, servers, [])


@pytest.fixture
async def stack(settings: Settings) -> AsyncIterator[Stack]:
    running = await start_stack(settings)
    try:
        yield running
    finally:
        await running.close()


@pytest.fixture
async def approving(settings: Settings) -> AsyncIterator[Stack]:
    """Rule plans wait for approval too (not exempt) under the "destructive" policy: deleting a
    todo waits for a person, adding one does not."""
    running = await start_stack(settings.replace(approval_exempt_rules=False, approval_policy="destructive"))
    try:
        yield running
    finally:
        await running.close()


# Two plain users and an admin, each with an API key: the `team` stack's principals.
TEAM_KEYS = {name: key_for(name) for name in ("alice", "bob", "root")}


def auth(who: str) -> tuple[tuple[str, str], ...]:
    """gRPC metadata that calls as `who` of TEAM_KEYS."""
    return (("authorization", f"Bearer {TEAM_KEYS[who]}"),)


@pytest.fixture
async def team(settings: Settings) -> AsyncIterator[Stack]:
    """A stack with API keys on: alice and bob (users) and root (admin)."""
    from agentrt.config import ApiKey  # noqa: PLC0415

    running = await start_stack(
        settings.replace(
            api_keys={
                "alice": SecretStr(TEAM_KEYS["alice"]),
                "bob": SecretStr(TEAM_KEYS["bob"]),
                "root": ApiKey(key=SecretStr(TEAM_KEYS["root"]), roles=["admin"]),
            },
            internal_token=INTERNAL_TOKEN,
            rate_limit_rps=1000.0,
            rate_limit_burst=1000,
        )
    )
    try:
        yield running
    finally:
        await running.close()


async def watch_all(
    stub: run_pb2_grpc.RunServiceStub, run_id: str, after_seq: int = 0
) -> list[run_pb2.RunEvent]:
    events = []
    async for response in stub.WatchRun(
        run_pb2.WatchRunRequest(run_id=run_id, after_seq=after_seq), timeout=20
    ):
        events.append(response.event)
    return events
