"""Background work that repeats for the life of a service (retention, for one)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

log = structlog.get_logger("agentrt.periodic")


async def run_every(interval_s: float, what: str, once: Callable[[], Awaitable[None]]) -> None:
    """Run `once` now and then every `interval_s`. A failed round is logged as `<what>.failed`
    and the next round tries again: a database that is down for a while stops nothing."""
    while True:
        try:
            await once()
        except Exception:
            log.exception(f"{what}.failed")
        await asyncio.sleep(interval_s)
