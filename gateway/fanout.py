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

Streams are shared per principal, never across principals: the executor decides on each stream
whether its principal may see the run, so bob's watch never rides on alice's stream.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator

from agentrt.core.principals import Principal
from agentrt.v1 import run_pb2
from gateway.executors import Executors

Metadata = tuple[tuple[str, str], ...]

RECENT = 64
QUEUE = 256


class _Ended:
    """The shared stream ended as the executor's WatchRun does: after the run's terminal event."""


_ENDED = _Ended()
_Item = run_pb2.WatchRunResponse | _Ended | BaseException


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

    def __init__(self, key: tuple[str, str], after_seq: int, metadata: Metadata) -> None:
        self.key = key
        self.run_id = key[1]
        self.metadata = metadata
        self.cursor = after_seq  # seq of the last event received from the executor
        self.recent: deque[run_pb2.WatchRunResponse] = deque(maxlen=RECENT)
        self.watchers: set[_Watcher] = set()
        self.task: asyncio.Task[None] | None = None

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
        if shared is None and after_seq >= 0:
            shared, backlog = self._start(key, after_seq, metadata), []
        if shared is None or backlog is None:
            async for response in self._own(run_id, after_seq, time_remaining, metadata):
                yield response
            return

        watcher = _Watcher()
        shared.watchers.add(watcher)  # with the backlog taken above: no event missed or repeated
        cursor = after_seq
        try:
            for response in backlog:
                yield response
                cursor = response.event.seq
            while not (watcher.dropped and watcher.queue.empty()):
                item = await watcher.queue.get()
                if isinstance(item, _Ended):
                    return
                if isinstance(item, BaseException):
                    raise item
                if item.event.transient:
                    yield item
                elif item.event.seq > cursor:
                    yield item
                    cursor = item.event.seq
        finally:
            self._leave(shared, watcher)
        async for response in self._own(run_id, cursor, time_remaining, metadata):  # dropped for lagging
            yield response

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
        shared = self._shared[key] = _Shared(key, after_seq, metadata)
        shared.task = asyncio.create_task(self._pump(shared), name=f"watch-{key[1]}")
        return shared

    async def _pump(self, shared: _Shared) -> None:
        request = run_pb2.WatchRunRequest(run_id=shared.run_id, after_seq=shared.cursor)
        call = self._executors.stub_for(shared.run_id).WatchRun(request, metadata=shared.metadata)
        outcome: _Item = _ENDED
        try:
            async for response in call:
                if not response.event.transient:
                    shared.cursor = response.event.seq
                    shared.recent.append(response)
                shared.deliver(response)
        except asyncio.CancelledError:
            # No watchers left, or the gateway is stopping: any still here must not hang.
            outcome = asyncio.CancelledError()
            raise
        except Exception as exc:  # the executor's error (AioRpcError), or anything unexpected
            outcome = exc
        finally:
            call.cancel()
            if self._shared.get(shared.key) is shared:
                del self._shared[shared.key]  # from now on, new watchers start a new stream
            shared.deliver(outcome)

    def _leave(self, shared: _Shared, watcher: _Watcher) -> None:
        shared.watchers.discard(watcher)
        if not shared.watchers and self._shared.get(shared.key) is shared:
            del self._shared[shared.key]
            if shared.task is not None:
                shared.task.cancel()
