"""Settings for every agentrt process, read from the environment (prefix AGENTRT_).

One class for all four services keeps a deployment's configuration in one documented place;
each service reads the fields it needs. `main()` builds it once and passes it down.
"""

from __future__ import annotations

import ipaddress
import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from agentrt.core.principals import ALL_OWNERS, LOCAL_NAME, MAX_NAME_CHARS, Role, parse_roles


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "agentrt"


class ToolPolicy(BaseModel):
    """Per-tool overrides of the step retry policy and timeout; unset fields use the defaults."""

    model_config = {"extra": "forbid"}

    max_attempts: int | None = Field(None, ge=1, le=100)
    base_delay_s: float | None = Field(None, ge=0)
    max_delay_s: float | None = Field(None, ge=0)
    timeout_s: float | None = Field(None, gt=0)


class LLMModel(BaseModel):
    """One model for the LLM planner, in litellm's naming ("openai/gpt-4o-mini",
    "anthropic/claude-3-5-haiku-latest", "ollama/llama3.1", "openai/<name>" + api_base for any
    OpenAI-compatible server). The first model is primary; the others are litellm fallbacks."""

    model_config = {"extra": "forbid"}

    model: str
    api_base: str | None = None
    api_key: SecretStr | None = None
    # How to ask for structured output: a JSON schema (constrained decoding where supported), or
    # JSON mode; "auto" asks litellm whether the model supports response schemas.
    response_format: Literal["auto", "json_schema", "json_object"] = "auto"
    # How the agent loop asks for tool calls: the provider's function calling ("tools", the
    # tools' JSON Schemas as function parameters), or one JSON answer constrained by a schema
    # ("json", for local servers without function calling); "auto" asks litellm.
    tool_calling: Literal["auto", "tools", "json"] = "auto"


class AgentBudgets(BaseModel):
    """Limits of an agent run (see Budgets in agent.proto)."""

    model_config = {"extra": "forbid"}

    max_turns: int = Field(10, ge=1, le=10_000)
    max_tool_calls: int = Field(30, ge=1, le=100_000)
    max_tokens: int = Field(100_000, ge=1)
    max_cost_usd: float = Field(0.5, gt=0)


# A server's name prefixes its tools' names ("time" -> "time__get_current_time"): short enough to
# leave most of the 64 characters of the tool name rule to the tool, and without "__", which
# separates the two.
MCP_SERVER_NAME = r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"
MCP_SERVER_NAME_CHARS = 24


class ApiKey(BaseModel):
    """One API key with the principal's roles: {"key": "...", "roles": ["approver"]}. A bare
    string in api_keys is a key with the role user."""

    key: SecretStr
    roles: list[Role] = Field(default_factory=lambda: ["user"])


class McpServerConfig(BaseModel):
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
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    # "auto" discovers the newest protocol the server speaks and falls back to the initialize
    # handshake; "legacy" goes straight to the handshake (2025-era servers that mishandle discovery).
    protocol: Literal["auto", "legacy"] = "auto"

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server '{self.name}' needs exactly one of command (stdio) or url")
        if self.url is None and self.headers:
            raise ValueError(f"MCP server '{self.name}': headers apply to a url, not to a command")
        if self.command is None and (self.args or self.env or self.cwd):
            raise ValueError(f"MCP server '{self.name}': args, env and cwd apply to a command, not a url")
        return self


