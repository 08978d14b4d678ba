"""Settings for every agentrt process, read from the environment (prefix AGENTRT_), split by
service: each service is handed its own section, which carries the common settings too.

- `CommonSettings` (common.py): what two or more services read, or every service process does
  (addresses, storage, logging, tracing, API keys and the internal credential, request limits).
- `GatewaySettings`, `ExecutorSettings`, `PlannerSettings`, `ToolsSettings` (gateway.py,
  executor.py, planner.py, tools.py): one class each, all that service can be configured with.
- `Settings`: the whole deployment, the common settings with the four sections as `gateway`,
  `executor`, `planner` and `tools`, which `agentrt up`, the CLI and each service's `main()` load.

Every setting keeps one flat name, AGENTRT_<NAME> (no section prefix): no two sections have a
field of one name unless it is a common one (tests/unit/test_config.py holds that).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from agentrt.config.common import (
    AgentBudgets,
    ApiKey,
    CommonSettings,
    ConfigError,
    StartupError,
    require_internal_token,
)
from agentrt.config.executor import ExecutorSettings, ToolPolicy
from agentrt.config.gateway import GatewaySettings
from agentrt.config.keystrength import MAKE_ONE
from agentrt.config.planner import LLMModel, PlannerSettings
from agentrt.config.tools import (
    MCP_SERVER_NAME,
    MCP_SERVER_NAME_CHARS,
    A2aAgentConfig,
    McpServerConfig,
    ToolsSettings,
)

__all__ = [
    "MCP_SERVER_NAME",
    "MCP_SERVER_NAME_CHARS",
    "SECTIONS",
    "A2aAgentConfig",
    "AgentBudgets",
    "ApiKey",
    "CommonSettings",
    "ConfigError",
    "ExecutorSettings",
    "GatewaySettings",
    "LLMModel",
    "McpServerConfig",
    "PlannerSettings",
    "Settings",
    "StartupError",
    "ToolPolicy",
    "ToolsSettings",
    "load_settings",
    "require_internal_token",
    "section_of",
    "setting_names",
]

# Each service's section, by the service's name (as in `agentrt serve NAME`).
SECTIONS: dict[str, type[CommonSettings]] = {
    "gateway": GatewaySettings,
    "executor": ExecutorSettings,
    "planner": PlannerSettings,
    "tools": ToolsSettings,
}


def own_fields(section: type[CommonSettings]) -> list[str]:
    """The fields of `section` that are its own, not common."""
    return [name for name in section.model_fields if name not in CommonSettings.model_fields]


class _EveryVariable(EnvSettingsSource):
    """The environment as one flat dict of every setting, each read as its own field declares
    (JSON for lists, dicts and models): Settings' own fields, and each section's, which
    Settings then nests. A section's name is not a variable (there is no AGENTRT_EXECUTOR)."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        if field_name in SECTIONS:
            return None, field_name, False
        return super().get_field_value(field, field_name)

    def __call__(self) -> dict[str, Any]:
        values = super().__call__()
        for section in SECTIONS.values():
            values.update(EnvSettingsSource(section)())
        return values


