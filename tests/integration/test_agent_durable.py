"""Durable agent turns: a decided turn is never asked again, whoever resumes the run.

The model is the scripted OpenAI-compatible server; the tool is the harness's gate, which blocks
until the test releases it, so the executor can be stopped while a decided call is in flight.
The requests the model server saw are the bill: they are counted.
"""

from __future__ import annotations

import asyncio

import grpc

from agentrt.config import LLMModel, Settings
from agentrt.v1 import agent_pb2, run_pb2_grpc
from executor_svc import server as executor_server
from tests.harness import Harness, R
from tests.scripted_llm import Reply, ScriptedLLM, answer

AGENT = agent_pb2.RUN_MODE_AGENT


def first_turn_requests(llm: ScriptedLLM) -> int:
    """Requests that asked for the first decision (nothing but the system prompt and the task)."""
    return sum(1 for r in llm.requests if len(r["messages"]) == 2)


def script(llm: ScriptedLLM) -> None:
    llm.replies = [Reply(calls=[("gate", {"label": "a"})]), answer("the gate opened")]


async def test_a_restarted_executor_runs_the_decided_call_without_asking_again(
    settings: Settings, llm: ScriptedLLM
) -> None:
    script(llm)
    harness = Harness(settings.replace(llm_models=[LLMModel(**llm.model())]))
    await harness.start()
    try:
        created = (await harness.runs.CreateRun(R.CreateRunRequest(prompt="open the gate", mode=AGENT))).run
        assert await harness.gate.next_started() == "a"  # decided, recorded, call in flight
        await harness.restart_executor()
        # The resumed run calls the gate again with the same idempotency key; it completes
        # once released, and the model is asked only for the next turn.
        harness.gate.release("a")
        result, watched = await harness.finish(created.run_id)
        events = [e for e in watched if not e.transient]
    finally:
        await harness.close()
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert result.answer == "the gate opened"
    assert first_turn_requests(llm) == 1
    assert len(llm.requests) == 2
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert sum(1 for e in events if e.HasField("turn_decided")) == 2


async def test_a_second_replica_takes_over_mid_loop_on_postgresql(
    pg_settings: Settings, llm: ScriptedLLM
) -> None:
    script(llm)
    settings = pg_settings.replace(llm_models=[LLMModel(**llm.model())], run_lease_ttl_s=1.0)
    harness = Harness(settings)
    await harness.start()
    other = await executor_server.build_server(harness.settings.executor, 0)
    await other.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{other.port}")
    b = run_pb2_grpc.RunServiceStub(channel)
    try:
        created = (await harness.runs.CreateRun(R.CreateRunRequest(prompt="open the gate", mode=AGENT))).run
        assert await harness.gate.next_started() == "a"
        await harness.servers.pop("executor").stop(0)  # A goes away; B claims the run
        assert await asyncio.wait_for(harness.gate.next_started(), 15) == "a"  # B calls it again
        harness.gate.release("a")
        stream = b.WatchRun(R.WatchRunRequest(run_id=created.run_id), timeout=30)
        events = [r.event async for r in stream if not r.event.transient]
        result = (await b.GetRun(R.GetRunRequest(run_id=created.run_id))).run
    finally:
        await channel.close()
        await other.stop(0)
        await harness.close()
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert first_turn_requests(llm) == 1
    assert len(llm.requests) == 2
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    # The gate ran to completion once: the second call found the first's record or ran it anew,
    # never both to completion.
    assert harness.gate.completed.count("a") == 1