class Settings(BaseSettings):
    """Process settings; every field can be set as AGENTRT_<FIELD_NAME>."""

    model_config = SettingsConfigDict(env_prefix="AGENTRT_", extra="ignore")

    # Network. The gateway (the one public service) binds `host`; the executor, planner and tools
    # services and every metrics port bind `internal_host`, loopback unless set: setting `host`
    # to 0.0.0.0 publishes the gateway only. Containers set both to 0.0.0.0 and publish the
    # gateway's ports alone (the others stay on the private network, behind internal_token).
    host: str = "127.0.0.1"
    internal_host: str = "127.0.0.1"
    gateway_port: int = Field(50051, ge=0, le=65535)
    # The gateway's REST/SSE bridge, live run page and OpenAPI document.
    http_port: int = Field(8080, ge=0, le=65535)
    executor_port: int = Field(50052, ge=0, le=65535)
    planner_port: int = Field(50053, ge=0, le=65535)
    tools_port: int = Field(50054, ge=0, le=65535)
    # Where to reach the other services (host:port or any gRPC target such as dns:///tools:50054).
    # Empty means 127.0.0.1 on the service's port above.
    executor_addr: str = ""
    planner_addr: str = ""
    tools_addr: str = ""
    # Where client commands (agentrt run, get, list, ...) reach the gateway, e.g. a remote
    # "gw.example.com:50051". Empty means this machine's gateway: host:gateway_port.
    target: str = ""

    # Prometheus /metrics, one HTTP port per service; 0 turns a service's endpoint off.
    gateway_metrics_port: int = Field(9091, ge=0, le=65535)
    executor_metrics_port: int = Field(9092, ge=0, le=65535)
    planner_metrics_port: int = Field(9093, ge=0, le=65535)
    tools_metrics_port: int = Field(9094, ge=0, le=65535)

    # OpenTelemetry tracing across the services (context travels in gRPC metadata and HTTP
    # traceparent headers): "off", "console" (spans printed as JSON) or "otlp" (to a collector).
    # When set, it decides; when not, OpenTelemetry's own variables do (OTEL_TRACES_EXPORTER, or
    # an OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT alone turns otlp on). Everything else about the
    # exporter, sampler and resource is OpenTelemetry's standard OTEL_* (agentrt/server/tracing.py).
    tracing: Literal["off", "console", "otlp"] = "off"
    # Shorthand for the collector, used only when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is not set.
    # Without a scheme, plaintext (http://). For OTLP/HTTP, a base URL (/v1/traces is appended).
    otlp_endpoint: str = "http://127.0.0.1:4317"

    # Storage: the embedded default keeps SQLite files here.
    data_dir: Path = Field(default_factory=_default_data_dir)
    # A PostgreSQL URL (postgresql://user:pass@host:5432/db) makes executor and tools replicas
    # share one database; empty means SQLite files in data_dir. database_schema puts agentrt's
    # tables in that schema (created if missing) instead of the user's default search_path.
    database_url: SecretStr | None = None
    database_schema: str = Field("", pattern=r"^([a-z_][a-z0-9_]{0,62})?$")
    database_pool_size: int = Field(10, ge=1, le=200)

    # Executor replicas. Each run is driven by the replica holding its lease; a replica renews
    # its leases every lease TTL / 3, and a run whose lease lapsed (its replica died) is claimed
    # by another replica. executor_id names this replica; empty means host:port, stable across
    # restarts in place, so a restarted replica takes its own runs back at once.
    executor_id: str = ""
    run_lease_ttl_s: float = Field(10.0, ge=0.5)
    # The most runs one replica drives at once; beyond it, runs wait for a replica with room.
    max_active_runs: int = Field(1000, ge=1)
    # Finished runs (and their events) older than this many days are deleted, and beyond the
    # newest retention_max_runs finished runs; 0 keeps them forever. Checked every prune interval.
    retention_days: float = Field(30.0, ge=0)
    retention_max_runs: int = Field(0, ge=0)
    retention_interval_s: float = Field(3600.0, gt=0)

    # Logging.
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["auto", "json", "console"] = "auto"
    # Libraries' loggers (httpx, litellm, mcp, uvicorn...) write warnings and above; this sets a
    # level per logger name (a name covers its children; "root" every library not named), e.g.
    # AGENTRT_LOG_LEVELS='{"httpx": "error"}' to quieten a noisy one or '{"mcp": "debug"}' to look in.
    log_levels: dict[str, Literal["debug", "info", "warning", "error", "critical"]] = Field(
        default_factory=dict
    )

    # Run limits.
    max_prompt_chars: int = Field(8000, gt=0)
    default_max_steps: int = Field(20, gt=0)
    max_steps_limit: int = Field(100, gt=0)
    step_timeout_s: float = Field(30.0, gt=0)
    run_timeout_s: float = Field(600.0, gt=0)
    max_run_timeout_s: float = Field(86400.0, gt=0)
    planner_timeout_s: float = Field(30.0, gt=0)
    # Gateway: the deadline of a call whose caller set none (every REST call; gRPC calls
    # without a deadline). WatchRun streams have none.
    request_timeout_s: float = Field(30.0, gt=0)
    # Output sizes. A tool's output larger than max_tool_output_bytes is a tool error
    # (TOOL_OUTPUT_TOO_LARGE); a step whose output would make its run's stored record larger
    # than max_run_bytes fails (RUN_TOO_LARGE), so every run stays readable by any client
    # (gRPC clients accept 4 MiB messages by default).
    max_tool_output_bytes: int = Field(256 * 1024, ge=1024, le=4 * 1024 * 1024)
    max_run_bytes: int = Field(2 * 1024 * 1024, ge=64 * 1024, le=3 * 1024 * 1024)
    # Independent plan steps of one run that may execute at the same time.
    max_parallel_steps: int = Field(4, ge=1, le=64)

    # Step retries (full-jitter exponential backoff). A run's own policy overrides a tool's
    # policy, which overrides these defaults, field by field.
    retry_max_attempts: int = Field(3, ge=1, le=100)
    retry_base_delay_s: float = Field(0.2, ge=0)
    retry_max_delay_s: float = Field(10.0, ge=0)
    # JSON, e.g. AGENTRT_TOOL_POLICIES='{"todo_store": {"max_attempts": 5, "timeout_s": 10}}'
    tool_policies: dict[str, ToolPolicy] = Field(default_factory=dict)

    # Tool providers. Registration needs this token (gRPC metadata "authorization: Bearer ...")
    # when it is set; provider endpoints must resolve into these networks or name these hosts.
    registration_token: SecretStr | None = None
    provider_allowed_hosts: list[str] = Field(default_factory=lambda: ["127.0.0.0/8", "::1/128", "localhost"])
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

    # Gateway API keys, as JSON {"name": "key"} or {"name": {"key": "...", "roles": ["admin"]}}
    # (roles: user, the default; approver; admin): when any are set, every RunService call (REST,
    # gRPC, MCP) needs "authorization: Bearer <key>", and the key's name is the principal that owns
    # what it creates. Each key has its own token-bucket rate limit. api_keys_file names a file
    # holding the same JSON (a mounted secret); its keys join api_keys.
    api_keys: dict[str, SecretStr | ApiKey] = Field(default_factory=dict)
    api_keys_file: Path | None = None
    # The credential agentrt's services present to each other ("agentrt-internal-token"
    # metadata). Required whenever API keys are configured: then the executor, planner and tools
    # ports refuse calls without it (health checks stay open), and only a caller holding it may
    # say which principal a call is for. `agentrt up` makes one for its own services if unset.
    internal_token: SecretStr | None = None
    # Proxies in front of the gateway (addresses or CIDR networks) whose X-Forwarded-For is
    # believed: the client address that wrong keys are throttled by is then the forwarded one.
    trusted_proxies: list[str] = Field(default_factory=list)
    rate_limit_rps: float = Field(20.0, gt=0)
    rate_limit_burst: int = Field(40, ge=1)
    # Wrong API keys per client address: after auth_failure_burst of them, that address is
    # refused (429 / RESOURCE_EXHAUSTED) until its bucket refills at auth_failure_rps.
    auth_failure_rps: float = Field(1.0, gt=0)
    auth_failure_burst: int = Field(10, ge=1)
    # Largest request the gateway accepts (REST body or gRPC message).
    max_request_bytes: int = Field(64 * 1024, ge=1024)

    # Planner chain, tried in order until one produces a valid plan, e.g. '["llm", "rules"]'.
    planner_chain: list[Literal["llm", "rules"]] = Field(default_factory=lambda: ["rules"])
    llm_models: list[LLMModel] = Field(default_factory=list)
    llm_timeout_s: float = Field(20.0, gt=0)
    llm_repair_rounds: int = Field(2, ge=0, le=5)
    llm_temperature: float = Field(0.0, ge=0, le=2)
    llm_max_tokens: int = Field(1024, ge=64)
    # Identical prompt + identical tool catalog -> the cached plan. 0 disables the cache (use 0
    # when planning should stay non-deterministic).
    plan_cache_size: int = Field(0, ge=0)
    # When a step fails for good, ask the planner for a revised plan, at most this often per run.
    replan_max: int = Field(0, ge=0, le=10)

    # How runs decide what to do when the request does not say: "auto" (a rule plan when the
    # rules understand the prompt, else the agent loop if an LLM is configured), "plan" (the
    # planner chain plans up front) or "agent" (the agent loop; needs llm_models).
    default_mode: Literal["auto", "plan", "agent"] = "auto"
    # Agent runs: the budgets a run gets when its request sets none, and the most a request may
    # ask for, e.g. AGENTRT_AGENT_BUDGETS='{"max_turns": 8, "max_cost_usd": 0.1}'.
    agent_budgets: AgentBudgets = Field(default_factory=AgentBudgets)
    agent_budget_limits: AgentBudgets = Field(
        default_factory=lambda: AgentBudgets(
            max_turns=50, max_tool_calls=200, max_tokens=1_000_000, max_cost_usd=5.0
        )
    )
    # What the model sees of tool outputs: each one trimmed to this many characters, and all of
    # them together to agent_transcript_chars (the oldest shrink first); the model is told.
    agent_observation_chars: int = Field(4000, ge=200)
    agent_transcript_chars: int = Field(24_000, ge=1000)

    # Which tool calls wait for a person's approval, by what the call declares (the tool's
    # annotations): "never", "destructive", "writes" (anything not read-only) or "always". A run
    # may ask for its own policy; approval_tool_policies (per tool) overrides both. Calls of rule
    # plans are exempt when approval_exempt_rules: the rule planner only turns the user's own
    # words ("delete todo 2") into calls. A call waits at most approval_timeout_s (a run may ask
    # for less or more, up to max_run_timeout_s), then fails with APPROVAL_TIMEOUT.
    approval_policy: Literal["never", "destructive", "writes", "always"] = "destructive"
    approval_tool_policies: dict[str, Literal["never", "destructive", "writes", "always"]] = Field(
        default_factory=dict
    )
    approval_exempt_rules: bool = True
    approval_timeout_s: float = Field(86400.0, gt=0)

    # Seconds in-flight RPCs get to finish after SIGTERM.
    shutdown_grace_s: float = Field(5.0, ge=0)

    @field_validator("api_keys", mode="after")
    @classmethod
    def _keys_have_roles(cls, keys: dict[str, SecretStr | ApiKey]) -> dict[str, SecretStr | ApiKey]:
        for name, key in keys.items():
            _check_key(name, key)
        return keys

    @field_validator("trusted_proxies", mode="after")
    @classmethod
    def _proxies_are_networks(cls, proxies: list[str]) -> list[str]:
        for proxy in proxies:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(f"{proxy!r} is not an IP address or network") from None
        return proxies

    @model_validator(mode="after")
    def _keys_from_file(self) -> Settings:
        if self.api_keys_file is None:
            return self._keys_distinct()
        try:
            raw = json.loads(self.api_keys_file.read_text())
        except OSError as exc:
            raise ValueError(f"api_keys_file: cannot read {self.api_keys_file}: {exc.strerror}") from None
        except ValueError:
            raise ValueError(f"api_keys_file: {self.api_keys_file} is not valid JSON") from None
        if not isinstance(raw, dict):
            raise ValueError(f"api_keys_file: {self.api_keys_file} must hold a JSON object of keys")
        keys = {}
        for name, value in raw.items():
            try:
                key = SecretStr(value) if isinstance(value, str) else ApiKey.model_validate(value)
            except ValidationError:
                raise ValueError(
                    f'api_keys_file: key \'{name}\' must be a string or {{"key": ..., "roles": [...]}}'
                ) from None
            _check_key(name, key)
            if name in self.api_keys:
                raise ValueError(f"api_keys_file: key '{name}' is also in api_keys")
            keys[name] = key
        self.api_keys = {**self.api_keys, **keys}
        return self._keys_distinct()

    def _keys_distinct(self) -> Settings:
        # Two names with one secret: whichever matched last would win, silently.
        seen: dict[str, str] = {}
        for name, (secret, _) in self.principals().items():
            if secret in seen:
                raise ValueError(f"api_keys: '{seen[secret]}' and '{name}' have the same key")
            seen[secret] = name
        return self

    def principals(self) -> dict[str, tuple[str, frozenset[str]]]:
        """Each API key's name -> (its secret, its roles)."""
        out = {}
        for name, key in self.api_keys.items():
            if isinstance(key, ApiKey):
                out[name] = (key.key.get_secret_value(), parse_roles(key.roles))
            else:
                out[name] = (key.get_secret_value(), parse_roles(()))
        return out

    def internal_secret(self) -> str | None:
        return self.internal_token.get_secret_value() if self.internal_token else None

    @model_validator(mode="after")
    def _llm_needs_models(self) -> Settings:
        if "llm" in self.planner_chain and not self.llm_models:
            raise ValueError(
                'planner_chain includes "llm" but no llm_models are configured (AGENTRT_LLM_MODELS)'
            )
        if self.default_mode == "agent" and not self.llm_models:
            raise ValueError(
                'default_mode "agent" needs an LLM but no llm_models are configured (AGENTRT_LLM_MODELS)'
            )
        names = [server.name for server in self.mcp_servers]
        if len(names) != len(set(names)):
            raise ValueError("mcp_servers: two servers share a name")
        for name, budget in self.agent_budgets.model_dump().items():
            if budget > getattr(self.agent_budget_limits, name):
                raise ValueError(f"agent_budgets.{name} is above agent_budget_limits.{name}")
        return self

    @property
    def gateway_target(self) -> str:
        if self.target:
            return self.target
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        return f"[{host}]:{self.gateway_port}" if ":" in host else f"{host}:{self.gateway_port}"

    @property
    def executor_target(self) -> str:
        return self.executor_addr or f"127.0.0.1:{self.executor_port}"

    @property
    def planner_target(self) -> str:
        return self.planner_addr or f"127.0.0.1:{self.planner_port}"

    @property
    def tools_target(self) -> str:
        return self.tools_addr or f"127.0.0.1:{self.tools_port}"


