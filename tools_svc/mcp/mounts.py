"""Every mounted MCP server: those in the configuration, and those mounted at runtime.

Runtime mounts live in the tools database (table mcp_mounts), so they survive restarts and every
replica sees them; each replica then holds its own session with each server (MCP sessions are
per connection and cannot be shared). `refresh()` reconciles the sessions with the mounts: it runs
with the catalog's refresh (every registry_refresh_s, and at once on PostgreSQL NOTIFY).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import structlog

from agentrt.config import McpServerConfig, ToolsSettings
from agentrt.core.errors import Unavailable
from agentrt.core.text import register_secrets
from agentrt.server.db import Database
from agentrt.v1 import tool_pb2, tool_service_pb2
from tools_svc import mounting
from tools_svc.delegation import Credentials
from tools_svc.mcp.model import Limits, McpTool, Target, answer_limit
from tools_svc.mcp.names import server_of
from tools_svc.validation import EndpointPolicy

if TYPE_CHECKING:
    from tools_svc.mcp.connection import McpConnection

log = structlog.get_logger("tools_svc.mcp")


def target_of(config: McpServerConfig) -> Target:
    secret = config.caller_signing_secret
    return Target(
        name=config.name,
        origin="config",
        url=config.url,
        credentials=Credentials.of(
            config.headers, config.principal_headers, secret.get_secret_value() if secret else ""
        ),
        command=config.command,
        args=tuple(config.args),
        env=tuple(sorted((k, v.get_secret_value()) for k, v in config.env.items())),
        cwd=config.cwd,
        legacy=config.protocol == "legacy",
    )


class McpMounts:
    def __init__(
        self, db: Database, settings: ToolsSettings, on_change: Callable[[], None], channel: str
    ) -> None:
        self._db = db
        self._settings = settings
        self._on_change = on_change
        self._channel = channel
        self._policy = EndpointPolicy(settings.provider_allowed_hosts)
        self._limits = Limits(
            max_tools=settings.mcp_max_tools_per_server,
            connect_timeout_s=settings.mcp_connect_timeout_s,
            list_timeout_s=settings.mcp_list_timeout_s,
            reconnect_max_s=settings.mcp_reconnect_max_s,
            ping_interval_s=settings.mcp_ping_interval_s,
            answer_bytes=answer_limit(settings.max_tool_output_bytes),
            max_principal_sessions=settings.mcp_max_principal_sessions,
            principal_session_idle_s=settings.mcp_principal_session_idle_s,
        )
        self._configured = {c.name: target_of(c) for c in settings.mcp_servers}
        self._connections: dict[str, McpConnection] = {}

    # -- the catalog's view ----------------------------------------------------------------

    def tools(self) -> list[tool_pb2.Tool]:
        return [tool for name in sorted(self._connections) for tool in self._connections[name].published()]

    def owns(self, name: str) -> bool:
        return server_of(name) in self._connections

    def resolve(self, name: str) -> McpTool | None:
        """The tool, None when no mounted server claims the name, UNAVAILABLE when its server
        is mounted but has not (yet, or any more) told us about it while disconnected."""
        server = server_of(name)
        connection = self._connections.get(server) if server else None
        if connection is None:
            return None
        tool = connection.tools.get(name)
        if tool is None and not connection.connected:
            raise Unavailable(
                f"tool '{name}' belongs to MCP server '{server}', which is not connected"
                + (f" ({connection.last_error})" if connection.last_error else ""),
                reason="MCP_SERVER_UNAVAILABLE",
                metadata={"tool": name, "mcp_server": connection.name},
            )
        return tool

    def servers(self) -> list[tool_service_pb2.McpServer]:
        return [self._connections[name].describe() for name in sorted(self._connections)]

    # -- reconciling -----------------------------------------------------------------------

    async def refresh(self) -> None:
        wanted = dict(self._configured)
        for name, url, credentials in await mounting.stored(self._db, mounting.MCP):
            if name in wanted:
                continue  # configuration wins; MountMcpServer refuses such names anyway
            wanted[name] = Target(name=name, origin="runtime", url=url, credentials=credentials)
        changed = False
        for name in list(self._connections):
            if self._connections[name].target != wanted.get(name):
                await self._connections.pop(name).stop()
                log.info("mcp.unmounted", server=name)
                changed = True
        for name, target in wanted.items():
            if name not in self._connections:
                # Imported here: the SDK costs a second to import, paid only once a server is mounted.
                from tools_svc.mcp.connection import McpConnection  # noqa: PLC0415

                target.credentials.register()  # never logged
                register_secrets([v for _, v in target.env])
                connection = McpConnection(target, self._limits, self._on_change)
                self._connections[name] = connection
                connection.start()
                log.info("mcp.mounted", server=name, transport=target.transport, target=target.shown)
                changed = True
        for connection in self._connections.values():
            connection.close_idle_sessions()  # a principal's session, once idle long enough
        if changed:
            self._on_change()

    async def close(self) -> None:
        for connection in self._connections.values():
            await connection.stop()
        self._connections.clear()

    # -- runtime mounts --------------------------------------------------------------------

    async def mount(self, request: mounting.Request, replace: bool) -> tool_service_pb2.McpServer:
        await mounting.store(
            self._db,
            mounting.MCP,
            settings=self._settings,
            policy=self._policy,
            channel=self._channel,
            mount=request,
            replace=replace,
        )
        await self.refresh()
        return self._connections[request.name].describe()

    async def unmount(self, name: str) -> None:
        await mounting.remove(self._db, mounting.MCP, self._settings, self._channel, name)
        await self.refresh()
