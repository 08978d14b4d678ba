"""Waiting between reconnect attempts, the same way everywhere a connection is re-made (the
client's watch, the executor's tool catalog, the PostgreSQL listener)."""

from __future__ import annotations

import random


class Backoff:
    """Delays that start at `first_s` and double up to `max_s`; each is cut by a random part
    of up to `jitter` of itself, so the replicas that lost the same server do not all come back
    in the same instant. `reset()` once connected again."""

    def __init__(self, first_s: float, max_s: float, jitter: float = 0.5) -> None:
        self._first_s = first_s
        self._max_s = max_s
        self._jitter = jitter
        self.failures = 0

    def next_delay(self) -> float:
        # The exponent stops growing long after the cap is reached: a loop that keeps failing
        # (a server down for hours) would otherwise reach 2**1024, too large for a float.
        delay = min(self._max_s, self._first_s * 2 ** min(self.failures, 64))
        self.failures += 1
        return delay * (1 - self._jitter * random.random())

    def reset(self) -> None:
        self.failures = 0
