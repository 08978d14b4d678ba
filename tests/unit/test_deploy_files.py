"""No Docker engine runs here, so hold the container files to what the code really offers:
every command, target, setting, port and health probe they name must exist."""

from __future__ import annotations

import importlib.resources
import ipaddress
import json
import re
from pathlib import Path

import jsonschema
import yaml
from pydantic import SecretStr

from agentrt.cli.main import SERVICES
from agentrt.config import ExecutorSettings, Settings, ToolsSettings, section_of, setting_names
from agentrt.server.db import database_url

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())

# compose service -> (Dockerfile target, default port, gRPC service checked by its healthcheck)
EXPECTED = {
    "gateway": ("gateway", 50051, "agentrt.v1.RunService"),
    "executor_svc": ("executor", 50052, "agentrt.v1.RunService"),
    "planner_svc": ("planner", 50053, "agentrt.v1.PlannerService"),
    "tools_svc": ("tools", 50054, "agentrt.v1.ToolService"),
}


def stage(target: str) -> str:
    match = re.search(rf"^FROM runtime AS {target}\n(.*?)(?=^FROM |\Z)", DOCKERFILE, re.M | re.S)
    assert match, f"Dockerfile has no target {target}"
    return match.group(1)


def test_every_dockerfile_target_serves_a_real_service_with_a_grpc_health_probe() -> None:
    defaults = Settings()
    for target, port, service in EXPECTED.values():
        body = stage(target)
        assert f'CMD ["serve", "{target}"]' in body
        assert target in SERVICES
        # A port is common (the others reach the service by it) or, the gateway's, its own.
        section = defaults if section_of(f"{target}_port") == "common" else getattr(defaults, target)
        assert getattr(section, f"{target}_port") == port
        assert f"EXPOSE {port}" in body
        assert f'"agentrt", "health", "--target", "127.0.0.1:{port}", "--service", "{service}"' in body


def test_runtime_is_non_root_and_copies_only_existing_sources() -> None:
    assert "USER agentrt" in DOCKERFILE
    for source in re.findall(r"^COPY (?!--)(\S+)", DOCKERFILE, re.M):
        for part in source.split():
            assert (ROOT / part).exists(), f"Dockerfile copies missing {part}"


def test_compose_file_is_valid_against_the_compose_specification() -> None:
    # The schema `docker compose config` itself validates with, as vendored by check-jsonschema.
    schema_file = importlib.resources.files("check_jsonschema") / "builtin_schemas/vendor/compose-spec.json"
    schema = json.loads(schema_file.read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(COMPOSE)]
    assert errors == []


def test_compose_services_match_targets_settings_and_health() -> None:
    fields = {f"AGENTRT_{name.upper()}" for name in setting_names()}
    services = COMPOSE["services"]
    assert set(services) == {*EXPECTED, "postgres"}
    for name, (target, port, service) in EXPECTED.items():
        spec = services[name]
        assert spec["build"]["target"] == target
        for key in spec.get("environment", {}):
            assert key in fields, f"{name}: {key} is not a setting"
        test = spec["healthcheck"]["test"]
        assert test[:3] == ["CMD", "agentrt", "health"]
        assert test[test.index("--target") + 1] == f"127.0.0.1:{port}"
        assert test[test.index("--service") + 1] == service
        for dependency, condition in spec.get("depends_on", {}).items():
            assert dependency in services
            assert condition == {"condition": "service_healthy"}


def test_compose_wires_each_service_to_the_right_peer() -> None:
    services = COMPOSE["services"]
    executor_env = services["executor_svc"]["environment"]
    assert executor_env["AGENTRT_PLANNER_ADDR"] == "dns:///planner_svc:50053"
    assert executor_env["AGENTRT_TOOLS_ADDR"] == "dns:///tools_svc:50054"
    assert services["gateway"]["environment"]["AGENTRT_EXECUTOR_ADDR"] == "dns:///executor_svc:50052"
    assert "ports" not in services["executor_svc"]


def test_compose_runs_executors_and_tools_as_scalable_replicas_on_postgres() -> None:
    services = COMPOSE["services"]
    postgres = services["postgres"]
    assert postgres["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    env = postgres["environment"]
    for name in ("executor_svc", "tools_svc"):
        spec = services[name]
        # `--scale` needs replicas that differ in nothing: no fixed name, host port or volume.
        assert not {"container_name", "ports", "volumes"} & set(spec), name
        assert spec["depends_on"]["postgres"] == {"condition": "service_healthy"}
        url = spec["environment"]["AGENTRT_DATABASE_URL"].replace(
            "${AGENTRT_DB_PASSWORD:-agentrt}", "agentrt"
        )
        parsed = database_url(ExecutorSettings(database_url=SecretStr(url)), "executor")
        assert parsed.drivername == "postgresql+asyncpg"
        assert (parsed.username, parsed.host, parsed.database) == (
            env["POSTGRES_USER"],
            "postgres",
            env["POSTGRES_DB"],
        )
    assert services["gateway"]["ports"] == ["50051:50051", "8080:8080"]


def test_compose_lets_providers_register_from_its_own_network_only() -> None:
    allowed = json.loads(COMPOSE["services"]["tools_svc"]["environment"]["AGENTRT_PROVIDER_ALLOWED_HOSTS"])
    subnet = COMPOSE["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert subnet in allowed
    assert ToolsSettings(provider_allowed_hosts=allowed).provider_allowed_hosts == allowed
    assert ipaddress.ip_network(subnet).is_private


def test_only_the_gateway_is_published_and_every_service_shares_the_internal_credential() -> None:
    services = COMPOSE["services"]
    published = {name for name, spec in services.items() if "ports" in spec}
    assert published == {"gateway"}
    for name in EXPECTED:
        assert services[name]["environment"]["AGENTRT_INTERNAL_TOKEN"] == "${AGENTRT_INTERNAL_TOKEN:-}", name
    # In a container the internal services listen on the private network, not on loopback.
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "AGENTRT_INTERNAL_HOST=0.0.0.0" in dockerfile
