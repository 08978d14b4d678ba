"""The run and step state machine, as one table: state x event -> state, and the events it emits.

Every status change in transitions.py goes through `move_run` / `move_step`, which look the
change up here and refuse one the table does not list (`IllegalTransition`: a bug, the run
fails INTERNAL rather than reach a state nobody designed). So this table is not a picture of
the code: it is the code's rule, and docs/DESIGN.md prints it (`python -m
executor_svc.run.machine`; tests/unit/test_machine.py checks the copy is current).

"Emits" names the `RunEvent` kinds a transition records with the change (`step_updated`,
`status_changed`, ...); `-` means the change is saved without an event of its own.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from agentrt.core.runstate import ONGOING
from agentrt.v1 import run_pb2

S = run_pb2


class IllegalTransition(RuntimeError):
    """A transition the table does not list: a bug in the executor, never a user's doing."""


@dataclass(frozen=True)
class Rule:
    event: str
    sources: frozenset[int]  # the statuses it may happen in
    targets: frozenset[int]  # the status it leads to (one, or one of these as the caller says)
    emits: str  # the RunEvent kinds it records
    meaning: str
    quiet_when_unchanged: bool = False  # source == target: saved, no status event


def _rule(
    event: str,
    sources: Set[int],
    targets: Set[int],
    emits: str,
    meaning: str,
    *,
    quiet_when_unchanged: bool = False,
) -> Rule:
    return Rule(event, frozenset(sources), frozenset(targets), emits, meaning, quiet_when_unchanged)


# One rule a few lines, as a table reads (not as the formatter would wrap it).
# ruff: noqa: E501
# fmt: off
RUN_RULES = [
    _rule("created", {S.RUN_STATUS_UNSPECIFIED}, {S.RUN_STATUS_PENDING, S.RUN_STATUS_QUEUED}, "status_changed",
          "CreateRun stored the run; a replica drives it (QUEUED: behind its thread's unfinished turns)."),
    _rule("dequeued", {S.RUN_STATUS_QUEUED}, {S.RUN_STATUS_PENDING}, "status_changed",
          "The thread's earlier turns have all finished: this one starts, its timeout counted from now."),
    _rule("planning_started", {S.RUN_STATUS_PENDING}, {S.RUN_STATUS_PLANNING}, "status_changed",
          "The driver asks the planner (plan or auto mode) or the model (agent mode)."),
    _rule("plan_made", {S.RUN_STATUS_PLANNING}, {S.RUN_STATUS_RUNNING}, "plan_created, status_changed",
          "A valid plan is installed: a PENDING step per plan step."),
    _rule("running", {S.RUN_STATUS_PLANNING, S.RUN_STATUS_RUNNING}, {S.RUN_STATUS_RUNNING}, "status_changed",
          "The first turn's calls (agent), or a stored plan resumed.", quiet_when_unchanged=True),
    _rule("turn_decided", {S.RUN_STATUS_PLANNING, S.RUN_STATUS_RUNNING},
          {S.RUN_STATUS_PLANNING, S.RUN_STATUS_RUNNING}, "turn_decided, step_updated per call",
          "The model's decision is recorded before any of its calls runs.", quiet_when_unchanged=True),
    _rule("planner_retry", {S.RUN_STATUS_PLANNING, S.RUN_STATUS_RUNNING},
          {S.RUN_STATUS_PLANNING, S.RUN_STATUS_RUNNING}, "planner_retry",
          "The model did not answer a plan or turn: it is asked again after a delay (AGENTRT_LLM_RETRY_*).",
          quiet_when_unchanged=True),
    _rule("replanned", {S.RUN_STATUS_RUNNING}, {S.RUN_STATUS_RUNNING}, "step_updated (closed steps), plan_created",
          "A step failed for good and the planner revised the plan (AGENTRT_REPLAN_MAX).",
          quiet_when_unchanged=True),
    _rule("waits", {S.RUN_STATUS_RUNNING, S.RUN_STATUS_WAITING}, {S.RUN_STATUS_WAITING}, "status_changed",
          "Nothing can run until a person decides a step: the run holds no task, lease or slot.",
          quiet_when_unchanged=True),
    _rule("decided", {S.RUN_STATUS_WAITING}, {S.RUN_STATUS_WAITING, S.RUN_STATUS_RUNNING}, "step_updated, status_changed",
          "ApproveStep/RejectStep: the run runs again once no step awaits a person.",
          quiet_when_unchanged=True),
    _rule("succeeded", {S.RUN_STATUS_PLANNING, S.RUN_STATUS_RUNNING}, {S.RUN_STATUS_SUCCEEDED}, "status_changed",
          "Every plan step succeeded, or the model answered."),
    _rule("failed", ONGOING, {S.RUN_STATUS_FAILED}, "step_updated (closed steps), status_changed",
          "A step failed for good, planning failed, a budget or the deadline ran out, a call was rejected."),
    _rule("cancelled", ONGOING, {S.RUN_STATUS_CANCELLED}, "step_updated (closed steps), status_changed",
          "CancelRun."),
    _rule("retried", {S.RUN_STATUS_FAILED, S.RUN_STATUS_CANCELLED}, {S.RUN_STATUS_PENDING, S.RUN_STATUS_RUNNING},
          "step_updated (reset steps), status_changed",
          "RetryRun: RUNNING if it had a plan or turns (kept), else PENDING."),
]

