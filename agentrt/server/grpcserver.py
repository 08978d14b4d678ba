"""What every agentrt gRPC server shares: error mapping, one log line per RPC, health,
reflection, and a graceful SIGTERM stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import signal
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import grpc
import structlog
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from agentrt.config import StartupError
from agentrt.core.errors import AgentrtError, InvalidArgument
from agentrt.server import metrics
from agentrt.server.internal import InternalAuth
from agentrt.server.outage import outage_line, store_outage

# Checks a call's metadata for the internal credential and sets its principal (internal.py).
Admit = Callable[[Any, str], None]

log = structlog.get_logger("agentrt.rpc")


def _run_id_of(message: Any) -> str | None:
    """The run a request or response is about (its run_id, its run's or its event's)."""
    for holder in _run_id_holders(type(message)):
        run_id = getattr(message, holder).run_id if holder else message.run_id
        if run_id:
            return str(run_id)
    return None


@functools.cache
def _run_id_holders(message_type: type) -> tuple[str, ...]:
    """Where a message of this type may hold a run_id, from its descriptor ("": the message
    itself), found once per type: asking each message for fields it lacks raises and catches an
    AttributeError per call."""
    descriptor = getattr(message_type, "DESCRIPTOR", None)
    if descriptor is None:
        return ()
    fields = descriptor.fields_by_name
    holders = [""] if "run_id" in fields else []
    for name in ("run", "event"):
        field_ = fields.get(name)
        if (
            field_ is not None
            and field_.message_type is not None
            and "run_id" in field_.message_type.fields_by_name
        ):
            holders.append(name)
    return tuple(holders)


class _Guarded:
    """A servicer whose RPC methods map AgentrtError to its status (with details), anything
    unexpected to INTERNAL with the traceback logged, and write one canonical log line per RPC.

    The methods are wrapped once, when the server is built: a server interceptor would do the
    same wrapping again on every call, which measurably costs on every RPC (~60 us each)."""

    def __init__(
        self, servicer: Any, service_name: str, internal: InternalAuth | None, open_methods: frozenset[str]
    ) -> None:
        self._servicer = servicer
        self._prefix = f"/{service_name}/"
        self._internal = internal
        self._open = open_methods

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._servicer, name)
        method = self._prefix + name
        # Methods that check a credential of their own (tools_svc's registration token) are open.
        admit = None if self._internal is None or name in self._open else self._internal.admit
        if inspect.isasyncgenfunction(attr):
            wrapped = _wrap_stream(attr, method, admit)
        elif inspect.iscoroutinefunction(attr):
            wrapped = _wrap_unary(attr, method, admit)
        else:
            return attr
        setattr(self, name, wrapped)
        return wrapped


async def _abort(context: grpc.aio.ServicerContext, exc: BaseException, method: str) -> None:
    outage = store_outage(exc)
    if outage is not None:
        log.warning("rpc.store_unavailable", method=method, error=outage_line(exc))
        exc = outage
    if isinstance(exc, AgentrtError):
        status = exc.to_status()
        await context.abort(status.code, status.details, status.trailing_metadata)
    log.error("rpc.unhandled_exception", method=method, exc_info=exc)
    await context.abort(grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}")


@dataclass(frozen=True)
class _Undecodable:
    """A request whose bytes are not the method's message: the servicer wrapper answers it."""

    error: str


