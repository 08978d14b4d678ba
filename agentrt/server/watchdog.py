"""The event loop's watchdog: how late the loop runs a timer that is due (its lag, the metric
`agentrt_event_loop_lag_seconds`), and a warning with the loop's stack when one callback holds
it past a threshold.

Every call a process serves shares one event loop (in `agentrt up`, all four services do): a
callback that holds it for seconds stalls health checks, every RPC and every run in flight.
Such a hold once came from logging a hostile request (21 s); the next one may come from anything.
The lag is measured on the loop (a timer every INTERVAL_S, and how much later than due it ran);
the stall is seen from a thread, while it lasts, so the warning can say where the loop is held:
the loop's own stack, read with sys._current_frames. One warning per stall, and one line when
the loop is back, with how long it was held.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
import traceback

import structlog
from prometheus_client import Histogram

INTERVAL_S = 0.25
# Frames of the held loop's stack in the warning, innermost last.
STACK_FRAMES = 30
STACK_CHARS = 3500  # within the log's bound on one value (logbounds.MAX_VALUE_CHARS)

LOOP_LAG = Histogram(
    "agentrt_event_loop_lag_seconds",
    "How much later than due the event loop ran a timer (sampled every 0.25 s): how long "
    "callbacks held the loop.",
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
log = structlog.get_logger("agentrt.watchdog")


class LoopWatchdog:
    """Watches the running loop from `start()` to `stop()`. `max_lag_s` is the longest lag seen
    since the last `reset()` (tests that send hostile input assert on it)."""

    def __init__(self, warn_after_s: float = 1.0, interval_s: float = INTERVAL_S) -> None:
        self._warn_after_s = warn_after_s
        self._interval_s = interval_s
        self._beat = time.monotonic()  # when the loop last ran the timer
        self._stalled_since: float | None = None  # set by the thread while a stall lasts
        self._stop = threading.Event()
        self._task: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None
        self._loop_thread = 0
        self.max_lag_s = 0.0

    def start(self) -> None:
        self._loop_thread = threading.get_ident()
        self._beat = time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._tick(), name="loop-watchdog")
        self._thread = threading.Thread(target=self._watch, name="loop-watchdog", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)

    def reset(self) -> None:
        self.max_lag_s = 0.0

    async def _tick(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(self._interval_s)
            now = time.monotonic()
            lag = max(0.0, now - before - self._interval_s)
            LOOP_LAG.observe(lag)
            self.max_lag_s = max(self.max_lag_s, lag)
            self._beat = now
            if self._stalled_since is not None:
                log.warning("event_loop.resumed", held_s=round(now - self._stalled_since, 3))
                self._stalled_since = None

    def _watch(self) -> None:
        while not self._stop.wait(self._interval_s / 2):
            beat = self._beat
            held = time.monotonic() - beat - self._interval_s
            if held < self._warn_after_s or self._stalled_since is not None:
                continue
            self._stalled_since = beat + self._interval_s
            frame = sys._current_frames().get(self._loop_thread)
            stack = traceback.format_stack(frame)[-STACK_FRAMES:] if frame is not None else []
            log.warning(
                "event_loop.stalled",
                held_s=round(held, 3),
                warn_after_s=self._warn_after_s,
                # The innermost frames say where it is held: they are kept when the text is cut.
                stack="".join(stack)[-STACK_CHARS:],
            )
