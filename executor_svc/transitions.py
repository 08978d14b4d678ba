"""How a run changes: each function changes a `Run` (or one of its steps) in memory and returns
the event payloads that describe the change. No I/O here: the driver and the engine save what
these return (engine.py stamps the events with their seq), and unit tests check them directly.

A payload is the keyword arguments of one `RunEvent`'s `kind`, e.g.
`{"step_updated": StepUpdated(step=...)}`.
"""

from __future__ import annotations

import time
import uuid

from google.protobuf import timestamp_pb2

from agentrt.core.errors import ErrorDetails
from agentrt.core.principals import LOCAL_NAME
from agentrt.core.runstate import add_usage, status_name
from agentrt.core.values import duration_of
from agentrt.v1 import agent_pb2, plan_pb2, run_pb2
from executor_svc.retry import StepPolicy

S = run_pb2
Payload = dict[str, object]
# Steps that were started and not finished; they are cancelled when the run ends early.
IN_FLIGHT = (S.STEP_STATUS_RUNNING, S.STEP_STATUS_RETRYING)
RETRYABLE = frozenset({S.RUN_STATUS_FAILED, S.RUN_STATUS_CANCELLED})
_STEP_TIMERS = ("retry_delay", "next_attempt_time")


def now() -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    ts.FromNanoseconds(time.time_ns())
    return ts


# -- the run -----------------------------------------------------------------------------------


def new_run(
    prompt: str,
    max_steps: int,
    idempotency_key: str,
    retry_policy: run_pb2.RetryPolicy | None,
    timeout_s: float,
    *,
    mode: int = agent_pb2.RUN_MODE_PLAN,
    budgets: agent_pb2.Budgets | None = None,
    approval_policy: int = run_pb2.APPROVAL_POLICY_UNSPECIFIED,
    approval_timeout_s: float = 0.0,
    owner: str = LOCAL_NAME,
    trace_id: str = "",
) -> tuple[run_pb2.Run, Payload]:
    """A PENDING run of principal `owner`, and the event that announces it; `trace_id` is the
    trace of the call that created it ("" when tracing is off)."""
    created = now()
    deadline = timestamp_pb2.Timestamp()
    deadline.FromNanoseconds(created.ToNanoseconds() + round(timeout_s * 1e9))
    run = run_pb2.Run(
        run_id=uuid.uuid4().hex,
        owner=owner,
        trace_id=trace_id,
        prompt=prompt,
        status=S.RUN_STATUS_PENDING,
        max_steps=max_steps,
        idempotency_key=idempotency_key,
        create_time=created,
        update_time=created,
        deadline=deadline,
        retry_policy=retry_policy,
        mode=mode,  # type: ignore[arg-type]
        budgets=budgets,
        approval_policy=approval_policy,  # type: ignore[arg-type]
        approval_timeout=duration_of(approval_timeout_s) if approval_timeout_s else None,
    )
    return run, status_payload(run)


def status_payload(run: run_pb2.Run) -> Payload:
    change = run_pb2.RunStatusChanged(status=run.status)
    if run.status == S.RUN_STATUS_SUCCEEDED:
        if run.HasField("result"):  # an agent that answered without a tool call has none
            change.result.CopyFrom(run.result)
        change.answer = run.answer
    if run.status in (S.RUN_STATUS_FAILED, S.RUN_STATUS_CANCELLED):
        change.error.CopyFrom(run.error)
    return {"status_changed": change}


def stamp(run: run_pb2.Run, payloads: tuple[Payload, ...] | list[Payload]) -> list[run_pb2.RunEvent]:
    """Events for `payloads`, numbered from the run's last seq (+1 each, no gaps), timed now."""
    at = now()
    run.update_time.CopyFrom(at)
    events = []
    for payload in payloads:
        run.last_seq += 1
        events.append(run_pb2.RunEvent(run_id=run.run_id, seq=run.last_seq, time=at, **payload))  # type: ignore[arg-type]
    return events