def _check_key(name: str, key: SecretStr | ApiKey) -> None:
    secret = (key.key if isinstance(key, ApiKey) else key).get_secret_value()
    # Names travel as gRPC metadata, which carries printable ASCII only.
    if not name or len(name) > MAX_NAME_CHARS or not (name.isascii() and name.isprintable()) or "," in name:
        raise ValueError(
            f"key name {name[:MAX_NAME_CHARS]!r}: 1 to {MAX_NAME_CHARS} printable ASCII characters, no comma"
        )
    if name in (LOCAL_NAME, ALL_OWNERS):
        raise ValueError(f"key name {name!r} is reserved")
    if not secret:
        raise ValueError(f"key '{name}' is empty")


def require_internal_token(settings: Settings, service: str) -> None:
    """A service with API keys configured must know the internal credential: without it the
    internal ports would take anyone's word for who is calling."""
    if settings.api_keys and not settings.internal_secret():
        raise ConfigError(
            "agentrt: invalid configuration\n  AGENTRT_INTERNAL_TOKEN: required by the "
            f"{service} when AGENTRT_API_KEYS is set (a long random string shared by the "
            "services; `agentrt up` makes one itself)"
        )


class ConfigError(SystemExit):
    """Settings that cannot be used, as one line per problem: the variable, what is wrong, and
    an example of a good value. A SystemExit: the command stops with that message, no traceback."""


