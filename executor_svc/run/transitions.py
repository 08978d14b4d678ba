"""How a run changes: each function changes a `Run` (or one of its steps) in memory and returns
the event payloads that describe the change. No I/O here: the driver and the engine save what
these return (the Recorder stamps the events with their seq), and unit tests check them directly.
Every status change is one of machine.py's table, checked there.

A payload is the keyword arguments of one `RunEvent`'s `kind`, e.g.
`{"step_updated": StepUpdated(step=...)}`.
"""

from __future__ import annotations

import time
import uuid

from google.protobuf import timestamp_pb2

from agentrt.core.principals import LOCAL_NAME
from agentrt.core.runstate import add_usage, status_name
from agentrt.core.values import duration_of
from agentrt.v1 import agent_pb2, plan_pb2, run_pb2
from executor_svc.run import failures
from executor_svc.run.machine import move_run, move_step

S = run_pb2
Payload = dict[str, object]
# Steps that were started and not finished; they are cancelled when the run ends early.
IN_FLIGHT = failures.IN_FLIGHT
RETRYABLE = frozenset({S.RUN_STATUS_FAILED, S.RUN_STATUS_CANCELLED})
_STEP_TIMERS = ("retry_delay", "next_attempt_time")


def now() -> timestamp_pb2.Timestamp:
    # Seconds and nanos set directly: FromNanoseconds is the well-known type's Python helper,
    # which re-checks the range of a clock reading (~15 stamps a run).
    seconds, nanos = divmod(time.time_ns(), 1_000_000_000)
    return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)


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
    thread_id: str = "",
    thread_turn: int = 0,
    queued: bool = False,
) -> tuple[run_pb2.Run, Payload]:
    """A PENDING run of principal `owner` (QUEUED: a thread's turn behind unfinished ones), and
    the event that announces it; `trace_id` is the trace of the call that created it ("" when
    tracing is off)."""
    created = now()
    deadline = timestamp_pb2.Timestamp()
    deadline.FromNanoseconds(created.ToNanoseconds() + round(timeout_s * 1e9))
    run = run_pb2.Run(
        run_id=uuid.uuid4().hex,
        owner=owner,
        trace_id=trace_id,
        prompt=prompt,
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
        thread_id=thread_id,
        thread_turn=thread_turn,
    )
    move_run(run, "created", S.RUN_STATUS_QUEUED if queued else S.RUN_STATUS_PENDING)
    return run, status_payload(run)


def dequeue(run: run_pb2.Run) -> list[Payload]:
    """A queued turn's time has come: PENDING, with its timeout counted from now (time spent
    waiting for earlier turns is not the run's)."""
    timeout_ns = run.deadline.ToNanoseconds() - run.create_time.ToNanoseconds()
    run.deadline.FromNanoseconds(now().ToNanoseconds() + timeout_ns)
    move_run(run, "dequeued")
    return [status_payload(run)]


def deadline_ns(run: run_pb2.Run, default_timeout_s: float) -> int:
    """When the run must end (runs stored before deadlines were kept get the default)."""
    if run.HasField("deadline"):
        return run.deadline.ToNanoseconds()
    return run.create_time.ToNanoseconds() + round(default_timeout_s * 1e9)


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
    move_run(run, "planning_started")
    if not run.HasField("start_time"):
        run.start_time.CopyFrom(now())
    return [status_payload(run)]


def plan_made(run: run_pb2.Run, plan: plan_pb2.Plan) -> list[Payload]:
    """Install the run's first plan; the run is RUNNING from here on."""
    run.mode = agent_pb2.RUN_MODE_PLAN  # an auto run is decided
    install_plan(run, plan)
    move_run(run, "plan_made")
    return [{"plan_created": run_pb2.PlanCreated(plan=plan)}, status_payload(run)]


def start_running(run: run_pb2.Run) -> list[Payload]:
    """RUNNING from planning (an agent's first calls); nothing to announce if it runs already."""
    return [status_payload(run)] if move_run(run, "running", S.RUN_STATUS_RUNNING) else []


def install_plan(run: run_pb2.Run, plan: plan_pb2.Plan) -> None:
    run.plan.CopyFrom(plan)
    del run.steps[:]
    run.steps.extend(
        run_pb2.StepState(step_id=s.id, tool=s.tool, arguments=s.arguments, depends_on=s.depends_on)
        for s in plan.steps
    )
    for step in run.steps:
        move_step(step, "added")
    add_usage(run.usage, plan.usage)