STEP_RULES = [
    _rule("added", {S.STEP_STATUS_UNSPECIFIED}, {S.STEP_STATUS_PENDING}, "plan_created / step_updated",
          "A plan step installed, or a model's call decided."),
    _rule("attempt_started", {S.STEP_STATUS_PENDING, S.STEP_STATUS_RETRYING, S.STEP_STATUS_RUNNING},
          {S.STEP_STATUS_RUNNING}, "step_updated",
          "An attempt calls the tool (RUNNING again: resumed after a crash, same idempotency key)."),
    _rule("retry_later", {S.STEP_STATUS_RUNNING}, {S.STEP_STATUS_RETRYING}, "step_updated",
          "A retryable failure with attempts left: the delay and the next attempt's time are recorded."),
    _rule("succeeded", {S.STEP_STATUS_RUNNING}, {S.STEP_STATUS_SUCCEEDED}, "step_updated",
          "The tool answered within the step's timeout and the run's size limit."),
    _rule("failed", {S.STEP_STATUS_PENDING, S.STEP_STATUS_RUNNING, S.STEP_STATUS_RETRYING,
                     S.STEP_STATUS_AWAITING_APPROVAL}, {S.STEP_STATUS_FAILED}, "step_updated",
          "Retries spent or not retryable (a tool timing out included), a bad reference, too large, "
          "rejected, or the approval timed out."),
    _rule("awaits_approval", {S.STEP_STATUS_PENDING, S.STEP_STATUS_RUNNING, S.STEP_STATUS_RETRYING},
          {S.STEP_STATUS_AWAITING_APPROVAL}, "step_updated",
          "The approval policy covers what the call declares it does: it waits, not run."),
    _rule("approved", {S.STEP_STATUS_AWAITING_APPROVAL}, {S.STEP_STATUS_PENDING}, "step_updated",
          "A person approved (maybe edited) the call: it runs when the run resumes."),
    _rule("closed", {S.STEP_STATUS_PENDING, S.STEP_STATUS_RUNNING, S.STEP_STATUS_RETRYING,
                     S.STEP_STATUS_AWAITING_APPROVAL}, {S.STEP_STATUS_CANCELLED, S.STEP_STATUS_SKIPPED},
          "step_updated", "The run ended early or was replanned: in-flight steps CANCELLED, the others SKIPPED."),
    _rule("reset", {S.STEP_STATUS_PENDING, S.STEP_STATUS_RUNNING, S.STEP_STATUS_RETRYING,
                    S.STEP_STATUS_AWAITING_APPROVAL, S.STEP_STATUS_FAILED, S.STEP_STATUS_CANCELLED,
                    S.STEP_STATUS_SKIPPED}, {S.STEP_STATUS_PENDING}, "step_updated",
          "RetryRun: what did not succeed starts over (an agent run keeps its failed calls: the model saw them)."),
]
# fmt: on

_RUN = {rule.event: rule for rule in RUN_RULES}
_STEP = {rule.event: rule for rule in STEP_RULES}


def _move(rule: Rule, current: int, to: int | None, what: str, name: type) -> tuple[int, bool]:
    if current not in rule.sources:
        raise IllegalTransition(f"{what}: '{rule.event}' cannot happen in {name.Name(current)}")  # type: ignore[attr-defined]
    if to is None:
        if len(rule.targets) != 1:
            raise IllegalTransition(f"{what}: '{rule.event}' needs its target status")
        (to,) = rule.targets
    if to not in rule.targets:
        raise IllegalTransition(f"{what}: '{rule.event}' cannot lead to {name.Name(to)}")  # type: ignore[attr-defined]
    return to, not (rule.quiet_when_unchanged and to == current)


def move_run(run: run_pb2.Run, event: str, to: int | None = None) -> bool:
    """Change `run`'s status as `event` says (to `to` where the event has several targets).
    Returns whether the change is announced with a status event."""
    status, announce = _move(_RUN[event], run.status, to, f"run {run.run_id}", run_pb2.RunStatus)
    run.status = status  # type: ignore[assignment]
    return announce


def move_step(step: run_pb2.StepState, event: str, to: int | None = None) -> None:
    """Change `step`'s status as `event` says; a step's change is always announced."""
    step.status, _ = _move(_STEP[event], step.status, to, f"step {step.step_id}", run_pb2.StepStatus)  # type: ignore[assignment]


def markdown() -> str:
    """The tables docs/DESIGN.md prints."""

    def names(statuses: frozenset[int], enum: type, prefix: str) -> str:
        return ", ".join(sorted(enum.Name(s).removeprefix(prefix) or "(new)" for s in statuses))  # type: ignore[attr-defined]

    def table(title: str, rules: list[Rule], enum: type, prefix: str) -> list[str]:
        lines = [f"**{title}**", "", "| event | from | to | emits | when |", "|---|---|---|---|---|"]
        for r in rules:
            sources = names(r.sources, enum, prefix).replace("UNSPECIFIED", "(new)")
            to = "(unchanged)" if r.sources == r.targets else names(r.targets, enum, prefix)
            lines.append(f"| `{r.event}` | {sources} | {to} | {r.emits} | {r.meaning} |")
        return lines

    run = table("A run", RUN_RULES, run_pb2.RunStatus, "RUN_STATUS_")
    step = table("A step", STEP_RULES, run_pb2.StepStatus, "STEP_STATUS_")
    return "\n".join([*run, "", *step])


if __name__ == "__main__":
    print(markdown())
