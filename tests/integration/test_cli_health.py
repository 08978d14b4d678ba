"""`agentrt health`: what probes and people see for a serving, an unknown and an absent service."""

from __future__ import annotations

import asyncio

import pytest

from agentrt import cli
from tests.conftest import Stack
from tests.e2e.procs import free_ports


async def health(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    # In a thread: the command blocks, and the servers it asks run on this test's event loop.
    code = await asyncio.to_thread(cli.main, ["health", *args, "--timeout", "2"])
    return code, capsys.readouterr().out.strip()


async def test_health_tells_serving_unknown_and_unreachable_apart(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"127.0.0.1:{stack.port('tools')}"
    assert await health(capsys, "--target", target) == (0, "SERVING")
    assert await health(capsys, "--target", target, "--service", "no.such.Service") == (1, "SERVICE UNKNOWN")
    (port,) = free_ports(1)
    code, out = await health(capsys, "--target", f"127.0.0.1:{port}")
    assert code == 2
    assert out.startswith(f"UNREACHABLE: nothing answered at 127.0.0.1:{port}")
