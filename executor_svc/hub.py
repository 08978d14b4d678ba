"""Wakes WatchRun streams when their run gets new events.

The hub carries no events, only "something new for run X": watchers read the events themselves
from the store, from their own cursor. A slow or vanished watcher therefore never holds up the
run or buffers anything, and reconnecting with after_seq is the same code path as a live tail.
Wake-ups are weakly held, so a run nobody watches costs nothing here.
"""

from __future__ import annotations

import asyncio
import weakref


class EventHub:
    def __init__(self) -> None:
        self._wakeups: weakref.WeakValueDictionary[str, asyncio.Event] = weakref.WeakValueDictionary()

    def wakeup(self, run_id: str) -> asyncio.Event:
        """The event set by the next publish for run_id. Take it *before* reading the store,
        so a publish that lands between the read and the wait is not missed."""
        event = self._wakeups.get(run_id)
        if event is None:
            event = asyncio.Event()
            self._wakeups[run_id] = event
        return event

    def publish(self, run_id: str) -> None:
        event = self._wakeups.pop(run_id, None)
        if event is not None:
            event.set()