def replace_plan(run: run_pb2.Run, plan: plan_pb2.Plan, reason: str) -> list[Payload]:
    """A revised plan after a step failed: the old plan's unfinished steps are closed first."""
    move_run(run, "replanned", S.RUN_STATUS_RUNNING)
    payloads = _close_unfinished_steps(run)
    run.replan_count += 1
    install_plan(run, plan)
    payloads.append({"plan_created": run_pb2.PlanCreated(plan=plan, replan=True, reason=reason)})
    return payloads


def succeed(run: run_pb2.Run, answer: str = "") -> list[Payload]:
    """Every step succeeded: the last step's output is the run's result, and `answer` (the
    plan's answer template filled in) says it in words. A plan that is only an answer (no
    steps) has no result."""
    if run.steps:
        run.result.CopyFrom(run.steps[-1].output)
    run.answer = answer
    move_run(run, "succeeded")
    run.end_time.CopyFrom(now())
    return [status_payload(run)]


def end(run: run_pb2.Run, status: int, error: run_pb2.RunError) -> list[Payload]:
    """Finish the run early (FAILED or CANCELLED): in-flight steps are cancelled, unstarted
    ones skipped."""
    move_run(run, "failed" if status == S.RUN_STATUS_FAILED else "cancelled")
    payloads = _close_unfinished_steps(run)
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
            move_step(step, "reset")
            for field in ("error", "end_time", "output", "approval", *_STEP_TIMERS):
                step.ClearField(field)
            payloads.append(step_payload(step))
    timeout_ns = run.deadline.ToNanoseconds() - run.create_time.ToNanoseconds()
    run.deadline.FromNanoseconds(now().ToNanoseconds() + timeout_ns)
    started = run.HasField("plan") or bool(run.turns)
    move_run(run, "retried", S.RUN_STATUS_RUNNING if started else S.RUN_STATUS_PENDING)
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
        step = run.steps.add(step_id=call.step_id, tool=call.tool, arguments=call.arguments)
        move_step(step, "added")
        payloads.append(step_payload(step))
    move_run(run, "turn_decided", run.status)
    run.turns.append(turn)
    run.mode = agent_pb2.RUN_MODE_AGENT
    add_usage(run.usage, turn.usage)
    running = start_running(run) if turn.calls else []  # an answer ends the run at once
    return [{"turn_decided": run_pb2.TurnDecided(turn=turn)}, *payloads, *running]


def planner_retry(
    run: run_pb2.Run, activity: str, attempts: tuple[int, int], delay_s: float, error: run_pb2.RunError
) -> list[Payload]:
    """A plan or turn the model did not answer is asked for again after `delay_s` (`attempts`:
    the one that failed, of how many): recorded, so the run says why it is still planning (and
    its history, why it took long)."""
    attempt, max_attempts = attempts
    move_run(run, "planner_retry", run.status)
    retry = run_pb2.PlannerRetry(activity=activity, attempt=attempt, max_attempts=max_attempts, error=error)
    retry.delay.FromNanoseconds(int(delay_s * 1e9))
    return [{"planner_retry": retry}]


def heartbeat(run: run_pb2.Run, activity: str, elapsed_s: float) -> run_pb2.RunEvent:
    """A transient event (never stored): the run has waited `elapsed_s` for the planner."""
    beat = run_pb2.Heartbeat(activity=activity)
    beat.elapsed.FromNanoseconds(int(elapsed_s * 1e9))
    return run_pb2.RunEvent(run_id=run.run_id, seq=run.last_seq, time=now(), transient=True, heartbeat=beat)


def step_progress(run: run_pb2.Run, step_id: str, message: str) -> run_pb2.RunEvent:
    """A transient event (never stored): what a step's tool says of its work while it goes on."""
    said = run_pb2.StepProgress(step_id=step_id, message=message)
    return run_pb2.RunEvent(
        run_id=run.run_id, seq=run.last_seq, time=now(), transient=True, step_progress=said
    )


def answered(run: run_pb2.Run, answer: str) -> list[Payload]:
    """The agent's final answer: the run succeeds with it; its result is the output of the last
    call that succeeded (none if no call did)."""
    outputs = [s.output for s in run.steps if s.status == S.STEP_STATUS_SUCCEEDED]
    if outputs:
        run.result.CopyFrom(outputs[-1])
    run.answer = answer
    move_run(run, "succeeded")
    run.end_time.CopyFrom(now())
    return [status_payload(run)]


def budget_use(run: run_pb2.Run) -> tuple[int, int, int, float]:
    """Turns, tool calls, tokens and cost spent since the budgets last started (see restart)."""
    turns = run.turns[run.budget_start_turn :]
    tokens = sum(t.usage.prompt_tokens + t.usage.completion_tokens for t in turns)
    return len(turns), sum(len(t.calls) for t in turns), tokens, sum(t.usage.cost_usd for t in turns)


