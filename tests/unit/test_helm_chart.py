"""The Helm chart (deploy/helm/agentrt), checked without a cluster: every variant (ci/*-values.yaml)
is linted and rendered by Helm's own Go SDK (helm-python-sdk binds it), and every object is
validated against the Kubernetes API's schemas (kubernetes-validate, strict: an unknown field is
an error) for the oldest and newest Kubernetes the chart supports. Then what the manifests
promise and the schemas cannot see: probes on every container, images the Dockerfile builds,
settings agentrt knows, the executor's grace within the pod's, internal ports kept internal.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

import helm_python
import kubernetes_validate
import pytest
import yaml

from agentrt.config import ExecutorSettings, GatewaySettings, PlannerSettings, ToolsSettings
from tests.keys import key_for

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "agentrt"
VARIANTS = sorted(p.stem.removesuffix("-values") for p in (CHART / "ci").glob("*-values.yaml"))
KUBERNETES = ("1.27", "1.37")  # Chart.yaml's kubeVersion floor, and the newest schemas we have
COMPONENTS = ("gateway", "executor", "planner", "tools")
HEALTH = {
    "gateway": "agentrt.v1.RunService",
    "executor": "agentrt.v1.RunService",
    "planner": "agentrt.v1.PlannerService",
    "tools": "agentrt.v1.ToolService",
}
SETTINGS = {
    "gateway": GatewaySettings,
    "executor": ExecutorSettings,
    "planner": PlannerSettings,
    "tools": ToolsSettings,
}


# What each variant's install adds on the command line (ci/*-values.yaml keep no credentials).
CREDENTIALS = {
    "secrets": {"internalToken": "test-internal-token-0123456789abcdef"},
    "postgresql": {"password": "test-password"},
    "externalDatabase": {"url": "postgresql://agentrt:test@db.internal:5432/agentrt"},
}


def values_of(variant: str) -> dict[str, Any]:
    values = yaml.safe_load((CHART / "ci" / f"{variant}-values.yaml").read_text()) or {}
    if variant == "production":
        # A key the services accept (they refuse weak ones at start).
        values = deep_merge(values, {"secrets": {"apiKeys": {"ci": key_for("ci")}}})
    return deep_merge(CREDENTIALS, values)


def render(values: dict[str, Any], name: str = "prod") -> list[dict[str, Any]]:
    """The chart's objects for these values, as `helm template NAME` renders them."""
    chart = helm_python.Chart.load(str(CHART))
    files = chart.render(values, name=name, namespace="agents", is_install=True)
    docs = []
    for path, text in sorted(files.items()):
        if path.endswith(".yaml"):
            docs += [d for d in yaml.safe_load_all(text) if d]
    return docs


def by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def component(doc: dict[str, Any]) -> str:
    return str(doc["metadata"]["labels"]["app.kubernetes.io/component"])


@pytest.fixture(scope="module", params=VARIANTS)
def rendered(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]]]:
    return request.param, render(values_of(request.param))


def test_every_variant_lints_clean_under_strict_helm() -> None:
    assert {"dev", "production", "local-model", "provider", "existing-secret"} <= set(VARIANTS)
    for variant in VARIANTS:
        report = helm_python.lint(str(CHART), values_of(variant), strict=True)
        assert not report["errors"], (variant, report["errors"])
        # Severity 1 is INFO ("icon is recommended"): no warning or error may remain.
        assert all(m["severity"] <= 1 for m in report["messages"]), (variant, report["messages"])


def test_every_object_of_every_variant_is_valid_for_the_kubernetes_api(
    rendered: tuple[str, list[dict[str, Any]]],
) -> None:
    variant, docs = rendered
    assert docs, variant
    for doc in docs:
        for version in KUBERNETES:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.ValidationError as err:
                raise AssertionError(
                    f"{variant}: {doc['kind']}/{doc['metadata']['name']} on {version}: {err.message}"
                ) from None