def _lenient(deserialize: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    # Left to grpcio, a request that fails to parse ends the call as UNKNOWN ("Unexpected
    # <class DecodeError>"); bad input is INVALID_ARGUMENT like any other.
    def decode(data: bytes) -> Any:
        try:
            return deserialize(data)
        except Exception as exc:
            return _Undecodable(f"{type(exc).__name__}: {exc}")

    return decode


def _refuse_undecodable(request: Any, method: str) -> None:
    if isinstance(request, _Undecodable):
        raise InvalidArgument(
            f"the request to {method} is not a valid protobuf message of its type ({request.error})",
            reason="MALFORMED_REQUEST",
        )


class _LenientServer:
    """What a generated add_*_to_server sees instead of the server: it registers the same
    handlers with lenient request deserializers."""

    def __init__(self, server: grpc.aio.Server, handlers: dict[str, Any]) -> None:
        self._server = server
        self._handlers = handlers

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        pass  # registered with the lenient handlers by add_registered_method_handlers below

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        lenient = {
            name: handler._replace(request_deserializer=_lenient(handler.request_deserializer))
            for name, handler in handlers.items()
        }
        self._server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, lenient),))
        self._server.add_registered_method_handlers(service, lenient)
        # The same handlers serve calls from this process (localcalls.py), by method path.
        self._handlers.update({f"/{service}/{name}": handler for name, handler in lenient.items()})


def _log_rpc(method: str, start: float, code: str, run_id: str | None) -> None:
    # Every call between services (in one process too) is timed: the methods are the ones
    # served, the codes gRPC's seventeen.
    elapsed = time.perf_counter() - start
    metrics.series(metrics.RPC_DURATION, method, code).observe(elapsed)
    fields = {"method": method, "code": code, "duration_ms": round(elapsed * 1e3, 3)}
    if run_id:
        fields["run_id"] = run_id
    log.info("rpc", **fields)


def _wrap_unary(
    inner: Callable[..., Awaitable[Any]], method: str, admit: Admit | None
) -> Callable[..., Awaitable[Any]]:
    async def handler(request: Any, context: grpc.aio.ServicerContext) -> Any:
        structlog.contextvars.clear_contextvars()
        start, code, run_id = time.perf_counter(), "OK", _run_id_of(request)
        try:
            _refuse_undecodable(request, method)
            if admit is not None:
                admit(context.invocation_metadata(), method)
            response = await inner(request, context)
            run_id = run_id or _run_id_of(response)
            return response
        except grpc.aio.AbortError:
            code = _code_of(context)
            raise
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        except Exception as exc:
            code = _code_name(exc)
            await _abort(context, exc, method)
        finally:
            _log_rpc(method, start, code, run_id)

    return handler


def _wrap_stream(
    inner: Callable[..., AsyncIterator[Any]], method: str, admit: Admit | None
) -> Callable[..., Any]:
    async def handler(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        structlog.contextvars.clear_contextvars()
        start, code, run_id = time.perf_counter(), "OK", _run_id_of(request)
        try:
            _refuse_undecodable(request, method)
            if admit is not None:
                admit(context.invocation_metadata(), method)
            async for response in inner(request, context):
                yield response
        except grpc.aio.AbortError:
            code = _code_of(context)
            raise
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        except Exception as exc:
            code = _code_name(exc)
            await _abort(context, exc, method)
        finally:
            _log_rpc(method, start, code, run_id)

    return handler


def _code_name(exc: Exception) -> str:
    if isinstance(exc, AgentrtError):
        return exc.code.name
    return "UNAVAILABLE" if store_outage(exc) else "INTERNAL"


def _code_of(context: grpc.aio.ServicerContext) -> str:
    code = context.code()
    return code.name if isinstance(code, grpc.StatusCode) else str(code or "UNKNOWN")


class _MethodAwarePool:
    """The default (upb) descriptor pool cannot resolve "pkg.Service.Method", which is how
    `grpcurl describe` names a method; fall back to the file that defines the service."""

    def __init__(self, pool: descriptor_pool.DescriptorPool) -> None:
        self._pool = pool

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)

    def FindFileContainingSymbol(self, symbol: str) -> Any:
        try:
            return self._pool.FindFileContainingSymbol(symbol)
        except KeyError:
            service_name, _, method = symbol.rpartition(".")
            try:
                service = self._pool.FindServiceByName(service_name)
            except KeyError:
                raise KeyError(symbol) from None
            if method not in service.methods_by_name:
                raise
            return service.file


