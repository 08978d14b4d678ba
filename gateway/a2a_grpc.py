"""A2A's gRPC binding, on the gateway's gRPC port next to RunService: the service
`lf.a2a.v1.A2AService`, each method served by the SDK's GrpcHandler over the same handler as the
JSON-RPC binding (gateway/a2a.py). The caller's API key (metadata "authorization: Bearer <key>")
is checked here, before the SDK sees the call, as a2a_route.py checks it for JSON-RPC; the server
wrapper every gRPC service has (agentrt/server/grpcserver.py) turns a refusal into its status and
writes the RPC's log line.

Nothing of the SDK is imported with the gateway: even its generated messages pull in most of the
package (~0.15 s and their memory at every start, whether or not an agent ever calls). So the
methods are registered from the list below with requests kept as bytes, and the SDK loads on the
first call, in a thread; each request is parsed then, into the type the SDK's descriptor gives.
A test checks the list against the SDK's service.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from typing import Any

import grpc

from agentrt.config import GatewaySettings
from agentrt.core.errors import InvalidArgument
from agentrt.core.principals import Principal
from gateway.a2a_route import VERSION_HEADER, version_problem
from gateway.edge import Caller, Edge
from gateway.service import caller_of

SERVICE_NAME = "lf.a2a.v1.A2AService"
# Each method of the service, and whether it answers with a stream (a2a-sdk's a2a.proto, as pinned).
METHODS = {
    "SendMessage": False,
    "SendStreamingMessage": True,
    "GetTask": False,
    "ListTasks": False,
    "CancelTask": False,
    "SubscribeToTask": True,
    "CreateTaskPushNotificationConfig": False,
    "GetTaskPushNotificationConfig": False,
    "ListTaskPushNotificationConfigs": False,
    "GetExtendedAgentCard": False,
    "DeleteTaskPushNotificationConfig": False,
}
# Who the call in this task is for, from the key checked here to gateway/a2a.py's context builder.
GRPC_CALLER: ContextVar[tuple[Caller, Principal]] = ContextVar("a2a_grpc_caller")


class A2aGrpc:
    """Every method of A2AService: authenticate, load the SDK (once), parse the request, and
    hand the call to the SDK's GrpcHandler. The methods are made below, one per entry of METHODS."""

    def __init__(self, edge: Edge, settings: GatewaySettings) -> None:
        self._edge = edge
        self._settings = settings
        self._sdk: Any = None  # (GrpcHandler, {method: request type}), once loaded
        self._loading = asyncio.Lock()

    async def _enter(self, name: str, raw: bytes, context: grpc.aio.ServicerContext) -> tuple[Any, Any]:
        """The SDK's bound method for `name`, and the request parsed for it."""
        caller = dataclasses.replace(caller_of(context), protocol="a2a")  # the audit line's protocol
        GRPC_CALLER.set((caller, self._edge.authenticate(caller, "a2a")))
        for key, value in context.invocation_metadata() or ():
            if key == VERSION_HEADER and (problem := version_problem(str(value))):
                raise InvalidArgument(problem, violations=[(VERSION_HEADER, "not a version")])
        if self._sdk is None:
            async with self._loading:
                if self._sdk is None:
                    module = await asyncio.to_thread(importlib.import_module, "gateway.a2a")
                    self._sdk = module.grpc_handler(self._edge, self._settings)
        handler, types = self._sdk
        try:
            request = types[name].FromString(raw)
        except Exception as exc:  # protobuf's DecodeError: bad input, like any other
            raise InvalidArgument(
                f"the request to {SERVICE_NAME}/{name} is not a valid protobuf message of its type ({exc})",
                reason="MALFORMED_REQUEST",
            ) from None
        return getattr(handler, name), request


def _unary(name: str) -> Callable[..., Awaitable[Any]]:
    async def method(self: A2aGrpc, raw: bytes, context: grpc.aio.ServicerContext) -> Any:
        call, request = await self._enter(name, raw, context)
        return await call(request, context)

    return method


def _stream(name: str) -> Callable[..., AsyncIterator[Any]]:
    async def method(self: A2aGrpc, raw: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        call, request = await self._enter(name, raw, context)
        async for response in call(request, context):
            yield response

    return method


for _name, _streams in METHODS.items():
    setattr(A2aGrpc, _name, (_stream if _streams else _unary)(_name))


def _bytes(data: bytes) -> bytes:
    return data


def _serialize(message: Any) -> bytes:
    return bytes(message.SerializeToString())


def add_to_server(servicer: Any, server: Any) -> None:
    """Register the methods as a generated add_*_to_server does, requests left as bytes."""
    make = (grpc.unary_unary_rpc_method_handler, grpc.unary_stream_rpc_method_handler)
    handlers = {
        name: make[streams](
            getattr(servicer, name), request_deserializer=_bytes, response_serializer=_serialize
        )
        for name, streams in METHODS.items()
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)