class Settings(CommonSettings):
    """The whole deployment's settings: the common ones, the CLI's, and each service's section.
    Built from flat names, as the environment gives them (`Settings(max_parallel_steps=2)` sets
    AGENTRT_MAX_PARALLEL_STEPS): each lands in its section, and the common ones in every one."""

    model_config = SettingsConfigDict(env_prefix="AGENTRT_", extra="forbid")

    # Where client commands (agentrt run, get, list, ...) reach the gateway, e.g. a remote
    # "gw.example.com:50051". Empty means this machine's gateway: host:gateway_port. The CLI's
    # own: no service reads it.
    target: str = ""

    gateway: GatewaySettings
    executor: ExecutorSettings
    planner: PlannerSettings
    tools: ToolsSettings

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Arguments over the environment, as BaseSettings does (no .env file or secrets
        # directory is configured, so those sources read nothing and are left out).
        return (init_settings, _EveryVariable(settings_cls))

    @model_validator(mode="before")
    @classmethod
    def _into_sections(cls, data: Any) -> Any:
        """Flat names -> each section's own, with the common values copied into every section;
        the common ones and Settings' own stay here (and unknown names, refused as extra)."""
        if not isinstance(data, dict):
            return data
        if named := sorted(set(data) & set(SECTIONS)):
            raise ValueError(
                f"Settings takes each setting by its own name (AGENTRT_<NAME>), not sections: {named}"
            )
        common = {name: value for name, value in data.items() if name in CommonSettings.model_fields}
        nested = dict(data)
        for section_name, section in SECTIONS.items():
            own = {name: nested.pop(name) for name in own_fields(section) if name in nested}
            nested[section_name] = {**common, **own}
        return nested

    @model_validator(mode="after")
    def _agent_mode_needs_llm(self) -> Settings:
        # Across sections: the executor's default mode, the planner's models.
        if self.executor.default_mode == "agent" and not self.planner.llm_models:
            raise ValueError(
                'default_mode "agent" needs an LLM but no llm_models are configured (AGENTRT_LLM_MODELS)'
            )
        return self

    @property
    def gateway_target(self) -> str:
        if self.target:
            return self.target
        host = self.gateway.host
        host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        port = self.gateway.gateway_port
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

    def given(self) -> dict[str, Any]:
        given = {name: value for name, value in super().given().items() if name not in SECTIONS}
        for section_name in SECTIONS:
            section: CommonSettings = getattr(self, section_name)
            mine = set(own_fields(type(section)))
            given.update({name: value for name, value in section.given().items() if name in mine})
        return given

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Settings:
        if update:
            # A common value lives in every section too; a flat name is no field of Settings.
            raise TypeError("Settings.model_copy(update=...) would not reach the sections: use replace()")
        return super().model_copy(deep=deep)


def section_of(name: str) -> str:
    """Where setting `name` lives: "common", "settings" (the CLI's, on Settings itself), or the
    name of the one section that has it."""
    if name in CommonSettings.model_fields:
        return "common"
    for section_name, section in SECTIONS.items():
        if name in own_fields(section):
            return section_name
    if name in Settings.model_fields and name not in SECTIONS:
        return "settings"
    raise KeyError(name)


def setting_names() -> list[str]:
    """Every setting's name (its variable is AGENTRT_<NAME>), each once: the common ones, the
    CLI's, then each section's own."""
    names = [name for name in Settings.model_fields if name not in SECTIONS]
    for section in SECTIONS.values():
        names += own_fields(section)
    return names


def _field(name: str) -> FieldInfo | None:
    try:
        where = section_of(name)
    except KeyError:
        return None
    cls = {"common": CommonSettings, "settings": Settings}.get(where) or SECTIONS[where]
    return cls.model_fields[name]


# Examples for the settings whose format is easy to get wrong (JSON, lists, URLs).
_EXAMPLES = {
    "planner_chain": '\'["llm", "rules"]\'',
    "llm_models": '\'[{"model": "openai/gpt-4o-mini", "api_key": "sk-..."}]\'',
    # Placeholders, not keys: a key is made by `agentrt keys new` (keystrength.py says why).
    "api_keys": '\'{"ci": "<agentrt keys new>", "ops": {"key": "<another one>", "roles": ["admin"]}}\'',
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
    info = _field(field)
    default = info.default if info is not None else None
    return repr(default) if isinstance(default, int | float | str) and default != "" else ""


def _variable(field: str) -> str:
    return f"AGENTRT_{field.upper()}" if field else "AGENTRT_*"


def load_settings(**overrides: object) -> Settings:
    """Settings from the environment, or ConfigError naming each bad variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines: list[str] = []
        for error in exc.errors():
            loc = error["loc"]
            if loc and loc[0] in SECTIONS:
                loc = loc[1:]  # the section is where it landed; the variable is the name
            field = str(loc[0]) if loc else ""
            message = str(error["msg"]).removeprefix("Value error, ")
            if not field and ("planner_chain" in message or "default_mode" in message):
                field = "llm_models"
            elif not field and "agent_budgets." in message:
                field = "agent_budgets"
            elif not field and "mcp_servers" in message:
                field = "mcp_servers"
            elif not field and message.startswith("api_keys_file"):
                field = "api_keys_file"
            # A weak key's line already says what to run: an example would only lengthen it.
            example = "" if MAKE_ONE in message else _example(field)
            line = f"{_variable(field)}: {message}" + (f" (for example {example})" if example else "")
            if line not in lines:  # a common setting is checked in every section
                lines.append(line)
        raise ConfigError("agentrt: invalid configuration\n  " + "\n  ".join(lines)) from None
    except SettingsError as exc:
        # pydantic-settings could not even parse a value (JSON that is not JSON).
        field = str(exc).split('"')[1] if '"' in str(exc) else ""
        example = _example(field)
        raise ConfigError(
            f"agentrt: invalid configuration\n  {_variable(field)}: not valid JSON"
            + (f" (for example {example})" if example else "")
        ) from None
