"""The run's transitions, without I/O: what each changes and which events it emits."""

import grpc
import pytest
from google.protobuf import struct_pb2

from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct
from agentrt.v1 import plan_pb2, run_pb2
from executor_svc.run import failures
from executor_svc.run import transitions as tr
from executor_svc.run.machine import IllegalTransition
from executor_svc.run.retry import StepPolicy

S = run_pb2


def plan(*ids: str) -> plan_pb2.Plan:
    steps = [
        plan_pb2.PlanStep(id=i, tool="calculator", arguments=dict_to_struct({"expression": "1+1"}))
        for i in ids
    ]
    return plan_pb2.Plan(steps=steps, usage=plan_pb2.Usage(llm_calls=1, prompt_tokens=10))


def kinds(payloads: list[tr.Payload]) -> list[str]:
    return [next(iter(p)) for p in payloads]


def new(timeout_s: float = 30.0) -> run_pb2.Run:
    run, created = tr.new_run("add 1 and 1", 5, "key", None, timeout_s)
    tr.stamp(run, [created])
    return run


def planned(*ids: str, timeout_s: float = 30.0) -> run_pb2.Run:
    """A RUNNING run with a plan of steps `ids`, as the driver makes it."""
    run = new(timeout_s)
    tr.start_planning(run)
    tr.plan_made(run, plan(*ids))
    return run


def succeed_step(step: run_pb2.StepState, value: float = 1) -> None:
    tr.start_attempt(step)
    tr.finish_step(step, S.STEP_STATUS_SUCCEEDED, output=struct_pb2.Value(number_value=value))


def test_a_new_run_is_pending_with_its_deadline() -> None:
    run, created = tr.new_run("p", 3, "", None, 12.5)
    assert run.status == S.RUN_STATUS_PENDING
    assert run.deadline.ToNanoseconds() - run.create_time.ToNanoseconds() == 12_500_000_000
    assert created["status_changed"].status == S.RUN_STATUS_PENDING
    assert len(run.run_id) == 32


def test_events_are_numbered_without_gaps_from_the_runs_last_seq() -> None:
    run = new()
    assert run.last_seq == 1
    events = tr.stamp(run, [*tr.start_planning(run), *tr.plan_made(run, plan("s1"))])
    assert [e.seq for e in events] == [2, 3, 4]
    assert [e.WhichOneof("kind") for e in events] == ["status_changed", "plan_created", "status_changed"]
    assert all(e.run_id == run.run_id and e.time == run.update_time for e in events)
    assert run.last_seq == 4


def test_a_plan_installs_pending_steps_adds_usage_and_starts_the_run() -> None:
    run = new()
    tr.start_planning(run)
    assert run.status == S.RUN_STATUS_PLANNING and run.HasField("start_time")
    payloads = tr.plan_made(run, plan("s1", "s2"))
    assert kinds(payloads) == ["plan_created", "status_changed"]
    assert run.status == S.RUN_STATUS_RUNNING
    assert [(s.step_id, s.status) for s in run.steps] == [
        ("s1", S.STEP_STATUS_PENDING),
        ("s2", S.STEP_STATUS_PENDING),
    ]
    assert run.usage.llm_calls == 1 and run.usage.prompt_tokens == 10
    assert tr.start_running(run) == []  # already running: nothing to announce


def test_attempts_retries_and_success() -> None:
    run = planned("s1")
    step = run.steps[0]
    tr.start_attempt(step)
    assert (step.status, step.attempts) == (S.STEP_STATUS_RUNNING, 1)
    error = run_pb2.RunError(code="UNAVAILABLE", message="down")
    tr.retry_later(step, error, 0.5)
    assert step.status == S.STEP_STATUS_RETRYING
    assert step.retry_delay.ToMilliseconds() == 500 and step.HasField("next_attempt_time")
    tr.start_attempt(step)
    assert step.attempts == 2 and not step.HasField("error") and not step.HasField("retry_delay")
    output = struct_pb2.Value(number_value=2)
    payload = tr.finish_step(step, S.STEP_STATUS_SUCCEEDED, output=output)
    assert payload["step_updated"].step.output.number_value == 2
    assert not step.HasField("next_attempt_time") and step.HasField("end_time")
    assert kinds(tr.succeed(run)) == ["status_changed"]
    assert run.status == S.RUN_STATUS_SUCCEEDED and run.result.number_value == 2


