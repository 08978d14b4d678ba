"""One run's life, from where it is stored to where it stops: the top of the run kernel.

The driver picks the run's work by its mode (a plan's DAG: planrun.py; the agent loop:
agentloop.py; auto: a rule plan if the rules understand the prompt, else the agent), bounds it
by the run's deadline, and records how it ended. Everything ends as a value (outcomes.py); the
one exception is a stop (`asyncio.CancelledError`), whose meaning `stopped_by` gives: CancelRun
(record CANCELLED), a lost lease (another replica resumes from our last save) or shutdown
(leave the run as stored). The transitions themselves are transitions.py's (machine.py's
table); saves go through the Recorder (recorder.py says which are awaited).
"""

from __future__ import annotations

import asyncio
import time

import structlog

from agentrt.core.runstate import TERMINAL, status_name
from agentrt.server.metrics import series
from agentrt.server.outage import outage_line, store_outage
from agentrt.server.tracing import run_span
from agentrt.v1 import agent_pb2, run_pb2
from executor_svc import metrics
from executor_svc.leases import LeaseLost
from executor_svc.run import failures
from executor_svc.run import transitions as tr
from executor_svc.run.agentloop import AgentLoop
from executor_svc.run.context import Kernel
from executor_svc.run.outcomes import Ended, Failed, NotUnderstood, RunOutcome, Stop, Waiting, stopped_by
from executor_svc.run.planning import MadePlan, Progress
from executor_svc.run.planrun import PlanRun
from executor_svc.run.recorder import ActiveRun
from executor_svc.run.steps import StepRunner

log = structlog.get_logger("executor_svc.driver")
S = run_pb2


