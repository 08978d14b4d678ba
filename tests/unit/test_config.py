"""Settings split by service: each AGENTRT_<NAME> variable keeps its name and meaning, lands in the
section of the service that reads it (common ones in every section), and a bad one is named."""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

import pytest
from pydantic import SecretStr

from agentrt.config import (
    SECTIONS,
    ApiKey,
    CommonSettings,
    ConfigError,
    ExecutorSettings,
    GatewaySettings,
    PlannerSettings,
    Settings,
    ToolsSettings,
    load_settings,
    section_of,
    setting_names,
)
from executor_svc import server as executor_server
from gateway import server as gateway_server
from planner_svc import server as planner_server
from tests.keys import key_for
from tools_svc import server as tools_server

# A sample of each section's variables, as an operator writes them, with what each must become.
SAMPLE: dict[str, dict[str, tuple[str, object]]] = {
    "gateway": {
        "AGENTRT_HOST": ("0.0.0.0", "0.0.0.0"),
        "AGENTRT_HTTP_PORT": ("8181", 8181),
        "AGENTRT_TRUSTED_PROXIES": ('["10.0.0.0/8"]', ["10.0.0.0/8"]),
        "AGENTRT_RATE_LIMIT_RPS": ("2.5", 2.5),
        "AGENTRT_GATEWAY_METRICS_PORT": ("0", 0),
    },
    "executor": {
        "AGENTRT_MAX_PARALLEL_STEPS": ("9", 9),
        "AGENTRT_RUN_TIMEOUT_S": ("61", 61.0),
        "AGENTRT_EXECUTOR_ID": ("replica-a", "replica-a"),
        "AGENTRT_APPROVAL_POLICY": ("writes", "writes"),
        "AGENTRT_DEFAULT_MODE": ("plan", "plan"),
    },
    "planner": {
        "AGENTRT_PLANNER_CHAIN": ('["llm", "rules"]', ["llm", "rules"]),
        "AGENTRT_LLM_TIMEOUT_S": ("4", 4.0),
        "AGENTRT_PLAN_CACHE_SIZE": ("16", 16),
        "AGENTRT_AGENT_TRANSCRIPT_CHARS": ("5000", 5000),
    },
    "tools": {
        "AGENTRT_REGISTRY_REFRESH_S": ("0.5", 0.5),
        "AGENTRT_LEASE_TTL_MAX_S": ("60", 60.0),
        "AGENTRT_MCP_MAX_TOOLS_PER_SERVER": ("7", 7),
        "AGENTRT_PROVIDER_ALLOWED_HOSTS": ('["tools-a"]', ["tools-a"]),
    },
    "common": {
        "AGENTRT_INTERNAL_HOST": ("0.0.0.0", "0.0.0.0"),
        "AGENTRT_TOOLS_ADDR": ("dns:///tools:50054", "dns:///tools:50054"),
        "AGENTRT_DATABASE_SCHEMA": ("agentrt", "agentrt"),
        "AGENTRT_RETENTION_DAYS": ("7", 7.0),
        "AGENTRT_MAX_PROMPT_CHARS": ("500", 500),
        "AGENTRT_MAX_TOOL_OUTPUT_BYTES": ("4096", 4096),
        "AGENTRT_LOG_LEVEL": ("debug", "debug"),
        "AGENTRT_SHUTDOWN_GRACE_S": ("1.5", 1.5),
    },
}

# JSON-valued variables, read as JSON into their models.
JSON_SAMPLE = {
    "AGENTRT_LLM_MODELS": '[{"model": "openai/gpt-4o-mini", "api_key": "sk-test"}]',
    "AGENTRT_TOOL_POLICIES": '{"todo_store": {"max_attempts": 5, "timeout_s": 10}}',
    "AGENTRT_MCP_SERVERS": '[{"name": "time", "command": "mcp-server-time"}]',
    "AGENTRT_API_KEYS": json.dumps({"ci": key_for("ci"), "ops": {"key": key_for("ops"), "roles": ["admin"]}}),
    "AGENTRT_AGENT_BUDGETS": '{"max_turns": 8}',
    "AGENTRT_APPROVAL_TOOL_POLICIES": '{"todo_store": "always"}',
}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No AGENTRT_ variable of the machine's leaks into a test."""
    for name in [n for n in os.environ if n.startswith("AGENTRT_")]:
        monkeypatch.delenv(name)