def test_ending_early_cancels_in_flight_steps_and_skips_unstarted_ones() -> None:
    run = planned("s1", "s2", "s3")
    succeed_step(run.steps[0])
    tr.start_attempt(run.steps[1])
    tr.retry_later(run.steps[1], run_pb2.RunError(code="UNAVAILABLE"), 1.0)
    payloads = tr.end(run, S.RUN_STATUS_CANCELLED, failures.cancelled())
    assert kinds(payloads) == ["step_updated", "step_updated", "status_changed"]
    assert [s.status for s in run.steps] == [
        S.STEP_STATUS_SUCCEEDED,
        S.STEP_STATUS_CANCELLED,
        S.STEP_STATUS_SKIPPED,
    ]
    assert not run.steps[1].HasField("next_attempt_time")
    assert payloads[-1]["status_changed"].error.reason == "RUN_CANCELLED"


def test_restart_keeps_succeeded_steps_and_renews_the_timeout() -> None:
    run = planned("s1", "s2", timeout_s=10)
    succeed_step(run.steps[0])
    tr.finish_step(run.steps[1], S.STEP_STATUS_FAILED, error=run_pb2.RunError(code="INTERNAL"))
    tr.end(run, S.RUN_STATUS_FAILED, run_pb2.RunError(code="INTERNAL"))
    old_deadline = run.deadline.ToNanoseconds()
    payloads = tr.restart(run)
    assert kinds(payloads) == ["step_updated", "status_changed"]
    assert run.status == S.RUN_STATUS_RUNNING and run.retry_count == 1
    assert [s.status for s in run.steps] == [S.STEP_STATUS_SUCCEEDED, S.STEP_STATUS_PENDING]
    assert not run.steps[1].HasField("error") and not run.HasField("error") and not run.HasField("end_time")
    assert run.deadline.ToNanoseconds() >= old_deadline


def test_a_run_that_failed_while_planning_restarts_pending() -> None:
    run = new()
    tr.end(run, S.RUN_STATUS_FAILED, run_pb2.RunError(code="INVALID_ARGUMENT"))
    tr.restart(run)
    assert run.status == S.RUN_STATUS_PENDING


def test_a_revised_plan_closes_the_old_one() -> None:
    run = planned("s1", "s2")
    tr.finish_step(run.steps[0], S.STEP_STATUS_FAILED, error=run_pb2.RunError(code="INTERNAL"))
    payloads = tr.replace_plan(run, plan("s1"), "s1 failed")
    assert kinds(payloads) == ["step_updated", "plan_created"]
    assert payloads[-1]["plan_created"].replan and payloads[-1]["plan_created"].reason == "s1 failed"
    assert run.replan_count == 1 and len(run.steps) == 1 and run.usage.llm_calls == 2