class RunDriver:
    def __init__(self, active: ActiveRun, run: run_pb2.Run | None, kernel: Kernel) -> None:
        self._active = active
        self._run = run  # None: read it from the store first
        self._kernel = kernel
        self._planning = kernel.planning
        self._settings = kernel.settings
        self._steps = StepRunner(
            commit=self._commit,
            pipeline=self._pipeline,
            planning=kernel.planning,
            tools=kernel.tools,
            settings=kernel.settings,
            publish=lambda event: kernel.hub.publish_transient(active.run_id, event),
        )
        # How waiting for the planner shows on the run: stored retries, transient heartbeats.
        self._progress = Progress(
            self._commit, lambda event: kernel.hub.publish_transient(active.run_id, event)
        )

    async def _commit(self, run: run_pb2.Run, *payloads: tr.Payload) -> None:
        await self._kernel.recorder.commit(self._active, run, *payloads)

    def _pipeline(self, run: run_pb2.Run, *payloads: tr.Payload) -> None:
        self._kernel.recorder.pipeline(self._active, run, *payloads)

    async def drive(self) -> None:
        run_id = self._active.run_id
        structlog.contextvars.bind_contextvars(run_id=run_id)
        try:
            run = self._run if self._run is not None else await self._kernel.store.get_run(run_id)
            if run is None or run.status in TERMINAL:
                return
            # The run's spans belong to the trace of the call that created it (Run.trace_id),
            # whichever replica drives it and however often it is resumed.
            with run_span(run_id, run.trace_id, created=self._run is not None):
                metrics.RUNS_ACTIVE.inc()
                try:
                    await self._record(run, await self._outcome(run))
                    if run.thread_id:
                        self._kernel.turn_ended()  # the thread's next turn may start now
                finally:
                    metrics.RUNS_ACTIVE.dec()
                    if run.status in TERMINAL:
                        series(metrics.RUNS, status_name(run.status)).inc()
        except asyncio.CancelledError:
            # Outside the work (reading the run, recording its end) only a lost lease is ours
            # to handle; shutdown (or a CancelRun too late to record) leaves the run as stored.
            if not self._active.lost:
                raise
            self._handed_over(run_id)
        except LeaseLost:  # a save was fenced out: another replica took the run
            self._handed_over(run_id)
        except Exception as exc:
            if not store_outage(exc):
                raise
            # The store is down: stop here. Our lease lapses unrenewed, and whichever replica
            # reaches the database first (this one included) resumes the run from its last save.
            log.warning("run.store_unavailable", error=outage_line(exc))

    def _handed_over(self, run_id: str) -> None:
        self._kernel.lose(run_id)
        log.info("run.handed_over")

    async def _outcome(self, run: run_pb2.Run) -> RunOutcome | Stop:
        """How the run's work ended: a value, CANCELLED for CancelRun; other stops raise."""
        try:
            return await self._within_deadline(run)
        except asyncio.CancelledError:
            if stopped_by(self._active) is not Stop.CANCELLED:
                raise
            return Stop.CANCELLED
        except LeaseLost:
            raise
        except Exception as exc:
            if store_outage(exc):
                raise  # recording the failure would fail too: drive() handles it
            log.exception("run.crashed")
            return Failed(failures.internal(exc))

    async def _record(self, run: run_pb2.Run, outcome: RunOutcome | Stop) -> None:
        if run.status in TERMINAL:
            # The work's last save ended the run (a success, an answer, an approval timeout) and
            # the stop or deadline came while it committed: the run has ended as saved.
            log.info("run.ended_before_stop", status=status_name(run.status))
            return
        if isinstance(outcome, Waiting):
            # Released with this save (groupcommit.py): no task, lease or slot while it waits.
            await self._commit(run, *tr.wait(run))
            log.info("run.waiting", steps=[st.step_id for st in tr.awaiting(run)])
        elif isinstance(outcome, Failed):
            await self._commit(run, *tr.end(run, S.RUN_STATUS_FAILED, outcome.error))
            log.info("run.failed", reason=outcome.error.reason, error=outcome.error.message)
        elif outcome is Stop.CANCELLED:
            await self._commit(run, *tr.end(run, S.RUN_STATUS_CANCELLED, failures.cancelled()))
            log.info("run.cancelled")

    async def _within_deadline(self, run: run_pb2.Run) -> RunOutcome:
        if run.status == S.RUN_STATUS_QUEUED:  # a thread's turn whose time came (threads.py)
            await self._commit(run, *tr.dequeue(run))
        deadline_ns = tr.deadline_ns(run, self._settings.run_timeout_s)
        deadline: asyncio.Timeout | None = None
        try:
            async with asyncio.timeout(max(0.0, deadline_ns / 1e9 - time.time())) as deadline:
                return await self._work(run)
        except TimeoutError:
            if deadline is None or not deadline.expired():
                raise
            return Failed(failures.deadline(run, (deadline_ns - run.create_time.ToNanoseconds()) / 1e9))

    async def _work(self, run: run_pb2.Run) -> RunOutcome:
        """The run's work by its mode, from wherever it was stored."""
        if run.status == S.RUN_STATUS_WAITING:
            return await self._still_waiting(run)
        if run.status == S.RUN_STATUS_PENDING:
            self._pipeline(run, *tr.start_planning(run))  # see Recorder.pipeline
        made: MadePlan | None = None
        if run.mode == agent_pb2.RUN_MODE_AUTO and not run.HasField("plan") and not run.turns:
            # Auto: a rule plan if the rules understand the whole prompt, else the agent tries.
            rules = await self._planning.plan(run, rules_only=True, progress=self._progress)
            if isinstance(rules, Failed):
                if not isinstance(rules, NotUnderstood):
                    return rules  # the planner is down, or its plan is invalid: say so
                agent = await self._agent(run)
                # No LLM configured: the rules' clear "not understood" is the answer.
                unavailable = isinstance(agent, Failed) and agent.error.reason == "AGENT_UNAVAILABLE"
                return rules if unavailable else agent
            made = rules
            await self._commit(run, *tr.plan_made(run, made.plan))
        elif run.mode == agent_pb2.RUN_MODE_AGENT or run.turns:
            return await self._agent(run)
        plan = PlanRun(
            planning=self._planning,
            steps=self._steps,
            commit=self._commit,
            settings=self._settings,
            made=made,
            progress=self._progress,
        )
        return await plan.run(run)

    async def _still_waiting(self, run: run_pb2.Run) -> RunOutcome:
        """A waiting run was claimed: its first approval deadline passed (time it out), or the
        replica recording a decision died before it did (wait on, released again)."""
        now_ns = time.time_ns()
        late = [st for st in tr.awaiting(run) if st.approval.deadline.ToNanoseconds() <= now_ns]
        if not late:
            return Waiting()
        await self._commit(run, *tr.time_out(run, late[0]))
        log.info("run.approval_timeout", step_id=late[0].step_id)
        return Ended()

    async def _agent(self, run: run_pb2.Run) -> RunOutcome:
        loop = AgentLoop(
            planning=self._planning,
            commit=self._commit,
            call_tool=self._steps.call,
            hub=self._kernel.hub,
            settings=self._settings,
            progress=self._progress,
        )
        return await loop.run(run)
