"""Helpers to run agentrt services as separate processes in end-to-end tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from agentrt.cli.supervisor import wait_healthy

BIN = Path(sys.executable).parent
SERVICES = ("gateway", "executor", "planner", "tools")
PORTS = (*SERVICES, "http")  # the gateway's REST port too


def service_env(data_dir: Path, ports: dict[str, int], **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "AGENTRT_DATA_DIR": str(data_dir),
        "AGENTRT_LOG_FORMAT": "json",
        "AGENTRT_SHUTDOWN_GRACE_S": "1",
        # Metrics endpoints off unless a test asks: concurrent test systems must not share ports.
        **{f"AGENTRT_{name.upper()}_METRICS_PORT": "0" for name in SERVICES},
        **{f"AGENTRT_{name.upper()}_PORT": str(port) for name, port in ports.items()},
        **extra,
    }


def serve(service: str, env: dict[str, str], log: Path, port: int) -> subprocess.Popen[bytes]:
    """Start `agentrt serve SERVICE` and wait until it reports SERVING."""
    with log.open("ab") as out:  # a file, not a pipe: a full pipe would block the service
        process = subprocess.Popen([str(BIN / "agentrt"), "serve", service], stdout=out, stderr=out, env=env)
    if not wait_healthy(port, time.monotonic() + 30, process):
        process.kill()
        raise AssertionError(f"{service} did not become healthy:\n{log.read_text()}")
    return process


def free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def wait_for(check: Callable[[], object], what: str, seconds: float = 30) -> None:
    """Poll `check` until it is true, or fail saying what never happened."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


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

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.ports['http']}"

    def agentrt(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        """Run a client command against the gateway (`tools ...` commands reach tools_svc)."""
        target = (
            ["--tools-addr", f"127.0.0.1:{self.ports['tools']}"]
            if args[0] == "tools"
            else ["--target", self.target]
        )
        return subprocess.run(
            [str(BIN / "agentrt"), *args, *target],
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


# Which topology `agentrt up` runs in these tests: one process ("embedded", what `make up` runs) or
# one per service ("split", `agentrt up --split`, as compose and Kubernetes run them). `make test`
# runs the suite on the first, `make test-split` the end-to-end tests again on the second; a test
# may also ask for one.
TOPOLOGIES = ("embedded", "split")


def default_topology() -> str:
    topology = os.environ.get("AGENTRT_TEST_TOPOLOGY", "embedded")
    if topology not in TOPOLOGIES:
        raise ValueError(f"AGENTRT_TEST_TOPOLOGY={topology!r}: one of {', '.join(TOPOLOGIES)}")
    return topology


def start_system(
    data_dir: Path, log: Path, ports: list[int] | None = None, topology: str = "", **extra_env: str
) -> System:
    """`agentrt up` on free ports; returns once it printed that all four services are healthy."""
    port_of = dict(zip(PORTS, ports or free_ports(len(PORTS)), strict=True))
    env = service_env(data_dir, port_of, **extra_env)
    split = ["--split"] if (topology or default_topology()) == "split" else []
    # A file, not a pipe: the children inherit it and must never block on a full pipe.
    out = log.open("ab")
    process = subprocess.Popen(
        [str(BIN / "agentrt"), "up", *split], stdout=out, stderr=subprocess.STDOUT, env=env
    )
    out.close()
    deadline = time.monotonic() + 60
    while "Press Ctrl-C to stop." not in log.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"agentrt up did not start:\n{log.read_text()}")
        time.sleep(0.1)
    return System(process, log, env, port_of)