@pytest.mark.parametrize(
    ("code", "attempts", "will_retry", "reason", "phrase"),
    [
        (grpc.StatusCode.DEADLINE_EXCEEDED, 1, False, "STEP_DEADLINE_EXCEEDED", "exceeded the step deadline"),
        (grpc.StatusCode.UNAVAILABLE, 1, True, "UNAVAILABLE", "on attempt 1 of 3"),
        (grpc.StatusCode.UNAVAILABLE, 3, True, "UNAVAILABLE", "retried until the run's deadline"),
        (grpc.StatusCode.INVALID_ARGUMENT, 1, False, "INVALID_ARGUMENT", "failed: bad"),
    ],
)
def test_step_errors_say_what_happened_and_when(
    code: grpc.StatusCode, attempts: int, will_retry: bool, reason: str, phrase: str
) -> None:
    step = run_pb2.StepState(step_id="s1", tool="calculator", attempts=attempts)
    details = ErrorDetails(
        code=code, message="bad", reason=code.name, retryable=code == grpc.StatusCode.UNAVAILABLE
    )
    policy = StepPolicy(max_attempts=3, base_delay_s=0.1, max_delay_s=1, timeout_s=5)
    error = failures.step_error(step, details, policy, will_retry)
    assert error.reason == reason and error.step_id == "s1" and error.code == code.name
    assert phrase in error.message and error.message.startswith("step s1 (calculator)")


def test_the_deadline_error_names_what_was_running() -> None:
    run = new()
    assert "while planning" in failures.deadline(run, 5).message
    tr.start_planning(run)
    tr.plan_made(run, plan("s1"))
    tr.start_attempt(run.steps[0])
    error = failures.deadline(run, 5)
    assert error.step_id == "s1" and "while step s1 was running" in error.message
    assert "(timeout 5s)" in error.message


def test_status_phrases_read_as_sentences() -> None:
    assert tr.status_phrase(S.RUN_STATUS_SUCCEEDED) == "has already succeeded"
    assert tr.status_phrase(S.RUN_STATUS_RUNNING) == "is still running"


def test_an_agent_turn_is_recorded_with_a_pending_step_per_call() -> None:
    from agentrt.core.values import dict_to_struct  # noqa: PLC0415
    from agentrt.v1 import agent_pb2, plan_pb2  # noqa: PLC0415

    run, _ = tr.new_run("p", 5, "", None, 60, mode=agent_pb2.RUN_MODE_AUTO)
    tr.start_planning(run)
    turn = agent_pb2.Turn(
        calls=[
            agent_pb2.ToolCall(tool="calculator", arguments=dict_to_struct({"expression": "1"})),
            agent_pb2.ToolCall(tool="todo_store", arguments=dict_to_struct({"action": "list"})),
        ],
        usage=plan_pb2.Usage(prompt_tokens=100, completion_tokens=20, llm_calls=1),
    )
    payloads = tr.turn_decided(run, turn)
    assert [next(iter(p)) for p in payloads] == [
        "turn_decided",
        "step_updated",
        "step_updated",
        "status_changed",
    ]
    assert run.mode == agent_pb2.RUN_MODE_AGENT and run.status == run_pb2.RUN_STATUS_RUNNING
    assert [(s.step_id, s.status) for s in run.steps] == [
        ("t1-1", run_pb2.STEP_STATUS_PENDING),
        ("t1-2", run_pb2.STEP_STATUS_PENDING),
    ]
    assert [c.step_id for c in run.turns[0].calls] == ["t1-1", "t1-2"]
    assert run.usage.prompt_tokens == 100
    assert tr.budget_use(run) == (1, 2, 120, 0.0)
    # An answer ends the run without passing through RUNNING again; no call succeeded: no result.
    tr.finish_step(run.steps[0], S.STEP_STATUS_FAILED, error=run_pb2.RunError(code="INTERNAL"))
    answer = tr.turn_decided(run, agent_pb2.Turn(answer="done")) + tr.answered(run, "done")
    assert [next(iter(p)) for p in answer] == ["turn_decided", "status_changed"]
    assert run.status == run_pb2.RUN_STATUS_SUCCEEDED and not run.HasField("result")
    assert not answer[-1]["status_changed"].HasField("result")


