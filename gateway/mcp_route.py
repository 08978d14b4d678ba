"""The /mcp endpoint's door: API keys are checked on every request, a POST's body is bounded in
size and depth (httpedge.json_body) and a GET stream holds one of its principal's stream slots
(streams.py) and is closed once idle, all before the MCP SDK sees the request. The SDK is loaded
on the first request that passes: importing it takes about a second, which every gateway start
(and every `agentrt up`) would otherwise pay whether or not anyone speaks MCP to it.

The endpoint is stateless MCP: nothing is ever pushed on a GET stream (no session outlives its
request), so one that has sent no event for `mcp_stream_idle_s` is closed; a client that still
wants one opens another. Keep-alive comments (sse-starlette's pings) are not events.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib

from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agentrt.config import GatewaySettings
from agentrt.core.errors import AgentrtError
from gateway.edge import Edge
from gateway.httpedge import BodyRefused, from_error, http_caller, json_body, jsonrpc_refusal, replayed

PATH = "/mcp"


class McpRoute:
    def __init__(self, edge: Edge, settings: GatewaySettings) -> None:
        self._edge = edge
        self._settings = settings
        self._app: ASGIApp | None = None
        self._loading = asyncio.Lock()
        self._manager: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await (self._app or await self._load())(scope, receive, send)
            return
        request = Request(scope, receive)
        try:
            # Before the SDK reads a byte: a caller without a valid key costs only this check.
            principal = self._edge.authenticate(http_caller(request, "mcp"), "mcp")
            slot = self._edge.streams.acquire(principal, "MCP stream") if scope["method"] == "GET" else None
        except AgentrtError as err:
            await from_error(err)(scope, receive, send)
            return
        try:
            if scope["method"] == "POST":
                limits = self._settings.max_request_bytes, self._settings.max_json_depth
                try:
                    body = await json_body(request, *limits)
                except BodyRefused as refused:
                    await jsonrpc_refusal(refused)(scope, receive, send)
                    return
                receive = replayed(body, receive)
            if slot is not None:
                # Stateless: no events are kept, so none can be replayed. Given Last-Event-ID, the
                # SDK (mcp 2.3.0) returns without answering at all (a 500 from the server): a
                # reconnecting client gets a fresh stream instead.
                scope = {**scope, "headers": [h for h in scope["headers"] if h[0] != b"last-event-id"]}
            app = self._app or await self._load()
            if slot is None:
                await app(scope, receive, send)
            else:
                await _closed_when_idle(app, scope, receive, send, self._settings.mcp_stream_idle_s)
        except ClientDisconnect:
            return
        finally:
            if slot is not None:
                slot.release()

    async def _load(self) -> ASGIApp:
        async with self._loading:
            if self._app is None:
                module = await asyncio.to_thread(importlib.import_module, "gateway.mcp")
                mcp = module.McpEdge(self._edge, self._settings)
                app = mcp.asgi()
                # The SDK's request manager lives in a task of its own for the gateway's life.
                ready = asyncio.Event()
                self._manager = asyncio.create_task(mcp.hold(ready), name="mcp")
                started = asyncio.create_task(ready.wait())
                await asyncio.wait({started, self._manager}, return_when=asyncio.FIRST_COMPLETED)
                if not ready.is_set():
                    started.cancel()
                    await self._manager  # raises why it could not start
                self._app = app
            return self._app

    async def close(self) -> None:
        if self._manager is not None:
            self._manager.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._manager


async def _closed_when_idle(app: ASGIApp, scope: Scope, receive: Receive, send: Send, idle_s: float) -> None:
    """Serve a stream with `app`, closing it once it has sent no event for `idle_s`: the app
    (sse-starlette, under the SDK) is told the client went away, and the response is then
    ended here, so the client reads a clean end of stream rather than a reset."""
    loop = asyncio.get_running_loop()
    last_event = loop.time()
    idle = asyncio.Event()
    opened = asyncio.Event()  # the stream's idleness counts from its response's start
    ended = False

    async def watched_send(message: Message) -> None:
        nonlocal last_event, ended
        if message["type"] == "http.response.start":
            last_event = loop.time()
            opened.set()
        elif message["type"] == "http.response.body":
            body = message.get("body", b"")
            if body and not body.startswith(b":"):  # an SSE comment (a ping) is not an event
                last_event = loop.time()
            ended = ended or not message.get("more_body", False)
        await send(message)

    async def watched_receive() -> Message:
        # The SDK waits here for the client's disconnect: idleness answers it with one.
        received = asyncio.ensure_future(receive())
        gone = asyncio.ensure_future(idle.wait())
        try:
            await asyncio.wait({received, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
        if received.done():
            return received.result()
        received.cancel()
        return {"type": "http.disconnect"}

    async def watch() -> None:
        # Not before the SDK answered: told of a disconnect before it starts its response, it
        # would return without one (a 500 from the server).
        await opened.wait()
        while True:
            left = last_event + idle_s - loop.time()
            if left <= 0:
                idle.set()
                return
            await asyncio.sleep(left)

    watcher = asyncio.create_task(watch(), name="mcp-stream-idle")
    try:
        await app(scope, watched_receive, watched_send)
        if idle.is_set() and opened.is_set() and not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        watcher.cancel()
