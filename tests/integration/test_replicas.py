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
from agentrt.v1 import plan_pb2, run_pb2_grpc
from executor_svc import metrics
from executor_svc import server as executor_server
from executor_svc import service as executor_service
from executor_svc.engine import Engine
from executor_svc.store import RunStore
from gateway import server as gateway_server
from tests.harness import Harness, R, step, step_history


@pytest.fixture
async def replicas(pg_settings: Settings) -> AsyncIterator[tuple[Harness, run_pb2_grpc.RunServiceStub]]:
    settings = pg_settings.replace(retry_base_delay_s=0.01, retry_max_delay_s=0.05, run_lease_ttl_s=1.0)
    harness = Harness(settings)
    await harness.start()  # tools, scripted planner, executor A
    other: BuiltServer = await executor_server.build_server(harness.settings.executor, 0)
    await other.start()
    harness.servers["executor_b"] = other  # stopped here, not by harness.close()
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


async def test_a_watch_that_begins_after_the_end_sees_a_retry_on_another_replica(
    replicas: tuple[Harness, run_pb2_grpc.RunServiceStub], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A remembers the run ended; B retries it, and A's watch begins before B's notice reaches
    A (here: never): the watch asks the store, and streams the retry to its end."""
    harness, b = replicas
    once = R.RetryPolicy(max_attempts=1)
    flaky = step("s1", "flaky", label="w", failures=1, kind="retryable")
    run = await harness.create(flaky, retry_policy=once)
    failed, _ = await harness.finish(run.run_id)
    assert failed.status == R.RUN_STATUS_FAILED
    monkeypatch.setattr(Engine, "on_remote_write", lambda self, run_id, writer: None)
    await b.RetryRun(R.RetryRunRequest(run_id=run.run_id), timeout=5)
    events = await watch(harness.runs, run.run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[-1].status_changed.status == R.RUN_STATUS_SUCCEEDED
    assert harness.flaky.calls["w"] == 2


async def test_the_gateway_sends_a_runs_calls_to_the_replica_that_created_it(
    replicas: tuple[Harness, run_pb2_grpc.RunServiceStub], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the executors given as a list, the gateway balances CreateRun itself and sends each
    run's WatchRun and GetRun to the replica that created (and drives) it, which answers from
    memory: the other replica would re-read the store at every event (gateway/executors.py).
    A replica that goes away leaves its runs to the other one."""
    harness, _ = replicas
    a, b = harness.servers["executor"], harness.servers["executor_b"]
    settings = harness.settings.replace(executor_addr=f"ipv4:127.0.0.1:{a.port},127.0.0.1:{b.port}")
    gateway = await gateway_server.build_server(settings.gateway, 0, http_port=0)
    await gateway.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{gateway.port}")
    stub = run_pb2_grpc.RunServiceStub(channel)
    creators: dict[str, int] = {}  # run id -> the engine that created it
    store_reads: list[str] = []  # events read from the store (a watch on the driving replica reads none)
    create_run, list_events = Engine.create_run, RunStore.list_events

    async def created(self: Engine, *args: object, **kwargs: object) -> object:
        run = await create_run(self, *args, **kwargs)  # type: ignore[arg-type]
        creators[run.run_id] = id(self)  # type: ignore[attr-defined]
        return run

    async def read_events(self: RunStore, run_id: str, *args: int) -> object:
        store_reads.append(run_id)
        return await list_events(self, run_id, *args)

    monkeypatch.setattr(Engine, "create_run", created)
    monkeypatch.setattr(RunStore, "list_events", read_events)
    try:

        async def one_run(gated: bool = False) -> str:
            # Gated: the run waits at its step until its watch has its first event, so the watch
            # begins while the run is live (one that begins after the run ended asks the store,
            # e123da9: on a loaded machine an echo run could end first).
            label = f"run{len(creators)}"
            only = step("s1", "gate", label=label) if gated else step("s1", "echo", value=1)
            harness.planner.plan = plan_pb2.Plan(steps=[only], planner="scripted")
            run = (await stub.CreateRun(R.CreateRunRequest(prompt="scripted"), timeout=10)).run
            events = []
            async for response in stub.WatchRun(R.WatchRunRequest(run_id=run.run_id), timeout=10):
                events.append(response.event)
                if gated and len(events) == 1:
                    harness.gate.release(label)
            assert events[-1].status_changed.status == R.RUN_STATUS_SUCCEEDED
            assert (await stub.GetRun(R.GetRunRequest(run_id=run.run_id), timeout=10)).run.last_seq == events[
                -1
            ].seq
            return run.run_id

        # Until the gateway's channel to each replica is connected, it uses the balanced one.
        for _ in range(100):
            await one_run()
            if len(set(creators.values())) == 2:
                break
            await asyncio.sleep(0.05)
        creators.clear()
        store_reads.clear()
        measured = [await one_run(gated=True) for _ in range(8)]
        assert len({creators[run_id] for run_id in measured}) == 2  # both replicas created runs
        assert store_reads == []  # every watch was answered by the run's own replica, from memory

        # Replica B stops: calls about its runs go to A (through the store), new runs to A.
        of_b = [run_id for run_id in measured if creators[run_id] != creators[measured[0]]]
        of_b = of_b or measured
        await b.stop(0)
        for run_id in of_b:
            assert (
                await stub.GetRun(R.GetRunRequest(run_id=run_id), timeout=10)
            ).run.status == R.RUN_STATUS_SUCCEEDED
        assert [await one_run() for _ in range(3)]
    finally:
        await channel.close()
        await gateway.stop(0)
