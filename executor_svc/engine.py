"""The run engine: RunService's writes: create (one-shot, or a thread's turn: threads.py),
cancel, retry, approve or reject a step, delete a thread.

A run it creates, takes over or resumes is driven by the run kernel (executor_svc/run/) under the
registry of the runs this replica drives (registry.py); a write to a run another replica drives
first takes its lease (fencing that driver out), then saves through the Recorder.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref

import grpc
import sqlalchemy.exc
import structlog
from google.protobuf import struct_pb2

from agentrt.config import ExecutorSettings
from agentrt.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    Unavailable,
)
from agentrt.core.plans import InvalidPlan, validate_arguments
from agentrt.core.principals import LOCAL_NAME
from agentrt.core.runstate import ONGOING, TERMINAL, status_name, step_status_name
from agentrt.server.tracing import current_trace_id
from agentrt.v1 import (
    agent_pb2,
    plan_pb2,
    planner_service_pb2,
    planner_service_pb2_grpc,
    run_pb2,
    tool_pb2,
    tool_service_pb2,
    tool_service_pb2_grpc,
)
from executor_svc.hub import EventHub
from executor_svc.leases import Lease, LeaseLost
from executor_svc.registry import ActiveRuns
from executor_svc.run import failures
from executor_svc.run import transitions as tr
from executor_svc.run.planning import Planning
from executor_svc.run.recorder import ActiveRun, Recorder
from executor_svc.store import RunStore
from executor_svc.threads import ThreadStore
from executor_svc.toolcatalog import ToolCatalog

log = structlog.get_logger("executor_svc.engine")
S = run_pb2
CANCEL_ELSEWHERE_S = 10.0  # how long a CancelRun waits for tools_svc to cancel remote work


class Engine:
    def __init__(
        self,
        store: RunStore,
        hub: EventHub,
        planner: planner_service_pb2_grpc.PlannerServiceStub,
        tools: tool_service_pb2_grpc.ToolServiceStub,
        settings: ExecutorSettings,
        *,
        catalog: ToolCatalog,
        threads: ThreadStore,
    ) -> None:
        self._store = store
        self._hub = hub
        self._tools = tools
        self._settings = settings
        self._threads = threads
        self._catalog = catalog  # the held catalog, with each tool's schema compiled on arrival
        self._planning = Planning(planner, catalog, settings, self._history)
        self._recorder = Recorder(store.commits, hub)
        self._active = ActiveRuns(
            store, hub=hub, planning=self._planning, recorder=self._recorder, tools=tools, settings=settings
        )
        # Serializes CancelRun/RetryRun per run; weakly held so idle runs cost nothing.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    # -- the registry's, as the server and the service see them ---------------------------

    async def start(self, owner: str) -> None:
        """Become replica `owner`: take back its runs and any unleased ones, then keep leases."""
        await self._active.start(owner)

    async def close(self) -> None:
        """Stop driving runs without changing their stored state (see ActiveRuns.close)."""
        await self._active.close()

    def claim_soon(self) -> None:
        self._active.claim_soon()

    def on_remote_write(self, run_id: str, writer: str) -> None:
        self._active.on_remote_write(run_id, writer)

    async def _history(self, run: run_pb2.Run) -> list[planner_service_pb2.PriorTurn]:
        """What a thread's turn sees of the earlier ones (run/history.py)."""
        budget = self._settings.thread_context_bytes
        if not budget:
            return []
        return await self._threads.history(run.thread_id, run.thread_turn, budget)

    async def _take_over(self, run_id: str, statuses: frozenset[int]) -> tuple[ActiveRun, run_pb2.Run] | None:
        """Lease a run this replica is not driving and read it afresh: from here on nobody else
        can write it, so what we read is its latest state. None if not in `statuses`."""
        writer = await self._active.take_over(run_id, statuses)
        return None if writer is None else (writer, await self._require(run_id))

    def _lock(self, run_id: str) -> asyncio.Lock:
        lock = self._locks.get(run_id)
        if lock is None:
            lock = self._locks[run_id] = asyncio.Lock()
        return lock

    # -- API -------------------------------------------------------------------------------

    async def create_run(
        self,
        prompt: str,
        max_steps: int,
        idempotency_key: str = "",
        retry_policy: run_pb2.RetryPolicy | None = None,
        timeout_s: float | None = None,
        *,
        mode: int = agent_pb2.RUN_MODE_PLAN,
        budgets: agent_pb2.Budgets | None = None,
        approval_policy: int = run_pb2.APPROVAL_POLICY_UNSPECIFIED,
        approval_timeout_s: float = 0.0,
        owner: str = LOCAL_NAME,
        thread_id: str = "",
        multitask: int = run_pb2.MULTITASK_STRATEGY_UNSPECIFIED,
    ) -> run_pb2.Run:
        """A new run (a turn of `thread_id` if given: threads.py), driven here unless it waits
        behind the thread's unfinished turns; a repeated idempotency key returns the first."""
        trace_id = current_trace_id()  # the CreateRun call's trace (or the caller's): the run's own

        def build(turn: int = 0, queued: bool = False) -> tuple[run_pb2.Run, list[run_pb2.RunEvent]]:
            run, created = tr.new_run(
                prompt,
                max_steps,
                idempotency_key,
                retry_policy,
                timeout_s or self._settings.run_timeout_s,
                mode=mode,
                budgets=budgets,
                approval_policy=approval_policy,
                approval_timeout_s=approval_timeout_s,
                owner=owner,
                trace_id=trace_id,
                thread_id=thread_id,
                thread_turn=turn,
                queued=queued,
            )
            return run, tr.stamp(run, [created])

        replica, ttl_s = self._active.replica, self._settings.run_lease_ttl_s
        interrupt: list[str] = []
        if thread_id:
            admitted = await self._threads.admit(
                thread_id=thread_id,
                principal=owner,
                strategy=multitask,
                idempotency_key=idempotency_key,
                build=build,
                replica=replica,
                ttl_s=ttl_s,
            )
            run, events, interrupt = admitted.run, admitted.events, admitted.interrupt
            lease = Lease(replica, 1) if admitted.leased else None
            if admitted.existing:
                return _same_request(run, build()[0])
        else:
            run, events = build()
            stored, lease = await self._store.create_run(run, events, replica, ttl_s)
            if lease is None:
                return _same_request(stored, run)
        self._hub.publish(run.run_id, events)
        if lease is not None:
            driven = run_pb2.Run()
            driven.CopyFrom(run)  # the driver changes its copy while the caller returns this one
            self._active.drive(ActiveRun(run.run_id, lease), driven)
        await self._cancel_all(interrupt)
        if run.status == S.RUN_STATUS_QUEUED:
            self.claim_soon()  # its turn may have come already (the earlier ones just ended)
        return run

    async def cancel_run(self, run_id: str) -> run_pb2.Run:
        async with self._lock(run_id):
            run = await self._require(run_id)
            if run.status in TERMINAL:
                raise FailedPrecondition(
                    f"run {run_id} already finished ({status_name(run.status)}); "
                    "only unfinished runs can be cancelled",
                    reason="RUN_FINISHED",
                )
            active = self._active.get(run_id)
            if active is not None and active.task is not None:
                active.cancel_requested = True
                active.task.cancel()
                # Wait for the driver to record the cancellation, but never let this RPC's own
                # cancellation abort that bookkeeping.
                await asyncio.shield(asyncio.wait([active.task]))
            else:
                # Driven by another replica, or by none: take the lease (fencing the driver
                # out) and record the cancellation ourselves.
                taken = await self._take_over(run_id, ONGOING)
                if taken is not None:
                    writer, current = taken
                    end = tr.end(current, S.RUN_STATUS_CANCELLED, failures.cancelled())
                    # A concurrent CancelRun elsewhere may win (LeaseLost): its outcome is read below.
                    with contextlib.suppress(LeaseLost):
                        await self._recorder.commit(writer, current, *end)
            run = await self._require(run_id)
        if run.status != S.RUN_STATUS_CANCELLED:
            raise FailedPrecondition(
                f"run {run_id} finished ({status_name(run.status)}) before it could be cancelled",
                reason="RUN_FINISHED",
            )
        await self._cancel_elsewhere(run)
        return run

    async def _cancel_elsewhere(self, run: run_pb2.Run) -> None:
        """Tell tools_svc the run is cancelled, so that work its steps started at another agent
        stops too. Its step's call was cancelled above, but a cancelled call alone reads as a
        crash there (after which the step is retried and waits on the same remote task). At
        most a few seconds, and never a failure of the cancel: the run is cancelled here."""
        request = tool_service_pb2.CancelInvocationsRequest(
            context=tool_pb2.CallContext(principal=run.owner or LOCAL_NAME, run_id=run.run_id)
        )
        try:
            answer = await self._tools.CancelInvocations(request, timeout=CANCEL_ELSEWHERE_S)
        except grpc.aio.AioRpcError as exc:
            log.warning(
                "run.cancel_elsewhere_failed", run_id=run.run_id, code=exc.code().name, error=exc.details()
            )
            return
        if answer.cancelled:
            log.info("run.cancelled_elsewhere", run_id=run.run_id, remote_tasks=answer.cancelled)

    async def retry_run(self, run_id: str) -> run_pb2.Run:
        async with self._lock(run_id):
            active = self._active.get(run_id)
            if active is not None and active.task is not None:
                # The driver may still be writing the terminal event.
                await asyncio.shield(asyncio.wait([active.task]))
            run = await self._require(run_id)
            if run.thread_id:
                await self._retryable_turn(run)
            taken = await self._take_over(run_id, tr.RETRYABLE) if run.status in tr.RETRYABLE else None
            if taken is None:
                run = await self._require(run_id)
                raise FailedPrecondition(
                    f"run {run_id} {tr.status_phrase(run.status)}; "
                    "only failed or cancelled runs can be retried",
                    reason="RUN_NOT_RETRYABLE",
                )
            writer, run = taken
            try:
                await self._recorder.commit(writer, run, *tr.restart(run))
            except LeaseLost:
                raise FailedPrecondition(
                    f"run {run_id} was retried or cancelled concurrently by another request",
                    reason="RUN_CHANGED",
                ) from None
            except sqlalchemy.exc.IntegrityError:
                # runs_one_active_turn: a message to the thread was admitted between the check
                # in _retryable_turn and this save. The run stays as it was stored.
                raise FailedPrecondition(
                    f"thread {run.thread_id} took a new message while run {run_id} was being "
                    "retried; the new message runs instead (retry is only for a thread's last turn)",
                    reason="THREAD_BUSY",
                ) from None
            log.info("run.retried", run_id=run_id, retry_count=run.retry_count)
            self._active.drive(writer)
            return run

    async def _retryable_turn(self, run: run_pb2.Run) -> None:
        """A thread's turn is retried only as its last turn, the thread working on no other:
        the next turns saw it fail, and a thread works on one turn at a time."""
        turns = await self._threads.turn_count(run.thread_id)
        if turns is not None and run.thread_turn != turns:
            raise FailedPrecondition(
                f"run {run.run_id} is turn {run.thread_turn} of thread {run.thread_id}, which has "
                f"{turns} turns; only its last turn can be retried (send a new message)",
                reason="RUN_NOT_RETRYABLE",
            )
        if busy := [r for r in await self._threads.unfinished(run.thread_id) if r != run.run_id]:
            raise FailedPrecondition(
                f"thread {run.thread_id} is still working on run {busy[-1]}",
                reason="THREAD_BUSY",
                metadata={"run_id": busy[-1]},
            )

    async def delete_thread(self, thread_id: str) -> None:
        """Cancel the thread's unfinished turns (queued ones first), then delete it with its runs
        and their events."""
        await self._cancel_all(await self._threads.unfinished(thread_id))
        await self._threads.delete(thread_id)

    async def _cancel_all(self, run_ids: list[str]) -> None:
        """Cancel a thread's unfinished turns in the order given (queued ones first: threads.py)."""
        for run_id in run_ids:
            with contextlib.suppress(FailedPrecondition):  # it finished meanwhile
                await self.cancel_run(run_id)

    async def decide_step(
        self,
        run_id: str,
        step_id: str,
        decided_by: str,
        *,
        approve: bool,
        arguments: struct_pb2.Struct | None = None,
        reason: str = "",
    ) -> run_pb2.Run:
        """ApproveStep / RejectStep: record a person's decision on a step awaiting approval and
        resume the run here (whichever replica it waited on). The decision and the run's new
        status are one save: after a crash the call has either been approved (and runs, once,
        under its idempotency key) or not (and waits)."""
        async with self._lock(run_id):
            run = await self._require(run_id)
            step = next((st for st in run.steps if st.step_id == step_id), None)
            if step is None:
                raise NotFound(f"run {run_id} has no step {step_id!r}", reason="STEP_NOT_FOUND")
            wanted = run_pb2.APPROVAL_DECISION_APPROVED if approve else run_pb2.APPROVAL_DECISION_REJECTED
            if step.approval.decision == wanted:
                return run  # a repeated decision (a client retrying): harmless
            if step.status != S.STEP_STATUS_AWAITING_APPROVAL:
                raise FailedPrecondition(
                    f"step {step_id} of run {run_id} is not awaiting approval "
                    f"({step_status_name(step.status)})",
                    reason="STEP_NOT_AWAITING_APPROVAL",
                )
            if run.status != S.RUN_STATUS_WAITING:
                raise FailedPrecondition(
                    f"run {run_id} is finishing its other steps before it waits; decide again in a moment",
                    reason="RUN_NOT_WAITING",
                    retryable=True,
                )
            if arguments is not None:
                await self._check_arguments(step.tool, arguments)
            taken = await self._take_over(run_id, frozenset({S.RUN_STATUS_WAITING}))
            if taken is None:
                return await self._decided_elsewhere(run_id, step_id, wanted)
            writer, run = taken
            step = next(st for st in run.steps if st.step_id == step_id)
            if step.status != S.STEP_STATUS_AWAITING_APPROVAL:
                await self._recorder.commit(writer, run)  # give the lease back as it was
                return await self._decided_elsewhere(run_id, step_id, wanted)
            if approve:
                payloads = tr.approve(run, step, decided_by, arguments)
            else:
                payloads = tr.reject(run, step, decided_by, reason)
            try:
                await self._recorder.commit(writer, run, *payloads)
            except LeaseLost:
                return await self._decided_elsewhere(run_id, step_id, wanted)
            log.info("step.decided", run_id=run_id, step_id=step_id, approved=approve, by=decided_by)
            if run.status == S.RUN_STATUS_RUNNING:
                self._active.drive(writer)
            return run

    async def _decided_elsewhere(self, run_id: str, step_id: str, wanted: int) -> run_pb2.Run:
        """A concurrent request decided first: the same decision is harmless, another is not."""
        run = await self._require(run_id)
        step = next(st for st in run.steps if st.step_id == step_id)
        if step.approval.decision == wanted:
            return run
        raise FailedPrecondition(
            f"step {step_id} of run {run_id} was decided concurrently by another request "
            f"({run_pb2.ApprovalDecision.Name(step.approval.decision)})",
            reason="STEP_NOT_AWAITING_APPROVAL",
        )

    async def _check_arguments(self, tool_name: str, arguments: struct_pb2.Struct) -> None:
        """Edited arguments must satisfy the tool's schema, as the model's or the planner's do."""
        schema = self._catalog.compiled(await self._planning.tools()).get(tool_name)
        if schema is None:
            raise Unavailable(f"the tool catalog does not list {tool_name!r} right now; try again")
        plan = plan_pb2.Plan(steps=[plan_pb2.PlanStep(id="edited", tool=tool_name, arguments=arguments)])
        try:
            validate_arguments(plan, {tool_name: schema.validator})
        except InvalidPlan as exc:
            raise InvalidArgument(
                f"the edited arguments are not valid for {tool_name}: {exc}",
                violations=[("arguments", str(exc)[:160])],
            ) from None

    async def _require(self, run_id: str) -> run_pb2.Run:
        run = await self._store.get_run(run_id)
        if run is None:
            raise run_not_found(run_id)
        return run


def run_not_found(run_id: str) -> NotFound:
    """The one answer for "no such run" and "another principal's run" (service.py): an id
    reveals nothing about runs the caller may not see."""
    return NotFound(f"run {run_id} not found", reason="RUN_NOT_FOUND")


def _same_request(stored: run_pb2.Run, asked: run_pb2.Run) -> run_pb2.Run:
    """A repeated idempotency key: the run it created, if the request is the same one."""
    if (stored.prompt, stored.max_steps, stored.retry_policy, stored.budgets, stored.thread_id) != (
        asked.prompt,
        asked.max_steps,
        asked.retry_policy,
        asked.budgets,
        asked.thread_id,
    ) or not _same_mode(stored.mode, asked.mode):
        raise AlreadyExists(
            f"idempotency key '{asked.idempotency_key}' was already used for run {stored.run_id} "
            "with a different request",
            reason="IDEMPOTENCY_KEY_REUSED",
            metadata={"run_id": stored.run_id},
        )
    return stored


def _same_mode(stored: int, asked: int) -> bool:
    """An auto run reads plan or agent once decided: a repeat of the request that asked auto is
    the same request."""
    return asked in (stored, agent_pb2.RUN_MODE_AUTO)