def start_planning(run: run_pb2.Run) -> list[Payload]:
    run.status = S.RUN_STATUS_PLANNING
    if not run.HasField("start_time"):
        run.start_time.CopyFrom(now())
    return [status_payload(run)]


def plan_made(run: run_pb2.Run, plan: plan_pb2.Plan) -> list[Payload]:
    """Install the run's first plan; the run is RUNNING from here on."""
    run.mode = agent_pb2.RUN_MODE_PLAN  # an auto run is decided
    install_plan(run, plan)
    return [{"plan_created": run_pb2.PlanCreated(plan=plan)}, *start_running(run)]


def start_running(run: run_pb2.Run) -> list[Payload]:
    if run.status == S.RUN_STATUS_RUNNING:
        return []
    run.status = S.RUN_STATUS_RUNNING
    return [status_payload(run)]


def install_plan(run: run_pb2.Run, plan: plan_pb2.Plan) -> None:
    run.plan.CopyFrom(plan)
    del run.steps[:]
    run.steps.extend(
        run_pb2.StepState(
            step_id=s.id,
            tool=s.tool,
            arguments=s.arguments,
            depends_on=s.depends_on,
            status=S.STEP_STATUS_PENDING,
        )
        for s in plan.steps
    )
    add_usage(run.usage, plan.usage)


def replace_plan(run: run_pb2.Run, plan: plan_pb2.Plan, reason: str) -> list[Payload]:
    """A revised plan after a step failed: the old plan's unfinished steps are closed first."""
    payloads = _close_unfinished_steps(run)
    run.replan_count += 1
    install_plan(run, plan)
    payloads.append({"plan_created": run_pb2.PlanCreated(plan=plan, replan=True, reason=reason)})
    return payloads


def succeed(run: run_pb2.Run, answer: str = "") -> list[Payload]:
    """Every step succeeded: the last step's output is the run's result, and `answer` (the
    plan's answer template filled in) says it in words."""
    run.result.CopyFrom(run.steps[-1].output)
    run.answer = answer
    run.status = S.RUN_STATUS_SUCCEEDED
    run.end_time.CopyFrom(now())
    return [status_payload(run)]


def end(run: run_pb2.Run, status: int, error: run_pb2.RunError) -> list[Payload]:
    """Finish the run early (FAILED or CANCELLED): in-flight steps are cancelled, unstarted
    ones skipped."""
    payloads = _close_unfinished_steps(run)
    run.status = status  # type: ignore[assignment]
    run.error.CopyFrom(error)
    run.end_time.CopyFrom(now())
    payloads.append(status_payload(run))
    return payloads


def restart(run: run_pb2.Run) -> list[Payload]:
    """RetryRun: steps that did not succeed start over, succeeded ones are kept, and the run
    gets its timeout again from now. In agent mode, failed calls stay as they were (the model
    saw them), only calls the run stopped before they finished start over, and the budgets
    count afresh from the next turn."""
    payloads: list[Payload] = []
    agent = run.mode == agent_pb2.RUN_MODE_AGENT
    keep = (S.STEP_STATUS_FAILED, S.STEP_STATUS_SUCCEEDED) if agent else (S.STEP_STATUS_SUCCEEDED,)
    if agent:
        run.budget_start_turn = len(run.turns)
    for step in run.steps:
        if step.status not in keep:
            step.status = S.STEP_STATUS_PENDING
            for field in ("error", "end_time", "output", "approval", *_STEP_TIMERS):
                step.ClearField(field)
            payloads.append(step_payload(step))
    timeout_ns = run.deadline.ToNanoseconds() - run.create_time.ToNanoseconds()
    run.deadline.FromNanoseconds(now().ToNanoseconds() + timeout_ns)
    started = run.HasField("plan") or bool(run.turns)
    run.status = S.RUN_STATUS_RUNNING if started else S.RUN_STATUS_PENDING
    run.retry_count += 1
    for field in ("error", "end_time", "result", "answer"):
        run.ClearField(field)
    payloads.append(status_payload(run))
    return payloads


# -- the agent loop ----------------------------------------------------------------------------


