"""The tools service's settings: tool providers' registration and leases, and MCP servers."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, Field, SecretStr, model_validator

from agentrt.config.common import CommonSettings
from agentrt.core.callerid import key_of
from agentrt.core.principals import MAX_NAME_CHARS

# A server's name prefixes its tools' names ("time" -> "time__get_current_time"): short enough to
# leave most of the 64 characters of the tool name rule to the tool, and without "__", which
# separates the two.
MCP_SERVER_NAME = r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"
MCP_SERVER_NAME_CHARS = 24


class Delegation(BaseModel):
    """Whom a mount's calls act as at the remote side (tools_svc/delegation.py). `headers` alone:
    one shared credential, every principal's calls carry it. `principal_headers`: a principal's
    calls carry its own headers instead (and `headers` only the requests made for nobody); a
    principal without an entry is refused. `caller_signing_secret`: every request made for a
    principal also names it, signed (agentrt/core/callerid.py)."""

    model_config = {"extra": "forbid"}

    headers: dict[str, SecretStr] = Field(default_factory=dict)
    principal_headers: dict[str, dict[str, SecretStr]] = Field(default_factory=dict)
    caller_signing_secret: SecretStr | None = None

    @model_validator(mode="after")
    def _principals_named(self) -> Self:
        for principal, headers in self.principal_headers.items():
            if (
                not principal
                or len(principal) > MAX_NAME_CHARS
                or not (principal.isascii() and principal.isprintable())
            ):
                raise ValueError(
                    f"principal_headers: {principal[:MAX_NAME_CHARS]!r} is not a principal's name "
                    f"(1 to {MAX_NAME_CHARS} printable ASCII characters, as an API key's name)"
                )
            if not headers:
                raise ValueError(
                    f"principal_headers: '{principal}' has no headers (leave it out to refuse its calls)"
                )
        if self.caller_signing_secret is not None:
            try:
                key_of(self.caller_signing_secret.get_secret_value())
            except ValueError as exc:
                raise ValueError(f"caller_signing_secret: {exc}") from None
        return self


class McpServerConfig(Delegation):
    """An MCP server tools_svc mounts at start: a local command spoken to over stdio, or a
    Streamable HTTP endpoint. Configuration is trusted (an operator wrote it); servers mounted
    at runtime through ToolService.MountMcpServer may only be URLs on allowed hosts."""

    model_config = {"extra": "forbid"}

    name: str = Field(pattern=MCP_SERVER_NAME, max_length=MCP_SERVER_NAME_CHARS)
    command: str | None = Field(None, min_length=1)
    args: list[str] = Field(default_factory=list)
    # Added to a minimal environment (PATH, HOME...): tools_svc's own secrets are not passed on.
    env: dict[str, SecretStr] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = Field(None, pattern=r"^https?://")
    # "auto" discovers the newest protocol the server speaks and falls back to the initialize
    # handshake; "legacy" goes straight to the handshake (2025-era servers that mishandle discovery).
    protocol: Literal["auto", "legacy"] = "auto"

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server '{self.name}' needs exactly one of command (stdio) or url")
        if self.url is None and self.headers:
            raise ValueError(f"MCP server '{self.name}': headers apply to a url, not to a command")
        if self.url is None and (self.principal_headers or self.caller_signing_secret):
            # One process is one session, every principal's: nothing can differ per call.
            raise ValueError(
                f"MCP server '{self.name}': a command (stdio) is one process shared by every principal "
                "and cannot take principal_headers or a caller_signing_secret; serve it over Streamable "
                "HTTP for credentials per principal"
            )
        if self.command is None and (self.args or self.env or self.cwd):
            raise ValueError(f"MCP server '{self.name}': args, env and cwd apply to a command, not a url")
        return self


class A2aAgentConfig(Delegation):
    """A remote A2A agent tools_svc mounts at start: its skills become tools named
    "<name>__<skill>". `url` is where its card is (`<url>/.well-known/agent-card.json`); the
    agent is called only at an interface on that same origin (scheme, host, port), and never
    through a redirect. `headers` go with every request to it (its credential: "Authorization"),
    unless `principal_headers` gives each principal its own (see Delegation)."""

    name: str = Field(pattern=MCP_SERVER_NAME, max_length=MCP_SERVER_NAME_CHARS)
    url: str = Field(pattern=r"^https?://[^\s/?#]+(?:/[^\s?#]*)?$", max_length=2048)


class ToolsSettings(CommonSettings):
    """What the tools service is configured with (and the common settings); AGENTRT_<FIELD_NAME>."""

    # Prometheus /metrics; 0 turns it off.
    tools_metrics_port: int = Field(9094, ge=0, le=65535)

    # Tool providers. Registration needs this token (gRPC metadata "authorization: Bearer ...")
    # when it is set (the `agentrt tools` commands send it too); provider endpoints must resolve
    # into these networks or name these hosts.
    registration_token: SecretStr | None = None
    provider_allowed_hosts: list[str] = Field(default_factory=lambda: ["127.0.0.0/8", "::1/128", "localhost"])
    # A provider's lease: the TTL it asks for (or the default), kept within min and max.
    lease_ttl_default_s: float = Field(15.0, gt=0)
    lease_ttl_min_s: float = Field(1.0, gt=0)
    lease_ttl_max_s: float = Field(300.0, gt=0)
    # How often tools_svc re-reads registrations (expiring lapsed leases, seeing other replicas).
    registry_refresh_s: float = Field(1.0, gt=0)

    # MCP servers mounted at start (see McpServerConfig); more can be mounted at runtime.
    mcp_servers: list[McpServerConfig] = Field(default_factory=list)
    # Bounds on what one MCP server can make tools_svc hold and wait for.
    mcp_max_tools_per_server: int = Field(128, ge=1, le=1000)
    mcp_connect_timeout_s: float = Field(30.0, gt=0)
    mcp_list_timeout_s: float = Field(30.0, gt=0)
    # Reconnection backoff after a server's session fails: doubling from 0.5 s up to this.
    mcp_reconnect_max_s: float = Field(30.0, gt=0)
    # An idle session is pinged this often, so a server that died quietly is noticed.
    mcp_ping_interval_s: float = Field(10.0, gt=0)
    # A server whose calls differ per principal (principal_headers, caller_signing_secret) gets a
    # session per principal that calls it: at most this many per server on each replica (the
    # least recently used idle one is closed for a new one), each closed once idle this long.
    mcp_max_principal_sessions: int = Field(32, ge=1, le=1000)
    mcp_principal_session_idle_s: float = Field(300.0, gt=0)

    # A2A agents mounted at start (see A2aAgentConfig), and bounds on what one can make tools_svc
    # hold or wait for: its card (fetched again every a2a_card_refresh_s), its skills, each answer.
    a2a_agents: list[A2aAgentConfig] = Field(default_factory=list)
    a2a_card_timeout_s: float = Field(10.0, gt=0)
    a2a_card_max_bytes: int = Field(256 * 1024, ge=1024, le=4 * 1024 * 1024)
    a2a_card_refresh_s: float = Field(300.0, gt=0)
    a2a_max_skills: int = Field(32, ge=1, le=256)
    # How long a call waits for the remote task to end when the step sets no deadline.
    a2a_call_timeout_s: float = Field(300.0, gt=0)

    @model_validator(mode="after")
    def _server_names_distinct(self) -> Self:
        names = [server.name for server in self.mcp_servers]
        if len(names) != len(set(names)):
            raise ValueError("mcp_servers: two servers share a name")
        agents = [agent.name for agent in self.a2a_agents]
        if len(agents) != len(set(agents)):
            raise ValueError("a2a_agents: two agents share a name")
        if shared := set(agents) & set(names):
            raise ValueError(f"a2a_agents and mcp_servers share a name: {', '.join(sorted(shared))}")
        return self
