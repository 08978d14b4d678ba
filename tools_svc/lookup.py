"""Finding the tool an InvokeTool names: a built-in, a mounted MCP server's tool, a mounted A2A
agent's skill, or the newest
live provider version. A provider whose lease looks expired is looked up again after a refresh
(it may have renewed through another replica); a name whose leases all lapsed fails UNAVAILABLE
(retryable: the provider may come back), any other unknown name NOT_FOUND."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from agentrt.core.errors import NotFound, Unavailable
from tools_svc.a2a.agents import A2aTool
from tools_svc.a2a.mounts import A2aAgents
from tools_svc.entries import BuiltinTool, ProviderTool
from tools_svc.mcp.model import McpTool
from tools_svc.mcp.mounts import McpMounts
from tools_svc.providers import Providers
from tools_svc.published import PublishedCatalog
from tools_svc.registry import ToolRegistry


class Lookup:
    def __init__(
        self,
        builtins: ToolRegistry,
        mcp: McpMounts,
        providers: Providers,
        published: PublishedCatalog,
        refresh: Callable[[], Awaitable[None]],
        *,
        a2a: A2aAgents,
    ) -> None:
        self._builtins = builtins
        self._mcp = mcp
        self._a2a = a2a
        self._providers = providers
        self._published = published
        self._refresh = refresh

    async def resolve(self, name: str) -> BuiltinTool | ProviderTool | McpTool | A2aTool:
        builtin = self._builtins.get(name)
        if builtin is not None:
            return builtin
        mcp_tool = self._mcp.resolve(name)
        if mcp_tool is not None:
            return mcp_tool
        a2a_tool = self._a2a.resolve(name)
        if a2a_tool is not None:
            return a2a_tool
        provider = self._providers.get(name)
        if provider is None or provider.expires_at <= time.time():
            await self._refresh()  # the lease may have been renewed through another replica
            provider = self._providers.get(name)
        if provider is not None:
            return provider
        if self._providers.lapsed(name):
            raise Unavailable(
                f"tool '{name}' has no live provider: its lease lapsed (the provider stopped renewing)",
                reason="PROVIDER_LEASE_LAPSED",
                metadata={"tool": name},
            )
        known = ", ".join(t.name for t in self._published.tools()) or "none"
        raise NotFound(f"unknown tool '{name}' (available: {known})", reason="TOOL_NOT_FOUND")
