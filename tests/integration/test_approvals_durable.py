"""Waiting runs hold nothing, so an approval can land at any replica, and a restart while a run
waits loses nothing: the call runs exactly once after approval, never without it. On SQLite and
on PostgreSQL (two executors)."""

from __future__ import annotations

import asyncio

import grpc

from agentrt.config import Settings
from agentrt.v1 import run_pb2_grpc
from executor_svc import server as executor_server
from tests.harness import Harness, R, step

ALWAYS = R.APPROVAL_POLICY_ALWAYS


async def waiting(harness: Harness, run_id: str, after_seq: int = 0) -> R.Run:
    request = R.WatchRunRequest(run_id=run_id, after_seq=after_seq)
    async for response in harness.runs.WatchRun(request, timeout=30):
        if response.event.status_changed.status == R.RUN_STATUS_WAITING:
            return (await harness.runs.GetRun(R.GetRunRequest(run_id=run_id))).run
    raise AssertionError("the run ended without waiting")


async def test_a_restart_while_waiting_loses_nothing_on_sqlite(settings: Settings) -> None:
    await restart_while_waiting(settings)


async def test_a_restart_while_waiting_loses_nothing_on_postgresql(pg_settings: Settings) -> None:
    await restart_while_waiting(pg_settings)


async def restart_while_waiting(base: Settings) -> None:
    """Restarts while waiting for each of two approvals: each call runs once, after its approval."""
    harness = Harness(base)
    await harness.start()
    try:
        run = await harness.create(
            step("s1", "echo", value=1), step("s2", "gate", ("s1",), label="a"), approval_policy=ALWAYS
        )
        first = await waiting(harness, run.run_id)
        assert [s.status for s in first.steps] == [R.STEP_STATUS_AWAITING_APPROVAL, R.STEP_STATUS_PENDING]
        await harness.restart_executor()
        approved = await harness.runs.ApproveStep(R.ApproveStepRequest(run_id=run.run_id, step_id="s1"))
        second = await waiting(harness, run.run_id, approved.run.last_seq)  # s2 needs its own approval
        assert second.steps[1].status == R.STEP_STATUS_AWAITING_APPROVAL
        assert harness.gate.completed == []
        await harness.restart_executor()
        await harness.runs.ApproveStep(R.ApproveStepRequest(run_id=run.run_id, step_id="s2"))
        assert await harness.gate.next_started() == "a"
        harness.gate.release("a")
        result, events = await harness.finish(run.run_id)
    finally:
        await harness.close()
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert harness.gate.completed == ["a"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    statuses = [e.status_changed.status for e in events if e.HasField("status_changed")]
    assert statuses.count(R.RUN_STATUS_WAITING) == 2


async def test_an_approval_at_the_replica_not_driving_the_run_resumes_it_there(pg_settings: Settings) -> None:
    harness = Harness(pg_settings.replace(run_lease_ttl_s=1.0))
    await harness.start()
    other = await executor_server.build_server(harness.settings.executor, 0)
    await other.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{other.port}")
    b = run_pb2_grpc.RunServiceStub(channel)
    try:
        run = await harness.create(step("s1", "gate", label="a"), approval_policy=ALWAYS)
        await waiting(harness, run.run_id)
        approved = (
            await b.ApproveStep(R.ApproveStepRequest(run_id=run.run_id, step_id="s1"), timeout=10)
        ).run
        assert approved.status == R.RUN_STATUS_RUNNING
        assert await asyncio.wait_for(harness.gate.next_started(), 10) == "a"
        harness.gate.release("a")
        events = [r.event async for r in b.WatchRun(R.WatchRunRequest(run_id=run.run_id), timeout=30)]
        result = (await b.GetRun(R.GetRunRequest(run_id=run.run_id))).run
    finally:
        await channel.close()
        await other.stop(0)
        await harness.close()
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert harness.gate.completed == ["a"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
