"""Calls between agentrt services in one process, without the network (the embedded topology).

In `agentrt up` (one process) the gateway calls the executor, and the executor the planner and
tools_svc, through the same generated stubs as between processes; only the channel differs. A
`local:NAME` target (`local:executor`) names a server of this process, and `channel` returns a
`LocalChannel` for it (for any other target, a gRPC channel): a call runs the server's own method
handler (the one grpcserver.py built, so the credential check, the principal, error mapping and
the RPC log line are the same) in the caller's task but in a context of its own (InContext),
with the request object itself.

What is handed over is the Python message, not its bytes: no serialisation, no HTTP/2, no trip
through the event loop's sockets. That is safe because agentrt treats a message as frozen once it
is sent or returned (the gateway already shares one executor event among many watchers); a
service that wants to change a message it received copies it first.

What a caller sees is what grpc.aio gives it: an awaitable call for a unary method, an async
iterator with `cancel()` for a streaming one, `grpc.aio.AioRpcError` (code, details, trailing
metadata with the rich status) for a failure, DEADLINE_EXCEEDED after `timeout`, and the server's
handler cancelled when the caller is.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import AsyncIterator, Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from agentrt.core.channels import aio_channel
from agentrt.core.principals import INTERNAL_HEADER
from agentrt.server.incontext import InContext
from agentrt.server.tracing import SERVICE, local_span

SCHEME = "local:"
_OK = grpc.StatusCode.OK


@dataclass
class _Server:
    handlers: dict[str, grpc.RpcMethodHandler]  # by full method path: "/agentrt.v1.RunService/GetRun"
    token: str | None  # the internal credential its handlers check


# The servers of this process that local targets name ("executor", "planner", "tools").
_SERVERS: dict[str, _Server] = {}


def is_local(target: str) -> bool:
    return target.startswith(SCHEME)


def channel(
    target: str,
    retry_unavailable: bool = True,
    interceptors: list[grpc.aio.ClientInterceptor] | None = None,
) -> grpc.aio.Channel:
    """The channel one service calls another through: in this process for a `local:` target,
    else over the network (core/channels.py, with its options)."""
    if is_local(target):
        return LocalChannel(target)  # type: ignore[return-value]  (the part of Channel agentrt uses)
    return aio_channel(target, retry_unavailable=retry_unavailable, interceptors=interceptors)


def register(name: str, handlers: dict[str, grpc.RpcMethodHandler], token: str | None) -> None:
    """Serve `local:NAME` calls with `handlers` (BuiltServer.handlers) from now on."""
    _SERVERS[name] = _Server(dict(handlers), token)


def unregister(name: str) -> None:
    _SERVERS.pop(name, None)


class _Context:
    """The part of grpc.aio.ServicerContext agentrt's handlers use."""

    def __init__(self, metadata: tuple[tuple[str, Any], ...], deadline: float | None) -> None:
        self._metadata = metadata
        self._deadline = deadline
        self._code: grpc.StatusCode | None = None
        self._details = ""
        self._trailing: tuple[tuple[str, Any], ...] = ()

    def invocation_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self._metadata

    def peer(self) -> str:
        return "local:"  # no address: the caller is this process

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, Any]]) -> None:
        self._trailing = tuple(metadata)

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str:
        return self._details

    def cancelled(self) -> bool:
        return False

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Sequence[tuple[str, Any]] = ()
    ) -> None:
        self._code, self._details, self._trailing = code, details, tuple(trailing_metadata)
        raise grpc.aio.AbortError()

    def error(self) -> grpc.aio.AioRpcError | None:
        """The status a handler left, as the caller sees it; None for OK."""
        if self._code in (None, _OK):
            return None
        return _rpc_error(self._code, self._details, self._trailing)


def _rpc_error(
    code: grpc.StatusCode, details: str, trailing: Sequence[tuple[str, Any]] = ()
) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailing), details)


class LocalChannel:
    """A grpc.aio.Channel to a server of this process (see the module's docstring)."""

    def __init__(self, target: str) -> None:
        self._name = target[len(SCHEME) :]

    def _server(self, method: str) -> tuple[grpc.RpcMethodHandler, tuple[tuple[str, Any], ...]]:
        server = _SERVERS.get(self._name)
        if server is None:  # not started yet, or stopped: as a peer that is not there
            raise _rpc_error(grpc.StatusCode.UNAVAILABLE, f"no local server '{self._name}' in this process")
        handler = server.handlers.get(method)
        if handler is None:
            raise _rpc_error(grpc.StatusCode.UNIMPLEMENTED, f"{method} is not served by '{self._name}'")
        return handler, (((INTERNAL_HEADER, server.token),) if server.token else ())

    def unary_unary(self, method: str, *_args: Any, **_kwargs: Any) -> Callable[..., _UnaryCall]:
        def call(request: Any, *, timeout: float | None = None, metadata: Any = None, **_: Any) -> _UnaryCall:
            return _UnaryCall(self, method, request, timeout, metadata)

        return call

    def unary_stream(self, method: str, *_args: Any, **_kwargs: Any) -> Callable[..., _StreamCall]:
        def call(
            request: Any, *, timeout: float | None = None, metadata: Any = None, **_: Any
        ) -> _StreamCall:
            return _StreamCall(self, method, request, timeout, metadata)

        return call

    def stream_unary(self, method: str, *_args: Any, **_kwargs: Any) -> Callable[..., Any]:
        return self._not_streaming_requests(method)

    def stream_stream(self, method: str, *_args: Any, **_kwargs: Any) -> Callable[..., Any]:
        return self._not_streaming_requests(method)

    @staticmethod
    def _not_streaming_requests(method: str) -> Callable[..., Any]:
        # agentrt's own services have no method that streams requests; a stub still asks for one.
        def call(*_args: Any, **_kwargs: Any) -> Any:
            raise _rpc_error(grpc.StatusCode.UNIMPLEMENTED, f"{method} streams requests: not served locally")

        return call

    def get_state(self, try_to_connect: bool = False) -> grpc.ChannelConnectivity:
        return grpc.ChannelConnectivity.READY if self._name in _SERVERS else grpc.ChannelConnectivity.IDLE

    async def channel_ready(self) -> None:
        return None

    async def close(self, grace: float | None = None) -> None:
        return None

    async def __aenter__(self) -> LocalChannel:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    def prepare(
        self, method: str, timeout: float | None, metadata: Any
    ) -> tuple[grpc.RpcMethodHandler, _Context]:
        handler, credential = self._server(method)
        deadline = None if timeout is None else time.monotonic() + timeout
        return handler, _Context((*tuple(metadata or ()), *credential), deadline)

    def serving(self, method: str) -> contextlib.AbstractContextManager[Any]:
        """Inside the callee's task: its service's name for spans and a server span, as a call
        over the network has."""
        SERVICE.set(self._name)
        return local_span(method, server=True)


