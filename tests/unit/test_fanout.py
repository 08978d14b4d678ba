"""WatchFanout's first watcher, who reads the executor's stream itself while it is alone
(gateway/fanout.py), against a scripted executor stream: a second watcher is never held up by
the first's client, and none misses or repeats an event, whoever leaves first."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentrt.core.principals import LOCAL
from agentrt.v1 import run_pb2
from gateway.fanout import WatchFanout


def event(seq: int) -> run_pb2.WatchRunResponse:
    return run_pb2.WatchRunResponse(event=run_pb2.RunEvent(run_id="r", seq=seq))


class Stream:
    """An executor WatchRun: the events put into it, from its `after_seq` on."""

    def __init__(self, after_seq: int) -> None:
        self.after_seq = after_seq
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.cancelled = False

    def __aiter__(self) -> Any:
        return self._responses()

    async def _responses(self) -> Any:
        while True:
            item = await self.queue.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            if item.event.seq > self.after_seq:
                yield item

    def cancel(self) -> bool:
        self.cancelled = True
        return True


class Executor:
    """Every stream opened, and the run's events so far (a stream opened later replays them)."""

    def __init__(self) -> None:
        self.streams: list[Stream] = []
        self.sent: list[Any] = []

    def stub_for(self, _run_id: str) -> Executor:
        return self

    def WatchRun(self, request: run_pb2.WatchRunRequest, **_: Any) -> Stream:
        stream = Stream(request.after_seq)
        for item in self.sent:
            stream.queue.put_nowait(item)
        self.streams.append(stream)
        return stream

    def send(self, *items: Any) -> None:
        for item in items:
            self.sent.append(item)
            for stream in self.streams:
                if not stream.cancelled:
                    stream.queue.put_nowait(item)


async def read(watch: Any, count: int) -> list[int]:
    return [(await asyncio.wait_for(anext(watch), 5)).event.seq for _ in range(count)]


async def drain(watch: Any) -> list[int]:
    async def every() -> list[int]:
        return [response.event.seq async for response in watch]

    return await asyncio.wait_for(every(), 5)  # a watcher held up fails, never hangs


@pytest.fixture
def executor() -> Executor:
    return Executor()


async def test_a_lone_watcher_reads_the_stream_itself_to_its_end(executor: Executor) -> None:
    fanout = WatchFanout(executor)  # type: ignore[arg-type]
    executor.send(event(1), event(2), event(3), None)
    assert await drain(fanout.watch("r", 0, None, LOCAL)) == [1, 2, 3]
    assert len(executor.streams) == 1 and not fanout._shared


async def test_a_second_watcher_is_not_held_up_by_the_first_ones_client(executor: Executor) -> None:
    fanout = WatchFanout(executor)  # type: ignore[arg-type]
    first = fanout.watch("r", 0, None, LOCAL)
    executor.send(event(1), event(2))
    assert await read(first, 2) == [1, 2]  # then its client reads nothing for a while
    second = fanout.watch("r", 0, None, LOCAL)
    assert await read(second, 2) == [1, 2]  # from the shared stream's recent events
    executor.send(event(3), event(4), None)
    assert await drain(second) == [3, 4]  # while the first is not read at all
    assert await drain(first) == [3, 4]  # nothing missed, nothing twice
    assert len(executor.streams) == 1


async def test_one_that_joins_while_the_first_reads_gets_each_event_once(executor: Executor) -> None:
    fanout = WatchFanout(executor)  # type: ignore[arg-type]
    first = fanout.watch("r", 0, None, LOCAL)
    reading = asyncio.ensure_future(read(first, 1))  # the first waits for the stream
    await asyncio.sleep(0)
    second = fanout.watch("r", 0, None, LOCAL)
    joined = asyncio.ensure_future(read(second, 1))
    await asyncio.sleep(0)
    executor.send(event(1), event(2), None)
    assert await reading == [1] and await joined == [1]
    assert await drain(first) == [2] and await drain(second) == [2]
    assert len(executor.streams) == 1


async def test_when_the_first_leaves_mid_read_the_others_go_on_alone(executor: Executor) -> None:
    fanout = WatchFanout(executor)  # type: ignore[arg-type]
    executor.send(event(1))
    first = fanout.watch("r", 0, None, LOCAL)
    assert await read(first, 1) == [1]
    reading = asyncio.ensure_future(read(first, 1))  # waiting for the stream's next event
    await asyncio.sleep(0)
    second = fanout.watch("r", 0, None, LOCAL)
    joined = asyncio.ensure_future(drain(second))
    await asyncio.sleep(0)
    reading.cancel()  # the first watcher's client goes away mid-read
    with pytest.raises(asyncio.CancelledError):
        await reading
    await first.aclose()
    assert executor.streams[0].cancelled
    executor.send(event(2), None)
    assert await joined == [1, 2]  # on a stream of its own from its cursor
    assert [s.after_seq for s in executor.streams] == [0, 1]


async def test_the_executors_error_reaches_the_first_and_the_others(executor: Executor) -> None:
    fanout = WatchFanout(executor)  # type: ignore[arg-type]
    first = fanout.watch("r", 0, None, LOCAL)
    reading = asyncio.ensure_future(drain(first))
    await asyncio.sleep(0)
    second = fanout.watch("r", 0, None, LOCAL)
    joined = asyncio.ensure_future(drain(second))
    await asyncio.sleep(0)
    executor.send(RuntimeError("the executor went away"))
    for watching in (reading, joined):
        with pytest.raises(RuntimeError, match="went away"):
            await watching
