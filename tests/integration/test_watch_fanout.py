"""The gateway's watchers of one run share one executor WatchRun stream (gateway/fanout.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from prometheus_client import REGISTRY

from agentrt.config import Settings
from agentrt.server.grpcserver import BuiltServer
from agentrt.v1 import run_pb2, run_pb2_grpc
from gateway import fanout
from gateway import server as gateway_server
from tests.harness import Harness, step


def executor_watchers() -> float:
    """Open WatchRun streams at the executor (every service shares this process's registry)."""
    return REGISTRY.get_sample_value("agentrt_watchers") or 0.0


@pytest.fixture
async def harness(settings: Settings) -> AsyncIterator[Harness]:
    async with Harness(settings) as h:
        yield h


@pytest.fixture
async def gateway(harness: Harness) -> AsyncIterator[run_pb2_grpc.RunServiceStub]:
    settings = harness.settings.replace(executor_addr=f"127.0.0.1:{harness.servers['executor'].port}")
    built: BuiltServer = await gateway_server.build_server(settings.gateway, port=0, http_port=0)
    await built.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{built.port}")
    try:
        yield run_pb2_grpc.RunServiceStub(channel)
    finally:
        await channel.close()
        await built.stop(0)


class Watcher:
    """A gateway WatchRun stream read in the background."""

    def __init__(self, gateway: run_pb2_grpc.RunServiceStub, run_id: str, after_seq: int = 0) -> None:
        self.events: list[run_pb2.RunEvent] = []
        self.first = asyncio.Event()
        self._grew = asyncio.Event()
        self.task = asyncio.create_task(self._read(gateway, run_id, after_seq))

    async def _read(self, gateway: run_pb2_grpc.RunServiceStub, run_id: str, after_seq: int) -> None:
        request = run_pb2.WatchRunRequest(run_id=run_id, after_seq=after_seq)
        async for response in gateway.WatchRun(request, timeout=30):
            self.events.append(response.event)
            self.first.set()
            self._grew.set()

    async def received(self, count: int) -> None:
        while len(self.events) < count:
            self._grew.clear()
            await asyncio.wait_for(self._grew.wait(), 5)

    async def seqs(self) -> list[int]:
        await asyncio.wait_for(self.task, 10)
        return [e.seq for e in self.events]


async def settle(expected: float) -> None:
    for _ in range(200):
        if executor_watchers() == expected:
            return
        await asyncio.sleep(0.01)
    assert executor_watchers() == expected


async def test_watchers_of_a_run_share_one_executor_stream_and_see_every_event(
    harness: Harness, gateway: run_pb2_grpc.RunServiceStub
) -> None:
    before = executor_watchers()
    run = await harness.create(step("s1", "gate", label="a"), step("s2", "echo", ("s1",), value=1))
    assert await harness.gate.next_started() == "a"
    watchers = [Watcher(gateway, run.run_id) for _ in range(5)]
    for watcher in watchers:
        await asyncio.wait_for(watcher.first.wait(), 5)
    # A late watcher with a later cursor joins too, and gets only what follows its cursor.
    late = Watcher(gateway, run.run_id, after_seq=2)
    await asyncio.sleep(0.05)
    await settle(before + 1)
    harness.gate.release("a")

    stored = [e.seq for e in await harness.events(run.run_id)]
    assert stored == list(range(1, stored[-1] + 1))
    for watcher in watchers:
        assert await watcher.seqs() == stored
        assert watcher.events[-1].status_changed.status == run_pb2.RUN_STATUS_SUCCEEDED
    assert await late.seqs() == stored[2:]
    await settle(before)  # the shared stream ended with the run


async def test_a_watcher_behind_the_shared_stream_gets_its_own(
    harness: Harness, gateway: run_pb2_grpc.RunServiceStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fanout, "RECENT", 1)  # the shared stream remembers only its last event
    before = executor_watchers()
    run = await harness.create(step("s1", "gate", label="a"), step("s2", "echo", ("s1",), value=1))
    assert await harness.gate.next_started() == "a"
    first = Watcher(gateway, run.run_id)
    await first.received(3)  # created, planning, ...: more than the shared stream keeps
    behind = Watcher(gateway, run.run_id, after_seq=0)
    await asyncio.wait_for(behind.first.wait(), 5)
    await settle(before + 2)
    harness.gate.release("a")
    stored = [e.seq for e in await harness.events(run.run_id)]
    assert await first.seqs() == stored
    assert await behind.seqs() == stored
    await settle(before)


async def test_errors_reach_every_watcher(gateway: run_pb2_grpc.RunServiceStub) -> None:
    for after_seq in (0, -1):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async for _ in gateway.WatchRun(run_pb2.WatchRunRequest(run_id="missing", after_seq=after_seq)):
                pass
        expected = grpc.StatusCode.NOT_FOUND if after_seq == 0 else grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.code() == expected
