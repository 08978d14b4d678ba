"""Background work that repeats for the life of a service: retention, lease renewal, registry
refresh. Each round runs every interval, or sooner when poked through its `wake` event."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import structlog

from agentrt.server.outage import outage_line, store_outage

log = structlog.get_logger("agentrt.server.periodic")


async def run_every(
    interval_s: float,
    once: Callable[[], Awaitable[None]],
    failure_event: str,
    *,
    wake: asyncio.Event | None = None,
    first_now: bool = True,
) -> None:
    """Run `once` every `interval_s` (first at once, unless `first_now` is False), or as soon as
    `wake` is set. A failed round is logged as `failure_event` (a database outage in one line, anything
    else with its traceback) and the next round tries again: a database that is down for a while
    stops nothing."""
    if not first_now:
        await _pause(interval_s, wake)
    while True:
        try:
            await once()
        except Exception as exc:
            if store_outage(exc):
                # Expected while the database is down: one line a round, no traceback. Rendering
                # a driver's traceback (hundreds of frames' lines) every round cost a loaded
                # process seconds of its only event loop, and the calls it served timed out.
                log.warning(failure_event, error=outage_line(exc))
            else:
                log.exception(failure_event)
        await _pause(interval_s, wake)


async def _pause(interval_s: float, wake: asyncio.Event | None) -> None:
    if wake is None:
        await asyncio.sleep(interval_s)
        return
    await wait_event(wake, interval_s)
    wake.clear()


async def wait_event(event: asyncio.Event, timeout_s: float) -> bool:
    """Wait until `event` is set (True) or `timeout_s` passed (False). asyncio.timeout, not
    asyncio.wait_for: on Python 3.11, wait_for swallows a cancellation that arrives just as the
    event is set, and a loop around it then never stops (a shutdown that hangs forever)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout_s):
            await event.wait()
            return True
    return False