def test_the_validator_does_catch_a_wrong_field() -> None:
    """The check above can fail: a misspelt field is refused."""
    deployment = next(d for d in render(values_of("dev")) if d["kind"] == "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readynessProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError, match="readynessProbe"):
        kubernetes_validate.validate(deployment, KUBERNETES[0], strict=True)


def test_each_service_has_gRPC_probes_on_its_own_health_service(
    rendered: tuple[str, list[dict[str, Any]]],
) -> None:
    variant, docs = rendered
    deployments = {component(d): d for d in by_kind(docs, "Deployment").values()}
    assert set(deployments) == set(COMPONENTS), variant
    for name, deployment in deployments.items():
        pod = deployment["spec"]["template"]["spec"]
        (main, *sidecars) = pod["containers"]
        port = next(p["containerPort"] for p in main["ports"] if p["name"] == "grpc")
        for probe in ("startupProbe", "readinessProbe"):
            assert main[probe]["grpc"] == {"port": port, "service": HEALTH[name]}, (variant, name, probe)
        assert main["livenessProbe"]["grpc"] == {"port": port, "service": ""}, (variant, name)
        for container in sidecars:  # the local model: checked from inside its pod
            assert {"startupProbe", "livenessProbe"} <= set(container), (variant, name, container["name"])
        # The chart's Services would otherwise inject AGENTRT_EXECUTOR_PORT=tcp://... into every pod.
        assert pod["enableServiceLinks"] is False
    for statefulset in by_kind(docs, "StatefulSet").values():
        for container in statefulset["spec"]["template"]["spec"]["containers"]:
            assert {"readinessProbe", "livenessProbe"} <= set(container), (variant, container["name"])


def dockerfile_targets() -> set[str]:
    return set(re.findall(r"^FROM\s+\S+\s+AS\s+(\S+)\s*$", (ROOT / "Dockerfile").read_text(), re.M))


def test_every_image_is_one_the_dockerfile_builds_or_a_pinned_third_party_one(
    rendered: tuple[str, list[dict[str, Any]]],
) -> None:
    variant, docs = rendered
    values = values_of(variant)
    prefix = values.get("image", {}).get("prefix", "agentrt")
    targets = dockerfile_targets()
    assert {"gateway", "executor", "planner", "tools", "model"} <= targets
    for doc in docs:
        if doc["kind"] not in ("Deployment", "StatefulSet"):
            continue
        for container in doc["spec"]["template"]["spec"]["containers"]:
            image = container["image"]
            repository, _, tag = image.rpartition(":")
            assert tag and tag != "latest", (variant, image)
            name = repository.rsplit("/", 1)[-1]
            if name.startswith(f"{prefix}-"):
                assert name.removeprefix(f"{prefix}-") in targets, (
                    f"{variant}: {image}: no such Dockerfile target"
                )
            else:
                assert doc["kind"] == "StatefulSet" and name == "postgres", (variant, image)


def container_env(docs: list[dict[str, Any]], deployment: dict[str, Any]) -> dict[str, str]:
    """What the main container's process sees: the ConfigMap, its own env, Secret values."""
    configmaps = by_kind(docs, "ConfigMap")
    secrets = by_kind(docs, "Secret")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    env: dict[str, str] = {}
    for source in container["envFrom"]:
        env.update(configmaps[source["configMapRef"]["name"]]["data"])
    for var in container["env"]:
        if "value" in var:
            env[var["name"]] = var["value"]
        else:
            ref = var["valueFrom"]["secretKeyRef"]
            secret = secrets.get(ref["name"])
            if secret is None:  # the operator's own Secret (existingSecret): not rendered
                assert ref["name"] == "agentrt-credentials"
                continue
            assert ref["key"] in secret["stringData"] or ref["optional"], (ref, sorted(secret["stringData"]))
            if ref["key"] in secret["stringData"]:
                env[var["name"]] = secret["stringData"][ref["key"]]
    return env


def fields(settings_class: type[Any]) -> set[str]:
    return {f"AGENTRT_{field.upper()}" for field in settings_class.model_fields}


def test_every_setting_is_one_the_services_know_and_accept(
    rendered: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The services read AGENTRT_* variables; a misspelt one would be ignored without a word.
    Each one the shared ConfigMap sets is a setting of some service, each one a container sets
    is one of its own service's, and each service starts with what it gets (its own validation:
    JSON lists, ports, URLs)."""
    variant, docs = rendered
    (configmap,) = by_kind(docs, "ConfigMap").values()
    everyone = set().union(*(fields(cls) for cls in SETTINGS.values()))
    assert not set(configmap["data"]) - everyone, (variant, sorted(set(configmap["data"]) - everyone))
    for deployment in by_kind(docs, "Deployment").values():
        name = component(deployment)
        own = {v["name"] for v in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert not own - fields(SETTINGS[name]), (variant, name, sorted(own - fields(SETTINGS[name])))
        env = container_env(docs, deployment)
        for key in [k for k in os.environ if k.startswith("AGENTRT_")]:
            monkeypatch.delenv(key)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        settings = SETTINGS[name]()
        if variant != "existing-secret":  # the operator's Secret is not rendered
            assert settings.internal_secret(), (variant, name)
            if name in ("executor", "tools"):
                assert settings.database_url is not None, (variant, name)


def test_the_executor_drains_within_its_pods_grace(rendered: tuple[str, list[dict[str, Any]]]) -> None:
    variant, docs = rendered
    for deployment in by_kind(docs, "Deployment").values():
        pod = deployment["spec"]["template"]["spec"]
        env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
        grace = float(env["AGENTRT_SHUTDOWN_GRACE_S"])
        # In-flight calls get `grace`, then leases are released and the process exits: the pod
        # is killed only after terminationGracePeriodSeconds.
        assert pod["terminationGracePeriodSeconds"] >= grace + 10, (variant, component(deployment))


def test_only_the_gateway_is_reachable_from_outside_the_release(
    rendered: tuple[str, list[dict[str, Any]]],
) -> None:
    variant, docs = rendered
    services = {component(s): s for s in by_kind(docs, "Service").values()}
    for name in ("executor", "planner", "tools"):
        # Headless: clients resolve every pod and balance calls over them (gRPC round_robin).
        assert services[name]["spec"]["clusterIP"] == "None", (variant, name)
    policies = {component(p): p for p in by_kind(docs, "NetworkPolicy").values()}
    assert {"executor", "planner", "tools", "gateway"} <= set(policies), variant
    for name in ("executor", "planner", "tools"):
        (grpc_rule, metrics_rule) = policies[name]["spec"]["ingress"]
        assert grpc_rule["ports"] == [{"port": "grpc", "protocol": "TCP"}]
        callers = {
            p["podSelector"]["matchLabels"].get("app.kubernetes.io/component", "provider")
            for p in grpc_rule["from"]
        }
        expected = {"executor": {"gateway"}, "planner": {"executor", "gateway"}}.get(
            name, {"executor", "gateway", "provider"}
        )
        assert callers == expected, (variant, name, callers)
        assert metrics_rule == {"ports": [{"port": "metrics", "protocol": "TCP"}]}
    if "postgresql" in policies:
        (rule,) = policies["postgresql"]["spec"]["ingress"]
        assert {p["podSelector"]["matchLabels"]["app.kubernetes.io/component"] for p in rule["from"]} == {
            "executor",
            "tools",
        }


def test_scaling_and_disruption_budgets_where_the_values_ask(
    rendered: tuple[str, list[dict[str, Any]]],
) -> None:
    variant, docs = rendered
    autoscalers = {component(h): h for h in by_kind(docs, "HorizontalPodAutoscaler").values()}
    deployments = {component(d): d for d in by_kind(docs, "Deployment").values()}
    for name in ("gateway", "executor"):
        wanted = values_of(variant).get(name, {}).get("autoscaling", {}).get("enabled", False)
        assert (name in autoscalers) == wanted, (variant, name)
        # An autoscaled Deployment leaves its replica count to the autoscaler.
        assert ("replicas" in deployments[name]["spec"]) == (not wanted), (variant, name)
    budgets = {component(b) for b in by_kind(docs, "PodDisruptionBudget").values()}
    assert budgets == set(COMPONENTS), variant


def test_models_come_from_values_the_local_one_and_providers(
    rendered: tuple[str, list[dict[str, Any]]],
) -> None:
    variant, docs = rendered
    planner = next(d for d in by_kind(docs, "Deployment").values() if component(d) == "planner")
    containers = {c["name"] for c in planner["spec"]["template"]["spec"]["containers"]}
    secrets = by_kind(docs, "Secret")
    models = json.loads(next(iter(secrets.values()))["stringData"]["llm-models"]) if secrets else None
    if variant == "local-model":
        assert containers == {"planner", "model"}
        assert models == [
            {
                "model": "openai/local",
                "api_base": "http://127.0.0.1:8081/v1",
                "tool_calling": "json",
                "response_format": "json_schema",
            }
        ]
    else:
        assert containers == {"planner"}
    if variant == "provider":
        assert models == [{"model": "openai/gpt-4o-mini", "api_key": "sk-placeholder"}]


def test_missing_credentials_are_refused_saying_what_to_set() -> None:
    with pytest.raises(helm_python.HelmError, match=re.escape("secrets.internalToken is required")):
        render({})
    with pytest.raises(helm_python.HelmError, match=re.escape("postgresql.password is required")):
        render({"secrets": {"internalToken": "x" * 32}})
    with pytest.raises(helm_python.HelmError, match=re.escape("externalDatabase.url is required")):
        render({"secrets": {"internalToken": "x" * 32}, "postgresql": {"enabled": False}})
    with pytest.raises(helm_python.HelmError, match="is not an AGENTRT_"):
        render({**values_of("dev"), "env": {"LOG_LEVEL": "debug"}})
    for variant in VARIANTS:  # no variant file keeps a credential: each is set at install
        text = (CHART / "ci" / f"{variant}-values.yaml").read_text()
        assert "internalToken:" not in text and "password:" not in text and "apiKeys:" not in text


def readme_helm_commands() -> list[list[str]]:
    """The `helm install` and `helm upgrade` commands of the README's Kubernetes section, as
    words; `$(openssl rand -hex N)` is what it prints, 2N hex digits."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Deploy to Kubernetes (Helm)") :]
    section = section[: section.index("\n### ", 1)]
    commands = []
    for line in section.splitlines():
        if line.startswith(("helm install ", "helm upgrade ")):
            printed = re.sub(r"\$\(openssl rand -hex (\d+)\)", lambda m: "a" * 2 * int(m.group(1)), line)
            commands.append(shlex.split(printed))
    return commands


def deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        merged[key] = (
            deep_merge(merged[key], value)
            if isinstance(value, dict) and isinstance(merged.get(key), dict)
            else value
        )
    return merged


def test_the_readmes_helm_commands_render_valid_objects() -> None:
    """What the README tells users to run is what is checked: each command's values (files,
    --set, --set-json; --reuse-values on top of the install before it) render, lint and validate."""
    commands = readme_helm_commands()
    assert [c[:2] for c in commands] == [
        ["helm", "install"],
        ["helm", "install"],
        ["helm", "upgrade"],
        ["helm", "upgrade"],
    ]
    values: dict[str, Any] = {}
    for words in commands:
        assert words[3] == "deploy/helm/agentrt", words
        if "--reuse-values" not in words:
            values = {}
        options = iter(words[4:])
        for option in options:
            if option == "-f":
                values = deep_merge(values, yaml.safe_load((ROOT / next(options)).read_text()))
            elif option == "--set":
                values = deep_merge(values, helm_python.parse_set_string(next(options)))
            elif option == "--set-json":
                values = deep_merge(values, helm_python.parse_set_json(next(options)))
            elif option == "--namespace":
                next(options)
            else:
                assert option in ("--create-namespace", "--reuse-values"), option
        report = helm_python.lint(str(CHART), values, strict=True)
        assert not report["errors"], (words, report["errors"])
        docs = render(values, name=words[2])
        for doc in docs:
            kubernetes_validate.validate(doc, KUBERNETES[-1], strict=True)
        names = {d["metadata"]["name"] for d in docs if d["kind"] == "Service"}
        assert "agentrt-gateway" in names  # what the README port-forwards to
    # The last two: five executors by hand, and the new keys in the Secret.
    (secret,) = by_kind(docs, "Secret").values()
    assert json.loads(secret["stringData"]["api-keys"])["ci"] == "$NEW_CI_KEY"  # (the shell's, there)
    executor = next(d for d in by_kind(docs, "Deployment").values() if component(d) == "executor")
    assert executor["spec"]["replicas"] == 5