def turn_decided(run: run_pb2.Run, turn: agent_pb2.Turn) -> list[Payload]:
    """Record the model's decision (before any of its calls runs): the turn, a PENDING step per
    call (ids t<turn>-<n>), its usage on the run; the run is RUNNING in agent mode."""
    turn.index = len(run.turns) + 1
    turn.time.CopyFrom(now())
    payloads: list[Payload] = []
    for n, call in enumerate(turn.calls, start=1):
        call.step_id = f"t{turn.index}-{n}"
        step = run.steps.add(
            step_id=call.step_id, tool=call.tool, arguments=call.arguments, status=S.STEP_STATUS_PENDING
        )
        payloads.append(step_payload(step))
    run.turns.append(turn)
    run.mode = agent_pb2.RUN_MODE_AGENT
    add_usage(run.usage, turn.usage)
    running = start_running(run) if turn.calls else []  # an answer ends the run at once
    return [{"turn_decided": run_pb2.TurnDecided(turn=turn)}, *payloads, *running]


def answered(run: run_pb2.Run, answer: str) -> list[Payload]:
    """The agent's final answer: the run succeeds with it; its result is the output of the last
    call that succeeded (none if no call did)."""
    outputs = [s.output for s in run.steps if s.status == S.STEP_STATUS_SUCCEEDED]
    if outputs:
        run.result.CopyFrom(outputs[-1])
    run.answer = answer
    run.status = S.RUN_STATUS_SUCCEEDED
    run.end_time.CopyFrom(now())
    return [status_payload(run)]


def budget_use(run: run_pb2.Run) -> tuple[int, int, int, float]:
    """Turns, tool calls, tokens and cost spent since the budgets last started (see restart)."""
    turns = run.turns[run.budget_start_turn :]
    tokens = sum(t.usage.prompt_tokens + t.usage.completion_tokens for t in turns)
    return len(turns), sum(len(t.calls) for t in turns), tokens, sum(t.usage.cost_usd for t in turns)


def budget_error(budget: str, spent: str, limit: str) -> run_pb2.RunError:
    return run_pb2.RunError(
        code="RESOURCE_EXHAUSTED",
        reason="BUDGET_EXCEEDED",
        message=f"budget {budget} exceeded: {spent}; the limit is {limit} (budgets.{budget})",
    )


def refused_error(refusal: str) -> run_pb2.RunError:
    return run_pb2.RunError(
        code="FAILED_PRECONDITION", reason="REFUSED", message=f"the agent declined: {refusal}"
    )


# -- approvals ---------------------------------------------------------------------------------


def await_approval(step: run_pb2.StepState, reason: str, timeout_s: float) -> Payload:
    """The step's call needs a person: it waits (and has not run)."""
    step.status = S.STEP_STATUS_AWAITING_APPROVAL
    at = now()
    deadline = timestamp_pb2.Timestamp()
    deadline.FromNanoseconds(at.ToNanoseconds() + round(timeout_s * 1e9))
    step.approval.CopyFrom(run_pb2.Approval(reason=reason, request_time=at, deadline=deadline))
    if not step.HasField("start_time"):
        step.start_time.CopyFrom(at)
    return step_payload(step)


def wait(run: run_pb2.Run) -> list[Payload]:
    """Nothing else can run until a person decides: the run waits."""
    run.status = S.RUN_STATUS_WAITING
    return [status_payload(run)]


def awaiting(run: run_pb2.Run) -> list[run_pb2.StepState]:
    return [s for s in run.steps if s.status == S.STEP_STATUS_AWAITING_APPROVAL]


def wake_at(run: run_pb2.Run) -> float:
    """When a waiting run must be looked at again: its earliest approval deadline (seconds)."""
    return min((s.approval.deadline.ToNanoseconds() / 1e9 for s in awaiting(run)), default=time.time())


def _decide(step: run_pb2.StepState, decision: int, by: str, comment: str = "") -> None:
    step.approval.decision = decision  # type: ignore[assignment]
    step.approval.decided_by = by
    step.approval.comment = comment
    step.approval.decision_time.CopyFrom(now())


