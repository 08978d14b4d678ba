"""A run in plan mode: its plan's steps as a DAG, revised plans, and the answer.

Steps form a DAG: a step starts as soon as its dependencies succeeded, up to
`max_parallel_steps` at once. The first step that fails for good (steps.py says when that is)
stops the others in flight; the run then gets a revised plan if replanning is on
(`AGENTRT_REPLAN_MAX`) and the planner makes one, else it fails with that step's error. A run
resumed from its stored state keeps its succeeded steps; a step that was in flight is called
again under the same idempotency key (`run_id/step_id`), so tools_svc returns its recorded
result instead of repeating the effect.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable

import structlog

from agentrt.config import ExecutorSettings
from agentrt.core import refs
from agentrt.core.plans import execution_order
from agentrt.core.text import clip
from agentrt.server.incontext import InContext
from agentrt.v1 import planner_service_pb2, run_pb2
from executor_svc import metrics
from executor_svc.run import transitions as tr
from executor_svc.run.outcomes import Ended, Failed, RunOutcome, Succeeded, Waiting
from executor_svc.run.planning import MadePlan, Planning, Progress
from executor_svc.run.steps import StepRunner, outputs_of

log = structlog.get_logger("executor_svc.planrun")
# A run's answer is a sentence or a few: bounded whatever the outputs it quotes.
MAX_ANSWER_BYTES = 4096
S = run_pb2


class PlanRun:
    def __init__(
        self,
        *,
        planning: Planning,
        steps: StepRunner,
        commit: Callable[..., Awaitable[None]],
        settings: ExecutorSettings,
        made: MadePlan | None = None,
        progress: Progress | None = None,
    ) -> None:
        self._planning = planning
        self._progress = progress  # the planner's retries and heartbeats, shown on the run
        self._steps = steps
        self._commit = commit
        self._settings = settings
        self._order = made.order if made is not None else []  # step ids, dependencies first

    async def run(self, run: run_pb2.Run) -> RunOutcome:
        """Plan (unless the run has a plan), run the steps, replan on a failure; Ended once the
        success and the answer are recorded."""
        if not run.HasField("plan"):
            made = await self._planning.plan(run, progress=self._progress)
            if isinstance(made, Failed):
                return made
            self._order = made.order
            # The plan and the status it puts the run in: one transaction.
            await self._commit(run, *tr.plan_made(run, made.plan))
        else:
            if payloads := tr.start_running(run):
                await self._commit(run, *payloads)
            # A stored plan (resumed, retried) was validated when it was made: only its order.
            self._order = self._order or execution_order(run.plan)
        while True:
            outcome = await self._run_dag(run)
            if isinstance(outcome, Failed) and await self._replan(run, outcome.error):
                continue
            if not isinstance(outcome, Succeeded):
                return outcome
            await self._commit(run, *tr.succeed(run, self._answer(run)))
            log.info("run.succeeded")
            return Ended()

    async def _replan(self, run: run_pb2.Run, failure: run_pb2.RunError) -> bool:
        """After a step failed for good: install a revised plan if replanning is on and the
        planner produces one. False (the run fails as it was going to) otherwise."""
        if not failure.step_id or run.replan_count >= self._settings.replan_max or run.turns:
            return False
        context = planner_service_pb2.Replan(previous_plan=run.plan, steps=run.steps, failure=failure)
        made = await self._planning.plan(run, context, progress=self._progress)
        if isinstance(made, Failed):
            log.info("run.replan_failed", error=made.error.message)
            return False
        metrics.REPLANS.inc()
        self._order = made.order
        await self._commit(run, *tr.replace_plan(run, made.plan, failure.message))
        log.info("run.replanned", replan_count=run.replan_count, steps=len(made.plan.steps))
        return True

    async def _run_dag(self, run: run_pb2.Run) -> Succeeded | Failed | Waiting:
        """Start each step once its dependencies succeeded, at most max_parallel_steps at a time.
        The first step failure stops the others still in flight."""
        states = {s.step_id: s for s in run.steps}
        if failed := [s for s in run.steps if s.status == S.STEP_STATUS_FAILED]:
            # Resumed after the step failed for good and before the run's end was saved (a
            # shutdown, a lost lease, or during the replan): replan or fail as it would have.
            return Failed(failed[0].error)
        running: dict[asyncio.Task[object], str] = {}
        held = {i for i, s in states.items() if s.status == S.STEP_STATUS_AWAITING_APPROVAL}
        try:
            while True:
                done = {i for i, s in states.items() if s.status == S.STEP_STATUS_SUCCEEDED}
                ready = [i for i in self._order if i not in done | held and i not in running.values()]
                if not ready and not running:
                    return Waiting() if held else Succeeded()
                startable = [i for i in ready if all(dep in done for dep in states[i].depends_on)]
                if not running and len(startable) == 1:
                    # One step can run and none is running (a chain's every step): awaited here,
                    # in a context of its own as a task would give it, without the task.
                    step_id = startable[0]
                    step = self._steps.plan_step(run, states[step_id])
                    outcome = await InContext(step, contextvars.copy_context())
                    if isinstance(outcome, Waiting):
                        held.add(step_id)
                    elif isinstance(outcome, Failed):
                        return outcome
                    continue
                for step_id in startable:
                    if len(running) >= self._settings.max_parallel_steps:
                        break
                    task = asyncio.create_task(self._steps.plan_step(run, states[step_id]))
                    running[task] = step_id
                if not running:
                    if held:
                        return Waiting()  # the rest depends on steps a person must approve
                    raise RuntimeError(f"steps {ready} can never start: their dependencies did not succeed")
                finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in finished:
                    step_id = running.pop(task)
                    outcome = task.result()
                    if isinstance(outcome, Waiting):
                        held.add(step_id)
                    elif isinstance(outcome, Failed):
                        return outcome  # `finally` stops the siblings
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)

    def _answer(self, run: run_pb2.Run) -> str:
        """The plan's answer template with the step outputs it names filled in; no answer
        (rather than a failed run) if a reference does not resolve."""
        template = run.plan.answer_template
        if not template:
            return ""
        try:
            answer = refs.resolve(template, outputs_of(run, refs.referenced_steps(template)))
        except refs.InvalidReference as exc:
            log.warning("run.answer_unresolved", error=str(exc))
            return ""
        return clip(str(answer), MAX_ANSWER_BYTES)
