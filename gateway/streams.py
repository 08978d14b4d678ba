"""How many streams the gateway holds open: WatchRun (gRPC and SSE) and /mcp's GET streams, at
most `max_streams_per_principal` per principal and `max_streams` in all.

A stream costs a task, a file descriptor and buffers for as long as the client keeps it, where a
call costs them for milliseconds; the per-key rate limit counts calls, not how long each is held.
So one principal could hold the gateway's descriptors with a few hundred idle streams. Past a cap
the next stream is refused (429 / RESOURCE_EXHAUSTED, TOO_MANY_STREAMS) until one ends; the
refusal says which cap.
"""

from __future__ import annotations

from collections import Counter

from prometheus_client import Gauge

from agentrt.core.errors import ResourceExhausted
from agentrt.core.principals import Principal

# How long a refused client is told to wait: a stream ends when its run does or its client goes.
RETRY_AFTER_S = 5.0

STREAMS_OPEN = Gauge(
    "agentrt_gateway_streams_open", "Streams the gateway holds open (WatchRun over gRPC and SSE, GET /mcp)."
)
METRICS = [STREAMS_OPEN]


class StreamLimits:
    def __init__(self, per_principal: int, total: int) -> None:
        self._per_principal = per_principal
        self._total = total
        self._open: Counter[str] = Counter()

    @property
    def open(self) -> int:
        return self._open.total()

    def held_by(self, principal: Principal) -> int:
        return self._open[principal.name]

    def check(self, principal: Principal, kind: str) -> None:
        """Refuse now what `acquire` would refuse: a call that creates a run and then follows it
        (A2A's blocking and streaming SendMessage, MCP's run_prompt) asks before the run exists,
        so a refusal leaves no run behind."""
        self.acquire(principal, kind).release()

    def acquire(self, principal: Principal, kind: str) -> Slot:
        """A slot for one stream of `principal`'s, or ResourceExhausted past a cap."""
        name = principal.name
        if self._open[name] >= self._per_principal:
            raise ResourceExhausted(
                f"{name} holds {self._open[name]} open streams, the most one principal may "
                f"(AGENTRT_MAX_STREAMS_PER_PRINCIPAL); close one before opening this {kind}",
                reason="TOO_MANY_STREAMS",
                retry_after_s=RETRY_AFTER_S,
            )
        if self.open >= self._total:
            raise ResourceExhausted(
                f"the gateway holds {self.open} open streams, the most it may (AGENTRT_MAX_STREAMS); "
                f"retry this {kind} later",
                reason="TOO_MANY_STREAMS",
                retry_after_s=RETRY_AFTER_S,
            )
        self._open[name] += 1
        STREAMS_OPEN.inc()
        return Slot(self, name)

    def _release(self, name: str) -> None:
        STREAMS_OPEN.dec()
        self._open[name] -= 1
        if self._open[name] <= 0:
            del self._open[name]


class Slot:
    """One open stream's place; `release` is idempotent (a stream's end and its finalizer may
    both call it)."""

    def __init__(self, limits: StreamLimits, name: str) -> None:
        self._limits: StreamLimits | None = limits
        self._name = name

    def release(self) -> None:
        if self._limits is not None:
            self._limits._release(self._name)
            self._limits = None
