"""The tool catalog the executor plans with, kept in sync from tools_svc's WatchTools stream.

Asking tools_svc for the catalog on every plan (ListTools) is a round trip per run. Instead the
executor holds the catalog: the stream's snapshot, then each change as tools_svc announces it,
which arrives within milliseconds. While the stream is down (tools_svc restarting, or this
watcher dropped for falling behind) nothing is held and plans ask ListTools, as they would
without it. A plan that fails with the held catalog is made again if the live catalog turns out
to differ (run/planning.py): a tool registered a moment ago is usable at once.

Each tool's input schema is converted and compiled once, as the tool arrives (the snapshot, an
ADDED or UPDATED change), and looked up by name after that (`compiled`): checking arguments
(ApproveStep's edited arguments) never converts or hashes a schema.
"""

from __future__ import annotations

import asyncio

import grpc
import structlog

from agentrt.core.backoff import Backoff
from agentrt.core.toolschemas import CompiledSchema, SchemaBook
from agentrt.v1 import tool_pb2, tool_service_pb2, tool_service_pb2_grpc

log = structlog.get_logger("executor_svc.toolcatalog")

C = tool_service_pb2


class ToolCatalog:
    def __init__(self, tools: tool_service_pb2_grpc.ToolServiceStub, timeout_s: float) -> None:
        self._stub = tools
        self._timeout_s = timeout_s  # of a ListTools call
        self._tools: dict[str, tool_pb2.Tool] = {}
        self._held: tool_service_pb2.ListToolsResponse | None = None  # None: not in sync
        self._book = SchemaBook()
        self._compiled: dict[str, CompiledSchema] = {}  # of the held tools, by name

    def held(self) -> tool_service_pb2.ListToolsResponse | None:
        """The catalog as last announced, in ListTools' form (by name), or None if not in sync."""
        return self._held

    def held_tool(self, name: str) -> tool_pb2.Tool | None:
        """One tool of the held catalog, by name (None if not there, or not in sync)."""
        return None if self._held is None else self._tools.get(name)

    async def live(self) -> tool_service_pb2.ListToolsResponse:
        """The catalog as tools_svc has it now (one ListTools call)."""
        return await self._stub.ListTools(C.ListToolsRequest(), timeout=self._timeout_s)

    def compiled(self, catalog: tool_service_pb2.ListToolsResponse) -> dict[str, CompiledSchema]:
        """Tool name -> its compiled input schema, for `catalog` as held() or live() gave it.
        The held catalog's were compiled as its tools arrived; a live one's tools are looked up
        by schema (each compiled the first time it is seen)."""
        if catalog is self._held:
            return self._compiled
        return self._book.catalog(catalog.tools)

    async def follow(self) -> None:
        """Keep the held catalog in sync for the life of the server."""
        synced_once, backoff = False, Backoff(0.1, 2.0)
        while True:
            call = self._stub.WatchTools(C.WatchToolsRequest())
            try:
                async for message in call:
                    self._apply(message)
                    synced_once = True
                    backoff.reset()
            except grpc.aio.AioRpcError as err:
                if synced_once:
                    log.info("catalog.watch_interrupted", code=err.code().name)
                else:  # tools_svc is still starting (or not up yet): expected, not news
                    log.debug("catalog.waiting_for_tools", code=err.code().name)
            finally:
                call.cancel()
                self._held = None
            await asyncio.sleep(backoff.next_delay())

    def _apply(self, message: tool_service_pb2.WatchToolsResponse) -> None:
        change = message.change
        if change == C.TOOL_CHANGE_TYPE_SNAPSHOT:
            self._tools = {t.name: t for t in message.tools}
            self._compiled = self._book.catalog(message.tools)  # unchanged schemas: looked up
        elif change in (C.TOOL_CHANGE_TYPE_ADDED, C.TOOL_CHANGE_TYPE_UPDATED):
            self._tools.update({t.name: t for t in message.tools})
            self._compiled.update(self._book.catalog(message.tools))
        elif change == C.TOOL_CHANGE_TYPE_REMOVED:
            for tool in message.tools:
                self._tools.pop(tool.name, None)
                self._compiled.pop(tool.name, None)
        else:  # we fell behind and are being dropped: out of sync until the next snapshot
            self._held = None
            return
        self._held = C.ListToolsResponse(
            tools=[self._tools[name] for name in sorted(self._tools)], catalog_version=message.catalog_version
        )