@dataclass
class BuiltServer:
    """A configured, not yet started, server plus what must be closed after it stops."""

    server: grpc.aio.Server
    port: int
    health: health_aio.HealthServicer
    service_names: list[str]
    cleanups: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    # Run after the gRPC server started and before it reports SERVING (e.g. the HTTP listener).
    startups: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    # The gateway's REST/SSE port, when the process serves one.
    http_port: int | None = None
    # Its method handlers by path ("/agentrt.v1.RunService/GetRun"), health's included: what
    # serves calls from this process without the network (localcalls.py).
    handlers: dict[str, Any] = field(default_factory=dict)

    def background(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run `work` for the life of the server; it is cancelled, in cleanup order, at stop."""
        task = asyncio.create_task(work, name=name)

        async def stop() -> None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

        self.cleanups.append(stop)

    async def start(self) -> None:
        await self.server.start()
        for startup in self.startups:
            await startup()
        for name in ("", *self.service_names):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace: float | None = None) -> None:
        # NOT_SERVING first so balancers and `agentrt up` stop sending new work, then drain.
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)
        for cleanup in reversed(self.cleanups):
            await cleanup()


MAX_CONNECTION_AGE_MS = 60_000


def new_server(
    host: str,
    port: int,
    services: list[tuple[Callable[[Any, grpc.aio.Server], None], Any, str]],
    *,
    max_receive_bytes: int = 16 * 1024 * 1024,
    internal: InternalAuth | None = None,
    open_methods: frozenset[str] = frozenset(),
) -> BuiltServer:
    """Create a server with the given (add_fn, servicer, full_service_name) triples, health and
    reflection, bound to host:port (port 0 picks a free port, returned in BuiltServer.port).
    With `internal` enabled, every method but `open_methods` needs the internal credential
    (health and reflection stay open)."""
    server = grpc.aio.server(
        options=[
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", max_receive_bytes),
            # Clients resolve a DNS name once per connection: closing connections after a while
            # (GOAWAY; calls in flight finish) makes them re-resolve, so replicas added by
            # `docker compose up --scale` start receiving calls within this time.
            ("grpc.max_connection_age_ms", MAX_CONNECTION_AGE_MS),
        ],
    )
    handlers: dict[str, Any] = {}
    for add, servicer, name in services:
        add(_Guarded(servicer, name, internal, open_methods), _LenientServer(server, handlers))
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    handlers["/grpc.health.v1.Health/Check"] = grpc.unary_unary_rpc_method_handler(health.Check)
    names = [name for _, _, name in services]
    reflection.enable_server_reflection(
        [*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME],
        server,
        pool=_MethodAwarePool(descriptor_pool.Default()),
    )
    if port and (why := bind_problem(host, port)):  # said here: gRPC's own words come with a log line
        raise StartupError(cannot_listen(host, port, why))
    try:
        bound = server.add_insecure_port(f"{host}:{port}")
    except RuntimeError:  # grpcio's "Failed to bind" (older releases returned 0)
        bound = 0
    if bound == 0:
        why = "the port is in use, or the address is not this machine's"
        raise StartupError(cannot_listen(host, port, why))
    return BuiltServer(server=server, port=bound, health=health, service_names=names, handlers=handlers)


async def serve_until_signalled(built: BuiltServer, grace: float, name: str) -> None:
    """Start, log the endpoint, and stop gracefully on SIGTERM or SIGINT."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await built.start()
    log.info("server.started", service=name, port=built.port)
    await stop.wait()
    log.info("server.stopping", service=name, grace_s=grace)
    await built.stop(grace)
    log.info("server.stopped", service=name)


def bind_problem(host: str, port: int) -> str | None:
    """Why `host:port` cannot be bound now (as a server binds it, SO_REUSEADDR); None if it can."""
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return (exc.strerror or str(exc)).lower()
    return None


def cannot_listen(host: str, port: int, why: str, variable: str = "") -> str:
    """The one line for a port a service cannot bind (run_service names the service)."""
    which = f" ({variable})" if variable else ""
    return (
        f"cannot listen on {host}:{port}{which}: {why}; stop what holds it (another agentrt?) "
        "or choose another port"
    )
