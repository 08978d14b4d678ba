"""WatchRun fan-out: the gateway's watchers of one run share one executor stream.

Without it, N clients watching a run are N executor streams: the executor sends every event N
times and the gateway receives it N times. With it the executor sends each event once to this
gateway, which hands it to each watcher.

A watcher joins the run's shared stream when that stream can still give it every event after
its cursor (the shared stream keeps its RECENT latest events); otherwise, with an older cursor,
it gets a stream of its own from its cursor, as it would without fan-out. A watcher more than
QUEUE events behind is dropped from the shared stream and continues on a stream of its own from
its cursor, so a slow client neither holds the others up nor makes memory grow.

Transient events (an agent's text as the model writes it) are handed to the watchers present
and never kept for later ones: like the executor, the gateway replays stored events only.

The watcher that starts a shared stream reads it itself while it is alone (most runs have one
watcher): no task and no queue between the executor's stream and its client. A second watcher
hands the reading to a task of its own (at once, or, if the first is reading, right after that
read), so the first watcher's client can no more hold the others up than any other's. If the
first watcher leaves while reading, alone, the stream goes with it; a watcher that joined in that
read goes on with a stream of its own from its cursor.

Streams are shared per principal, never across principals: the executor decides on each stream
whether its principal may see the run, so bob's watch never rides on alice's stream.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from agentrt.core.principals import Principal
from agentrt.v1 import run_pb2
from gateway.executors import Executors

Metadata = tuple[tuple[str, str], ...]

RECENT = 64
QUEUE = 256


class _Ended:
    """The shared stream ended as the executor's WatchRun does: after the run's terminal event."""


class _Orphaned:
    """The shared stream went with its first watcher, who read it: go on with a stream of your own."""


_ENDED = _Ended()
_ORPHANED = _Orphaned()
_Item = run_pb2.WatchRunResponse | _Ended | _Orphaned | BaseException


class _Watcher:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[_Item] = asyncio.Queue(QUEUE)
        self.dropped = False  # fell QUEUE behind: finish the queue, then go on alone

    def offer(self, item: _Item) -> bool:
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.dropped = True
            return False
        return True


class _Shared:
    """One executor WatchRun stream of a run and the watchers it feeds."""

    def __init__(self, key: tuple[str, str], after_seq: int, call: Any) -> None:
        self.key = key
        self.run_id = key[1]
        self.call = call  # the executor's WatchRun
        self.responses: AsyncIterator[run_pb2.WatchRunResponse] = call.__aiter__()
        self.cursor = after_seq  # seq of the last event received from the executor
        self.recent: deque[run_pb2.WatchRunResponse] = deque(maxlen=RECENT)
        self.watchers: set[_Watcher] = set()  # fed from their queues (not the first, while it reads)
        self.first: _Watcher | None = None  # the watcher that reads the stream itself, while it does
        self.reading = False  # the first watcher is waiting for the stream's next response
        self.task: asyncio.Task[None] | None = None  # reads the stream once the first hands over
        self.over = False  # ended: its outcome handed to the watchers

    def received(self, response: run_pb2.WatchRunResponse) -> None:
        if not response.event.transient:
            self.cursor = response.event.seq
            self.recent.append(response)

    def backlog(self, after_seq: int) -> list[run_pb2.WatchRunResponse] | None:
        """What a watcher with cursor `after_seq` needs from before now, or None if this stream
        no longer holds all of it."""
        if after_seq >= self.cursor:
            return []
        if self.recent and self.recent[0].event.seq <= after_seq + 1:
            return [r for r in self.recent if r.event.seq > after_seq]
        return None

    def deliver(self, item: _Item) -> None:
        for watcher in list(self.watchers):
            if not watcher.offer(item):
                self.watchers.discard(watcher)


class WatchFanout:
    def __init__(self, executors: Executors) -> None:
        self._executors = executors  # each run's stream from the replica driving it, if known
        self._shared: dict[tuple[str, str], _Shared] = {}  # by (principal, run_id)

    async def watch(
        self,
        run_id: str,
        after_seq: int,
        time_remaining: float | None,
        principal: Principal,
        metadata: Metadata = (),
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        """The run's events after `after_seq` until its end, as the executor's WatchRun gives
        them to `principal` (whose `metadata` goes with the executor call); its errors are
        raised as the AioRpcError it returned. `time_remaining` bounds a stream of this
        watcher's own (a shared one lives as long as it has watchers)."""
        key = (principal.name, run_id)
        shared = self._shared.get(key)
        backlog = shared.backlog(after_seq) if shared is not None else None
        first = shared is None and after_seq >= 0  # this watcher starts the shared stream
        if first:
            shared, backlog = self._start(key, after_seq, metadata), []
        if shared is None or backlog is None:
            async for response in self._own(run_id, after_seq, time_remaining, metadata):
                yield response
            return

        watcher = _Watcher()
        if not first:
            shared.watchers.add(watcher)  # with the backlog taken above: no event missed or repeated
            if shared.first is not None and shared.task is None and not shared.reading:
                self._hand_over(shared)  # the first watcher's client may be slow: read for everyone
        cursor = after_seq
        try:
            for response in backlog:
                yield response
                cursor = response.event.seq
            if first:
                async for response in self._read_first(shared, watcher):
                    yield response
                    if not response.event.transient:
                        cursor = response.event.seq
                if shared.task is None:
                    return  # the stream ended while this watcher read it
            async for response in self._follow(shared, watcher, cursor):
                yield response
                if not response.event.transient:
                    cursor = response.event.seq
        finally:
            self._leave(shared, watcher)
        if watcher.dropped:  # for lagging, or the first watcher left with the stream
            async for response in self._own(run_id, cursor, time_remaining, metadata):
                yield response

    async def _read_first(
        self, shared: _Shared, watcher: _Watcher
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        """The first watcher reads the stream itself until another watcher joins (then a task
        reads it for all, and this one follows its queue) or the stream ends."""
        shared.first = watcher
        while shared.task is None:
            shared.reading = True
            try:
                response = await anext(shared.responses, _ENDED)
            except Exception as exc:  # the executor's error, for the others too
                self._ended(shared, exc)
                raise
            finally:
                shared.reading = False
            if isinstance(response, _Ended):
                self._ended(shared, _ENDED)
                return
            shared.received(response)
            shared.deliver(response)  # to any that joined during the read
            if shared.watchers:
                self._hand_over(shared)
            yield response

    async def _follow(
        self, shared: _Shared, watcher: _Watcher, cursor: int
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        """What the shared stream's task hands `watcher` after `cursor`, until it ends; stops
        early with `watcher.dropped` set when the watcher must go on alone."""
        while not (watcher.dropped and watcher.queue.empty()):
            item = await watcher.queue.get()
            if isinstance(item, _Ended):
                return
            if isinstance(item, _Orphaned):
                watcher.dropped = True
                return
            if isinstance(item, BaseException):
                raise item
            if item.event.transient:
                yield item
            elif item.event.seq > cursor:
                yield item
                cursor = item.event.seq

    async def _own(
        self, run_id: str, after_seq: int, time_remaining: float | None, metadata: Metadata
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        call = self._executors.stub_for(run_id).WatchRun(
            run_pb2.WatchRunRequest(run_id=run_id, after_seq=after_seq),
            timeout=time_remaining,
            metadata=metadata,
        )
        try:
            async for response in call:
                yield response
        finally:
            call.cancel()

    def _start(self, key: tuple[str, str], after_seq: int, metadata: Metadata) -> _Shared:
        request = run_pb2.WatchRunRequest(run_id=key[1], after_seq=after_seq)
        call = self._executors.stub_for(key[1]).WatchRun(request, metadata=metadata)
        shared = self._shared[key] = _Shared(key, after_seq, call)
        return shared

    def _hand_over(self, shared: _Shared) -> None:
        """From now on a task reads the stream, and the first watcher follows its queue too."""
        assert shared.first is not None and shared.task is None and not shared.reading
        shared.watchers.add(shared.first)
        shared.task = asyncio.create_task(self._pump(shared), name=f"watch-{shared.run_id}")

    async def _pump(self, shared: _Shared) -> None:
        outcome: _Item = _ENDED
        try:
            async for response in shared.responses:
                shared.received(response)
                shared.deliver(response)
        except asyncio.CancelledError:
            # No watchers left, or the gateway is stopping: any still here must not hang.
            outcome = asyncio.CancelledError()
            raise
        except Exception as exc:  # the executor's error (AioRpcError), or anything unexpected
            outcome = exc
        finally:
            self._ended(shared, outcome)

    def _ended(self, shared: _Shared, outcome: _Item) -> None:
        if shared.over:
            return
        shared.over = True
        shared.call.cancel()
        if self._shared.get(shared.key) is shared:
            del self._shared[shared.key]  # from now on, new watchers start a new stream
        shared.deliver(outcome)

    def _leave(self, shared: _Shared, watcher: _Watcher) -> None:
        shared.watchers.discard(watcher)
        if shared.first is watcher and shared.task is None:
            # It read the stream itself and goes (its client left mid-read, or the stream
            # ended): the stream goes too, and any that joined in that read go on alone.
            self._ended(shared, _ORPHANED)
            return
        if not shared.watchers and shared.task is not None and self._shared.get(shared.key) is shared:
            del self._shared[shared.key]
            shared.task.cancel()
