"""MCP both ways, every part a separate process: `agentrt up` mounts `mcp-server-time` (from PyPI)
over stdio, and an MCP client (the SDK's) asks agentrt's gateway at /mcp, with an API key, to run
a prompt; the agent (a scripted OpenAI-compatible model in the test) calls the time server's tool
and answers. Then the time server is SIGKILLed: tools_svc starts it again by itself."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.e2e.procs import System, start_system, wait_for
from tests.keys import key_for
from tests.scripted_llm import Reply, ScriptedLLM

pytestmark = pytest.mark.e2e
KEY = key_for("desktop")
# A zone no other test uses: it tells this test's time server apart from any other process.
LOCAL_ZONE = "Pacific/Chatham"


def model(request: dict[str, Any]) -> Reply:
    results = [m["content"] for m in request["messages"] if m["role"] == "tool"]
    if not results:
        return Reply(calls=[("time__get_current_time", {"timezone": "Asia/Tokyo"})])
    now = json.loads(results[-1])
    return Reply(content=f"It is {now['datetime']} in Tokyo.")


async def run_prompt(system: System, prompt: str) -> tuple[dict[str, Any], list[str]]:
    progress: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        progress.append(message or "")

    http = create_mcp_http_client(headers={"authorization": f"Bearer {KEY}"})
    async with Client(streamable_http_client(f"{system.http}/mcp", http_client=http)) as mcp:
        result = await mcp.call_tool(
            "run_prompt", {"prompt": prompt, "mode": "agent"}, progress_callback=on_progress
        )
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content, progress


def time_server_pids() -> list[int]:
    found = subprocess.run(
        ["pgrep", "-f", f"mcp-server-time --local-timezone {LOCAL_ZONE}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return [int(pid) for pid in found.stdout.split()]


def connected(system: System) -> bool:
    out = system.agentrt("tools", "servers").stdout
    return "time: connected (stdio, config)" in out


def test_an_mcp_client_runs_a_prompt_that_uses_a_stdio_mcp_server(tmp_path: Path) -> None:
    llm = ScriptedLLM()
    llm.script = model
    llm.start_in_thread()
    command = str(Path(sys.executable).parent / "mcp-server-time")
    system = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
        AGENTRT_LLM_MODELS=json.dumps([llm.model()]),
        AGENTRT_API_KEYS=json.dumps({"desktop": KEY}),
        AGENTRT_MCP_SERVERS=json.dumps(
            [{"name": "time", "command": command, "args": ["--local-timezone", LOCAL_ZONE]}]
        ),
        AGENTRT_MCP_PING_INTERVAL_S="0.5",
        AGENTRT_MCP_RECONNECT_MAX_S="1",
    )
    try:
        wait_for(lambda: connected(system), "the time server to connect")
        listing = system.agentrt("tools", "list").stdout
        assert "time__get_current_time" in listing and "read-only" in listing

        run, progress = asyncio.run(run_prompt(system, "what time is it in Tokyo?"))
        assert run["status"] == "succeeded" and run["mode"] == "agent"
        assert [s["tool"] for s in run["steps"]] == ["time__get_current_time"]
        assert run["answer"].startswith("It is ") and run["answer"].endswith("+09:00 in Tokyo.")
        assert "step t1-1 (time__get_current_time) succeeded" in progress

        # The time server dies: tools_svc notices, starts it again, and the next run works.
        (pid,) = time_server_pids()
        subprocess.run(["kill", f"-{signal.SIGKILL.value}", str(pid)], check=True)
        wait_for(lambda: time_server_pids() not in ([], [pid]), "a new time server process")
        wait_for(lambda: connected(system), "the time server to connect again")
        again, _ = asyncio.run(run_prompt(system, "and now?"))
        assert again["status"] == "succeeded", again
    finally:
        code = system.stop()
        llm.stop_thread()
    assert code == 0, system.log.read_text()[-3000:]
    assert time_server_pids() == []  # stopping agentrt stopped its MCP server too
