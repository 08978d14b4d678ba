"""The scaled-out topology as processes on PostgreSQL: planner, 2 tools_svc, 2 executors, gateway.

The gateway balances over both executors and the executors over both tools replicas (gRPC
round_robin over a multi-address target, as over a DNS name with several records). One executor
is SIGKILLed in the middle of 50 concurrent runs; later the whole system is stopped and started
again. Skipped without PostgreSQL.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest
from google.protobuf import duration_pb2

from agentrt.client import Client
from agentrt.core.runstate import is_terminal_event
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.v1 import run_pb2, tool_pb2, tool_service_pb2, tool_service_pb2_grpc
from tests import pg
from tests.e2e.procs import free_ports, serve, service_env, start_system

pytestmark = pytest.mark.e2e
RUNS = 50
REPLICAS = {"tools": 2, "executor": 2}


class Topology:
    def __init__(self, tmp_path: Path, schema: str) -> None:
        self.tmp_path = tmp_path
        ports = iter(free_ports(8))
        self.ports = {
            "planner": [next(ports)],
            "tools": [next(ports), next(ports)],
            "executor": [next(ports), next(ports)],
            "gateway": [next(ports)],
            "http": [next(ports)],
        }
        multi = {name: ",".join(f"127.0.0.1:{p}" for p in self.ports[name]) for name in REPLICAS}
        self.env = service_env(
            tmp_path / "data",
            {"gateway": self.ports["gateway"][0], "http": self.ports["http"][0]},
            AGENTRT_DATABASE_URL=pg.TEST_URL,
            AGENTRT_DATABASE_SCHEMA=schema,
            AGENTRT_PLANNER_ADDR=f"127.0.0.1:{self.ports['planner'][0]}",
            AGENTRT_TOOLS_ADDR=f"ipv4:{multi['tools']}",
            AGENTRT_EXECUTOR_ADDR=f"ipv4:{multi['executor']}",
            # A dead replica's runs are taken over within ~TTL * 4/3.
            AGENTRT_RUN_LEASE_TTL_S="2",
        )
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.generation = 0

    def start(self) -> None:
        self.generation += 1
        for service in ("planner", "tools", "executor", "gateway"):
            for i, port in enumerate(self.ports[service]):
                env = {**self.env, f"AGENTRT_{service.upper()}_PORT": str(port)}
                log = self.log(f"{service}{i}")
                self.processes[f"{service}{i}"] = serve(service, env, log, port)

    def log(self, name: str) -> Path:
        return self.tmp_path / f"{name}-{self.generation}.log"

    def events(self, name: str, event: str) -> list[dict[str, object]]:
        lines = self.log(name).read_text().splitlines()
        return [e for e in map(_json_or_none, lines) if e and e.get("event") == event]

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            process.wait(timeout=30)

    @property
    def gateway(self) -> str:
        return f"127.0.0.1:{self.ports['gateway'][0]}"


def _json_or_none(line: str) -> dict[str, object] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def prompt(i: int) -> str:
    # Five steps, so that the kill lands while runs are mid-flight on a fast machine too (with two,
    # all 50 could end before it, and the test would prove nothing).
    return (
        f"add a todo to pack item {i}, then show me all my tasks, then count my tasks, "
        "then show me my open tasks, then count my done tasks"
    )


def check_run(client: Client, run_id: str) -> list[run_pb2.RunEvent]:
    """Watch to the end (reconnecting like any client) and check the history is whole."""
    events = list(client.watch(run_id))
    assert [e.seq for e in events] == list(range(1, len(events) + 1)), f"{run_id}: gap or reorder"
    terminal = [e for e in events if is_terminal_event(e)]
    assert [e.status_changed.status for e in terminal] == [run_pb2.RUN_STATUS_SUCCEEDED], run_id
    added = [
        e
        for e in events
        if e.WhichOneof("kind") == "step_updated"
        and e.step_updated.step.step_id == "s1"
        and e.step_updated.step.status == run_pb2.STEP_STATUS_SUCCEEDED
    ]
    assert len(added) == 1, f"{run_id}: the todo step succeeded {len(added)} times"
    return events


def all_todos(client: Client) -> list[str]:
    listing = client.create_run("show me all my tasks")
    list(client.watch(listing.run_id))
    return sorted(t["text"] for t in value_to_py(client.get_run(listing.run_id).result)["todos"])


def register_provider_tool(topology: Topology) -> tool_pb2.Tool:
    spec = tool_pb2.ToolSpec(
        name="weather",
        description="Current weather for a city.",
        version="1.0.0",
        input_schema=dict_to_struct({"type": "object", "properties": {"city": {"type": "string"}}}),
    )
    with grpc.insecure_channel(f"127.0.0.1:{topology.ports['tools'][0]}") as channel:
        stub = tool_service_pb2_grpc.ToolServiceStub(channel)
        response = stub.RegisterTool(
            tool_service_pb2.RegisterToolRequest(
                spec=spec, endpoint="127.0.0.1:1", ttl=duration_pb2.Duration(seconds=300)
            ),
            timeout=10,
        )
    return response.tool


def listed_tools(port: int) -> dict[str, tool_pb2.Tool]:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = tool_service_pb2_grpc.ToolServiceStub(channel)
        return {t.name: t for t in stub.ListTools(tool_service_pb2.ListToolsRequest(), timeout=10).tools}


def test_replicas_survive_a_sigkilled_executor_and_a_full_restart(tmp_path: Path, schema: str) -> None:
    topology = Topology(tmp_path, schema)
    try:
        topology.start()
        with Client(topology.gateway) as client, ThreadPoolExecutor(RUNS) as pool:
            run_ids = list(
                pool.map(
                    lambda i: client.create_run(prompt(i), idempotency_key=f"item-{i}").run_id, range(RUNS)
                )
            )
            # Watch every run live from now on (through the gateway, so on either executor).
            watched = [pool.submit(check_run, client, run_id) for run_id in run_ids]
            victim = topology.processes["executor0"]
            victim.send_signal(signal.SIGKILL)  # most runs are pending, planning or mid-step
            victim.wait()
            histories = {
                run_id: future.result(timeout=120) for run_id, future in zip(run_ids, watched, strict=True)
            }
            # A client unsure whether CreateRun landed repeats it: same runs, nothing new.
            again = list(
                pool.map(
                    lambda i: client.create_run(prompt(i), idempotency_key=f"item-{i}").run_id, range(RUNS)
                )
            )
            assert again == run_ids
            todos = all_todos(client)

        assert todos == sorted(f"pack item {i}" for i in range(RUNS)), "a todo was lost or added twice"
        takeovers = [e for e in topology.events("executor1", "run.claimed") if e.get("takeover")]
        assert takeovers, "the kill landed after every run had finished; the test proved nothing"
        # A registration through one tools replica reaches the other (NOTIFY, then a re-read).
        tool = register_provider_tool(topology)
        for port in topology.ports["tools"]:
            deadline = time.monotonic() + 5
            while "weather" not in listed_tools(port) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert listed_tools(port)["weather"].lease_expire_time == tool.lease_expire_time

        # The whole system stops and starts again: everything is still there.
        topology.processes.pop("executor0")
        topology.stop()
        topology.start()
        with Client(topology.gateway) as client:
            for run_id in run_ids:
                run = client.get_run(run_id)
                assert run.status == run_pb2.RUN_STATUS_SUCCEEDED
                assert [e.seq for e in client.watch(run_id)] == [e.seq for e in histories[run_id]]
            assert all_todos(client) == sorted(f"pack item {i}" for i in range(RUNS))
        for port in topology.ports["tools"]:
            survivor = listed_tools(port)["weather"]
            assert survivor.lease_expire_time == tool.lease_expire_time  # still leased, not re-registered
            assert survivor.source == tool_pb2.TOOL_SOURCE_PROVIDER
    finally:
        topology.stop()


def test_agentrt_up_on_postgres_starts_every_service_at_once_and_runs(tmp_path: Path, schema: str) -> None:
    # `agentrt up` starts executor and tools together, both migrating into a schema not yet made.
    system = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
        AGENTRT_DATABASE_URL=pg.TEST_URL,
        AGENTRT_DATABASE_SCHEMA=schema,
    )
    try:
        result = system.agentrt("run", "add a todo to buy milk, then show me all my tasks")
        assert result.returncode == 0, result.stdout + result.stderr
        assert '"text": "buy milk"' in result.stdout
        assert not (tmp_path / "data" / "executor.db").exists()  # nothing went to SQLite
    finally:
        assert system.stop() == 0
