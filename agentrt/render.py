"""Human-readable rendering of runs and run events for the CLI."""

from __future__ import annotations

import json
from typing import Any

from agentrt.v1 import run_pb2
from agentrt.values import struct_to_dict, value_to_py


def status(value: int) -> str:
    return run_pb2.RunStatus.Name(value).removeprefix("RUN_STATUS_").lower()


def step_status(value: int) -> str:
    return run_pb2.StepStatus.Name(value).removeprefix("STEP_STATUS_").lower()


def compact(value: Any, limit: int = 200) -> str:
    # Sorted: protobuf Struct maps have no stable order, and output should not shuffle between runs.
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def event_lines(event: run_pb2.RunEvent) -> list[str]:
    kind = event.WhichOneof("kind")
    prefix = f"[{event.seq:>3}] "
    if kind == "status_changed":
        change = event.status_changed
        line = f"{prefix}run {status(change.status)}"
        if change.HasField("result"):
            line += f": result {compact(value_to_py(change.result))}"
        if change.HasField("error") and change.error.message:
            line += f": {change.error.message}"
        return [line]
    if kind == "plan_created":
        plan = event.plan_created.plan
        lines = [f"{prefix}plan by {plan.planner or 'unknown'}, {len(plan.steps)} step(s):"]
        for step in plan.steps:
            after = f" after {', '.join(step.depends_on)}" if step.depends_on else ""
            lines.append(f"        {step.id} {step.tool} {compact(struct_to_dict(step.arguments))}{after}")
        return lines
    if kind == "step_updated":
        step = event.step_updated.step
        line = f"{prefix}{step.step_id} {step.tool} {step_status(step.status)}"
        if step.status == run_pb2.STEP_STATUS_RUNNING:
            line += f" (attempt {step.attempts})"
        if step.HasField("output") and step.status == run_pb2.STEP_STATUS_SUCCEEDED:
            line += f" -> {compact(value_to_py(step.output))}"
        if step.HasField("error") and step.error.message and step.status == run_pb2.STEP_STATUS_FAILED:
            line += f": {step.error.message}"
        return [line]
    return [f"{prefix}{kind}"]


def run_summary(run: run_pb2.Run) -> str:
    line = f"{run.run_id}  {status(run.status):<9}  {run.prompt}"
    if run.status == run_pb2.RUN_STATUS_FAILED and run.error.message:
        line += f"  ({run.error.message})"
    return line
