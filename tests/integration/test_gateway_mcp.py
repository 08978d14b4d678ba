"""agentrt as an MCP server: the gateway's /mcp driven by the MCP SDK's own client over Streamable
HTTP, against the real services."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.v1 import run_pb2
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack
from tests.keys import key_for

KEY = key_for("desktop")
OTHER_KEY = key_for("other")
PROBE = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def client(stack: Stack, key: str | None = None) -> Client:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    http = create_mcp_http_client(headers=headers)
    return Client(streamable_http_client(f"{stack.http}/mcp", http_client=http))


@pytest.fixture
async def keyed(settings: Settings) -> AsyncIterator[Stack]:
    built = await start_stack(
        settings.replace(
            api_keys={"desktop": SecretStr(KEY)},
            internal_token=INTERNAL_TOKEN,
            approval_exempt_rules=False,
            approval_policy="destructive",
        )
    )
    yield built
    await built.close()


async def test_an_mcp_client_lists_the_tools_and_runs_a_prompt_with_progress(stack: Stack) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with client(stack) as mcp:
        assert mcp.server_info is not None and mcp.server_info.name == "agentrt"
        tools = {t.name: t for t in (await mcp.list_tools()).tools}
        assert set(tools) == {
            "run_prompt",
            "get_run",
            "list_runs",
            "cancel_run",
            "approve_step",
            "reject_step",
        }
        assert tools["get_run"].annotations is not None and tools["get_run"].annotations.read_only_hint
        assert "prompt" in tools["run_prompt"].input_schema["required"]
        result = await mcp.call_tool(
            "run_prompt",
            {"prompt": "what is 2+3, then add a todo to buy milk"},
            progress_callback=on_progress,
        )
        assert not result.is_error
        run = result.structured_content
        assert run is not None
        assert run["status"] == "succeeded" and run["mode"] == "plan"
        assert run["answer"] == "2+3 = 5. Added 'buy milk' (#1)."
        assert run["result"]["todo"] == {"id": 1, "text": "buy milk", "done": False}
        assert [s["tool"] for s in run["steps"]] == ["calculator", "todo_store"]
        # One notification when the run was created, then one per finished step.
        assert progress[0][2] == f"run {run['run_id']} created"
        assert progress[1:] == [
            (1.0, 2.0, "step s1 (calculator) succeeded"),
            (2.0, 2.0, "step s2 (todo_store) succeeded"),
        ]

        got = (await mcp.call_tool("get_run", {"run_id": run["run_id"]})).structured_content
        assert got == run
        listed = (await mcp.call_tool("list_runs", {"status": "succeeded"})).structured_content
        assert listed is not None and [r["run_id"] for r in listed["runs"]] == [run["run_id"]]

        missing = await mcp.call_tool("get_run", {"run_id": "no-such-run"})
        assert missing.is_error and "NOT_FOUND" in missing.content[0].text  # type: ignore[union-attr]
        refused = await mcp.call_tool("run_prompt", {"prompt": "book me a flight to Lisbon"})
        failed = refused.structured_content
        assert failed is not None and failed["status"] == "failed"
        assert failed["error"]["reason"] == "UNPLANNABLE"


async def test_a_run_that_outlasts_the_wait_is_returned_with_its_id(stack: Stack) -> None:
    async with client(stack) as mcp:
        result = await mcp.call_tool("run_prompt", {"prompt": "what is 6*7", "wait_seconds": 0})
        run = result.structured_content
        assert run is not None and run["run_id"]
        if run["status"] != "succeeded":  # the wait ended first: the answer comes from get_run
            assert "get_run" in run["next"]


async def test_api_keys_apply_to_the_mcp_endpoint(keyed: Stack) -> None:
    async with httpx.AsyncClient() as http:
        for headers, reason in (
            ({}, "MISSING_API_KEY"),
            ({"authorization": "Bearer wrong"}, "INVALID_API_KEY"),
        ):
            response = await http.post(f"{keyed.http}/mcp", json=PROBE, headers={**MCP_HEADERS, **headers})
            assert response.status_code == 401
            assert response.headers["www-authenticate"] == "Bearer"
            assert response.json()["error"]["details"][0]["reason"] == reason
    # The SDK's client, without a key, cannot even connect (it reports the 401 as an MCPError).
    with pytest.raises(BaseExceptionGroup) as refused:
        async with client(keyed) as mcp:
            await mcp.list_tools()
    assert refused.group_contains(MCPError, depth=None)

    async with client(keyed, KEY) as mcp:
        run = (await mcp.call_tool("run_prompt", {"prompt": "what is 2+3"})).structured_content
        assert run is not None and run["answer"] == "2+3 = 5"


async def test_approvals_over_mcp(keyed: Stack) -> None:
    """A run that needs a person stops as "waiting" with the steps to approve; approve_step lets
    it go on (decided_by is the API key's name), reject_step and cancel_run end others."""
    async with client(keyed, KEY) as mcp:
        waiting = await _call(mcp, "run_prompt", prompt="add a todo to buy milk", approval_policy="always")
        assert waiting["status"] == "waiting" and waiting["awaiting_approval"] == ["s1"]
        assert waiting["steps"][0]["approval_reason"]
        await _call(mcp, "approve_step", run_id=waiting["run_id"], step_id="s1")
        done = await _finished(mcp, waiting["run_id"])
        assert done["status"] == "succeeded" and done["result"]["todo"]["text"] == "buy milk"

        rejected = await _call(
            mcp, "run_prompt", prompt="add a todo to sell the car", approval_policy="always"
        )
        await _call(mcp, "reject_step", run_id=rejected["run_id"], step_id="s1", reason="not today")
        done = await _finished(mcp, rejected["run_id"])
        assert done["status"] == "failed" and "not today" in done["error"]["message"]

        cancelled = await _call(mcp, "run_prompt", prompt="add a todo to call mom", approval_policy="always")
        assert (await _call(mcp, "cancel_run", run_id=cancelled["run_id"]))["status"] == "cancelled"
    got = await keyed.gateway.GetRun(
        run_pb2.GetRunRequest(run_id=waiting["run_id"]), metadata=(("authorization", f"Bearer {KEY}"),)
    )
    assert got.run.steps[0].approval.decided_by == "desktop"


@pytest.fixture
async def two_keys(settings: Settings) -> AsyncIterator[Stack]:
    built = await start_stack(
        settings.replace(
            api_keys={"desktop": SecretStr(KEY), "other": SecretStr(OTHER_KEY)},
            internal_token=INTERNAL_TOKEN,
            approval_exempt_rules=False,  # a rule plan waits too when asked (approval_policy "always")
            approval_policy="destructive",
        )
    )
    yield built
    await built.close()


async def test_run_prompt_adds_turns_to_a_thread(two_keys: Stack) -> None:
    """thread_id makes the run the thread's next turn; a busy thread refuses unless told to
    enqueue; another principal's thread does not exist."""
    mine = (("authorization", f"Bearer {KEY}"),)
    thread_id = (
        await two_keys.gateway.CreateThread(run_pb2.CreateThreadRequest(), metadata=mine)
    ).thread.thread_id
    async with client(two_keys, KEY) as mcp:
        schema = {t.name: t for t in (await mcp.list_tools()).tools}["run_prompt"].input_schema
        assert "thread_id" in schema["properties"] and "thread_id" not in schema["required"]
        assert schema["properties"]["multitask"]["enum"] == ["reject", "enqueue", "interrupt"]

        first = await _call(mcp, "run_prompt", prompt="add a todo to buy milk", thread_id=thread_id)
        assert (first["thread_id"], first["thread_turn"], first["status"]) == (thread_id, 1, "succeeded")
        second = await _call(mcp, "run_prompt", prompt="what is 12 times 4", thread_id=thread_id)
        assert (second["thread_turn"], second["answer"]) == (2, "12 * 4 = 48")
        alone = await _call(mcp, "run_prompt", prompt="what is 1 + 1")
        assert "thread_id" not in alone and "thread_turn" not in alone

        waiting = await _call(
            mcp, "run_prompt", prompt="add a todo to call mom", thread_id=thread_id, approval_policy="always"
        )
        assert (waiting["thread_turn"], waiting["status"]) == (3, "waiting")
        busy = await mcp.call_tool("run_prompt", {"prompt": "what is 2 + 3", "thread_id": thread_id})
        assert busy.is_error
        refusal = busy.content[0].text  # type: ignore[union-attr]
        assert f"FAILED_PRECONDITION (THREAD_BUSY): thread {thread_id} is still working" in refusal
        assert waiting["run_id"] in refusal
        assert refusal.endswith("(here: run_prompt's multitask 'enqueue' or 'interrupt')")
        queued = await _call(
            mcp,
            "run_prompt",
            prompt="what is 2 + 3",
            thread_id=thread_id,
            multitask="enqueue",
            wait_seconds=0,
        )
        assert (queued["thread_turn"], queued["status"]) == (4, "queued")
        assert (await _call(mcp, "get_run", run_id=queued["run_id"]))["thread_id"] == thread_id

    async with client(two_keys, OTHER_KEY) as mcp:
        hidden = await mcp.call_tool("run_prompt", {"prompt": "what is 2 + 3", "thread_id": thread_id})
        assert hidden.is_error
        assert hidden.content[0].text.endswith(  # type: ignore[union-attr]
            f": NOT_FOUND (THREAD_NOT_FOUND): thread {thread_id} not found"
        )
    thread = (
        await two_keys.gateway.GetThread(run_pb2.GetThreadRequest(thread_id=thread_id), metadata=mine)
    ).thread
    assert [t.turn for t in thread.turns] == [1, 2, 3, 4]  # the refused messages took no turn


async def test_requests_from_another_host_are_refused_on_loopback(stack: Stack) -> None:
    """DNS rebinding: a web page cannot reach a loopback gateway under its own host name."""
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{stack.http}/mcp", json=PROBE, headers={**MCP_HEADERS, "host": "evil.example:8080"}
        )
    assert response.status_code in (403, 421)


async def _call(mcp: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await mcp.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def _finished(mcp: Client, run_id: str) -> dict[str, Any]:
    for _ in range(400):
        run = await _call(mcp, "get_run", run_id=run_id)
        if run["status"] in ("succeeded", "failed", "cancelled"):
            return run
        await asyncio.sleep(0.05)
    raise AssertionError(f"run {run_id} did not finish")