def test_each_variable_lands_in_its_section_and_common_ones_in_every_section(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variables in SAMPLE.values():
        for variable, (raw, _) in variables.items():
            monkeypatch.setenv(variable, raw)
    monkeypatch.setenv("AGENTRT_LLM_MODELS", JSON_SAMPLE["AGENTRT_LLM_MODELS"])  # the llm chain needs one
    settings = load_settings()
    for where, variables in SAMPLE.items():
        for variable, (_, expected) in variables.items():
            name = variable.removeprefix("AGENTRT_").lower()
            assert section_of(name) == where, variable
            holders = [settings, *(getattr(settings, s) for s in SECTIONS)] if where == "common" else []
            holders = holders or [getattr(settings, where)]
            for holder in holders:
                assert getattr(holder, name) == expected, (variable, type(holder).__name__)
            # ...and in no other section: a section's own setting is not an attribute elsewhere.
            if where != "common":
                others = [s for s in SECTIONS if s != where]
                assert not any(name in SECTIONS[s].model_fields for s in others), variable
                assert name not in Settings.model_fields, variable
    # The executor's code reads its own and the common settings alike, from its section.
    executor = settings.executor
    assert (executor.max_parallel_steps, executor.tools_target, executor.internal_host) == (
        9,
        "dns:///tools:50054",
        "0.0.0.0",
    )


def test_json_variables_keep_their_meaning(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for variable, raw in JSON_SAMPLE.items():
        monkeypatch.setenv(variable, raw)
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps({"carol": {"key": key_for("carol"), "roles": ["approver"]}}))
    monkeypatch.setenv("AGENTRT_API_KEYS_FILE", str(keys_file))
    settings = load_settings()
    (model,) = settings.planner.llm_models
    assert (model.model, model.api_key) == ("openai/gpt-4o-mini", SecretStr("sk-test"))
    assert settings.executor.tool_policies["todo_store"].max_attempts == 5
    assert settings.executor.agent_budgets.max_turns == 8
    assert settings.executor.approval_tool_policies == {"todo_store": "always"}
    assert [s.name for s in settings.tools.mcp_servers] == ["time"]
    assert isinstance(settings.api_keys["ops"], ApiKey)
    # The keys (and the file's) are common: every service knows them alike.
    expected = {"ci": ["user"], "ops": ["admin", "user"], "carol": ["approver", "user"]}
    for holder in (settings, *(getattr(settings, s) for s in SECTIONS)):
        assert {n: sorted(roles) for n, (_, roles) in holder.principals().items()} == expected


def test_no_two_sections_read_one_variable_unless_it_is_common() -> None:
    """The environment is one flat namespace: a name in two sections would be one variable read
    twice, perhaps differently. Only the common settings are in every section, by inheritance,
    with the same definition; Settings' own (the CLI's) are in no section."""
    common = CommonSettings.model_fields
    seen: dict[str, str] = {}
    for section_name, section in SECTIONS.items():
        assert issubclass(section, CommonSettings)
        for name, field in section.model_fields.items():
            if name in common:
                assert repr(field) == repr(common[name]), (section_name, name)  # not redefined
                continue
            assert name not in seen, f"{name} is in both {seen[name]} and {section_name}"
            seen[name] = section_name
    own = [n for n in Settings.model_fields if n not in common and n not in SECTIONS]
    assert own == ["target"]
    assert not set(own) & set(seen)
    # A section's name is no variable, and every field is read under its own name.
    assert not set(SECTIONS) & (set(seen) | set(common))
    names = setting_names()
    assert len(names) == len(set(names)) == len(common) + len(own) + len(seen)
    for cls in (Settings, *SECTIONS.values()):
        assert all(f.alias is None and f.validation_alias is None for f in cls.model_fields.values())


def test_a_bad_value_is_named_by_its_variable_whichever_section_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTRT_MAX_PARALLEL_STEPS", "0")
    monkeypatch.setenv("AGENTRT_LOG_LEVEL", "loud")  # common: checked in every section, said once
    monkeypatch.setenv("AGENTRT_TRUSTED_PROXIES", '["not a network"]')
    with pytest.raises(ConfigError) as info:
        load_settings()
    lines = str(info.value).splitlines()
    assert lines[0] == "agentrt: invalid configuration"
    assert sorted(line.split(":")[0].strip() for line in lines[1:]) == [
        "AGENTRT_LOG_LEVEL",
        "AGENTRT_MAX_PARALLEL_STEPS",
        "AGENTRT_TRUSTED_PROXIES",
    ]
    assert "  AGENTRT_MAX_PARALLEL_STEPS: Input should be greater than or equal to 1 (for example 4)" in lines


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        (
            {"AGENTRT_PLANNER_CHAIN": '["llm"]'},
            'AGENTRT_LLM_MODELS: planner_chain includes "llm" but no llm_models are configured',
        ),
        (
            {"AGENTRT_DEFAULT_MODE": "agent"},  # the executor's mode, the planner's models
            'AGENTRT_LLM_MODELS: default_mode "agent" needs an LLM but no llm_models are configured',
        ),
        (
            {"AGENTRT_AGENT_BUDGETS": '{"max_turns": 51}'},  # the executor's, over the common limit
            "AGENTRT_AGENT_BUDGETS: agent_budgets.max_turns is above agent_budget_limits.max_turns",
        ),
        (
            {"AGENTRT_MCP_SERVERS": '[{"name": "a", "command": "x"}, {"name": "a", "command": "y"}]'},
            "AGENTRT_MCP_SERVERS: mcp_servers: two servers share a name",
        ),
        ({"AGENTRT_TOOL_POLICIES": "{not json"}, "AGENTRT_TOOL_POLICIES: not valid JSON"),
        ({"AGENTRT_API_KEYS": '{"local": "k"}'}, "AGENTRT_API_KEYS: key name 'local' is reserved"),
        (
            {"AGENTRT_API_KEYS_FILE": "/nonexistent/keys.json"},
            "AGENTRT_API_KEYS_FILE: api_keys_file: cannot read /nonexistent/keys.json",
        ),
    ],
)
def test_cross_field_rules_still_name_the_variable(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], expected: str
) -> None:
    for variable, raw in variables.items():
        monkeypatch.setenv(variable, raw)
    with pytest.raises(ConfigError) as info:
        load_settings()
    (line,) = str(info.value).splitlines()[1:]  # once, though every section checks a common one
    assert line.strip().startswith(expected), line


