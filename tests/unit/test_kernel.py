"""The run kernel's decisions that no integration test reaches on purpose: a run resumed with a
step that failed for good, a stop that arrives while the run's last save commits, and what a
cancelled driver's flags mean."""

from __future__ import annotations

from typing import Any

from agentrt.config import ExecutorSettings
from agentrt.v1 import plan_pb2, run_pb2
from executor_svc.leases import Lease
from executor_svc.run import transitions as tr
from executor_svc.run.context import Kernel
from executor_svc.run.driver import RunDriver
from executor_svc.run.outcomes import Failed, Stop, Waiting, stopped_by
from executor_svc.run.planrun import PlanRun
from executor_svc.run.recorder import ActiveRun

S = run_pb2


def planned(*ids: str) -> run_pb2.Run:
    run, _ = tr.new_run("p", 5, "", None, 60)
    tr.start_planning(run)
    tr.plan_made(run, plan_pb2.Plan(steps=[plan_pb2.PlanStep(id=i, tool="echo") for i in ids]))
    return run


class Untouchable:
    """A collaborator the code under test must not call."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"unexpected call: {name}")


class Commits:
    def __init__(self) -> None:
        self.saved: list[tuple[int, int]] = []

    async def commit(self, active: ActiveRun, run: run_pb2.Run, *payloads: object) -> None:
        self.saved.append((run.status, len(payloads)))


async def test_a_run_resumed_after_a_step_failed_for_good_fails_with_that_step_not_internal() -> None:
    """The step was saved FAILED and the executor stopped before the run's end was saved: on
    resume the run fails (or is replanned) with the step's error; the step is not run again."""
    run = planned("s1", "s2")
    error = run_pb2.RunError(code="INVALID_ARGUMENT", reason="TOOL_ERROR", message="no", step_id="s1")
    tr.start_attempt(run.steps[0])
    tr.finish_step(run.steps[0], S.STEP_STATUS_FAILED, error=error)
    saved = Commits()

    async def commit(r: run_pb2.Run, *payloads: object) -> None:
        await saved.commit(None, r, *payloads)  # type: ignore[arg-type]

    settings = ExecutorSettings(replan_max=0)
    plan = PlanRun(planning=Untouchable(), steps=Untouchable(), commit=commit, settings=settings)  # type: ignore[arg-type]
    outcome = await plan.run(run)
    assert outcome == Failed(error)
    assert [s.status for s in run.steps] == [S.STEP_STATUS_FAILED, S.STEP_STATUS_PENDING]


async def test_a_stop_during_the_save_that_ended_the_run_leaves_the_run_as_saved() -> None:
    """CancelRun (or the deadline) while the success was committing: nothing more is saved, and
    no IllegalTransition escapes the driver."""
    run = planned("s1")
    tr.start_attempt(run.steps[0])
    tr.finish_step(run.steps[0], S.STEP_STATUS_SUCCEEDED, output=None)
    tr.succeed(run)
    commits = Commits()
    kernel = Kernel(
        store=Untouchable(),  # type: ignore[arg-type]
        recorder=commits,  # type: ignore[arg-type]
        planning=Untouchable(),  # type: ignore[arg-type]
        tools=Untouchable(),  # type: ignore[arg-type]
        hub=Untouchable(),  # type: ignore[arg-type]
        settings=ExecutorSettings(),
        lose=lambda run_id: None,
        turn_ended=lambda: None,
    )
    driver = RunDriver(ActiveRun(run.run_id, Lease("me", 1)), run, kernel)
    for outcome in (Stop.CANCELLED, Failed(run_pb2.RunError(reason="RUN_DEADLINE_EXCEEDED")), Waiting()):
        await driver._record(run, outcome)
    assert commits.saved == [] and run.status == S.RUN_STATUS_SUCCEEDED


def test_cancel_run_is_recorded_even_when_the_lease_lapsed_meanwhile() -> None:
    active = ActiveRun("r", Lease("me", 1))
    assert stopped_by(active) is Stop.SHUTDOWN
    active.lost = True
    assert stopped_by(active) is Stop.HANDED_OVER
    # CancelRun first: its save goes through if nobody took the lease, else it is fenced out
    # (LeaseLost) and the run is handed over.
    active.cancel_requested = True
    assert stopped_by(active) is Stop.CANCELLED
