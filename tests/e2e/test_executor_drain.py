"""What the Helm chart's executor pods rely on, as the pods would run: two executor replicas on
PostgreSQL, one of them driving a run whose step is inside a tool. The kubelet's SIGTERM makes
that replica stop taking calls, release its runs' leases and exit within the pod's
terminationGracePeriodSeconds (read from the rendered chart, as is its AGENTRT_SHUTDOWN_GRACE_S);
the other replica claims the run at once (the lease TTL is set far longer than the test could
wait, so a lapse cannot be what moved it) and the run ends once. Skipped without PostgreSQL."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import grpc
import pytest

from agentrt.client import Client
from agentrt.v1 import run_pb2, tool_service_pb2, tool_service_pb2_grpc
from tests import pg
from tests.e2e.procs import BIN, free_ports, serve, service_env, wait_for
from tests.unit.test_helm_chart import by_kind, component, render, values_of

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]


def listed(port: int) -> set[str]:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = tool_service_pb2_grpc.ToolServiceStub(channel)
        return {t.name for t in stub.ListTools(tool_service_pb2.ListToolsRequest(), timeout=10).tools}


def executor_pod() -> tuple[str, int]:
    """The executor's AGENTRT_SHUTDOWN_GRACE_S and terminationGracePeriodSeconds, as rendered."""
    deployment = next(
        d
        for d in by_kind(render(values_of("production")), "Deployment").values()
        if component(d) == "executor"
    )
    pod = deployment["spec"]["template"]["spec"]
    env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    return str(env["AGENTRT_SHUTDOWN_GRACE_S"]), int(pod["terminationGracePeriodSeconds"])


def test_a_sigterm_hands_the_executors_runs_to_another_replica_within_the_pods_grace(
    tmp_path: Path, schema: str
) -> None:
    grace, termination = executor_pod()
    names = ("planner", "tools", "executor_a", "executor_b", "gateway", "http")
    ports = dict(zip(names, free_ports(len(names)), strict=True))
    env = service_env(
        tmp_path,
        {
            "planner": ports["planner"],
            "tools": ports["tools"],
            "gateway": ports["gateway"],
            "http": ports["http"],
        },
        AGENTRT_DATABASE_URL=pg.TEST_URL,
        AGENTRT_DATABASE_SCHEMA=schema,
        AGENTRT_EXECUTOR_ADDR=f"ipv4:127.0.0.1:{ports['executor_a']},127.0.0.1:{ports['executor_b']}",
        AGENTRT_RUN_LEASE_TTL_S="600",
        AGENTRT_SHUTDOWN_GRACE_S=grace,
    )
    processes: dict[str, subprocess.Popen[bytes]] = {}
    provider = None
    gate = tmp_path / "gate"

    def start(name: str) -> None:
        service = name.removesuffix("_a").removesuffix("_b")
        own = {**env, f"AGENTRT_{service.upper()}_PORT": str(ports[name])}
        processes[name] = serve(service, own, tmp_path / f"{name}.log", ports[name])

    try:
        for name in ("planner", "tools", "executor_a", "gateway"):
            start(name)
        with (tmp_path / "provider.log").open("ab") as out:
            provider = subprocess.Popen(
                [str(BIN / "agentrt"), "tools", "serve", "tests.e2e.gated_tool:wait_for_gate",
                 "--tools-addr", f"127.0.0.1:{ports['tools']}"],
                cwd=ROOT, env=env, stdout=out, stderr=out,
            )  # fmt: skip
        with Client(f"127.0.0.1:{ports['gateway']}") as client:
            wait_for(lambda: "wait_for_gate" in listed(ports["tools"]), "the provider to register")
            run_id = client.create_run(f"use wait_for_gate with {json.dumps({'gate': str(gate)})}").run_id
            wait_for(
                lambda: Path(f"{gate}.entered").exists(), "the step to be inside the tool"
            )  # driven by A
            start("executor_b")

            processes["executor_a"].send_signal(signal.SIGTERM)
            try:
                processes["executor_a"].wait(timeout=termination)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"executor A outlived the pod's {termination}s grace") from None
            wait_for(lambda: "run.claimed" in (tmp_path / "executor_b.log").read_text(), "B to claim the run")
            gate.touch()

            events = list(client.watch(run_id))
            run = client.get_run(run_id)
        logs = "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(tmp_path.glob("*.log")))
        assert run.status == run_pb2.RUN_STATUS_SUCCEEDED, (run.error.message, logs)
        stored = [e.seq for e in events if not e.transient]
        assert stored == list(range(1, len(stored) + 1)), "a gap or a repeat in the run's events"
        steps = [e.step_updated.step for e in events if e.WhichOneof("kind") == "step_updated"]
        assert [s.status for s in steps].count(run_pb2.STEP_STATUS_SUCCEEDED) == 1
        claims = [
            json.loads(line)
            for line in (tmp_path / "executor_b.log").read_text().splitlines()
            if "run.claimed" in line
        ]
        # Not a takeover (that is a lapsed lease's): A released it.
        assert [(c["run_id"], c["takeover"]) for c in claims] == [(run_id, False)], claims
        released = (tmp_path / "executor_a.log").read_text()
        assert "server.stopped" in released, released[-2000:]
    finally:
        if provider is not None:
            provider.kill()
            provider.wait()
        for process in processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
