"""What every section of the settings carries: the settings two or more services read, or that the
process scaffolding every service shares reads (logging, tracing, the metrics host, shutdown).

Each service's section (gateway.py, executor.py, planner.py, tools.py) inherits this class, so the
code a section is handed reads `settings.data_dir` and `settings.max_parallel_steps` alike, and a
reader finds all a service can be configured with in its section and here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from agentrt.config.keystrength import weakness
from agentrt.core.principals import ALL_OWNERS, LOCAL_NAME, MAX_NAME_CHARS, Role, parse_roles


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "agentrt"


class AgentBudgets(BaseModel):
    """Limits of an agent run (see Budgets in agent.proto)."""

    model_config = {"extra": "forbid"}

    max_turns: int = Field(10, ge=1, le=10_000)
    max_tool_calls: int = Field(30, ge=1, le=100_000)
    max_tokens: int = Field(100_000, ge=1)
    max_cost_usd: float = Field(0.5, gt=0)


class ApiKey(BaseModel):
    """One API key with the principal's roles: {"key": "...", "roles": ["approver"]}. A bare
    string in api_keys is a key with the role user."""

    key: SecretStr
    roles: list[Role] = Field(default_factory=lambda: ["user"])


class ConfigError(SystemExit):
    """Settings that cannot be used, as one line per problem: the variable, what is wrong, and
    an example of a good value. A SystemExit: the command stops with that message, no traceback."""


class StartupError(SystemExit):
    """A service cannot start for a reason its operator fixes (the database does not answer,
    the port is taken): one line saying what, where and what to check. A SystemExit, as
    ConfigError; the cause stays chained for AGENTRT_DEBUG=true (service_main.py)."""


class CommonSettings(BaseSettings):
    """Settings every service section carries; each field can be set as AGENTRT_<FIELD_NAME>."""

    model_config = SettingsConfigDict(env_prefix="AGENTRT_", extra="forbid")

    # Where the services reach each other, and the internal ports they bind. The executor,
    # planner and tools services and every metrics port bind `internal_host`, loopback unless
    # set (the gateway, the one public service, binds its own `host`). Containers set it to
    # 0.0.0.0 and publish the gateway's ports alone (the others stay on the private network,
    # behind internal_token). Common: each service binds its own port, and the executor and the
    # gateway (and the CLI's `agentrt tools`) reach the others by these.
    internal_host: str = "127.0.0.1"
    executor_port: int = Field(50052, ge=0, le=65535)
    planner_port: int = Field(50053, ge=0, le=65535)
    tools_port: int = Field(50054, ge=0, le=65535)
    # Where to reach the other services (host:port or any gRPC target such as dns:///tools:50054).
    # Empty means 127.0.0.1 on the service's port above.
    executor_addr: str = ""
    planner_addr: str = ""
    tools_addr: str = ""

    # OpenTelemetry tracing across the services (context travels in gRPC metadata and HTTP
    # traceparent headers): "off", "console" (spans printed as JSON) or "otlp" (to a collector).
    # When set, it decides; when not, OpenTelemetry's own variables do (OTEL_TRACES_EXPORTER, or
    # an OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT alone turns otlp on). Everything else about the
    # exporter, sampler and resource is OpenTelemetry's standard OTEL_* (agentrt/server/tracing.py).
    # Common: every service process configures it as it starts.
    tracing: Literal["off", "console", "otlp"] = "off"
    # Shorthand for the collector, used only when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is not set.
    # Without a scheme, plaintext (http://). For OTLP/HTTP, a base URL (/v1/traces is appended).
    otlp_endpoint: str = "http://127.0.0.1:4317"

    # Storage, common to the executor's and the tools service's stores: the embedded default
    # keeps SQLite files in data_dir (where `agentrt up` also keeps the internal credential it
    # makes). A PostgreSQL URL (postgresql://user:pass@host:5432/db) makes executor and tools
    # replicas share one database; empty means SQLite files in data_dir. database_schema puts
    # agentrt's tables in that schema (created if missing) instead of the user's default search_path.
    data_dir: Path = Field(default_factory=_default_data_dir)
    database_url: SecretStr | None = None
    database_schema: str = Field("", pattern=r"^([a-z_][a-z0-9_]{0,62})?$")
    database_pool_size: int = Field(10, ge=1, le=200)

    # Finished runs (and their events) older than this many days are deleted by the executor,
    # and the tools service forgets its invocation records as old; 0 keeps them forever.
    # Checked every prune interval, by both.
    retention_days: float = Field(30.0, ge=0)
    retention_interval_s: float = Field(3600.0, gt=0)

    # Logging, configured by every process alike.
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["auto", "json", "console"] = "auto"
    # Libraries' loggers (httpx, litellm, mcp, uvicorn...) write warnings and above; this sets a
    # level per logger name (a name covers its children; "root" every library not named), e.g.
    # AGENTRT_LOG_LEVELS='{"httpx": "error"}' to quieten a noisy one or '{"mcp": "debug"}' to look in.
    log_levels: dict[str, Literal["debug", "info", "warning", "error", "critical"]] = Field(
        default_factory=dict
    )
    # A start-up problem the operator fixes (database, port) is one line; this adds its traceback.
    # `agentrt --debug` sets it for the services `agentrt up` starts.
    debug: bool = False
    # A callback holding the event loop this long is logged with the loop's stack
    # (event_loop.stalled; the lag itself is agentrt_event_loop_lag_seconds).
    loop_stall_warn_s: float = Field(1.0, gt=0)

    # Request limits that the protos' field rules name (agentrt/core/fieldrules.py): the executor
    # checks every request against them and the gateway's OpenAPI document states them; the
    # planner also bounds the prompts it is asked to plan by max_prompt_chars.
    max_prompt_chars: int = Field(8000, gt=0)
    max_steps_limit: int = Field(100, gt=0)
    max_run_timeout_s: float = Field(86400.0, gt=0)
    # The most an agent run's request may ask for (the budgets it gets when it asks for none
    # are the executor's agent_budgets).
    agent_budget_limits: AgentBudgets = Field(
        default_factory=lambda: AgentBudgets(
            max_turns=50, max_tool_calls=200, max_tokens=1_000_000, max_cost_usd=5.0
        )
    )
    # A tool's output larger than this is a tool error (TOOL_OUTPUT_TOO_LARGE): the tools service
    # refuses it, and the executor refuses arguments of an approved call edited past it.
    max_tool_output_bytes: int = Field(256 * 1024, ge=1024, le=4 * 1024 * 1024)

    # Gateway API keys, as JSON {"name": "key"} or {"name": {"key": "...", "roles": ["admin"]}}
    # (roles: user, the default; approver; admin): when any are set, every RunService call (REST,
    # gRPC, MCP) needs "authorization: Bearer <key>", and the key's name is the principal that owns
    # what it creates. Each key has its own token-bucket rate limit, and must look random enough
    # (keystrength.py: at least 128 bits by its estimate; `agentrt keys new`). api_keys_file names a file
    # holding the same JSON (a mounted secret); its keys join api_keys. Common: every service
    # needs the internal credential when keys are set, and the tools service closes registration.
    api_keys: dict[str, SecretStr | ApiKey] = Field(default_factory=dict)
    api_keys_file: Path | None = None
    # The credential agentrt's services present to each other ("agentrt-internal-token"
    # metadata). Required whenever API keys are configured: then the executor, planner and tools
    # ports refuse calls without it (health checks stay open), and only a caller holding it may
    # say which principal a call is for. `agentrt up` makes one for its own services if unset.
    internal_token: SecretStr | None = None

    # Seconds in-flight RPCs get to finish after SIGTERM, in every service (and `agentrt up`).
    shutdown_grace_s: float = Field(5.0, ge=0)

    # The names of the keys that came from api_keys_file (they joined api_keys).
    _file_keys: frozenset[str] = PrivateAttr(default=frozenset())

    @field_validator("api_keys", mode="after")
    @classmethod
    def _keys_have_roles(cls, keys: dict[str, SecretStr | ApiKey]) -> dict[str, SecretStr | ApiKey]:
        for name, key in keys.items():
            _check_key(name, key)
        return keys

    @model_validator(mode="after")
    def _keys_from_file(self) -> Self:
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
            try:
                _check_key(name, key)
            except ValueError as exc:  # named as the file's, not as AGENTRT_API_KEYS'
                raise ValueError(f"api_keys_file: {exc}") from None
            # (A key of the file's own is already here when pydantic validates a section a
            # second time: it calls a BaseSettings' __init__, then its validators again.)
            if name in self.api_keys and name not in self._file_keys:
                raise ValueError(f"api_keys_file: key '{name}' is also in api_keys")
            keys[name] = key
        self.api_keys = {**self.api_keys, **keys}
        self._file_keys = frozenset(keys)
        return self._keys_distinct()

    def _keys_distinct(self) -> Self:
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

    @property
    def executor_target(self) -> str:
        return self.executor_addr or f"127.0.0.1:{self.executor_port}"

    @property
    def planner_target(self) -> str:
        return self.planner_addr or f"127.0.0.1:{self.planner_port}"

    @property
    def tools_target(self) -> str:
        return self.tools_addr or f"127.0.0.1:{self.tools_port}"

    def given(self) -> dict[str, Any]:
        """The values this configuration was given (from the environment or as arguments), by
        setting name: what builds it again. Keys read from api_keys_file are left to the file."""
        given = {name: getattr(self, name) for name in self.model_fields_set}
        if self._file_keys:
            given["api_keys"] = {k: v for k, v in self.api_keys.items() if k not in self._file_keys}
        return given

    def replace(self, **changes: Any) -> Self:
        """This configuration with some settings changed (by their names, as in AGENTRT_<NAME>),
        validated again like any other: the way to derive one configuration from another."""
        return type(self)(**{**self.given(), **changes})


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
    # A key that can be guessed is refused here, before any service starts with it.
    if problem := weakness(name, secret):
        raise ValueError(problem)


def require_internal_token(settings: CommonSettings, service: str) -> None:
    """A service with API keys configured must know the internal credential: without it the
    internal ports would take anyone's word for who is calling."""
    if settings.api_keys and not settings.internal_secret():
        raise ConfigError(
            "agentrt: invalid configuration\n  AGENTRT_INTERNAL_TOKEN: required by the "
            f"{service} when AGENTRT_API_KEYS is set (a long random string shared by the "
            "services; `agentrt up` makes one itself)"
        )