def approve(run: run_pb2.Run, step: run_pb2.StepState, by: str, arguments: object | None) -> list[Payload]:
    """A person approved the call (maybe with edited arguments): it runs when the run resumes."""
    _decide(step, run_pb2.APPROVAL_DECISION_APPROVED, by)
    if arguments is not None:
        step.arguments.CopyFrom(arguments)  # type: ignore[arg-type]
        step.approval.edited = True
    step.status = S.STEP_STATUS_PENDING
    return [step_payload(step), *_resume(run)]


def reject(run: run_pb2.Run, step: run_pb2.StepState, by: str, reason: str) -> list[Payload]:
    """A person rejected the call: it fails with reason REJECTED, without running. A plan run
    fails with it; an agent run goes on (the model reads the rejection)."""
    _decide(step, run_pb2.APPROVAL_DECISION_REJECTED, by, reason)
    why = f": {reason}" if reason else ""
    error = run_pb2.RunError(
        code="FAILED_PRECONDITION",
        reason="REJECTED",
        message=f"step {step.step_id} ({step.tool}) was rejected by {by}{why}",
        step_id=step.step_id,
    )
    payloads = [finish_step(step, S.STEP_STATUS_FAILED, error=error)]
    if run.mode != agent_pb2.RUN_MODE_AGENT:
        return payloads + end(run, S.RUN_STATUS_FAILED, error)
    return payloads + _resume(run)


def time_out(run: run_pb2.Run, step: run_pb2.StepState) -> list[Payload]:
    """Nobody decided in time: the step fails with APPROVAL_TIMEOUT, and so does the run."""
    _decide(step, run_pb2.APPROVAL_DECISION_TIMED_OUT, "")
    error = run_pb2.RunError(
        code="DEADLINE_EXCEEDED",
        reason="APPROVAL_TIMEOUT",
        message=f"step {step.step_id} ({step.tool}) was not approved or rejected in time",
        step_id=step.step_id,
    )
    return [finish_step(step, S.STEP_STATUS_FAILED, error=error), *end(run, S.RUN_STATUS_FAILED, error)]


def _resume(run: run_pb2.Run) -> list[Payload]:
    """After a decision: the run runs again unless another step still awaits a person. Time
    spent waiting for people does not count against the run's deadline: it moves by as much."""
    if awaiting(run):
        return []
    started = min(
        (st.approval.request_time.ToNanoseconds() for st in run.steps if st.HasField("approval")),
        default=0,
    )
    if started and run.HasField("deadline"):
        run.deadline.FromNanoseconds(run.deadline.ToNanoseconds() + max(0, time.time_ns() - started))
    run.status = S.RUN_STATUS_RUNNING
    return [status_payload(run)]


def _close_unfinished_steps(run: run_pb2.Run) -> list[Payload]:
    payloads: list[Payload] = []
    for step in run.steps:
        if step.status in IN_FLIGHT or step.status in (
            S.STEP_STATUS_PENDING,
            S.STEP_STATUS_AWAITING_APPROVAL,
        ):
            step.status = S.STEP_STATUS_CANCELLED if step.status in IN_FLIGHT else S.STEP_STATUS_SKIPPED
            for field in _STEP_TIMERS:
                step.ClearField(field)
            step.end_time.CopyFrom(now())
            payloads.append(step_payload(step))
    return payloads


# -- steps -------------------------------------------------------------------------------------


def step_payload(step: run_pb2.StepState) -> Payload:
    return {"step_updated": run_pb2.StepUpdated(step=step)}


def start_attempt(step: run_pb2.StepState) -> Payload:
    step.status = S.STEP_STATUS_RUNNING
    step.attempts += 1
    for field in ("error", *_STEP_TIMERS):
        step.ClearField(field)
    if not step.HasField("start_time"):
        step.start_time.CopyFrom(now())
    return step_payload(step)


