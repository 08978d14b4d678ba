"""API keys and per-key rate limits at the gateway, shared by the REST bridge and gRPC.

Off when no keys are configured (the embedded default). Keys are compared in constant time, and
each key has a token bucket: `rate_limit_rps` sustained, `rate_limit_burst` at once. A refused
call is told how long to wait (HTTP 429 Retry-After, gRPC RESOURCE_EXHAUSTED with RetryInfo).
"""

from __future__ import annotations

import hmac
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import grpc

from agentrt.config import Settings
from agentrt.errors import ResourceExhausted, Unauthenticated


@dataclass
class _Bucket:
    tokens: float
    updated: float


class Auth:
    def __init__(self, settings: Settings) -> None:
        self._keys = [(name, key.get_secret_value().encode()) for name, key in settings.api_keys.items()]
        self._rate = settings.rate_limit_rps
        self._burst = float(settings.rate_limit_burst)
        self._buckets: dict[str, _Bucket] = {}

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def check(self, presented: str | None) -> str | None:
        """Authenticate and rate-limit one call; returns the key's name (None when auth is off)."""
        if not self._keys:
            return None
        name = self._authenticate(presented)
        self._take(name)
        return name

    def _authenticate(self, presented: str | None) -> str:
        token = (presented or "").encode()
        match = None
        for name, key in self._keys:
            # Compare against every key, always: the time taken must not depend on which matched.
            if hmac.compare_digest(token, key):
                match = name
        if match is None:
            raise Unauthenticated(
                "a valid API key is required: send 'Authorization: Bearer <key>'"
                if presented
                else "missing API key: send 'Authorization: Bearer <key>'",
                reason="INVALID_API_KEY" if presented else "MISSING_API_KEY",
            )
        return match

    def _take(self, name: str) -> None:
        now = time.monotonic()
        bucket = self._buckets.setdefault(name, _Bucket(self._burst, now))
        bucket.tokens = min(self._burst, bucket.tokens + (now - bucket.updated) * self._rate)
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return
        wait = (1 - bucket.tokens) / self._rate
        raise ResourceExhausted(
            f"rate limit exceeded for API key '{name}' ({self._rate:g} requests/s, burst {self._burst:g}); "
            f"retry in {wait:.2f}s",
            reason="RATE_LIMITED",
            retry_after_s=wait,
        )


def bearer(value: str | None) -> str | None:
    """The token of an 'Authorization: Bearer <token>' value, or None."""
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def retry_after_header(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))


def grpc_check(auth: Auth) -> Callable[[grpc.aio.ServicerContext], None]:
    """The same keys and limits for gRPC callers (metadata 'authorization: Bearer <key>'), as a
    check new_server runs first in every RunService call. Health and reflection are not checked:
    probes and `grpcurl list` carry no credentials."""

    def check(context: grpc.aio.ServicerContext) -> None:
        if not auth.enabled:
            return
        metadata = {k: v for k, v in context.invocation_metadata() or () if isinstance(v, str)}
        auth.check(bearer(metadata.get("authorization")))

    return check
