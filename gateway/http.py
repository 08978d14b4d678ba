"""Runs the REST/SSE app with uvicorn inside the gateway's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Generator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.routing import Match

from agentrt.config import StartupError
from agentrt.server.grpcserver import cannot_listen
from agentrt.server.tracing import traced_asgi
from gateway.httpconn import bounded_headers, bounded_protocol


class _EmbeddedServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        # The gateway process owns SIGTERM/SIGINT and stops both servers itself.
        yield


def _span_details(app: Starlette) -> Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]:
    """Names a request's span by its route ("GET /v1/runs/{run_id}"), not its path: a name per
    run id would look like a new operation for every run."""

    def details(scope: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        method = scope.get("method", "HTTP")
        for route in app.routes:
            path = getattr(route, "path", None)
            if isinstance(path, str) and route.matches(scope)[0] is Match.FULL:
                return f"{method} {path}", {"http.route": path}
        return method, {}

    return details


class HttpServer:
    def __init__(self, app: Starlette, host: str, port: int, max_header_bytes: int = 32 * 1024) -> None:
        # Bind here rather than in uvicorn so port 0 works and the real port is known at once.
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on accepted sockets whose protocol
        # says TCP. Without it a response's headers and body meet Nagle's algorithm and the
        # client's delayed ACK: every request after the first on a connection waited ~40 ms.
        self._socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))
        except OSError as exc:
            self._socket.close()
            why = exc.strerror or str(exc)
            raise StartupError(cannot_listen(host, port, why, "AGENTRT_HTTP_PORT")) from exc
        self._socket.listen(1024)
        self._socket.setblocking(False)
        self.port: int = self._socket.getsockname()[1]
        # With tracing on, a server span per request (REST, SSE, /mcp) continuing the caller's
        # traceparent; the gRPC calls the request makes then carry that trace on.
        served = bounded_headers(traced_asgi(app, _span_details(app)), max_header_bytes)
        # proxy_headers off: uvicorn would otherwise take X-Forwarded-For from any loopback peer
        # as the client's address; the gateway's Auth decides which proxies to believe.
        config = uvicorn.Config(
            served,
            log_config=None,
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
            proxy_headers=False,
            # h11 (uvicorn's HTTP/1.1) with the header bound's 431 and a lingering close
            # (httpconn.py).
            http=bounded_protocol(max_header_bytes),
            h11_max_incomplete_event_size=max_header_bytes,
        )
        self._server = _EmbeddedServer(config)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._server.serve(sockets=[self._socket]), name="http")
        while not self._server.started:
            if self._task.done():
                await self._task  # surfaces the startup error
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._socket.close()
