"""Wakes WatchRun streams when their run gets new events, and hands them the recent ones.

Each publish carries the events just committed; the hub keeps the last RECENT of them per run in
a bounded ring, so live watchers take new events from memory instead of each re-reading the
store. A run's ring outlives its end for a while (the ENDED most recently ended or waiting runs): a watcher
that is an event or two behind when the run ends, or that connects just after, still reads
memory. A watcher whose cursor is older than the ring (a slow reader, a reconnect with an old
after_seq, a run published by another process) reads the store from its own cursor instead, so
a slow or vanished watcher never holds anything up and memory stays bounded.

Transient events (the text an agent's model is writing) are kept apart: only those written since
the run's latest stored event, all carrying that event's seq, at most LIVE_BYTES of them. They
reach watchers whose cursor is at that seq, are dropped when the next stored event is published
(it holds the whole text), and are never read from the store, so replay stays exact.

Bounded by bytes as well as by count: events carry step outputs (up to the tool output limit),
so a ring also drops its oldest events beyond RING_BYTES, and the rings of ended runs are
forgotten oldest first beyond ENDED_BYTES in all. A watcher then reads the store, as it would
for any cursor older than the ring.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict, deque
from collections.abc import Sequence

from agentrt.core.runstate import is_terminal_event
from agentrt.v1 import run_pb2

RECENT = 64  # events kept per run
ENDED = 256  # ended runs whose rings are kept
RING_BYTES = 1 << 20  # per run
ENDED_BYTES = 32 << 20  # the rings of ended runs together
LIVE_BYTES = 64 << 10  # transient events per run since its latest stored event


class _Ring:
    """A run's latest events, at most RECENT of them and RING_BYTES (but always the newest)."""

    __slots__ = ("bytes", "events")

    def __init__(self) -> None:
        self.events: deque[run_pb2.RunEvent] = deque()
        self.bytes = 0

    def extend(self, events: Sequence[run_pb2.RunEvent]) -> None:
        for event in events:
            self.events.append(event)
            self.bytes += event.ByteSize()
        while len(self.events) > 1 and (len(self.events) > RECENT or self.bytes > RING_BYTES):
            self.bytes -= self.events.popleft().ByteSize()


def _waits(event: run_pb2.RunEvent) -> bool:
    return (
        event.WhichOneof("kind") == "status_changed"
        and event.status_changed.status == run_pb2.RUN_STATUS_WAITING
    )


class EventHub:
    def __init__(self) -> None:
        self._wakeups: weakref.WeakValueDictionary[str, asyncio.Event] = weakref.WeakValueDictionary()
        self._recent: dict[str, _Ring] = {}
        self._ended: OrderedDict[str, _Ring] = OrderedDict()
        self._ended_bytes = 0
        self._live: dict[str, tuple[int, list[run_pb2.RunEvent], int]] = {}  # seq, events, bytes

    def wakeup(self, run_id: str) -> asyncio.Event:
        """The event set by the next publish for run_id. Take it *before* reading, so a publish
        that lands between the read and the wait is not missed."""
        event = self._wakeups.get(run_id)
        if event is None:
            event = asyncio.Event()
            self._wakeups[run_id] = event
        return event

    def publish(self, run_id: str, events: Sequence[run_pb2.RunEvent]) -> None:
        self._live.pop(run_id, None)
        ring = self._recent.get(run_id) or self._pop_ended(run_id)  # RetryRun revives an ended run
        if ring is None or (ring.events and events and events[0].seq != ring.events[-1].seq + 1):
            # New, or (defensively) not contiguous: never serve a gap from memory.
            ring = _Ring()
        ring.extend(events)
        # A run that ended, or that waits for a person (it may wait for hours, thousands at a
        # time), keeps its ring among the bounded ENDED ones: waiting must cost no memory.
        if ring.events and (is_terminal_event(ring.events[-1]) or _waits(ring.events[-1])):
            self._recent.pop(run_id, None)
            self._ended[run_id] = ring
            self._ended_bytes += ring.bytes
            while len(self._ended) > ENDED or self._ended_bytes > ENDED_BYTES:
                self._ended_bytes -= self._ended.popitem(last=False)[1].bytes
        else:
            self._recent[run_id] = ring
        self._wake(run_id)

    def publish_transient(self, run_id: str, event: run_pb2.RunEvent) -> None:
        """A transient event after the stored event `event.seq`; past LIVE_BYTES it is dropped
        (watchers still get the whole text in the next stored event)."""
        seq, events, size = self._live.get(run_id, (event.seq, [], 0))
        if seq != event.seq:
            seq, events, size = event.seq, [], 0
        if size + event.ByteSize() > LIVE_BYTES:
            return
        events.append(event)
        self._live[run_id] = (seq, events, size + event.ByteSize())
        self._wake(run_id)

    def transient_after(self, run_id: str, seq: int, sent: int) -> list[run_pb2.RunEvent]:
        """Transient events following stored event `seq`, after the first `sent` of them."""
        live = self._live.get(run_id)
        if live is None or live[0] != seq:
            return []
        return live[1][sent:]

    def _pop_ended(self, run_id: str) -> _Ring | None:
        ring = self._ended.pop(run_id, None)
        if ring is not None:
            self._ended_bytes -= ring.bytes
        return ring

    def forget(self, run_id: str) -> None:
        """Another replica writes this run now: drop what we remember of it (it may no longer
        be the latest) and wake its watchers, who then read the store."""
        self._recent.pop(run_id, None)
        self._live.pop(run_id, None)
        self._pop_ended(run_id)
        self._wake(run_id)

    def _wake(self, run_id: str) -> None:
        event = self._wakeups.pop(run_id, None)
        if event is not None:
            event.set()

    def wake_all(self) -> None:
        """Wake every watcher to re-read the store (notifications may have been missed)."""
        self._recent.clear()
        self._live.clear()
        self._ended.clear()
        self._ended_bytes = 0
        wakeups, self._wakeups = list(self._wakeups.values()), weakref.WeakValueDictionary()
        for event in wakeups:
            event.set()

    def _ring(self, run_id: str) -> deque[run_pb2.RunEvent] | None:
        ring = self._recent.get(run_id) or self._ended.get(run_id)
        return ring.events if ring is not None else None

    def holds(self, run_id: str) -> bool:
        """Whether memory holds the run's latest events (so the run exists)."""
        return bool(self._ring(run_id))

    def events_after(self, run_id: str, seq: int) -> list[run_pb2.RunEvent] | None:
        """Events after `seq` from memory, or None when the ring does not reach back that far."""
        ring = self._ring(run_id)
        if not ring or ring[0].seq > seq + 1:
            return None
        return [e for e in ring if e.seq > seq]

    def running(self, run_id: str) -> bool:
        """Whether memory shows the run going on here: its latest event is no end."""
        ring = self._ring(run_id)
        return bool(ring) and not is_terminal_event(ring[-1])

    def ended(self, run_id: str, seq: int) -> bool:
        """Whether memory shows the run ended at or before `seq` (and was not restarted since)."""
        ring = self._ring(run_id)
        return bool(ring) and ring[-1].seq <= seq and is_terminal_event(ring[-1])
