"""Bearer tokens, as HTTP and gRPC callers present them ('authorization: Bearer <token>'): the
gateway's API keys and tools_svc's registration token are read the same way."""

from __future__ import annotations

import grpc


def bearer(value: str | None) -> str | None:
    """The token of an 'Authorization: Bearer <token>' value, or None."""
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def metadata_bearer(context: grpc.aio.ServicerContext) -> str | None:
    """The bearer token of a gRPC call's 'authorization' metadata, or None."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str):
            return bearer(value)
    return None