def test_retrying_an_agent_run_keeps_what_the_model_saw_and_restarts_the_budgets() -> None:
    from agentrt.v1 import agent_pb2  # noqa: PLC0415

    run, _ = tr.new_run("p", 5, "", None, 60, mode=agent_pb2.RUN_MODE_AGENT)
    tr.start_planning(run)
    tr.turn_decided(run, agent_pb2.Turn(calls=[agent_pb2.ToolCall(tool="a"), agent_pb2.ToolCall(tool="b")]))
    # seen by the model in turn 2:
    tr.finish_step(run.steps[0], S.STEP_STATUS_FAILED, error=run_pb2.RunError(code="INTERNAL"))
    succeed_step(run.steps[1])
    tr.turn_decided(run, agent_pb2.Turn(calls=[agent_pb2.ToolCall(tool="c")]))
    tr.end(run, run_pb2.RUN_STATUS_CANCELLED, failures.cancelled())  # t2-1 was pending: skipped
    tr.restart(run)
    assert [s.status for s in run.steps] == [
        run_pb2.STEP_STATUS_FAILED,
        run_pb2.STEP_STATUS_SUCCEEDED,
        run_pb2.STEP_STATUS_PENDING,
    ]
    assert run.budget_start_turn == 2 and tr.budget_use(run) == (0, 0, 0, 0.0)
    assert run.status == run_pb2.RUN_STATUS_RUNNING


def test_a_change_the_state_machine_does_not_list_is_refused() -> None:
    """machine.py's table is the rule, not a picture: a step cannot succeed without running, a
    finished run cannot be planned again, a running run cannot be retried."""
    run = planned("s1")
    with pytest.raises(IllegalTransition, match="'succeeded' cannot happen in STEP_STATUS_PENDING"):
        tr.finish_step(run.steps[0], S.STEP_STATUS_SUCCEEDED, output=struct_pb2.Value(number_value=1))
    with pytest.raises(IllegalTransition, match="'retried' cannot happen in RUN_STATUS_RUNNING"):
        tr.restart(run)
    succeed_step(run.steps[0])
    tr.succeed(run)
    with pytest.raises(IllegalTransition, match="'plan_made' cannot happen in RUN_STATUS_SUCCEEDED"):
        tr.plan_made(run, plan("s2"))
    with pytest.raises(IllegalTransition, match="'cancelled' cannot happen in RUN_STATUS_SUCCEEDED"):
        tr.end(run, S.RUN_STATUS_CANCELLED, failures.cancelled())


def test_failures_the_executor_decides_carry_the_registrys_code() -> None:
    from agentrt.core.reasons import REASONS  # noqa: PLC0415

    step = run_pb2.StepState(step_id="s1", tool="todo_store")
    for error in (
        failures.cancelled(),
        failures.rejected(step, "alice", "no"),
        failures.approval_timeout(step),
        failures.invalid_plan("INVALID_PLAN", "cycle"),
        failures.budget("max_turns", "3 turns", "3"),
        failures.refused("no"),
        failures.no_decision(),
        failures.internal(ValueError("x")),
    ):
        assert error.code == REASONS[error.reason].code, error
    with pytest.raises(KeyError):
        failures.failure(reason="NOT_A_REASON", message="")


def test_what_a_failed_answer_spent_travels_as_a_typed_detail() -> None:
    """The planner's failure carries its usage as a plan_pb2.Usage status detail, read back as
    numbers (no ErrorInfo metadata strings); an answer that spent nothing carries none."""
    from agentrt.core.errors import FailedPrecondition  # noqa: PLC0415

    spent = plan_pb2.Usage(prompt_tokens=120, completion_tokens=30, cost_usd=0.0125, llm_calls=1)
    status = FailedPrecondition("declined", reason="REFUSED", usage=spent).rpc_status()
    details = ErrorDetails.from_status(grpc.StatusCode.FAILED_PRECONDITION, status)
    assert details.usage == spent and "prompt_tokens" not in details.metadata
    free = FailedPrecondition("declined", usage=plan_pb2.Usage()).rpc_status()
    assert ErrorDetails.from_status(grpc.StatusCode.FAILED_PRECONDITION, free).usage is None
