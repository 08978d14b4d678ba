"""What a mount is and what its tools are, without the SDK: importing the `mcp` package takes
about a second, which a tools_svc with no MCP server mounted should not pay at every start.
connection.py, which needs the SDK, is imported only when a server is mounted."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from agentrt.core.text import clip
from tools_svc.delegation import Credentials
from tools_svc.entries import ToolEntry

if TYPE_CHECKING:
    from tools_svc.callcontext import CallContext


class ToolCaller(Protocol):
    """What a tool entry needs of its server's session (connection.py's McpConnection): named
    here as a protocol so the model does not import the connection, which imports the model."""

    name: str

    async def call(
        self, tool: McpTool, arguments: dict[str, Any], deadline_s: float | None, context: CallContext
    ) -> Any: ...


@dataclass(frozen=True)
class Target:
    """Where a server is: a command (stdio) or a URL (Streamable HTTP). Frozen and comparable,
    so a changed mount is seen as a different target and reconnected."""

    name: str
    origin: str  # "config" | "runtime"
    url: str | None = None
    # Whom its calls act as (HTTP only): one shared credential, or one per principal, and the
    # caller signed or not (tools_svc/delegation.py).
    credentials: Credentials = field(default_factory=Credentials)
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    legacy: bool = False  # the initialize handshake, without discovery

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "streamable_http"

    @property
    def shown(self) -> str:
        """What ListMcpServers shows: never headers or environment; a URL without user info or query."""
        if self.command:
            return clip(shlex.join([self.command, *self.args]), 500)
        assert self.url is not None
        parts = urlsplit(self.url)
        netloc = parts.netloc.rpartition("@")[2]  # no user info
        return clip(urlunsplit((parts.scheme, netloc, parts.path, "", "")), 500)


@dataclass(frozen=True)
class Limits:
    max_tools: int
    connect_timeout_s: float
    list_timeout_s: float
    reconnect_max_s: float
    ping_interval_s: float
    answer_bytes: int  # the most one answer from a server may weigh (tools_svc/mcp/http.py)
    # Sessions per principal (tools_svc/mcp/sessions.py): how many one server's connection holds
    # on this replica, and how long one may stay idle.
    max_principal_sessions: int = 32
    principal_session_idle_s: float = 300.0


@dataclass(frozen=True)
class McpTool(ToolEntry):
    """A catalog entry served by an MCP server: `remote` is its name on that server."""

    connection: ToolCaller
    remote: str


def answer_limit(max_tool_output_bytes: int) -> int:
    """The largest answer worth reading: a result carries its output twice (as text and as
    structuredContent), JSON-escaped, with room for the envelope."""
    return 4 * max_tool_output_bytes + 64 * 1024
