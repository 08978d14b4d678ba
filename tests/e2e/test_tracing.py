"""OpenTelemetry across the four services, in one process and in four: one trace per run, log
lines carrying its trace_id, and a caller's trace (a REST call's traceparent) carried on through
every service. Each span names the service whose code opened it (`agentrt.service`); the
resource names the process (`agentrt`, or `agentrt-<service>` with --split)."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.procs import TOPOLOGIES, start_system, wait_for

pytestmark = pytest.mark.e2e


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object in a log that mixes JSON log lines and pretty-printed spans."""
    decoder, index, found = json.JSONDecoder(), 0, []
    while (start := text.find("{", index)) >= 0:
        try:
            obj, index = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        found.append(obj)
    return found


def who(span: dict[str, Any], topology: str) -> str:
    """The service that opened `span`, checked against the process the resource names."""
    service = span["attributes"]["agentrt.service"]
    process = span["resource"]["attributes"]["service.name"]
    assert process == ("agentrt" if topology == "embedded" else f"agentrt-{service}"), (process, service)
    return service


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_one_trace_per_run_across_services(tmp_path: Path, topology: str) -> None:
    system = start_system(
        tmp_path / "data", tmp_path / "up.log", topology=topology, AGENTRT_TRACING="console"
    )
    try:
        result = system.agentrt("run", "Add a todo to buy milk, then show me all my tasks")
        assert result.returncode == 0, result.stdout + result.stderr
    finally:
        system.stop()  # exporters flush on exit
    objects = json_objects((tmp_path / "up.log").read_text())
    spans = [o for o in objects if "context" in o and "name" in o]
    (run_span,) = [s for s in spans if s["name"] == "run"]
    trace_id = run_span["context"]["trace_id"]
    in_trace = {(who(s, topology), s["name"]) for s in spans if s["context"]["trace_id"] == trace_id}
    assert {("executor", "plan"), ("executor", "step s1"), ("executor", "step s2")} <= in_trace
    # The context crossed from service to service (in gRPC metadata between processes), and the
    # run is in the trace of the call that created it:
    assert ("gateway", "/agentrt.v1.RunService/CreateRun") in in_trace
    assert ("executor", "/agentrt.v1.RunService/CreateRun") in in_trace
    assert ("planner", "/agentrt.v1.PlannerService/CreatePlan") in in_trace
    assert ("tools", "/agentrt.v1.ToolService/InvokeTool") in in_trace
    step = next(s for s in spans if s["name"] == "step s1")
    assert step["parent_id"] is not None and step["attributes"]["agentrt.tool"] == "todo_store"
    logs = [o for o in objects if "event" in o and o.get("trace_id") == trace_id.removeprefix("0x")]
    assert {"run.succeeded", "rpc"} <= {line["event"] for line in logs}
    assert all(
        line.get("run_id") == run_span["attributes"]["agentrt.run_id"]
        for line in logs
        if line["event"] == "run.succeeded"
    )


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_a_callers_trace_goes_on_through_every_service(tmp_path: Path, topology: str) -> None:
    # Only OpenTelemetry's own variables: OTEL_TRACES_EXPORTER alone turns tracing on.
    system = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
        topology=topology,
        OTEL_TRACES_EXPORTER="console",
        OTEL_RESOURCE_ATTRIBUTES="deployment.environment=e2e",
    )
    trace_id, caller_span = secrets.token_hex(16), secrets.token_hex(8)
    try:
        with httpx.Client(base_url=system.http, timeout=20) as client:
            response = client.post(
                "/v1/runs",
                json={"prompt": "Add a todo to buy milk, then show me all my tasks"},
                headers={"traceparent": f"00-{trace_id}-{caller_span}-01"},
            )
            assert response.status_code == 200, response.text
            run = response.json()["run"]
            assert run["traceId"] == trace_id

            def succeeded() -> bool:
                status = client.get(f"/v1/runs/{run['runId']}").json()["run"]["status"]
                assert status not in ("RUN_STATUS_FAILED", "RUN_STATUS_CANCELLED"), status
                return status == "RUN_STATUS_SUCCEEDED"

            wait_for(succeeded, "the run to succeed")
    finally:
        system.stop()  # exporters flush on exit
    spans = [o for o in json_objects((tmp_path / "up.log").read_text()) if "context" in o and "name" in o]
    mine = [s for s in spans if s["context"]["trace_id"] == f"0x{trace_id}"]
    assert {
        ("gateway", "POST /v1/runs"),
        ("gateway", "/agentrt.v1.RunService/CreateRun"),
        ("executor", "/agentrt.v1.RunService/CreateRun"),
        ("executor", "run"),
        ("executor", "plan"),
        ("executor", "step s1"),
        ("executor", "step s2"),
        ("planner", "/agentrt.v1.PlannerService/CreatePlan"),
        ("tools", "/agentrt.v1.ToolService/InvokeTool"),
    } <= {(who(s, topology), s["name"]) for s in mine}
    (edge,) = [s for s in mine if s["name"] == "POST /v1/runs"]
    assert edge["parent_id"] == f"0x{caller_span}"
    assert all(s["resource"]["attributes"]["deployment.environment"] == "e2e" for s in mine)
