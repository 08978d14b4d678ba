"""End to end: `agentrt up` starts the four services as separate processes; we drive them with
the `agentrt` CLI and with grpcurl (reflection only, no proto files), then stop with SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

BIN = Path(sys.executable).parent
SERVICES = ("gateway", "executor", "planner", "tools")


def free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def port_open(port: int) -> bool:
    with closing(socket.socket()) as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class System:
    process: subprocess.Popen[bytes]
    log: Path
    env: dict[str, str]
    ports: dict[str, int]

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.ports['gateway']}"

    def agentrt(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "agentrt"), *args, "--target", self.target],
            capture_output=True,
            check=False,
            text=True,
            timeout=timeout,
            env=self.env,
        )

    def grpcurl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "grpcurl"), "-plaintext", *args],
            capture_output=True,
            check=False,
            text=True,
            timeout=30,
            env=self.env,
        )

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)


def start_system(data_dir: Path, log: Path, ports: list[int] | None = None) -> System:
    ports = ports or free_ports(4)
    port_of = dict(zip(SERVICES, ports, strict=True))
    env = {
        **os.environ,
        "AGENTRT_DATA_DIR": str(data_dir),
        "AGENTRT_LOG_FORMAT": "json",
        "AGENTRT_SHUTDOWN_GRACE_S": "1",
        **{f"AGENTRT_{name.upper()}_PORT": str(port) for name, port in port_of.items()},
    }
    # A file, not a pipe: the children inherit it and must never block on a full pipe.
    out = log.open("ab")
    process = subprocess.Popen([str(BIN / "agentrt"), "up"], stdout=out, stderr=subprocess.STDOUT, env=env)
    out.close()
    deadline = time.monotonic() + 60
    while "Press Ctrl-C to stop." not in log.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"agentrt up did not start:\n{log.read_text()}")
        time.sleep(0.1)
    return System(process, log, env, port_of)


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[System]:
    base = tmp_path_factory.mktemp("e2e")
    running = start_system(base / "data", base / "up.log")
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


def test_cli_run_streams_both_steps_and_succeeds(system: System) -> None:
    result = system.agentrt("run", "Add a todo to buy milk, then show me all my tasks")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for expected in (
        "plan by rules, 2 step(s):",
        "s1 todo_store running (attempt 1)",
        "s1 todo_store succeeded",
        "s2 todo_store succeeded",
        "run succeeded",
        '"text": "buy milk"',
    ):
        assert expected in out, out
    lines = out.splitlines()
    assert lines.index(next(x for x in lines if "s1 todo_store succeeded" in x)) < lines.index(
        next(x for x in lines if "s2 todo_store running" in x)
    )


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("divide 1 by 0", "division by zero"),
        ("book a flight to Rome", "no rule understands 'book a flight to Rome'"),
    ],
)
def test_cli_exit_code_is_nonzero_when_the_run_fails(system: System, prompt: str, message: str) -> None:
    result = system.agentrt("run", prompt)
    assert result.returncode == 1
    assert "run failed" in result.stdout and message in result.stdout


def test_cli_reports_bad_input_clearly(system: System) -> None:
    result = system.agentrt("run", "   ")
    assert result.returncode == 2
    assert "INVALID_ARGUMENT" in result.stderr and "prompt: must not be empty" in result.stderr


def test_grpcurl_creates_and_watches_a_run_through_reflection(system: System) -> None:
    listed = system.grpcurl(system.target, "list")
    assert listed.returncode == 0, listed.stderr
    assert "agentrt.v1.RunService" in listed.stdout.split()
    described = system.grpcurl(system.target, "describe", "agentrt.v1.RunService.WatchRun")
    assert "returns ( stream .agentrt.v1.WatchRunResponse )" in described.stdout, described.stderr

    created = system.grpcurl(
        "-d", '{"prompt": "Calculate (41 * 7) + 13"}', system.target, "agentrt.v1.RunService/CreateRun"
    )
    assert created.returncode == 0, created.stderr
    run = json.loads(created.stdout)["run"]
    assert run["status"] == "RUN_STATUS_PENDING"

    watched = system.grpcurl(
        "-d", json.dumps({"run_id": run["run_id"]}), system.target, "agentrt.v1.RunService/WatchRun"
    )
    assert watched.returncode == 0, watched.stderr
    events = list(_json_stream(watched.stdout))
    assert [int(e["event"]["seq"]) for e in events] == list(range(1, len(events) + 1))
    final = events[-1]["event"]["status_changed"]
    assert final["status"] == "RUN_STATUS_SUCCEEDED"
    assert final["result"]["value"] == 300


def test_sigterm_stops_everything_and_data_survives_a_restart(tmp_path: Path) -> None:
    first = start_system(tmp_path / "data", tmp_path / "up1.log")
    assert first.agentrt("run", "add a todo to water the plants").returncode == 0
    ports = list(first.ports.values())
    assert first.stop() == 0
    assert not any(port_open(p) for p in ports), "a service is still listening after agentrt up stopped"
    log = (tmp_path / "up1.log").read_text()
    for name in SERVICES:
        assert f'"service": "{name}", "event": "server.stopped"' in log, log

    second = start_system(tmp_path / "data", tmp_path / "up2.log", ports)
    try:
        listed = second.agentrt("run", "show me all my tasks")
        assert listed.returncode == 0, listed.stdout + listed.stderr
        assert '"text": "water the plants"' in listed.stdout
        history = second.agentrt("list")
        assert "add a todo to water the plants" in history.stdout
    finally:
        second.stop()


def _json_stream(text: str) -> Iterator[dict]:
    decoder, index = json.JSONDecoder(), 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return
        obj, index = decoder.raw_decode(text, index)
        yield obj
