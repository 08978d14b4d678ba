"""agentrt A delegates a sub-task to agentrt B over A2A, every service its own process. While B
works on it, A's executor is SIGKILLed and started again, then B's: the answer arrives once (B
ran one task, A's run succeeded with it), A's retried step waited on the task its first attempt
started rather than sending B the message again."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from agentrt.client import Client
from agentrt.core.values import value_to_py
from agentrt.v1 import run_pb2
from tests.e2e.procs import BIN, PORTS, SERVICES, free_ports, serve, service_env, wait_for

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]


class Side:
    """One agentrt: each of its four services a process of its own."""

    def __init__(self, name: str, tmp: Path, **extra: str) -> None:
        self.name, self.tmp = name, tmp
        self.ports = dict(zip(PORTS, free_ports(len(PORTS)), strict=True))
        self.env = service_env(tmp / name, self.ports, **extra)
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.starts = 0

    def start(self, service: str) -> None:
        self.starts += 1
        log = self.tmp / f"{self.name}-{service}-{self.starts}.log"
        self.processes[service] = serve(service, self.env, log, self.ports[service])

    def kill(self, service: str) -> None:
        process = self.processes.pop(service)
        process.send_signal(signal.SIGKILL)
        process.wait()

    def stop(self) -> None:
        for process in self.processes.values():
            process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.ports['gateway']}"

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.tmp.glob(f"{self.name}-*.log"))
        )


def test_a_delegated_task_answers_once_across_sigkills_of_both_executors(tmp_path: Path) -> None:
    remote = Side("b", tmp_path)
    local = Side("a", tmp_path)
    local.env["AGENTRT_A2A_AGENTS"] = json.dumps(
        [{"name": "helper", "url": f"http://127.0.0.1:{remote.ports['http']}"}]
    )
    provider = None
    gate = tmp_path / "gate"
    try:
        for service in SERVICES[::-1]:  # tools, planner, executor, gateway
            remote.start(service)
        with (tmp_path / "provider.log").open("ab") as out:
            provider = subprocess.Popen(
                [str(BIN / "agentrt"), "tools", "serve", "tests.e2e.gated_tool:wait_for_gate",
                 "--tools-addr", f"127.0.0.1:{remote.ports['tools']}"],
                cwd=ROOT, env=remote.env, stdout=out, stderr=out,
            )  # fmt: skip
        for service in SERVICES[::-1]:
            local.start(service)

        def listed(side: Side, tool: str) -> bool:
            tools = subprocess.run(
                [str(BIN / "agentrt"), "tools", "list", "--tools-addr", f"127.0.0.1:{side.ports['tools']}"],
                capture_output=True, text=True, check=False, env=side.env, timeout=30,
            )  # fmt: skip
            return tool in tools.stdout

        wait_for(lambda: listed(remote, "wait_for_gate"), "B's provider to register")
        wait_for(lambda: listed(local, "helper__task"), "A to read B's card")

        asked = json.dumps({"message": f"use wait_for_gate with {json.dumps({'gate': str(gate)})}"})
        with Client(local.target) as a, Client(remote.target) as b:
            run_id = a.create_run(f"use helper__task with {asked}", idempotency_key="delegate-1").run_id
            wait_for(lambda: Path(f"{gate}.entered").exists(), "B's task to reach the gate")
            (theirs,) = b.list_runs().runs

        local.kill("executor")  # A's step is waiting on B's task
        local.start("executor")
        remote.kill("executor")  # B's step is inside the gated tool
        remote.start("executor")
        gate.touch()

        with Client(local.target) as a, Client(remote.target) as b:
            events = list(a.watch(run_id))
            run = a.get_run(run_id)
            assert run.status == run_pb2.RUN_STATUS_SUCCEEDED, (
                run.error.message,
                local.logs(),
                remote.logs(),
            )
            stored = [e.seq for e in events if not e.transient]  # progress is live only: no seq of its own
            assert stored == list(range(1, len(stored) + 1))
            (step,) = run.steps
            output = value_to_py(step.output)
            assert output["state"] == "completed" and "gate is open" in output["answer"]
            # One task at B: the one the first attempt started, the answer it gave, once.
            runs = b.list_runs().runs
            assert [r.run_id for r in runs] == [theirs.run_id] == [output["task_id"]]
            assert b.get_run(theirs.run_id).status == run_pb2.RUN_STATUS_SUCCEEDED
        assert "a2a.reattached" in "".join(p.read_text() for p in tmp_path.glob("a-tools-*.log"))
    finally:
        if provider is not None:
            provider.kill()
            provider.wait()
        local.stop()
        remote.stop()
