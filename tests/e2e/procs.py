"""Helpers to run agentrt services as separate processes in end-to-end tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from agentrt.supervisor import wait_healthy

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


def service_env(data_dir: Path, ports: dict[str, int], **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "AGENTRT_DATA_DIR": str(data_dir),
        "AGENTRT_LOG_FORMAT": "json",
        "AGENTRT_SHUTDOWN_GRACE_S": "1",
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
