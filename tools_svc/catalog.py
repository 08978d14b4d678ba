"""The tool catalog, as the servicer, the provider client and the server see it: built-in tools,
tools that providers register under leases, and mounted MCP servers' tools, published as one.

This module only keeps the published catalog current and hands each request to the module
whose job it is:

- registrations.py: provider registrations under leases, and their SQL;
- specs.py: what a registered spec must be, and the catalog entry it becomes (schemas compiled
  once, at registration);
- providers.py: which provider version serves each name, lapsed names, provider health;
- mcp/mounts.py: the mounted MCP servers and their tools;
- a2a/agents.py: the mounted A2A agents and their skills as tools;
- lookup.py: the tool an InvokeTool names;
- published.py: ListTools' answer, the catalog's version, the WatchTools subscribers.

Registrations live in the tools database, so they survive a restart and are shared by replicas.
`refresh()` re-reads them and publishes the result; it runs after every local change and every
`registry_refresh_s` (and at once on a PostgreSQL NOTIFY), which is also how lapsed leases drop
out and how one replica sees another's registrations.
"""

from __future__ import annotations

import asyncio
import time

from agentrt.config import ToolsSettings
from agentrt.server.db import Database
from agentrt.server.periodic import run_every
from agentrt.v1 import tool_pb2, tool_service_pb2
from tools_svc import specs
from tools_svc.a2a.agents import A2aTool
from tools_svc.a2a.mounts import A2aAgents
from tools_svc.entries import BuiltinTool, ProviderTool
from tools_svc.lookup import Lookup
from tools_svc.mcp.model import McpTool
from tools_svc.mcp.mounts import McpMounts
from tools_svc.providers import Providers
from tools_svc.published import PublishedCatalog
from tools_svc.registrations import CHANNEL, Registrations
from tools_svc.registry import ToolRegistry
from tools_svc.validation import EndpointPolicy

__all__ = ["CHANNEL", "Catalog"]


class Catalog:
    def __init__(self, db: Database, builtins: ToolRegistry, settings: ToolsSettings) -> None:
        self._builtins = builtins
        self._settings = settings
        self._endpoints = EndpointPolicy(settings.provider_allowed_hosts)
        self._registrations = Registrations(db, settings)
        self._providers = Providers()
        self.published = PublishedCatalog()  # what ListTools and WatchTools see
        self._refresh_lock = asyncio.Lock()
        self._refresh_soon = asyncio.Event()
        # MCP servers' tools join the catalog as "<server>__<tool>"; their sessions report
        # changes (connected, disconnected, list_changed) by publishing the catalog again.
        self.mcp = McpMounts(db, settings, self._publish, CHANNEL)
        # A2A agents' skills join it as "<agent>__<skill>" once each agent's card is read.
        self.a2a = A2aAgents(db, settings, self._publish, CHANNEL)
        self._lookup = Lookup(builtins, self.mcp, self._providers, self.published, self.refresh, a2a=self.a2a)

    # -- reading ---------------------------------------------------------------------------

    def tools(self) -> list[tool_pb2.Tool]:
        return self.published.tools()

    @property
    def version(self) -> str:
        return self.published.version

    async def resolve(self, name: str) -> BuiltinTool | ProviderTool | McpTool | A2aTool:
        return await self._lookup.resolve(name)

    # -- registration ----------------------------------------------------------------------

    async def register(
        self, spec: tool_pb2.ToolSpec, endpoint: str, ttl_s: float | None
    ) -> tuple[tool_service_pb2.Lease, tool_pb2.Tool]:
        checked = specs.check_spec(spec, self._name_taken)
        await self._endpoints.check(endpoint)
        lease, expires = await self._registrations.register(spec, checked.blob, endpoint, ttl_s)
        # The schemas compiled by the check are the entry's: the refresh compiles nothing.
        self._providers.adopt(specs.entry(checked, lease.lease_id, endpoint, expires))
        await self.refresh()
        return lease, self._providers.tool_of(self._providers.entry(lease.lease_id))

    async def renew(self, lease_ids: list[str]) -> tuple[list[tool_service_pb2.Lease], list[str]]:
        renewed = await self._registrations.renew(lease_ids)
        await self.refresh()
        return renewed

    async def deregister(self, lease_id: str) -> None:
        await self._registrations.deregister(lease_id)
        await self.refresh()

    def _name_taken(self, name: str) -> str | None:
        if name in self._builtins.names():
            return f"'{name}' is a built-in tool and cannot be registered"
        if self.mcp.owns(name):
            return f"'{name}' is in the namespace of a mounted MCP server and cannot be registered"
        if self.a2a.owns(name):
            return f"'{name}' is in the namespace of a mounted A2A agent and cannot be registered"
        return None

    # -- health ----------------------------------------------------------------------------

    def mark_reachable(self, tool: ProviderTool, reachable: bool) -> None:
        if self._providers.mark_reachable(tool, reachable):
            self._publish()

    # -- refresh and watch -----------------------------------------------------------------

    async def refresh(self) -> None:
        async with self._refresh_lock:
            await self.mcp.refresh()
            await self.a2a.refresh()
            rows = await self._registrations.read()
            now = time.time()
            stale = self._providers.load(rows, now)
            if stale:
                await self._registrations.prune(stale, now)
            self._publish()

    def _publish(self) -> None:
        """Publish what the catalog holds now: built-ins, the newest live provider versions, and
        the mounted MCP servers' tools (each change goes to the WatchTools subscribers)."""
        current = {t.name: t for t in self._builtins.specs()}
        current.update(self._providers.published())
        current.update({tool.name: tool for tool in self.mcp.tools()})
        current.update({tool.name: tool for tool in self.a2a.tools()})
        self.published.publish(current)

    def refresh_soon(self) -> None:
        """Another replica changed the registrations (a database notification)."""
        self._refresh_soon.set()

    async def run_refresher(self) -> None:
        await run_every(
            self._settings.registry_refresh_s,
            self.refresh,
            "catalog.refresh_failed",
            wake=self._refresh_soon,
            first_now=False,  # build_server has just refreshed
        )