def retry_later(step: run_pb2.StepState, error: run_pb2.RunError, delay_s: float) -> Payload:
    step.status = S.STEP_STATUS_RETRYING
    step.error.CopyFrom(error)
    step.retry_delay.CopyFrom(duration_of(delay_s))
    step.next_attempt_time.FromNanoseconds(time.time_ns() + round(delay_s * 1e9))
    return step_payload(step)


def finish_step(
    step: run_pb2.StepState,
    status: int,
    *,
    error: run_pb2.RunError | None = None,
    output: object | None = None,
) -> Payload:
    step.status = status  # type: ignore[assignment]
    for field in _STEP_TIMERS:
        step.ClearField(field)
    if error is not None:
        step.error.CopyFrom(error)
    if output is not None:
        step.output.CopyFrom(output)  # type: ignore[arg-type]
    step.end_time.CopyFrom(now())
    return step_payload(step)


# -- errors ------------------------------------------------------------------------------------


def step_error(
    step: run_pb2.StepState, details: ErrorDetails, policy: StepPolicy, will_retry: bool
) -> run_pb2.RunError:
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
    return run_pb2.RunError(code=details.code.name, reason=reason, message=message, step_id=step.step_id)


def too_large(step: run_pb2.StepState, what: str, max_run_bytes: int) -> run_pb2.RunError:
    return run_pb2.RunError(
        code="RESOURCE_EXHAUSTED",
        reason="RUN_TOO_LARGE",
        message=(
            f"step {step.step_id} ({step.tool}): {what} would make the run larger than "
            f"{max_run_bytes} bytes (AGENTRT_MAX_RUN_BYTES)"
        ),
        step_id=step.step_id,
    )


def deadline_error(run: run_pb2.Run, timeout_s: float) -> run_pb2.RunError:
    in_flight = [s.step_id for s in run.steps if s.status in IN_FLIGHT]
    if in_flight:
        where = f" while step {', '.join(in_flight)} was running"
    elif run.mode == agent_pb2.RUN_MODE_AGENT or run.turns:
        where = f" while the model was deciding turn {len(run.turns) + 1}"
    elif not run.steps:
        where = " while planning"
    else:
        where = ""
    return run_pb2.RunError(
        code="DEADLINE_EXCEEDED",
        reason="RUN_DEADLINE_EXCEEDED",
        message=f"run exceeded its deadline (timeout {timeout_s:g}s){where}",
        step_id=in_flight[0] if in_flight else "",
    )


def cancelled_error() -> run_pb2.RunError:
    return run_pb2.RunError(
        code="CANCELLED", reason="RUN_CANCELLED", message="run was cancelled by CancelRun"
    )


def planning_error(details: ErrorDetails) -> run_pb2.RunError:
    reason = details.reason if details.reason not in ("", details.code.name) else "PLANNING_FAILED"
    return run_pb2.RunError(
        code=details.code.name, reason=reason, message=f"planning failed: {details.message}"
    )


def decision_error(details: ErrorDetails) -> run_pb2.RunError:
    reason = details.reason if details.reason not in ("", details.code.name) else "DECISION_FAILED"
    return run_pb2.RunError(code=details.code.name, reason=reason, message=details.message)


def invalid_plan_error(reason: str, message: str) -> run_pb2.RunError:
    return run_pb2.RunError(code="FAILED_PRECONDITION", reason=reason, message=f"invalid plan: {message}")


_PHRASES = {
    S.RUN_STATUS_PENDING: "is pending",
    S.RUN_STATUS_PLANNING: "is being planned",
    S.RUN_STATUS_RUNNING: "is still running",
    S.RUN_STATUS_SUCCEEDED: "has already succeeded",
    S.RUN_STATUS_FAILED: "has failed",
    S.RUN_STATUS_CANCELLED: "was cancelled",
    S.RUN_STATUS_WAITING: "is waiting for an approval",
}


def status_phrase(status: int) -> str:
    """A run's status as the rest of a sentence ("run X has already succeeded")."""
    return _PHRASES.get(status, f"is {status_name(status)}")
