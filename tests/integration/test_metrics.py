"""Metrics recorded by real runs (in-process, so every service shares one registry)."""

from __future__ import annotations

import asyncio

from prometheus_client import REGISTRY

from agentrt.v1 import run_pb2
from tests.conftest import Stack, watch_all


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_runs_steps_tools_planner_and_rpcs_are_counted(stack: Stack) -> None:
    before = {
        "succeeded": value("agentrt_runs_total", status="succeeded"),
        "failed": value("agentrt_runs_total", status="failed"),
        "calc_ok": value("agentrt_tool_invocations_total", tool="calculator", outcome="OK"),
        "calc_err": value("agentrt_tool_invocations_total", tool="calculator", outcome="INVALID_ARGUMENT"),
        "steps": value(
            "agentrt_step_duration_seconds_count", tool="calculator", status="STEP_STATUS_SUCCEEDED"
        ),
        "rules": value("agentrt_planner_duration_seconds_count", planner="rules", outcome="ok"),
        "create": value(
            "agentrt_rpc_duration_seconds_count", method="/agentrt.v1.RunService/CreateRun", code="OK"
        ),
    }
    for prompt in ("calculate 1+1 then add 2 to it", "divide 1 by 0"):
        run = (await stack.gateway.CreateRun(run_pb2.CreateRunRequest(prompt=prompt))).run
        await watch_all(stack.gateway, run.run_id)
    await asyncio.sleep(0.05)  # the driver's bookkeeping follows the terminal event
    assert value("agentrt_runs_total", status="succeeded") == before["succeeded"] + 1
    assert value("agentrt_runs_total", status="failed") == before["failed"] + 1
    assert value("agentrt_tool_invocations_total", tool="calculator", outcome="OK") == before["calc_ok"] + 2
    assert (
        value("agentrt_tool_invocations_total", tool="calculator", outcome="INVALID_ARGUMENT")
        == before["calc_err"] + 1
    )
    assert (
        value("agentrt_step_duration_seconds_count", tool="calculator", status="STEP_STATUS_SUCCEEDED")
        == before["steps"] + 2
    )
    assert (
        value("agentrt_planner_duration_seconds_count", planner="rules", outcome="ok") == before["rules"] + 2
    )
    # The gateway and the executor both serve CreateRun: two observations per call in one process.
    assert (
        value("agentrt_rpc_duration_seconds_count", method="/agentrt.v1.RunService/CreateRun", code="OK")
        == before["create"] + 4
    )
    assert value("agentrt_runs_active") == 0
    assert value("agentrt_watchers") == 0