# Examples for the settings whose format is easy to get wrong (JSON, lists, URLs).
_EXAMPLES = {
    "planner_chain": '\'["llm", "rules"]\'',
    "llm_models": '\'[{"model": "openai/gpt-4o-mini", "api_key": "sk-..."}]\'',
    "api_keys": '\'{"ci": "a-long-random-key", "ops": {"key": "another-key", "roles": ["admin"]}}\'',
    "api_keys_file": "/run/secrets/agentrt-api-keys.json",
    "trusted_proxies": "'[\"10.0.0.0/8\"]'",
    "tool_policies": '\'{"todo_store": {"max_attempts": 5, "timeout_s": 10}}\'',
    "provider_allowed_hosts": '\'["127.0.0.0/8", "tools-a"]\'',
    "mcp_servers": '\'[{"name": "time", "command": "mcp-server-time"}, {"name": "docs", "url": '
    '"http://127.0.0.1:8000/mcp"}]\'',
    "database_url": "postgresql://user:password@127.0.0.1:5432/agentrt",
    "log_level": "info",
    "log_format": "json",
    "log_levels": '\'{"httpx": "error", "mcp": "info"}\'',
    "tracing": "otlp",
    "default_mode": "auto",
    "approval_policy": "destructive",
    "approval_tool_policies": '\'{"todo_store": "writes"}\'',
    "agent_budgets": '\'{"max_turns": 10, "max_tool_calls": 30, "max_tokens": 100000, "max_cost_usd": 0.5}\'',
}


