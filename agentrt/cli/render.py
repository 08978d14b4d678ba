"""Human-readable rendering of runs and run events for the CLI."""

from __future__ import annotations

import json
import shutil
from typing import Any

from agentrt.core.runstate import status_name, step_status_name
from agentrt.core.values import struct_to_dict, value_to_py
from agentrt.v1 import agent_pb2, plan_pb2, run_pb2


def compact(value: Any, limit: int | None = 200) -> str:
    """One-line JSON; cut to `limit` characters (None: whole) with a marker saying so."""
    # Sorted: protobuf Struct maps have no stable order, and output should not shuffle between runs.
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=True)
    if limit is None or len(text) <= limit:
        return text
    marker = f"… ({len(text)} characters; --full shows all)"
    return text[: max(20, limit - len(marker))] + marker


def one_line(text: str) -> str:
    """`text` on one line, whatever was typed (newlines and runs of spaces become one space)."""
    return " ".join(text.split())


def line_width() -> int:
    """How much of a step's arguments or output fits on one terminal line (at least 80)."""
    return max(80, shutil.get_terminal_size((200, 24)).columns - 30)


def event_lines(event: run_pb2.RunEvent, limit: int | None = 200) -> list[str]:
    """Lines for one event. Arguments and step outputs are cut to `limit`; a run's final result
    is always printed whole: it is what the user asked for."""
    kind = event.WhichOneof("kind")
    prefix = f"[{event.seq:>3}] "
    if kind == "status_changed":
        change = event.status_changed
        line = f"{prefix}run {status_name(change.status)}"
        result = compact(value_to_py(change.result), None) if change.HasField("result") else None
        if change.answer:  # the answer in words first; the structured result under it
            return [f"{line}: {change.answer}", *([f"{' ' * len(prefix)}result {result}"] if result else [])]
        if result is not None:
            line += f": result {result}"
        if change.HasField("error") and change.error.message:
            line += f": {change.error.message}"
        return [line]
    if kind == "plan_created":
        plan = event.plan_created.plan
        lines = [f"{prefix}plan by {plan.planner or 'unknown'}, {len(plan.steps)} step(s):"]
        for step in plan.steps:
            after = f" after {', '.join(step.depends_on)}" if step.depends_on else ""
            lines.append(
                f"        {step.id} {step.tool} {compact(struct_to_dict(step.arguments), limit)}{after}"
            )
        return lines
    if kind == "step_updated":
        step = event.step_updated.step
        line = f"{prefix}{step.step_id} {step.tool} {step_status_name(step.status)}"
        if step.status == run_pb2.STEP_STATUS_RUNNING:
            line += f" (attempt {step.attempts})"
        if step.HasField("output") and step.status == run_pb2.STEP_STATUS_SUCCEEDED:
            line += f" -> {compact(value_to_py(step.output), limit)}"
        if step.HasField("error") and step.error.message and step.status == run_pb2.STEP_STATUS_FAILED:
            line += f": {step.error.message}"
        if step.status == run_pb2.STEP_STATUS_AWAITING_APPROVAL:
            line += f" {compact(struct_to_dict(step.arguments), limit)}: {step.approval.reason}"
            return [
                line,
                f"{' ' * len(prefix)}agentrt approve {event.run_id} {step.step_id}"
                f"   |   agentrt reject {event.run_id} {step.step_id} --reason ...",
            ]
        return [line]
    if kind == "turn_decided":
        return [prefix + turn_line(event.turn_decided.turn, limit)]
    if kind == "planner_retry":
        return [prefix + retry_line(event.planner_retry)]
    return [f"{prefix}{kind}"]


def retry_line(retry: run_pb2.PlannerRetry) -> str:
    """ "model openai/local at http://127.0.0.1:8080/v1 refused the connection: ...; retry 2 of
    4 in 3 s"."""
    seconds = retry.delay.ToNanoseconds() / 1e9
    return (
        f"{retry.activity}: {retry.error.message}; "
        f"retry {retry.attempt + 1} of {retry.max_attempts} in {seconds:.0f} s"
    )


def heartbeat_line(beat: run_pb2.Heartbeat) -> str:
    """A slow model, seen from the terminal: "still deciding (15 s)"."""
    return f"still {beat.activity} ({beat.elapsed.ToNanoseconds() / 1e9:.0f} s)"


def progress_line(progress: run_pb2.StepProgress) -> str:
    """A step's tool saying how its work goes: "s1: working: searching flights". Its words come
    from another agent: control characters (terminal escapes) are shown, not obeyed."""
    said = "".join(c if c.isprintable() else repr(c)[1:-1] for c in one_line(progress.message))
    return f"{progress.step_id}: {said}"


def turn_line(turn: agent_pb2.Turn, limit: int | None = 200) -> str:
    """An agent turn on one line: its calls, its answer or its refusal, and what it cost."""
    if turn.calls:
        what = "; ".join(
            f"{c.step_id} {c.tool} {compact(struct_to_dict(c.arguments), limit)}" for c in turn.calls
        )
    elif turn.refusal:
        what = f"declined: {turn.refusal}"
    else:
        what = "answered"
    return f"turn {turn.index}: {what} ({usage_text(turn.usage)})"


def usage_text(usage: plan_pb2.Usage) -> str:
    tokens = usage.prompt_tokens + usage.completion_tokens
    text = f"{usage.llm_calls} LLM call{'s' if usage.llm_calls != 1 else ''}, {tokens} tokens"
    return text + (f", ${usage.cost_usd:.4f}" if usage.cost_usd else "")


def mode_name(mode: int) -> str:
    return agent_pb2.RunMode.Name(mode).removeprefix("RUN_MODE_").lower()  # type: ignore[arg-type]


def run_summary(run: run_pb2.Run) -> str:
    line = f"{run.run_id}  {status_name(run.status):<9}  {run.prompt}"
    if run.status == run_pb2.RUN_STATUS_FAILED and run.error.message:
        line += f"  ({run.error.message})"
    return line
