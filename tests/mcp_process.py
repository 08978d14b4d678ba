"""The test MCP server (tests/mcp_server.py) as a separate process the tests can kill and restart."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.procs import free_ports

ROOT = Path(__file__).resolve().parent.parent


class McpServerProcess:
    def __init__(self) -> None:
        (self.port,) = free_ports(1)
        self.process: asyncio.subprocess.Process | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.mcp_server", "--port", str(self.port), cwd=ROOT
        )
        async with httpx.AsyncClient() as client:
            for _ in range(300):
                if self.process.returncode is not None:
                    raise RuntimeError(f"the test MCP server exited with {self.process.returncode}")
                try:
                    await client.get(f"{self.base}/control/state", timeout=1)
                    return
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
        raise RuntimeError("the test MCP server did not start")

    async def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()

    async def state(self) -> dict[str, Any]:
        async with httpx.AsyncClient() as client:
            return (await client.get(f"{self.base}/control/state", timeout=10)).json()

    async def grow(self) -> list[str]:
        async with httpx.AsyncClient() as client:
            return (await client.post(f"{self.base}/control/grow", timeout=10)).json()["tools"]