def _example(field: str) -> str:
    if field in _EXAMPLES:
        return _EXAMPLES[field]
    default = Settings.model_fields[field].default if field in Settings.model_fields else None
    return repr(default) if isinstance(default, int | float | str) and default != "" else ""


def _variable(field: str) -> str:
    return f"AGENTRT_{field.upper()}" if field else "AGENTRT_*"


def load_settings(**overrides: object) -> Settings:
    """Settings from the environment, or ConfigError naming each bad variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            field = str(error["loc"][0]) if error["loc"] else ""
            message = str(error["msg"]).removeprefix("Value error, ")
            if not field and ("planner_chain" in message or "default_mode" in message):
                field = "llm_models"
            elif not field and "agent_budgets." in message:
                field = "agent_budgets"
            elif not field and "mcp_servers" in message:
                field = "mcp_servers"
            elif not field and message.startswith("api_keys_file"):
                field = "api_keys_file"
            example = _example(field)
            lines.append(f"{_variable(field)}: {message}" + (f" (for example {example})" if example else ""))
        raise ConfigError("agentrt: invalid configuration\n  " + "\n  ".join(lines)) from None
    except SettingsError as exc:
        # pydantic-settings could not even parse a value (JSON that is not JSON).
        field = str(exc).split('"')[1] if '"' in str(exc) else ""
        example = _example(field)
        raise ConfigError(
            f"agentrt: invalid configuration\n  {_variable(field)}: not valid JSON"
            + (f" (for example {example})" if example else "")
        ) from None
