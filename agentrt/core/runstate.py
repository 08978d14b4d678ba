"""Facts about runs every component must agree on: which statuses end a run, which event ends
an event stream, what statuses are called, and how LLM usage adds up across plans."""

from __future__ import annotations

import time

from agentrt.v1 import plan_pb2, run_pb2

TERMINAL = frozenset({run_pb2.RUN_STATUS_SUCCEEDED, run_pb2.RUN_STATUS_FAILED, run_pb2.RUN_STATUS_CANCELLED})
# Every status a run has not ended in (queued, pending, planning, running, waiting): derived, so a
# status added to the enum is unended unless it is made terminal.
ONGOING = frozenset(v for v in run_pb2.RunStatus.values() if v and v not in TERMINAL)


def status_name(value: int) -> str:
    """A run status as people read it: "succeeded", "failed" (not RUN_STATUS_SUCCEEDED)."""
    return run_pb2.RunStatus.Name(value).removeprefix("RUN_STATUS_").lower()


def step_status_name(value: int) -> str:
    return run_pb2.StepStatus.Name(value).removeprefix("STEP_STATUS_").lower()


def is_terminal_event(event: run_pb2.RunEvent) -> bool:
    """A status change to a terminal status (RetryRun may still restart the run later)."""
    return event.WhichOneof("kind") == "status_changed" and event.status_changed.status in TERMINAL


def add_usage(into: plan_pb2.Usage, more: plan_pb2.Usage) -> None:
    into.prompt_tokens += more.prompt_tokens
    into.completion_tokens += more.completion_tokens
    into.cost_usd += more.cost_usd
    into.llm_calls += more.llm_calls


def wake_at(run: run_pb2.Run) -> float:
    """When a waiting run must be looked at again: its earliest approval deadline (seconds since
    the epoch); the store releases a waiting run's lease until then."""
    deadlines = [
        s.approval.deadline.ToNanoseconds() / 1e9
        for s in run.steps
        if s.status == run_pb2.STEP_STATUS_AWAITING_APPROVAL
    ]
    return min(deadlines, default=time.time())
