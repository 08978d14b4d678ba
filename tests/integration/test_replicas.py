"""Two executors on one PostgreSQL database: any replica serves any run.

Executor A drives the runs (CreateRun goes to it); executor B only answers WatchRun, CancelRun
and RetryRun for them, through the shared store, its lease takeover and LISTEN/NOTIFY.
Skipped without PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest

from agentrt.config import Settings
from agentrt.server.grpcserver import BuiltServer
from agentrt.v1 import run_pb2_grpc
from executor_svc import metrics
from executor_svc import server as executor_server
from executor_svc import service as executor_service
from tests.harness import Harness, R, step, step_history


@pytest.fixture
async def replicas(pg_settings: Settings) -> AsyncIterator[tuple[Harness, run_pb2_grpc.RunServiceStub]]:
    settings = pg_settings.model_copy(
        update={"retry_base_delay_s": 0.01, "retry_max_delay_s": 0.05, "run_lease_ttl_s": 1.0}
    )
    harness = Harness(settings)
    await harness.start()  # tools, scripted planner, executor A
    other: BuiltServer = await executor_server.build_server(harness.settings, 0)
    await other.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{other.port}")
    try:
        yield harness, run_pb2_grpc.RunServiceStub(channel)
    finally:
        await channel.close()
        await other.stop(0)
        await harness.close()


async def watch(stub: run_pb2_grpc.RunServiceStub, run_id: str) -> list[R.RunEvent]:
    stream = stub.WatchRun(R.WatchRunRequest(run_id=run_id), timeout=30)
    return [response.event async for response in stream]


async def test_a_watcher_on_another_replica_sees_events_live(
    replicas: tuple[Harness, run_pb2_grpc.RunServiceStub], monkeypatch: pytest.MonkeyPatch
) -> None:
    harness, b = replicas
    # Without the periodic re-check, only A's NOTIFY can wake B's watcher.
    monkeypatch.setattr(executor_service, "WATCH_POLL_S", 600)
    run = await harness.create(step("s1", "gate", label="a"), step("s2", "echo", ("s1",), value=1))
    assert await harness.gate.next_started() == "a"
    watcher = asyncio.create_task(watch(b, run.run_id))
    await asyncio.sleep(0.3)
    assert not watcher.done()  # B streamed what was stored and now waits for live events
    harness.gate.release("a")
    events = await asyncio.wait_for(watcher, 10)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[-1].status_changed.status == R.RUN_STATUS_SUCCEEDED
    assert events == await harness.events(run.run_id)


async def test_cancel_on_another_replica_fences_the_driver_out(
    replicas: tuple[Harness, run_pb2_grpc.RunServiceStub],
) -> None:
    harness, b = replicas
    lost_before = metrics.LEASES_LOST._value.get()
    run = await harness.create(step("s1", "gate", label="a"), step("s2", "echo", ("s1",), value=1))
    assert await harness.gate.next_started() == "a"

    response = await b.CancelRun(R.CancelRunRequest(run_id=run.run_id), timeout=5)
    assert response.run.status == R.RUN_STATUS_CANCELLED
    assert [s.status for s in response.run.steps] == [R.STEP_STATUS_CANCELLED, R.STEP_STATUS_SKIPPED]
    # A hears B's write, stops driving the run and cancels its tool call.
    for _ in range(100):
        if harness.gate.cancelled:
            break
        await asyncio.sleep(0.02)
    assert harness.gate.cancelled == ["a"]
    assert metrics.LEASES_LOST._value.get() == lost_before + 1
    events = await harness.events(run.run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[-1].status_changed.status == R.RUN_STATUS_CANCELLED
    await asyncio.sleep(0.2)
    assert (await harness.runs.GetRun(R.GetRunRequest(run_id=run.run_id))).run.last_seq == events[-1].seq


async def test_retry_on_another_replica_drives_the_run_there(
    replicas: tuple[Harness, run_pb2_grpc.RunServiceStub],
) -> None:
    harness, b = replicas
    run = await harness.create(
        step("s1", "echo", value=1),
        step("s2", "flaky", ("s1",), label="r", failures=1, kind="retryable"),
        retry_policy=R.RetryPolicy(max_attempts=1),
    )
    failed, _ = await harness.finish(run.run_id)
    assert failed.status == R.RUN_STATUS_FAILED
    retried = (await b.RetryRun(R.RetryRunRequest(run_id=run.run_id), timeout=5)).run
    assert retried.status == R.RUN_STATUS_RUNNING
    done, events = await harness.finish(run.run_id)
    assert done.status == R.RUN_STATUS_SUCCEEDED, done.error.message
    assert done.retry_count == 1
    assert harness.flaky.calls["r"] == 2
    assert step_history(events, "s1") == ["RUNNING", "SUCCEEDED"]  # kept, not run again
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