# -- approvals ---------------------------------------------------------------------------------


def await_approval(step: run_pb2.StepState, reason: str, timeout_s: float) -> Payload:
    """The step's call needs a person: it waits (and has not run)."""
    move_step(step, "awaits_approval")
    at = now()
    deadline = timestamp_pb2.Timestamp()
    deadline.FromNanoseconds(at.ToNanoseconds() + round(timeout_s * 1e9))
    step.approval.CopyFrom(run_pb2.Approval(reason=reason, request_time=at, deadline=deadline))
    if not step.HasField("start_time"):
        step.start_time.CopyFrom(at)
    return step_payload(step)


def wait(run: run_pb2.Run) -> list[Payload]:
    """Nothing else can run until a person decides: the run waits. A waiting run saved again
    (claimed before any deadline) announces nothing."""
    return [status_payload(run)] if move_run(run, "waits") else []


def awaiting(run: run_pb2.Run) -> list[run_pb2.StepState]:
    return [s for s in run.steps if s.status == S.STEP_STATUS_AWAITING_APPROVAL]


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
    move_step(step, "approved")
    return [step_payload(step), *_resume(run)]


def reject(run: run_pb2.Run, step: run_pb2.StepState, by: str, reason: str) -> list[Payload]:
    """A person rejected the call: it fails with reason REJECTED, without running. A plan run
    fails with it; an agent run goes on (the model reads the rejection)."""
    _decide(step, run_pb2.APPROVAL_DECISION_REJECTED, by, reason)
    error = failures.rejected(step, by, reason)
    payloads = [finish_step(step, S.STEP_STATUS_FAILED, error=error)]
    if run.mode != agent_pb2.RUN_MODE_AGENT:
        return payloads + end(run, S.RUN_STATUS_FAILED, error)
    return payloads + _resume(run)


def time_out(run: run_pb2.Run, step: run_pb2.StepState) -> list[Payload]:
    """Nobody decided in time: the step fails with APPROVAL_TIMEOUT, and so does the run."""
    _decide(step, run_pb2.APPROVAL_DECISION_TIMED_OUT, "")
    error = failures.approval_timeout(step)
    return [finish_step(step, S.STEP_STATUS_FAILED, error=error), *end(run, S.RUN_STATUS_FAILED, error)]


def _resume(run: run_pb2.Run) -> list[Payload]:
    """After a decision: the run runs again unless another step still awaits a person. Time
    spent waiting for people does not count against the run's deadline: it moves by as much."""
    if awaiting(run):
        move_run(run, "decided", S.RUN_STATUS_WAITING)
        return []
    started = min(
        (st.approval.request_time.ToNanoseconds() for st in run.steps if st.HasField("approval")),
        default=0,
    )
    if started and run.HasField("deadline"):
        run.deadline.FromNanoseconds(run.deadline.ToNanoseconds() + max(0, time.time_ns() - started))
    move_run(run, "decided", S.RUN_STATUS_RUNNING)
    return [status_payload(run)]


def _close_unfinished_steps(run: run_pb2.Run) -> list[Payload]:
    payloads: list[Payload] = []
    for step in run.steps:
        if step.status in IN_FLIGHT or step.status in (
            S.STEP_STATUS_PENDING,
            S.STEP_STATUS_AWAITING_APPROVAL,
        ):
            move_step(
                step, "closed", S.STEP_STATUS_CANCELLED if step.status in IN_FLIGHT else S.STEP_STATUS_SKIPPED
            )
            for field in _STEP_TIMERS:
                step.ClearField(field)
            step.end_time.CopyFrom(now())
            payloads.append(step_payload(step))
    return payloads


# -- steps -------------------------------------------------------------------------------------


def step_payload(step: run_pb2.StepState) -> Payload:
    return {"step_updated": run_pb2.StepUpdated(step=step)}


def start_attempt(step: run_pb2.StepState) -> Payload:
    move_step(step, "attempt_started")
    step.attempts += 1
    for field in ("error", *_STEP_TIMERS):
        step.ClearField(field)
    if not step.HasField("start_time"):
        step.start_time.CopyFrom(now())
    return step_payload(step)


def retry_later(step: run_pb2.StepState, error: run_pb2.RunError, delay_s: float) -> Payload:
    move_step(step, "retry_later")
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
    move_step(step, "succeeded" if status == S.STEP_STATUS_SUCCEEDED else "failed")
    for field in _STEP_TIMERS:
        step.ClearField(field)
    if error is not None:
        step.error.CopyFrom(error)
    if output is not None:
        step.output.CopyFrom(output)  # type: ignore[arg-type]
    step.end_time.CopyFrom(now())
    return step_payload(step)


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
