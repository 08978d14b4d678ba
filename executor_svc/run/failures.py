"""Every `RunError` the run kernel records: why a run or a step failed, in the registry's words.

A failure the executor decides is made by `failure(reason=...)`: its gRPC code is the one the
registry (agentrt/core/reasons.py) gives the reason, so a run's error and an RPC's error never
disagree on what a reason means. A failure relayed from the planner or a tool keeps the code
and reason that service sent (a provider's own reasons are its vocabulary, not ours).
"""

from __future__ import annotations

from agentrt.core.errors import MAX_FIELD_BYTES, ErrorDetails
from agentrt.core.reasons import REASONS
from agentrt.core.text import clip
from agentrt.v1 import agent_pb2, run_pb2
from executor_svc.run.retry import StepPolicy

S = run_pb2
IN_FLIGHT = (S.STEP_STATUS_RUNNING, S.STEP_STATUS_RETRYING)
# The planner's answers that mean "no plan for this prompt" (rather than "the planner is down"):
# in auto mode the agent loop gets to try it (outcomes.NotUnderstood).
NOT_UNDERSTOOD = frozenset({"UNPLANNABLE", "MAX_STEPS_EXCEEDED"})


def failure(*, reason: str, message: str, step_id: str = "") -> run_pb2.RunError:
    """A failure the executor decides, with the registry's code for `reason`."""
    return run_pb2.RunError(code=REASONS[reason].code, reason=reason, message=message, step_id=step_id)


def relayed(details: ErrorDetails, message: str, default_reason: str, step_id: str = "") -> run_pb2.RunError:
    """A failure another service reported: its code, and its reason (else `default_reason`)."""
    reason = details.reason if details.reason not in ("", details.code.name) else default_reason
    return run_pb2.RunError(code=details.code.name, reason=reason, message=message, step_id=step_id)


# -- steps -------------------------------------------------------------------------------------


def step_error(
    step: run_pb2.StepState, details: ErrorDetails, policy: StepPolicy, will_retry: bool
) -> run_pb2.RunError:
    """A tool call's failure, saying which attempt it was and whether it will be retried."""
    if details.code.name == "DEADLINE_EXCEEDED":
        what = f"exceeded the step deadline (step timeout {policy.timeout_s:g}s)"
        reason = "STEP_DEADLINE_EXCEEDED"
    else:
        what = f"failed: {details.message}"
        reason = details.reason or details.code.name
    if will_retry and step.attempts >= policy.max_attempts:
        when = f" on attempt {step.attempts} (unavailable: retried until the run's deadline)"
    elif will_retry:
        when = f" on attempt {step.attempts} of {policy.max_attempts}"
    elif details.retryable and step.attempts > 1:
        when = f" after {step.attempts} attempts"
    else:
        when = ""
    message = f"step {step.step_id} ({step.tool}){when} {what}"
    return run_pb2.RunError(
        code=details.code.name,
        reason=reason,
        message=message,
        step_id=step.step_id,
        metadata=_bounded(details.metadata),
    )


# What a tool said beside its reason is kept with the step's error (the todos a name could mean),
# bounded again here: a provider's metadata is hostile until it is.
MAX_METADATA_KEYS = 8
MAX_METADATA_KEY_CHARS = 64


def _bounded(metadata: dict[str, str]) -> dict[str, str]:
    kept = sorted(metadata.items())[:MAX_METADATA_KEYS]
    return {clip(k, MAX_METADATA_KEY_CHARS): clip(v, MAX_FIELD_BYTES) for k, v in kept}


def too_large(step: run_pb2.StepState, what: str, max_run_bytes: int) -> run_pb2.RunError:
    return failure(
        reason="RUN_TOO_LARGE",
        message=(
            f"step {step.step_id} ({step.tool}): {what} would make the run larger than "
            f"{max_run_bytes} bytes (AGENTRT_MAX_RUN_BYTES)"
        ),
        step_id=step.step_id,
    )


def invalid_reference(step: run_pb2.StepState, problem: str) -> run_pb2.RunError:
    return failure(
        reason="INVALID_REFERENCE",
        message=f"step {step.step_id} ({step.tool}): {problem}",
        step_id=step.step_id,
    )


def rejected(step: run_pb2.StepState, by: str, why: str) -> run_pb2.RunError:
    because = f": {why}" if why else ""
    return failure(
        reason="REJECTED",
        message=f"step {step.step_id} ({step.tool}) was rejected by {by}{because}",
        step_id=step.step_id,
    )


def approval_timeout(step: run_pb2.StepState) -> run_pb2.RunError:
    return failure(
        reason="APPROVAL_TIMEOUT",
        message=f"step {step.step_id} ({step.tool}) was not approved or rejected in time",
        step_id=step.step_id,
    )


# -- runs --------------------------------------------------------------------------------------


def deadline(run: run_pb2.Run, timeout_s: float) -> run_pb2.RunError:
    """The run's deadline passed: where it was at the time (a step, a turn, planning)."""
    in_flight = [s.step_id for s in run.steps if s.status in IN_FLIGHT]
    if in_flight:
        where = f" while step {', '.join(in_flight)} was running"
    elif run.mode == agent_pb2.RUN_MODE_AGENT or run.turns:
        where = f" while the model was deciding turn {len(run.turns) + 1}"
    elif not run.steps:
        where = " while planning"
    else:
        where = ""
    return failure(
        reason="RUN_DEADLINE_EXCEEDED",
        message=f"run exceeded its deadline (timeout {timeout_s:g}s){where}",
        step_id=in_flight[0] if in_flight else "",
    )


def cancelled() -> run_pb2.RunError:
    return failure(reason="RUN_CANCELLED", message="run was cancelled by CancelRun")


def internal(exc: BaseException) -> run_pb2.RunError:
    """A bug in the executor (the log has the stack trace)."""
    return failure(reason="INTERNAL", message=f"executor error: {exc!r}")


# -- planning and the agent --------------------------------------------------------------------


def planning(details: ErrorDetails, tries: str = "") -> run_pb2.RunError:
    """The planner's failure; `tries` says how often it was asked ("(gave up after 4 attempts
    in 7 s)") when it was asked more than once."""
    return relayed(details, f"planning failed: {details.message}{tries}", "PLANNING_FAILED")


def decision(details: ErrorDetails, tries: str = "") -> run_pb2.RunError:
    return relayed(details, f"{details.message}{tries}", "DECISION_FAILED")


def no_decision() -> run_pb2.RunError:
    return failure(reason="NO_DECISION", message="the planner sent no decision")


def invalid_plan(reason: str, message: str) -> run_pb2.RunError:
    """validate_plan's verdict (INVALID_PLAN, INVALID_ARGUMENTS, MAX_STEPS_EXCEEDED)."""
    return failure(reason=reason, message=f"invalid plan: {message}")


def budget(budget: str, spent: str, limit: str) -> run_pb2.RunError:
    return failure(
        reason="BUDGET_EXCEEDED",
        message=f"budget {budget} exceeded: {spent}; the limit is {limit} (budgets.{budget})",
    )


def refused(refusal: str) -> run_pb2.RunError:
    return failure(reason="REFUSED", message=f"the agent declined: {refusal}")


def turn_too_large(turn: int, max_run_bytes: int) -> run_pb2.RunError:
    return failure(
        reason="RUN_TOO_LARGE",
        message=f"turn {turn} would make the run larger than {max_run_bytes} bytes (AGENTRT_MAX_RUN_BYTES)",
    )
