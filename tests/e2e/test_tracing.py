"""OpenTelemetry across the four processes: one trace per run, log lines carrying its trace_id,
and a caller's trace (a REST call's traceparent) carried on through every service."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.procs import start_system, wait_for

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


def test_one_trace_per_run_across_services(tmp_path: Path) -> None:
    system = start_system(tmp_path / "data", tmp_path / "up.log", AGENTRT_TRACING="console")
    try:
        result = system.agentrt("run", "Add a todo to buy milk, then show me all my tasks")
        assert result.returncode == 0, result.stdout + result.stderr
    finally:
        system.stop()  # exporters flush on exit
    objects = json_objects((tmp_path / "up.log").read_text())
    spans = [o for o in objects if "context" in o and "name" in o]
    (run_span,) = [s for s in spans if s["name"] == "run"]
    trace_id = run_span["context"]["trace_id"]
    in_trace = {
        (s["resource"]["attributes"]["service.name"], s["name"])
        for s in spans
        if s["context"]["trace_id"] == trace_id
    }
    assert {
        ("agentrt-executor", "plan"),
        ("agentrt-executor", "step s1"),
        ("agentrt-executor", "step s2"),
    } <= in_trace
    # The context crossed process boundaries in gRPC metadata, and the run is in the trace of
    # the call that created it:
    assert ("agentrt-gateway", "/agentrt.v1.RunService/CreateRun") in in_trace
    assert ("agentrt-planner", "/agentrt.v1.PlannerService/CreatePlan") in in_trace
    assert ("agentrt-tools", "/agentrt.v1.ToolService/InvokeTool") in in_trace
    step = next(s for s in spans if s["name"] == "step s1")
    assert step["parent_id"] is not None and step["attributes"]["agentrt.tool"] == "todo_store"
    logs = [o for o in objects if "event" in o and o.get("trace_id") == trace_id.removeprefix("0x")]
    assert {"run.succeeded", "rpc"} <= {line["event"] for line in logs}
    assert all(
        line.get("run_id") == run_span["attributes"]["agentrt.run_id"]
        for line in logs
        if line["event"] == "run.succeeded"
    )


def test_a_callers_trace_goes_on_through_every_process(tmp_path: Path) -> None:
    # Only OpenTelemetry's own variables: OTEL_TRACES_EXPORTER alone turns tracing on.
    system = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
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
        ("agentrt-gateway", "POST /v1/runs"),
        ("agentrt-gateway", "/agentrt.v1.RunService/CreateRun"),
        ("agentrt-executor", "/agentrt.v1.RunService/CreateRun"),
        ("agentrt-executor", "run"),
        ("agentrt-executor", "plan"),
        ("agentrt-executor", "step s1"),
        ("agentrt-executor", "step s2"),
        ("agentrt-planner", "/agentrt.v1.PlannerService/CreatePlan"),
        ("agentrt-tools", "/agentrt.v1.ToolService/InvokeTool"),
    } <= {(s["resource"]["attributes"]["service.name"], s["name"]) for s in mine}
    (edge,) = [s for s in mine if s["name"] == "POST /v1/runs"]
    assert edge["parent_id"] == f"0x{caller_span}"
    assert all(s["resource"]["attributes"]["deployment.environment"] == "e2e" for s in mine)
