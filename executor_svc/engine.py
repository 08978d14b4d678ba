"""The run engine: RunService's writes (create, cancel, retry) and the registry of active runs.

Each run this executor drives has one `ActiveRun` record (its lease, its driver task, its last
save), added when the run is created or claimed and removed in one place when its driver ends.
A driver (the run kernel, executor_svc/run/) takes the run from pending to a terminal status,
saving its transitions with their events through the Recorder (group commit, then published on
the hub).

Replicas share the runs through leases (leases.py): the keeper renews ours and claims runs whose
lease lapsed or was released, calling back into the engine to start or stop their drivers.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref

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
from agentrt.core.runstate import TERMINAL, status_name, step_status_name
from agentrt.server.tracing import current_trace_id
from agentrt.v1 import agent_pb2, plan_pb2, planner_service_pb2_grpc, run_pb2, tool_service_pb2_grpc
from executor_svc import metrics
from executor_svc.hub import EventHub
from executor_svc.leases import UNFINISHED, Claim, Lease, LeaseKeeper, LeaseLost
from executor_svc.run import failures
from executor_svc.run import transitions as tr
from executor_svc.run.context import Kernel
from executor_svc.run.driver import RunDriver
from executor_svc.run.planning import Planning
from executor_svc.run.recorder import ActiveRun, Recorder
from executor_svc.store import RunStore
from executor_svc.toolcatalog import ToolCatalog

log = structlog.get_logger("executor_svc.engine")
S = run_pb2


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
    ) -> None:
        self._store = store
        self._hub = hub
        self._settings = settings
        self._catalog = catalog  # the held catalog, with each tool's schema compiled on arrival
        self._planning = Planning(planner, catalog, settings)
        self._recorder = Recorder(store.commits, hub)
        self._runs: dict[str, ActiveRun] = {}  # runs this replica is driving
        self._keeper = LeaseKeeper(
            store.leases,
            settings.run_lease_ttl_s,
            held=lambda: {r: a.lease for r, a in self._runs.items()},
            room=lambda: settings.max_active_runs - len(self._runs),
            claimed=self._claimed,
            lost=self._lease_not_renewed,
        )
        self._kernel = Kernel(store, self._recorder, self._planning, tools, hub, settings, self._lose)
        # Serializes CancelRun/RetryRun per run; weakly held so idle runs cost nothing.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self, owner: str) -> None:
        """Become replica `owner`: take back its runs and any unleased ones, then keep leases."""
        await self._keeper.start(owner)

    async def close(self) -> None:
        """Stop driving runs without changing their stored state, and release their leases so
        another replica (or this one, restarted) resumes them at once."""
        await self._keeper.close()
        held = {r: a.lease for r, a in self._runs.items()}
        tasks = [a.task for a in self._runs.values() if a.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._keeper.release(held)

    def claim_soon(self) -> None:
        """Look for claimable runs now rather than at the next renewal (leases were released)."""
        self._keeper.claim_soon()

    def on_remote_write(self, run_id: str, writer: str) -> None:
        """Replica `writer` saved events of `run_id` (a database notification)."""
        if writer == self._keeper.owner:
            return  # our own write, already published locally
        if run_id in self._runs:
            # Writes are fenced: another replica writing this run means it holds a newer lease.
            self._lose(run_id)
        # Every time, even after the loss: an event our driver published late must not linger.
        self._hub.forget(run_id)

    # -- the registry ----------------------------------------------------------------------

    def _drive(self, active: ActiveRun, run: run_pb2.Run | None = None) -> None:
        """Drive `active`'s run; `run` is its current state when the caller holds it (a run just
        created), else the driver reads it from the store."""
        self._runs[active.run_id] = active
        driver = RunDriver(active, run, self._kernel)
        active.task = asyncio.create_task(self._until_done(active, driver), name=f"run-{active.run_id}")

    async def _until_done(self, active: ActiveRun, driver: RunDriver) -> None:
        try:
            await driver.drive()
        finally:
            # The one place a run leaves the registry.
            if self._runs.get(active.run_id) is active:
                del self._runs[active.run_id]

    def _claimed(self, run_id: str, claim: Claim) -> None:
        self._hub.forget(run_id)  # another replica may have written it since we last did
        active = self._runs.get(run_id)
        if active is not None:
            # Our own lease had lapsed (we stalled) and nobody else took the run: carry on
            # driving it under the new epoch.
            active.lease = claim.lease
            return
        metrics.LEASE_CLAIMS.labels("takeover" if claim.takeover else "resume").inc()
        log.info("run.claimed", run_id=run_id, takeover=claim.takeover, epoch=claim.lease.epoch)
        self._drive(ActiveRun(run_id, claim.lease))

    def _lease_not_renewed(self, run_id: str, lease: Lease) -> None:
        active = self._runs.get(run_id)
        if active is not None and active.lease == lease:
            self._lose(run_id)

    def _lose(self, run_id: str) -> None:
        active = self._runs.get(run_id)
        if active is None or active.task is None or active.lost:
            return
        active.lost = True
        metrics.LEASES_LOST.inc()
        log.warning("run.lease_lost", run_id=run_id)
        if active.task is not asyncio.current_task():  # the driver itself found out: it just returns
            active.task.cancel()
        self._hub.forget(run_id)

    async def _take_over(self, run_id: str, statuses: frozenset[int]) -> tuple[ActiveRun, run_pb2.Run] | None:
        """Lease a run this replica is not driving (CancelRun, RetryRun) if its status is one of
        `statuses`, and read it afresh: from here on nobody else can write it, so what we read
        is its latest state. None if the run is not (or no longer) in those statuses."""
        lease = await self._keeper.take_over(run_id, statuses)
        if lease is None:
            return None
        self._hub.forget(run_id)
        return ActiveRun(run_id, lease), await self._require(run_id)

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
    ) -> run_pb2.Run:
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
            # The CreateRun call's trace (gateway's, or the caller's traceparent): the run's own.
            trace_id=current_trace_id(),
        )
        events = tr.stamp(run, [created])
        owner = self._keeper.owner
        stored, lease = await self._store.create_run(run, events, owner, self._settings.run_lease_ttl_s)
        if lease is None:
            if (stored.prompt, stored.max_steps, stored.retry_policy, stored.budgets) != (
                prompt,
                max_steps,
                run.retry_policy,
                run.budgets,
            ) or not _same_mode(stored.mode, run.mode):
                raise AlreadyExists(
                    f"idempotency key '{idempotency_key}' was already used for run {stored.run_id} "
                    "with a different request",
                    reason="IDEMPOTENCY_KEY_REUSED",
                    metadata={"run_id": stored.run_id},
                )
            return stored
        self._hub.publish(run.run_id, events)
        driven = run_pb2.Run()
        driven.CopyFrom(run)  # the driver changes its copy while the caller returns this one
        self._drive(ActiveRun(run.run_id, lease), driven)
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
            active = self._runs.get(run_id)
            if active is not None and active.task is not None:
                active.cancel_requested = True
                active.task.cancel()
                # Wait for the driver to record the cancellation, but never let this RPC's own
                # cancellation abort that bookkeeping.
                await asyncio.shield(asyncio.wait([active.task]))
            else:
                # Driven by another replica, or by none: take the lease (fencing the driver
                # out) and record the cancellation ourselves.
                taken = await self._take_over(run_id, UNFINISHED | {S.RUN_STATUS_WAITING})
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
        return run

    async def retry_run(self, run_id: str) -> run_pb2.Run:
        async with self._lock(run_id):
            active = self._runs.get(run_id)
            if active is not None and active.task is not None:
                # The driver may still be writing the terminal event.
                await asyncio.shield(asyncio.wait([active.task]))
            run = await self._require(run_id)
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
            log.info("run.retried", run_id=run_id, retry_count=run.retry_count)
            self._drive(writer)
            return run

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
                self._drive(writer)
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


def _same_mode(stored: int, asked: int) -> bool:
    """An auto run reads plan or agent once decided: a repeat of the request that asked auto is
    the same request."""
    return asked in (stored, agent_pb2.RUN_MODE_AUTO)
