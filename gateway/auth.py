"""API keys and per-key rate limits at the gateway, shared by the REST bridge and gRPC.

Off when no keys are configured (the embedded default). Keys are compared in constant time, and
each key has a token bucket: `rate_limit_rps` sustained, `rate_limit_burst` at once. A refused
call is told how long to wait (HTTP 429 Retry-After, gRPC RESOURCE_EXHAUSTED with RetryInfo).
"""

from __future__ import annotations

import hmac
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from agentrt.config import Settings
from agentrt.errors import ResourceExhausted, Unauthenticated

# Health and reflection stay open: probes and `grpcurl list` carry no credentials.
_OPEN_PREFIXES = ("/grpc.health.v1.", "/grpc.reflection.")


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


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """The same keys and limits for gRPC callers (metadata 'authorization: Bearer <key>')."""

    def __init__(self, auth: Auth) -> None:
        self._auth = auth

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        method: str = details.method  # type: ignore[attr-defined]
        if handler is None or not self._auth.enabled or method.startswith(_OPEN_PREFIXES):
            return handler
        metadata = {k: v for k, v in details.invocation_metadata or () if isinstance(v, str)}  # type: ignore[attr-defined]
        presented = bearer(metadata.get("authorization"))
        auth = self._auth
        if handler.unary_unary:
            inner = handler.unary_unary

            async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
                auth.check(presented)
                return await inner(request, context)

            return grpc.unary_unary_rpc_method_handler(
                unary, handler.request_deserializer, handler.response_serializer
            )
        if handler.unary_stream:
            inner_stream = handler.unary_stream

            async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                auth.check(presented)
                async for response in inner_stream(request, context):
                    yield response

            return grpc.unary_stream_rpc_method_handler(
                stream, handler.request_deserializer, handler.response_serializer
            )
        return handler
