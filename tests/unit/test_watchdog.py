"""The event loop's watchdog: a callback holding the loop is measured (the lag histogram) and
reported while it holds it, with the loop's stack naming where."""

from __future__ import annotations

import asyncio
import threading

import pytest
import structlog
from prometheus_client import REGISTRY

from agentrt.server import watchdog as watchdog_module
from agentrt.server.watchdog import LoopWatchdog


def lag_observations_over(seconds: float) -> float:
    total = REGISTRY.get_sample_value("agentrt_event_loop_lag_seconds_count") or 0.0
    within = REGISTRY.get_sample_value("agentrt_event_loop_lag_seconds_bucket", {"le": str(seconds)}) or 0.0
    return total - within


def hold_the_loop_until(released: threading.Event) -> None:
    # Blocks the loop's thread (as a slow log line or a CPU-bound parse would) until the
    # watchdog's thread has reported it: the wait is tied to the report, not to a clock.
    released.wait(timeout=30)


async def test_a_held_loop_is_reported_with_its_stack_and_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    released = threading.Event()
    resumed_seen = asyncio.Event()
    warnings: list[dict] = []

    def capture(_logger: object, _name: str, event: dict) -> dict:
        if event.get("event") in ("event_loop.stalled", "event_loop.resumed"):
            warnings.append(dict(event))
            if event["event"] == "event_loop.stalled":
                released.set()  # from the watchdog's thread
            else:
                resumed_seen.set()  # on the loop
        raise structlog.DropEvent

    monkeypatch.setattr(watchdog_module, "log", structlog.wrap_logger(None, processors=[capture]))
    before = lag_observations_over(0.1)
    watchdog = LoopWatchdog(warn_after_s=0.1, interval_s=0.05)
    watchdog.start()
    try:
        await asyncio.sleep(0.1)
        hold_the_loop_until(released)
        await asyncio.wait_for(resumed_seen.wait(), 30)  # the loop's next tick says it
    finally:
        await watchdog.stop()
    stalled, resumed = warnings
    assert stalled["event"] == "event_loop.stalled" and stalled["held_s"] >= 0.1
    assert "hold_the_loop_until" in stalled["stack"]  # the loop's own stack, innermost kept
    assert resumed["event"] == "event_loop.resumed" and resumed["held_s"] >= stalled["held_s"]
    assert watchdog.max_lag_s >= 0.1
    assert lag_observations_over(0.1) > before