def _deadline_error() -> grpc.aio.AioRpcError:
    return _rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")


class _UnaryCall:
    """An awaitable unary call; the handler runs in the caller's task but in a context of its own
    (its contextvars: the principal it sets and its log context stay its own), cancelled with the
    caller."""

    def __init__(
        self, channel: LocalChannel, method: str, request: Any, timeout: float | None, metadata: Any
    ):
        self._channel, self._method, self._request = channel, method, request
        self._timeout, self._metadata = timeout, metadata

    def __await__(self) -> Generator[Any, None, Any]:
        return self._run().__await__()

    async def _run(self) -> Any:
        handler, context = self._channel.prepare(self._method, self._timeout, self._metadata)

        async def serve() -> Any:
            with self._channel.serving(self._method):
                return await handler.unary_unary(self._request, context)

        with local_span(self._method, server=False):
            return await self._outcome(InContext(serve(), contextvars.copy_context()), context)

    async def _outcome(self, served: InContext, context: _Context) -> Any:
        try:
            if self._timeout is None:
                response = await served
            else:
                async with asyncio.timeout(self._timeout):
                    response = await served
        except TimeoutError:
            raise _deadline_error() from None
        except grpc.aio.AbortError:
            raise context.error() or _rpc_error(grpc.StatusCode.UNKNOWN, "aborted") from None
        if (error := context.error()) is not None:
            raise error
        return response


# Closings of streams cancelled between reads (_StreamCall.cancel), kept until they are done.
_CLOSING: set[asyncio.Task[Any]] = set()


class _StreamCall:
    """A server-streaming call: the handler's generator is read in the reader's task, a response
    each time the reader asks for one (so a slow reader holds the server back, as flow control
    does between processes), each step in the handler's own context (InContext)."""

    def __init__(
        self, channel: LocalChannel, method: str, request: Any, timeout: float | None, metadata: Any
    ):
        self._channel, self._method, self._request = channel, method, request
        self._timeout, self._metadata = timeout, metadata
        self._responses_of: AsyncIterator[Any] | None = None  # the handler's generator, once started
        self._context: contextvars.Context | None = None
        self._reader: asyncio.Task[Any] | None = None  # the task waiting for a response, if one is
        self._cancelled = False

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._responses()

    def cancel(self) -> bool:
        """Stop the call: a reader waiting for a response gets CancelledError (its task is
        cancelled, where grpc.aio's reader sees the same error); the handler's generator is closed."""
        if self._cancelled:
            return False
        self._cancelled = True
        if self._reader is not None and not self._reader.done():
            self._reader.cancel()  # the handler, stepped in that task, is cancelled with it
            return True
        if self._responses_of is not None and self._context is not None:
            closing = asyncio.ensure_future(InContext(self._responses_of.aclose(), self._context))
            _CLOSING.add(closing)
            closing.add_done_callback(_CLOSING.discard)
            return True
        return False

    async def _responses(self) -> AsyncIterator[Any]:
        if self._cancelled:
            raise _rpc_error(grpc.StatusCode.CANCELLED, "Locally cancelled by application!")
        handler, context = self._channel.prepare(self._method, self._timeout, self._metadata)
        run = self._context = contextvars.copy_context()
        deadline = None if self._timeout is None else asyncio.get_running_loop().time() + self._timeout

        async def stream() -> AsyncIterator[Any]:
            with self._channel.serving(self._method):
                async for response in handler.unary_stream(self._request, context):
                    yield response

        responses = self._responses_of = stream()
        try:
            while True:
                if self._cancelled:  # by cancel() between two reads: as grpc.aio's reader does
                    raise asyncio.CancelledError()
                self._reader = asyncio.current_task()
                try:
                    if deadline is None:
                        item = await InContext(responses.__anext__(), run)
                    else:
                        async with asyncio.timeout_at(deadline):
                            item = await InContext(responses.__anext__(), run)
                except StopAsyncIteration:
                    if (error := context.error()) is not None:
                        raise error from None
                    return
                except TimeoutError:
                    raise _deadline_error() from None
                except grpc.aio.AbortError:
                    raise context.error() or _rpc_error(grpc.StatusCode.UNKNOWN, "aborted") from None
                except Exception as exc:  # the handler's wrapper maps errors; anything past it is INTERNAL
                    raise _rpc_error(
                        grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}"
                    ) from None
                finally:
                    self._reader = None
                yield item
        finally:
            self._cancelled = True
            # A reader that stopped early: the handler's finally blocks run now, in its context.
            with contextlib.suppress(Exception):
                await InContext(responses.aclose(), run)
