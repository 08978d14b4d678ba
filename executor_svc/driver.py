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

import grpc
import structlog
from google.protobuf import struct_pb2

from agentrt.config import Settings
from agentrt.core import refs
from agentrt.core.errors import ErrorDetails
from agentrt.core.plans import execution_order
from agentrt.core.principals import LOCAL_NAME
from agentrt.core.runstate import TERMINAL, status_name
from agentrt.core.text import clip
from agentrt.core.values import dict_to_struct, struct_to_dict
from agentrt.server.outage import store_outage
from agentrt.server.tracing import run_span, tracer
from agentrt.v1 import (
    agent_pb2,
    planner_service_pb2,
    run_pb2,
    tool_pb2,
    tool_service_pb2,
    tool_service_pb2_grpc,
)
from executor_svc import metrics
from executor_svc import transitions as tr
from executor_svc.active import ActiveRun, Recorder
from executor_svc.agentloop import AgentLoop
from executor_svc.approvals import AwaitingApproval, RunWaits, policy_for, reason_to_ask
from executor_svc.hub import EventHub
from executor_svc.leases import LeaseLost
from executor_svc.planning import Planning, RunFailure
from executor_svc.retry import StepPolicy, resolve_policy
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

    def _save(self, run: run_pb2.Run, *payloads: tr.Payload) -> asyncio.Future[None]:
        return self._recorder.save(self._active, run, *payloads)

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
            await self._save(run, *tr.wait(run))
            log.info("run.waiting", steps=[st.step_id for st in tr.awaiting(run)])
        except RunFailure as failure:
            await self._save(run, *tr.end(run, S.RUN_STATUS_FAILED, failure.error))
            log.info("run.failed", reason=failure.error.reason, error=failure.error.message)
        except asyncio.CancelledError:
            if not self._active.cancel_requested:
                raise  # shutdown or lease lost: handled by the caller
            await self._save(run, *tr.end(run, S.RUN_STATUS_CANCELLED, tr.cancelled_error()))
            log.info("run.cancelled")
        except LeaseLost:
            raise
        except Exception as exc:
            if store_outage(exc):
                raise  # recording the failure would fail too: handled by the caller
            log.exception("run.crashed")
            error = run_pb2.RunError(code="INTERNAL", reason="INTERNAL", message=f"executor error: {exc!r}")
            await self._save(run, *tr.end(run, S.RUN_STATUS_FAILED, error))

    def _deadline_ns(self, run: run_pb2.Run) -> int:
        if run.HasField("deadline"):
            return run.deadline.ToNanoseconds()
        return run.create_time.ToNanoseconds() + round(self._settings.run_timeout_s * 1e9)

    async def _execute(self, run: run_pb2.Run) -> None:
        if run.status == S.RUN_STATUS_WAITING:
            await self._still_waiting(run)
            return
        if run.status == S.RUN_STATUS_PENDING:
            # Planning has no side effects: it need not wait for this save (see Recorder.save).
            self._save(run, *tr.start_planning(run))
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
            await self._save(run, *tr.plan_made(run, made.plan))
        else:
            if payloads := tr.start_running(run):
                await self._save(run, *payloads)
            # A stored plan (resumed, retried) was validated when it was made: only its order.
            self._order = self._order or execution_order(run.plan)
        await self._run_dag(run)
        await self._save(run, *tr.succeed(run, self._answer(run)))
        log.info("run.succeeded")

    async def _still_waiting(self, run: run_pb2.Run) -> None:
        """A waiting run was claimed: its first approval deadline passed (time it out), or the
        replica recording a decision died before it did (wait on, released again)."""
        now_ns = time.time_ns()
        late = [st for st in tr.awaiting(run) if st.approval.deadline.ToNanoseconds() <= now_ns]
        if late:
            await self._save(run, *tr.time_out(run, late[0]))
            log.info("run.approval_timeout", step_id=late[0].step_id)
        else:
            await self._save(run)

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
        await self._save(run, *tr.plan_made(run, made.plan))
        return None

    async def _agent_loop(self, run: run_pb2.Run, rules_failure: RunFailure | None) -> None:
        loop = AgentLoop(
            planning=self._planning,
            save=self._save,
            call_tool=self._call_tool,
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
        await self._save(run, *tr.replace_plan(run, made.plan, failure.message))
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
                        task = asyncio.create_task(self._run_step(run, states[step_id]))
                        running[task] = step_id
                if not running:
                    if held:
                        raise RunWaits  # the rest depends on steps a person must approve
                    raise RuntimeError(f"steps {waiting} can never start: their dependencies did not succeed")
                finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in finished:
                    step_id = running.pop(task)
                    try:
                        task.result()  # a RunFailure propagates; `finally` stops the siblings
                    except AwaitingApproval:
                        held.add(step_id)
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
            answer = refs.resolve(template, self._outputs_of(run, refs.referenced_steps(template)))
        except refs.InvalidReference as exc:
            log.warning("run.answer_unresolved", error=str(exc))
            return ""
        return clip(str(answer), MAX_ANSWER_BYTES)

    def _outputs_of(self, run: run_pb2.Run, step_ids: set[str]) -> dict[str, struct_pb2.Value]:
        """The stored outputs of those of `step_ids` that succeeded (refs.resolve explains a
        missing one, and converts only the part of an output a reference names)."""
        return {
            step.step_id: step.output
            for step in run.steps
            if step.step_id in step_ids and step.status == S.STEP_STATUS_SUCCEEDED
        }

    async def _resolve_arguments(self, run: run_pb2.Run, step: run_pb2.StepState) -> None:
        """Fill the step's arguments from its plan step, references resolved just before it runs
        (the plan keeps the references themselves); a bad reference or an oversized result fails
        the step. Only the outputs a step references are converted, once per run."""
        plan_step = next(s for s in run.plan.steps if s.id == step.step_id)
        error = None
        try:
            arguments = struct_to_dict(plan_step.arguments)
            referenced = refs.referenced_steps(arguments)
            if referenced:
                outputs = self._outputs_of(run, referenced)
                step.arguments.CopyFrom(dict_to_struct(refs.resolve(arguments, outputs)))
            else:
                step.arguments.CopyFrom(plan_step.arguments)
        except refs.InvalidReference as exc:
            error = run_pb2.RunError(
                code="INVALID_ARGUMENT",
                reason="INVALID_REFERENCE",
                message=f"step {step.step_id} ({step.tool}): {exc}",
                step_id=step.step_id,
            )
        if error is None and run.ByteSize() > self._settings.max_run_bytes:
            size = step.arguments.ByteSize()
            what = f"its arguments ({size} bytes, with references resolved)"
            error = tr.too_large(step, what, self._settings.max_run_bytes)
            step.arguments.CopyFrom(plan_step.arguments)  # the failed step is stored, not its bulk
        if error is not None:
            await self._finish_step(step, run, S.STEP_STATUS_FAILED, error=error)
            raise RunFailure(error)

    async def _run_step(self, run: run_pb2.Run, step: run_pb2.StepState) -> None:
        """A plan step: its references resolved, then the call. An approved step keeps the
        arguments the person saw (or edited)."""
        if step.approval.decision != run_pb2.APPROVAL_DECISION_APPROVED:
            await self._resolve_arguments(run, step)
        await self._call_tool(run, step)

    async def _call_tool(self, run: run_pb2.Run, step: run_pb2.StepState) -> None:
        """Call the step's tool with its arguments, retrying as its policy says, and record the
        outcome; RunFailure when it fails for good."""
        structlog.contextvars.bind_contextvars(step_id=step.step_id)
        policy = resolve_policy(self._settings, step.tool, run.retry_policy)
        await self._ask_if_needed(run, step, policy)

        # A revised plan reuses step ids: its calls must not collide with the old plan's records.
        generation = f"/r{run.replan_count}" if run.replan_count else ""
        key = f"{run.run_id}{generation}/{step.step_id}"
        request = tool_service_pb2.InvokeToolRequest(
            tool=step.tool,
            arguments=step.arguments,
            idempotency_key=key,
            # Who the call is for: tools keep state per principal (the todo list is the owner's).
            context=tool_pb2.CallContext(
                principal=run.owner or LOCAL_NAME,
                run_id=run.run_id,
                step_id=step.step_id,
                idempotency_key=key,
            ),
        )
        context = request.context
        if step.status == S.STEP_STATUS_RETRYING:  # resumed mid-backoff: honour what was announced
            await asyncio.sleep(max(0.0, (step.next_attempt_time.ToNanoseconds() - time.time_ns()) / 1e9))
        while True:
            # The tool is called while this save commits (see Recorder.save): should the
            # executor die before it does, the step is re-run with the same idempotency key, and
            # tools_svc answers with the recorded output instead of running a non-idempotent
            # tool again.
            self._save(run, tr.start_attempt(step))
            context.attempt = step.attempts
            attributes = {
                "agentrt.step_id": step.step_id,
                "agentrt.tool": step.tool,
                "agentrt.attempt": step.attempts,
            }
            try:
                with tracer().start_as_current_span(f"step {step.step_id}", attributes=attributes):
                    response = await self._tools.InvokeTool(request, timeout=policy.timeout_s)
            except grpc.aio.AioRpcError as err:
                details = ErrorDetails.from_rpc_error(err)
                will_retry = policy.retries(details, step.attempts)
                error = tr.step_error(step, details, policy, will_retry)
                if not will_retry:
                    await self._finish_step(step, run, S.STEP_STATUS_FAILED, error=error)
                    raise RunFailure(error) from None
                delay = policy.delay(details, step.attempts)
                await self._save(run, tr.retry_later(step, error, delay))
                metrics.STEP_RETRIES.labels(step.tool, details.code.name).inc()
                log.warning(
                    "step.retry", attempt=step.attempts, code=details.code.name, delay_s=round(delay, 3)
                )
                await asyncio.sleep(delay)
                continue
            if run.ByteSize() + 2 * response.output.ByteSize() > self._settings.max_run_bytes:
                # Twice: the last step's output is stored again as the run's result.
                what = f"its output ({response.output.ByteSize()} bytes)"
                error = tr.too_large(step, what, self._settings.max_run_bytes)
                await self._finish_step(step, run, S.STEP_STATUS_FAILED, error=error)
                raise RunFailure(error)
            await self._finish_step(step, run, S.STEP_STATUS_SUCCEEDED, output=response.output)
            return

    async def _ask_if_needed(self, run: run_pb2.Run, step: run_pb2.StepState, policy: StepPolicy) -> None:
        """Raise AwaitingApproval (recording the wait) when a person must approve the call first.
        The tool's annotations come from the catalog, waited for as the call would be."""
        if step.status == S.STEP_STATUS_AWAITING_APPROVAL:
            raise AwaitingApproval(step.step_id)
        approval = policy_for(self._settings, run, step)
        if approval is None:
            return
        try:
            catalog = await self._planning.tools(policy)
        except grpc.aio.AioRpcError as err:
            error = tr.step_error(step, ErrorDetails.from_rpc_error(err), policy, False)
            await self._finish_step(step, run, S.STEP_STATUS_FAILED, error=error)
            raise RunFailure(error) from None
        why = reason_to_ask(approval, step, catalog)
        if why is None:
            return
        timeout_s = (
            run.approval_timeout.ToNanoseconds() / 1e9
            if run.HasField("approval_timeout")
            else self._settings.approval_timeout_s
        )
        await self._save(run, tr.await_approval(step, why, timeout_s))
        log.info("step.awaiting_approval", reason=why)
        raise AwaitingApproval(step.step_id)

    async def _finish_step(
        self,
        step: run_pb2.StepState,
        run: run_pb2.Run,
        status: int,
        *,
        error: run_pb2.RunError | None = None,
        output: object | None = None,
    ) -> None:
        payload = tr.finish_step(step, status, error=error, output=output)
        elapsed = (step.end_time.ToNanoseconds() - step.start_time.ToNanoseconds()) / 1e9
        metrics.STEP_DURATION.labels(step.tool, run_pb2.StepStatus.Name(status)).observe(elapsed)
        await self._save(run, payload)
