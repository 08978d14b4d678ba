"""The /mcp endpoint's door: API keys are checked on every request, and the MCP SDK is loaded on
the first one that passes. Importing the SDK takes about a second, which every gateway start
(and every `agentrt up`) would otherwise pay whether or not anyone speaks MCP to it."""

from __future__ import annotations

import asyncio
import contextlib
import importlib

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from agentrt.config import GatewaySettings
from agentrt.core.errors import AgentrtError
from gateway.edge import Edge
from gateway.httpedge import from_error, http_caller

PATH = "/mcp"


class McpRoute:
    def __init__(self, edge: Edge, settings: GatewaySettings) -> None:
        self._edge = edge
        self._settings = settings
        self._app: ASGIApp | None = None
        self._loading = asyncio.Lock()
        self._manager: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self._edge.auth_enabled:
            # Before the SDK reads a byte: a caller without a valid key costs only this check.
            try:
                self._edge.authenticate(http_caller(Request(scope), "mcp"), "mcp")
            except AgentrtError as err:
                await from_error(err)(scope, receive, send)
                return
        app = self._app or await self._load()
        await app(scope, receive, send)

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
