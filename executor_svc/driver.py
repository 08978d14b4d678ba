"""One run's life, from pending to a terminal status: plan, run the steps, end.

Steps form a DAG: a step starts as soon as its dependencies succeeded, up to
`max_parallel_steps` at once. Failed attempts are retried with full-jitter backoff when the
failure is retryable, and every attempt is visible as a step event. A step that fails for good
may get a revised plan (`AGENTRT_REPLAN_MAX`). A run resumed from its stored state (a restart, a
takeover) keeps its succeeded steps, and a step that was in flight is re-invoked with the same
idempotency key (`run_id/step_id`), so tools_svc returns its recorded result instead of repeating
the effect.

A run in agent mode is driven by agentloop.py instead of a plan, with the same step calls;
an auto run becomes one or the other here (a rule plan if the rules understand the prompt).

The changes themselves are transitions.py's; this module decides when they happen and saves
them through the engine's Recorder.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import structlog

from agentrt.config import Settings
from agentrt.core import refs
from agentrt.core.plans import execution_order
from agentrt.core.runstate import TERMINAL, status_name
from agentrt.core.text import clip
from agentrt.server.outage import store_outage
from agentrt.server.tracing import run_span
from agentrt.v1 import (
    agent_pb2,
    planner_service_pb2,
    run_pb2,
    tool_service_pb2_grpc,
)
from executor_svc import metrics
from executor_svc import transitions as tr
from executor_svc.active import ActiveRun, Recorder
from executor_svc.agentloop import AgentLoop
from executor_svc.approvals import RunWaits
from executor_svc.hub import EventHub
from executor_svc.leases import LeaseLost
from executor_svc.planning import Planning, RunFailure
from executor_svc.steps import Failed, StepRunner, Waiting, outputs_of
from executor_svc.store import RunStore

log = structlog.get_logger("executor_svc.driver")
# A run's answer is a sentence or a few: bounded whatever the outputs it quotes.
MAX_ANSWER_BYTES = 4096
S = run_pb2


class RunDriver:
    def __init__(
        self,
        active: ActiveRun,
        run: run_pb2.Run | None,
        *,
        store: RunStore,
        recorder: Recorder,
        planning: Planning,
        tools: tool_service_pb2_grpc.ToolServiceStub,
        settings: Settings,
        lose: Callable[[str], None],
        hub: EventHub,
    ) -> None:
        self._active = active
        self._hub = hub
        self._run = run  # None: read it from the store first
        self._store = store
        self._recorder = recorder
        self._planning = planning
        self._tools = tools
        self._settings = settings
        self._lose = lose
        self._order: list[str] = []
        self._steps = StepRunner(
            commit=self._commit, pipeline=self._pipeline, planning=planning, tools=tools, settings=settings
        )

    async def _commit(self, run: run_pb2.Run, *payloads: tr.Payload) -> None:
        await self._recorder.commit(self._active, run, *payloads)

    def _pipeline(self, run: run_pb2.Run, *payloads: tr.Payload) -> None:
        self._recorder.pipeline(self._active, run, *payloads)

    async def drive(self) -> None:
        await self._drive(self._active.run_id)

    async def _drive(self, run_id: str) -> None:
        structlog.contextvars.bind_contextvars(run_id=run_id)
        run = self._run
        try:
            if run is None:
                run = await self._store.get_run(run_id)
            if run is None or run.status in TERMINAL:
                return
            # The run's spans belong to the trace of the call that created it (Run.trace_id),
            # whichever replica drives it and however often it is resumed.
            with run_span(run_id, run.trace_id, created=self._run is not None):
                metrics.RUNS_ACTIVE.inc()
                try:
                    await self._drive_to_end(run)
                finally:
                    metrics.RUNS_ACTIVE.dec()
                    if run.status in TERMINAL:
                        metrics.RUNS.labels(status_name(run.status)).inc()
        except (LeaseLost, asyncio.CancelledError) as exc:
            if not self._active.lost and not isinstance(exc, LeaseLost):
                raise  # executor shutdown: leave the run as stored, it resumes elsewhere or on restart
            # Another replica drives the run now; it resumes from the last state we saved.
            self._lose(run_id)
            log.info("run.handed_over")
        except Exception as exc:
            if not store_outage(exc):
                raise
            # The store is down: stop here. Our lease lapses unrenewed, and whichever replica
            # reaches the database first (this one included) resumes the run from its last save.
            log.warning("run.store_unavailable", error=str(exc).splitlines()[0])

    async def _drive_to_end(self, run: run_pb2.Run) -> None:
        deadline: asyncio.Timeout | None = None
        try:
            try:
                remaining = max(0.0, self._deadline_ns(run) / 1e9 - time.time())
                async with asyncio.timeout(remaining) as deadline:
                    while True:
                        try:
                            await self._execute(run)
                            break
                        except RunFailure as failure:
                            if not await self._replan(run, failure.error):
                                raise
            except TimeoutError:
                if deadline is None or not deadline.expired():
                    raise
                timeout_s = (self._deadline_ns(run) - run.create_time.ToNanoseconds()) / 1e9
                raise RunFailure(tr.deadline_error(run, timeout_s)) from None
        except RunWaits:
            # Released with this save (groupcommit.py): no task, lease or slot while it waits.
            await self._commit(run, *tr.wait(run))
            log.info("run.waiting", steps=[st.step_id for st in tr.awaiting(run)])
        except RunFailure as failure:
            await self._commit(run, *tr.end(run, S.RUN_STATUS_FAILED, failure.error))
            log.info("run.failed", reason=failure.error.reason, error=failure.error.message)
        except asyncio.CancelledError:
            if not self._active.cancel_requested:
                raise  # shutdown or lease lost: handled by the caller
            await self._commit(run, *tr.end(run, S.RUN_STATUS_CANCELLED, tr.cancelled_error()))
            log.info("run.cancelled")
        except LeaseLost:
            raise
        except Exception as exc:
            if store_outage(exc):
                raise  # recording the failure would fail too: handled by the caller
            log.exception("run.crashed")
            error = run_pb2.RunError(code="INTERNAL", reason="INTERNAL", message=f"executor error: {exc!r}")
            await self._commit(run, *tr.end(run, S.RUN_STATUS_FAILED, error))

    def _deadline_ns(self, run: run_pb2.Run) -> int:
        if run.HasField("deadline"):
            return run.deadline.ToNanoseconds()
        return run.create_time.ToNanoseconds() + round(self._settings.run_timeout_s * 1e9)

    async def _execute(self, run: run_pb2.Run) -> None:
        if run.status == S.RUN_STATUS_WAITING:
            await self._still_waiting(run)
            return
        if run.status == S.RUN_STATUS_PENDING:
            self._pipeline(run, *tr.start_planning(run))  # see Recorder.pipeline
        if run.mode == agent_pb2.RUN_MODE_AUTO and not run.HasField("plan") and not run.turns:
            rules_failure = await self._rule_plan(run)
            if rules_failure is not None:
                await self._agent_loop(run, rules_failure)
                return
        elif run.mode == agent_pb2.RUN_MODE_AGENT or run.turns:
            await self._agent_loop(run, None)
            return
        if not run.HasField("plan"):
            made = await self._planning.plan(run)
            self._order = made.order
            # The plan and the status it puts the run in: one transaction.
            await self._commit(run, *tr.plan_made(run, made.plan))
        else:
            if payloads := tr.start_running(run):
                await self._commit(run, *payloads)
            # A stored plan (resumed, retried) was validated when it was made: only its order.
            self._order = self._order or execution_order(run.plan)
        await self._run_dag(run)
        await self._commit(run, *tr.succeed(run, self._answer(run)))
        log.info("run.succeeded")

    async def _still_waiting(self, run: run_pb2.Run) -> None:
        """A waiting run was claimed: its first approval deadline passed (time it out), or the
        replica recording a decision died before it did (wait on, released again)."""
        now_ns = time.time_ns()
        late = [st for st in tr.awaiting(run) if st.approval.deadline.ToNanoseconds() <= now_ns]
        if late:
            await self._commit(run, *tr.time_out(run, late[0]))
            log.info("run.approval_timeout", step_id=late[0].step_id)
        else:
            await self._commit(run)

    async def _rule_plan(self, run: run_pb2.Run) -> RunFailure | None:
        """Auto mode: install a rule plan if the rule planner understands the whole prompt;
        else return its failure (the agent loop takes over, or the run fails with it)."""
        try:
            made = await self._planning.plan(run, rules_only=True)
        except RunFailure as failure:
            if failure.error.code != "INVALID_ARGUMENT":
                raise  # not "not understood": the planner is down, say so
            return failure
        self._order = made.order
        await self._commit(run, *tr.plan_made(run, made.plan))
        return None

    async def _agent_loop(self, run: run_pb2.Run, rules_failure: RunFailure | None) -> None:
        loop = AgentLoop(
            planning=self._planning,
            commit=self._commit,
            call_tool=self._steps.call,
            publish_text=self._publish_text,
            settings=self._settings,
        )
        try:
            await loop.run(run)
        except RunFailure as failure:
            if rules_failure is not None and failure.error.reason == "AGENT_UNAVAILABLE":
                # Auto mode without an LLM: today's clear "not understood" from the rules.
                raise rules_failure from None
            raise

    def _publish_text(self, run: run_pb2.Run, turn: int, text: str) -> None:
        event = run_pb2.RunEvent(
            run_id=run.run_id,
            seq=run.last_seq,
            time=tr.now(),
            transient=True,
            text_delta=run_pb2.TextDelta(turn=turn, text=text),
        )
        self._hub.publish_transient(run.run_id, event)

    async def _replan(self, run: run_pb2.Run, failure: run_pb2.RunError) -> bool:
        """After a step failed for good: install a revised plan if replanning is on and the
        planner produces one. Returns False (the run fails as it was going to) otherwise."""
        if not failure.step_id or run.replan_count >= self._settings.replan_max or run.turns:
            return False
        context = planner_service_pb2.Replan(previous_plan=run.plan, steps=run.steps, failure=failure)
        try:
            made = await self._planning.plan(run, context)
        except RunFailure as exc:
            log.info("run.replan_failed", error=exc.error.message)
            return False
        metrics.REPLANS.inc()
        self._order = made.order
        await self._commit(run, *tr.replace_plan(run, made.plan, failure.message))
        log.info("run.replanned", replan_count=run.replan_count, steps=len(made.plan.steps))
        return True

    async def _run_dag(self, run: run_pb2.Run) -> None:
        """Start each step once its dependencies succeeded, at most max_parallel_steps at a time.
        The first step failure cancels the others still in flight and fails the run."""
        states = {s.step_id: s for s in run.steps}
        running: dict[asyncio.Task[None], str] = {}
        held = {i for i, s in states.items() if s.status == S.STEP_STATUS_AWAITING_APPROVAL}
        try:
            while True:
                done = {i for i, s in states.items() if s.status == S.STEP_STATUS_SUCCEEDED}
                waiting = [i for i in self._order if i not in done | held and i not in running.values()]
                if not waiting and not running:
                    if held:
                        raise RunWaits
                    return
                for step_id in waiting:
                    if len(running) >= self._settings.max_parallel_steps:
                        break
                    if all(dep in done for dep in states[step_id].depends_on):
                        task = asyncio.create_task(self._steps.plan_step(run, states[step_id]))
                        running[task] = step_id
                if not running:
                    if held:
                        raise RunWaits  # the rest depends on steps a person must approve
                    raise RuntimeError(f"steps {waiting} can never start: their dependencies did not succeed")
                finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in finished:
                    step_id = running.pop(task)
                    outcome = task.result()
                    if isinstance(outcome, Waiting):
                        held.add(step_id)
                    elif isinstance(outcome, Failed):
                        raise RunFailure(outcome.error)  # `finally` stops the siblings
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
