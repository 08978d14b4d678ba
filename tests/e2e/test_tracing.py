"""OpenTelemetry across the four processes: one trace per run, log lines carrying its trace_id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.procs import start_system

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
    # The context crossed process boundaries in gRPC metadata:
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