def test_a_weak_key_is_refused_in_one_line_that_says_how_to_make_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    make_one = (
        'make one with `agentrt keys new` (or python -c "import secrets; print(secrets.token_urlsafe(32))")'
    )
    monkeypatch.setenv("AGENTRT_API_KEYS", json.dumps({"ci": key_for("ci"), "bob": "bob-key-0123456789"}))
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert str(info.value).splitlines() == [
        "agentrt: invalid configuration",
        f"  AGENTRT_API_KEYS: key 'bob' is too weak: about 23 bits of entropy by agentrt's estimate, "
        f"128 needed; {make_one}",
    ]
    monkeypatch.delenv("AGENTRT_API_KEYS")
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps({"ops": {"key": "a" * 64, "roles": ["admin"]}}))
    monkeypatch.setenv("AGENTRT_API_KEYS_FILE", str(keys_file))
    with pytest.raises(ConfigError) as info:
        load_settings()
    (line,) = str(info.value).splitlines()[1:]
    assert line == (
        "  AGENTRT_API_KEYS_FILE: api_keys_file: key 'ops' is too weak: about 0 bits of entropy by "
        f"agentrt's estimate, 128 needed; {make_one}"
    )


def test_replace_changes_a_setting_where_it_lives_and_keeps_the_sections_agreeing(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps({"carol": key_for("carol")}))
    settings = Settings(data_dir=tmp_path, api_keys_file=keys_file, api_keys={"ci": SecretStr(key_for("ci"))})
    changed = settings.replace(max_parallel_steps=2, data_dir=tmp_path / "other", tools_addr="tools:1")
    assert changed.executor.max_parallel_steps == 2 and settings.executor.max_parallel_steps == 4
    for holder in (changed, *(getattr(changed, s) for s in SECTIONS)):
        assert (holder.data_dir, holder.tools_target) == (tmp_path / "other", "tools:1")
        assert sorted(holder.principals()) == ["carol", "ci"]  # the file is read again, not doubled
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        settings.replace(max_parallel_steps=0)
    with pytest.raises(TypeError, match="replace"):
        settings.model_copy(update={"max_parallel_steps": 2})  # would reach no section
    with pytest.raises(ValueError, match="by its own name"):
        Settings(executor={"max_parallel_steps": 2})


def test_each_service_is_built_with_its_own_section() -> None:
    builders = {
        "gateway": (gateway_server.build_server, GatewaySettings),
        "executor": (executor_server.build_server, ExecutorSettings),
        "planner": (planner_server.build_server, PlannerSettings),
        "tools": (tools_server.build_server, ToolsSettings),
    }
    assert set(builders) == set(SECTIONS)
    for name, (build, section) in builders.items():
        assert SECTIONS[name] is section
        annotation = inspect.signature(build).parameters["settings"].annotation
        assert annotation in (section, section.__name__), name


def test_a_section_alone_reads_its_own_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTRT_MAX_PARALLEL_STEPS", "3")
    monkeypatch.setenv("AGENTRT_DATA_DIR", "/srv/agentrt")
    monkeypatch.setenv("AGENTRT_LLM_TIMEOUT_S", "2")  # the planner's: not the executor's business
    executor = ExecutorSettings()
    assert (executor.max_parallel_steps, executor.data_dir) == (3, Path("/srv/agentrt"))
    assert not hasattr(executor, "llm_timeout_s")
    with pytest.raises(ValueError, match="Extra inputs"):
        ExecutorSettings(llm_timeout_s=2)  # type: ignore[call-arg]
