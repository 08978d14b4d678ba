"""The internal credential between agentrt's services, and the principal each call is for.

When a credential is configured (always, when API keys are), every call to the executor, the
planner and tools_svc must carry it (`agentrt-internal-token` metadata) or is UNAUTHENTICATED;
health checks and reflection stay open for probes and grpcurl. Only such a caller may say which
principal a call is for (principals.py); with no credential configured every call acts for
`local`, and a call naming a principal is refused (FAILED_PRECONDITION): a gateway with keys in
front of a service started without the credential must not quietly make every key `local`.

The check runs in the servicer wrapper that grpcserver.py builds once per method (no interceptor
on the serving side), and sets the principal for the call's task (`current_principal`). Clients
add the credential with a channel interceptor, present only when a credential is configured.
"""

from __future__ import annotations

import contextvars
import hmac
from collections.abc import Sequence
from typing import Any

import grpc

from agentrt.core.errors import FailedPrecondition, Unauthenticated
from agentrt.core.principals import INTERNAL_HEADER, LOCAL, PRINCIPAL_HEADER, Principal, principal_of

_PRINCIPAL: contextvars.ContextVar[Principal] = contextvars.ContextVar("agentrt_principal", default=LOCAL)


def current_principal() -> Principal:
    """Who the current RPC is for (set by the servicer wrapper); `local` outside an RPC."""
    return _PRINCIPAL.get()


class InternalAuth:
    """Checks one call's metadata against the configured credential (None: no check)."""

    def __init__(self, token: str | None) -> None:
        self._token = token.encode() if token else None

    @property
    def enabled(self) -> bool:
        return self._token is not None

    def admit(self, metadata: Sequence[tuple[str, Any]] | None, method: str) -> None:
        """Set the call's principal, or raise Unauthenticated when the credential is missing.
        Without a credential configured every call is `local`'s, and a call that names a
        principal is refused: either it is not from the gateway, or the gateway has keys and
        this service was started without the credential, which must fail loudly rather than
        let every key act as `local` (an admin)."""
        if self._token is None:
            if any(key == PRINCIPAL_HEADER for key, _ in metadata or ()):
                raise FailedPrecondition(
                    f"{method} was called for a principal, but this service has no internal "
                    "credential: set the same AGENTRT_INTERNAL_TOKEN on every agentrt service",
                    reason="INTERNAL_CREDENTIAL_NOT_CONFIGURED",
                )
            _PRINCIPAL.set(LOCAL)
            return
        self._check(metadata, method)
        _PRINCIPAL.set(principal_of(metadata))

    def _check(self, metadata: Sequence[tuple[str, Any]] | None, method: str) -> None:
        presented = b""
        for key, value in metadata or ():
            if key == INTERNAL_HEADER and isinstance(value, str):
                presented = value.encode()
        # compare_digest: the time taken must not reveal how much of the credential matched.
        if not hmac.compare_digest(presented, self._token or b""):
            raise Unauthenticated(
                f"{method} is internal to agentrt: call the gateway, or send the internal "
                "credential ('agentrt-internal-token' metadata, AGENTRT_INTERNAL_TOKEN)",
                reason="INTERNAL_CREDENTIAL_REQUIRED",
            )


class _AddCredential:
    def __init__(self, token: str) -> None:
        self._entry = (INTERNAL_HEADER, token)

    def _details(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()))
        metadata.add(*self._entry)
        return grpc.aio.ClientCallDetails(
            details.method, details.timeout, metadata, details.credentials, details.wait_for_ready
        )


# One object per kind of call: a channel files each interceptor under the first kind it is.
class _UnaryUnary(_AddCredential, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _UnaryStream(_AddCredential, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _StreamUnary(_AddCredential, grpc.aio.StreamUnaryClientInterceptor):
    async def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self._details(details), requests)


class _StreamStream(_AddCredential, grpc.aio.StreamStreamClientInterceptor):
    async def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self._details(details), requests)


def credential_interceptors(token: str | None) -> list[grpc.aio.ClientInterceptor]:
    """Interceptors for a channel to another agentrt service: none without a credential."""
    if not token:
        return []
    return [kind(token) for kind in (_UnaryUnary, _UnaryStream, _StreamUnary, _StreamStream)]
