"""The run engine: drives each run from pending to a terminal status.

One asyncio task per active run owns that run's in-memory `Run`; every transition is saved with
its events in one store transaction (seq assigned here, +1 per event) and then announced on the
hub. Steps form a DAG: a step starts as soon as its dependencies succeeded, up to
`max_parallel_steps` at once. Failed attempts are retried with full-jitter backoff when the
failure is retryable, and every attempt is visible as a step event.

Replicas share the runs through leases in the store: a replica drives only runs it holds a
lease on, renews them every TTL/3, and claims runs whose lease lapsed (their replica died) or was
released (it shut down). Every write is fenced by the lease epoch, so a replica that lost a run
stops at its next write instead of racing the new owner. A run taken over is resumed from its
stored state: succeeded steps are kept, and a step that was in flight is re-invoked with the same
idempotency key (`run_id/step_id`), so tools_svc returns its recorded result instead of repeating
the effect.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
import weakref
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
import structlog
from google.protobuf import timestamp_pb2
from opentelemetry import context as otel_context

from agentrt import metrics, refs, render
from agentrt.config import Settings
from agentrt.errors import AlreadyExists, ErrorDetails, FailedPrecondition, NotFound, store_outage
from agentrt.periodic import run_every
from agentrt.plans import InvalidPlan, validate_plan
from agentrt.runstate import TERMINAL, add_usage
from agentrt.tracing import tracer
from agentrt.v1 import (
    planner_service_pb2,
    planner_service_pb2_grpc,
    run_pb2,
    tool_service_pb2,
    tool_service_pb2_grpc,
)
from agentrt.values import dict_to_struct, duration_of, struct_to_dict, value_to_py
from executor_svc.hub import EventHub
from executor_svc.retry import StepPolicy, resolve_policy
from executor_svc.store import UNFINISHED, Lease, LeaseLost, RunStore
from executor_svc.toolcatalog import ToolCatalog

log = structlog.get_logger("executor_svc.engine")

S = run_pb2
T = TypeVar("T")
Payload = dict[str, object]
# Steps that were started and not finished; they are cancelled when the run ends early.
IN_FLIGHT = (S.STEP_STATUS_RUNNING, S.STEP_STATUS_RETRYING)
RETRYABLE = frozenset({S.RUN_STATUS_FAILED, S.RUN_STATUS_CANCELLED})


class RunFailure(Exception):
    """Ends a run as FAILED with `error`."""

    def __init__(self, error: run_pb2.RunError) -> None:
        super().__init__(error.message)
        self.error = error


def now() -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    ts.FromNanoseconds(time.time_ns())
    return ts


class Engine:
    def __init__(
        self,
        store: RunStore,
        hub: EventHub,
        planner: planner_service_pb2_grpc.PlannerServiceStub,
        tools: tool_service_pb2_grpc.ToolServiceStub,
        settings: Settings,
        *,
        catalog: ToolCatalog,
    ) -> None:
        self._store = store
        self._hub = hub
        self._planner = planner
        self._tools = tools
        self._catalog = catalog
        self._settings = settings
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._cancel_requested: set[str] = set()
        self._owner = ""
        self._ttl = settings.run_lease_ttl_s
        self._leases: dict[str, Lease] = {}  # runs this replica may write, with its fencing token
        self._lost: set[str] = set()  # runs whose task is being stopped: the lease went elsewhere
        # Each run's latest save, until the run's task ends: a save not awaited (see _save) that
        # failed must stop the next one being queued.
        self._last_save: dict[str, asyncio.Future[None]] = {}
        self._keeper: asyncio.Task[None] | None = None
        self._claim_soon = asyncio.Event()
        # Serializes CancelRun/RetryRun per run; weakly held so idle runs cost nothing.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self, owner: str) -> None:
        """Become replica `owner`: take back the runs still leased to it (it restarted in place)
        and any unleased ones, then keep renewing leases and claiming lapsed ones."""
        self._owner = owner
        await self._claim(reclaim_own=True)
        self._keeper = asyncio.create_task(self._keep_leases(), name="lease-keeper")

    async def close(self) -> None:
        """Stop driving runs without changing their stored state, and release their leases so
        another replica (or this one, restarted) resumes them at once."""
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        held = dict(self._leases)
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        try:
            await self._store.release(held)
        except Exception:
            log.exception("lease.release_failed")  # they lapse after the TTL instead

    def _spawn(self, run_id: str, lease: Lease, run: run_pb2.Run | None = None) -> None:
        """Drive `run_id` under `lease`; `run` is its current state when the caller holds it
        (a run just created), else the driver reads it from the store."""
        self._leases[run_id] = lease
        self._tasks[run_id] = asyncio.create_task(self._drive(run_id, run), name=f"run-{run_id}")

    # -- leases ----------------------------------------------------------------------------

    def claim_soon(self) -> None:
        """Look for claimable runs now rather than at the next renewal (leases were released)."""
        self._claim_soon.set()

    def on_remote_write(self, run_id: str, writer: str) -> None:
        """Replica `writer` saved events of `run_id` (a database notification)."""
        if writer == self._owner:
            return  # our own write, already published locally
        if run_id in self._tasks:
            # Writes are fenced: another replica writing this run means it holds a newer lease.
            self._lose(run_id)
        # Every time, even after the loss: an event our driver published late must not linger.
        self._hub.forget(run_id)

    async def _keep_leases(self) -> None:
        # A failed round (the database is unreachable) is retried next round; leases not renewed
        # within the TTL go to other replicas, and our next write to those runs is refused.
        await run_every(
            self._ttl / 3,
            self._renew_and_claim,
            "lease.keeper_failed",
            wake=self._claim_soon,
            first_now=False,  # start() has just claimed
        )

    async def _renew_and_claim(self) -> None:
        held = {r: lease for r, lease in self._leases.items() if r in self._tasks}
        kept = await self._store.renew(held, self._ttl)
        for run_id in held.keys() - kept:
            if self._leases.get(run_id) == held[run_id]:
                self._lose(run_id)
        await self._claim()

    async def _claim(self, reclaim_own: bool = False) -> None:
        room = self._settings.max_active_runs - len(self._tasks)
        if room <= 0:
            return
        claims = await self._store.claim(self._owner, self._ttl, room, reclaim_own)
        for run_id, claim in claims.items():
            self._hub.forget(run_id)  # another replica may have written it since we last did
            if run_id in self._tasks:
                # Our own lease had lapsed (we stalled) and nobody else took the run: carry on
                # driving it under the new epoch.
                self._leases[run_id] = claim.lease
                continue
            metrics.LEASE_CLAIMS.labels("takeover" if claim.takeover else "resume").inc()
            log.info("run.claimed", run_id=run_id, takeover=claim.takeover, epoch=claim.lease.epoch)
            self._spawn(run_id, claim.lease)

    def _lose(self, run_id: str) -> None:
        task = self._tasks.get(run_id)
        if task is None or run_id in self._lost:
            return
        self._lost.add(run_id)
        metrics.LEASES_LOST.inc()
        log.warning("run.lease_lost", run_id=run_id)
        if task is not asyncio.current_task():  # the driver itself found out: it just returns
            task.cancel()
        self._hub.forget(run_id)

    async def _take_over(self, run_id: str, statuses: frozenset[int]) -> run_pb2.Run | None:
        """Lease a run this replica is not driving (CancelRun, RetryRun) if its status is one of
        `statuses`, and read it afresh: from here on nobody else can write it, so what we read
        is its latest state. None if the run is not (or no longer) in those statuses."""
        lease = await self._store.take_over(run_id, self._owner, self._ttl, statuses)
        if lease is None:
            return None
        self._leases[run_id] = lease
        self._hub.forget(run_id)
        return await self._require(run_id)

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
    ) -> run_pb2.Run:
        created = now()
        deadline = timestamp_pb2.Timestamp()
        deadline.FromNanoseconds(
            created.ToNanoseconds() + round((timeout_s or self._settings.run_timeout_s) * 1e9)
        )
        run = run_pb2.Run(
            run_id=uuid.uuid4().hex,
            prompt=prompt,
            status=S.RUN_STATUS_PENDING,
            max_steps=max_steps,
            idempotency_key=idempotency_key,
            create_time=created,
            update_time=created,
            deadline=deadline,
            retry_policy=retry_policy,
        )
        event = self._next_event(
            run, created, status_changed=run_pb2.RunStatusChanged(status=S.RUN_STATUS_PENDING)
        )
        stored, lease = await self._store.create_run(run, [event], self._owner, self._ttl)
        if lease is None:
            if (stored.prompt, stored.max_steps, stored.retry_policy) != (
                prompt,
                max_steps,
                run.retry_policy,
            ):
                raise AlreadyExists(
                    f"idempotency key '{idempotency_key}' was already used for run {stored.run_id} "
                    "with a different request",
                    reason="IDEMPOTENCY_KEY_REUSED",
                    metadata={"run_id": stored.run_id},
                )
            return stored
        self._hub.publish(run.run_id, [event])
        driven = run_pb2.Run()
        driven.CopyFrom(run)  # the driver changes its copy while the caller returns this one
        self._spawn(run.run_id, lease, driven)
        return run

    async def cancel_run(self, run_id: str) -> run_pb2.Run:
        async with self._lock(run_id):
            run = await self._require(run_id)
            if run.status in TERMINAL:
                raise FailedPrecondition(
                    f"run {run_id} already finished ({render.status(run.status)}); "
                    "only unfinished runs can be cancelled",
                    reason="RUN_FINISHED",
                )
            task = self._tasks.get(run_id)
            if task is not None:
                self._cancel_requested.add(run_id)
                task.cancel()
                # Wait for the driver to record the cancellation, but never let this RPC's own
                # cancellation abort that bookkeeping.
                await asyncio.shield(asyncio.wait([task]))
            else:
                # Driven by another replica, or by none: take the lease (fencing the driver
                # out) and record the cancellation ourselves.
                taken = await self._take_over(run_id, UNFINISHED)
                try:
                    if taken is not None:
                        await self._commit(
                            taken, *self._end_transitions(taken, S.RUN_STATUS_CANCELLED, _cancelled_error())
                        )
                except LeaseLost:
                    pass  # a concurrent CancelRun elsewhere won: its outcome is read below
                finally:
                    self._leases.pop(run_id, None)
                    self._last_save.pop(run_id, None)
            run = await self._require(run_id)
        if run.status != S.RUN_STATUS_CANCELLED:
            raise FailedPrecondition(
                f"run {run_id} finished ({render.status(run.status)}) before it could be cancelled",
                reason="RUN_FINISHED",
            )
        return run

    async def retry_run(self, run_id: str) -> run_pb2.Run:
        async with self._lock(run_id):
            task = self._tasks.get(run_id)
            if task is not None:  # the driver may still be writing the terminal event
                await asyncio.shield(asyncio.wait([task]))
            run = await self._require(run_id)
            taken = await self._take_over(run_id, RETRYABLE) if run.status in RETRYABLE else None
            if taken is None:
                run = await self._require(run_id)
                raise FailedPrecondition(
                    f"run {run_id} {_status_phrase(run.status)}; "
                    "only failed or cancelled runs can be retried",
                    reason="RUN_NOT_RETRYABLE",
                )
            run = taken
            payloads: list[Payload] = []
            for step in run.steps:
                if step.status != S.STEP_STATUS_SUCCEEDED:
                    _reset_step(step)
                    payloads.append({"step_updated": run_pb2.StepUpdated(step=step)})
            timeout_ns = run.deadline.ToNanoseconds() - run.create_time.ToNanoseconds()
            restarted = now()
            run.deadline.FromNanoseconds(restarted.ToNanoseconds() + timeout_ns)
            run.status = S.RUN_STATUS_RUNNING if run.HasField("plan") else S.RUN_STATUS_PENDING
            run.retry_count += 1
            for field in ("error", "end_time", "result"):
                run.ClearField(field)
            payloads.append(self._status_payload(run))
            try:
                await self._commit(run, *payloads)
            except BaseException as exc:
                self._leases.pop(run_id, None)
                self._last_save.pop(run_id, None)
                if not isinstance(exc, LeaseLost):
                    raise
                raise FailedPrecondition(
                    f"run {run_id} was retried or cancelled concurrently by another request",
                    reason="RUN_CHANGED",
                ) from None
            log.info("run.retried", run_id=run_id, retry_count=run.retry_count)
            self._spawn(run_id, self._leases[run_id])
            return run

    async def _require(self, run_id: str) -> run_pb2.Run:
        run = await self._store.get_run(run_id)
        if run is None:
            raise NotFound(f"run {run_id} not found", reason="RUN_NOT_FOUND")
        return run

    # -- driving a run ---------------------------------------------------------------------

    async def _drive(self, run_id: str, run: run_pb2.Run | None) -> None:
        # One trace per run: a new root, not a child of the CreateRun RPC that spawned the task.
        with tracer().start_as_current_span(
            "run", context=otel_context.Context(), attributes={"agentrt.run_id": run_id}
        ):
            await self._drive_run(run_id, run)

    async def _drive_run(self, run_id: str, run: run_pb2.Run | None) -> None:
        structlog.contextvars.bind_contextvars(run_id=run_id)
        try:
            if run is None:
                run = await self._store.get_run(run_id)
            if run is None or run.status in TERMINAL:
                return
            metrics.RUNS_ACTIVE.inc()
            try:
                await self._drive_to_end(run)
            finally:
                metrics.RUNS_ACTIVE.dec()
                if run.status in TERMINAL:
                    metrics.RUNS.labels(render.status(run.status)).inc()
        except (LeaseLost, asyncio.CancelledError) as exc:
            if run_id not in self._lost and not isinstance(exc, LeaseLost):
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
        finally:
            self._tasks.pop(run_id, None)
            self._leases.pop(run_id, None)
            self._last_save.pop(run_id, None)
            self._lost.discard(run_id)
            self._cancel_requested.discard(run_id)

    async def _drive_to_end(self, run: run_pb2.Run) -> None:
        run_id = run.run_id
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
                raise RunFailure(self._run_deadline_error(run)) from None
        except RunFailure as failure:
            await self._commit(run, *self._end_transitions(run, S.RUN_STATUS_FAILED, failure.error))
            log.info("run.failed", reason=failure.error.reason, error=failure.error.message)
        except asyncio.CancelledError:
            if run_id not in self._cancel_requested:
                raise  # shutdown or lease lost: handled by the caller
            await self._commit(run, *self._end_transitions(run, S.RUN_STATUS_CANCELLED, _cancelled_error()))
            log.info("run.cancelled")
        except LeaseLost:
            raise
        except Exception as exc:
            if store_outage(exc):
                raise  # recording the failure would fail too: handled by the caller
            log.exception("run.crashed")
            error = run_pb2.RunError(code="INTERNAL", reason="INTERNAL", message=f"executor error: {exc!r}")
            await self._commit(run, *self._end_transitions(run, S.RUN_STATUS_FAILED, error))

    def _deadline_ns(self, run: run_pb2.Run) -> int:
        if run.HasField("deadline"):
            return run.deadline.ToNanoseconds()
        return run.create_time.ToNanoseconds() + round(self._settings.run_timeout_s * 1e9)

    async def _execute(self, run: run_pb2.Run) -> None:
        if run.status == S.RUN_STATUS_PENDING:
            run.status = S.RUN_STATUS_PLANNING
            if not run.HasField("start_time"):
                run.start_time.CopyFrom(now())
            # Planning has no side effects: it need not wait for this save (see _save).
            self._save(run, self._status_payload(run))
        payloads: list[Payload] = []
        if not run.HasField("plan"):
            plan = await self._plan(run)
            self._install_plan(run, plan)
            payloads.append({"plan_created": run_pb2.PlanCreated(plan=plan)})
        if run.status != S.RUN_STATUS_RUNNING:
            run.status = S.RUN_STATUS_RUNNING
            payloads.append(self._status_payload(run))
        if payloads:  # the plan and the status it puts the run in: one transaction
            await self._commit(run, *payloads)

        # The plan was validated against the catalog when it was made; here we only need its order.
        order = validate_plan(run.plan, {s.tool for s in run.plan.steps}, len(run.plan.steps))
        await self._run_dag(run, order)

        run.result.CopyFrom(run.steps[-1].output)
        run.status = S.RUN_STATUS_SUCCEEDED
        run.end_time.CopyFrom(now())
        await self._commit(run, self._status_payload(run))
        log.info("run.succeeded")

    @staticmethod
    def _install_plan(run: run_pb2.Run, plan: run_pb2.Plan) -> None:
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

    async def _replan(self, run: run_pb2.Run, failure: run_pb2.RunError) -> bool:
        """After a step failed for good: install a revised plan if replanning is on and the
        planner produces one. Returns False (the run fails as it was going to) otherwise."""
        if not failure.step_id or run.replan_count >= self._settings.replan_max:
            return False
        context = planner_service_pb2.Replan(previous_plan=run.plan, steps=run.steps, failure=failure)
        try:
            plan = await self._plan(run, context)
        except RunFailure as exc:
            log.info("run.replan_failed", error=exc.error.message)
            return False
        # Steps the old plan will never run are closed before the new plan takes over.
        payloads: list[Payload] = []
        for step in run.steps:
            if step.status in IN_FLIGHT or step.status == S.STEP_STATUS_PENDING:
                step.status = S.STEP_STATUS_CANCELLED if step.status in IN_FLIGHT else S.STEP_STATUS_SKIPPED
                step.end_time.CopyFrom(now())
                payloads.append({"step_updated": run_pb2.StepUpdated(step=step)})
        run.replan_count += 1
        metrics.REPLANS.inc()
        self._install_plan(run, plan)
        payloads.append({"plan_created": run_pb2.PlanCreated(plan=plan, replan=True, reason=failure.message)})
        await self._commit(run, *payloads)
        log.info("run.replanned", replan_count=run.replan_count, steps=len(plan.steps))
        return True

    async def _run_dag(self, run: run_pb2.Run, order: list[str]) -> None:
        """Start each step once its dependencies succeeded, at most max_parallel_steps at a time.
        The first step failure cancels the others still in flight and fails the run."""
        states = {s.step_id: s for s in run.steps}
        running: dict[asyncio.Task[None], str] = {}
        try:
            while True:
                done = {i for i, s in states.items() if s.status == S.STEP_STATUS_SUCCEEDED}
                waiting = [i for i in order if i not in done and i not in running.values()]
                if not waiting and not running:
                    return
                for step_id in waiting:
                    if len(running) >= self._settings.max_parallel_steps:
                        break
                    if all(dep in done for dep in states[step_id].depends_on):
                        task = asyncio.create_task(self._run_step(run, states[step_id]))
                        running[task] = step_id
                if not running:
                    raise RuntimeError(f"steps {waiting} can never start: their dependencies did not succeed")
                finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in finished:
                    del running[task]
                    task.result()  # a RunFailure propagates; `finally` stops the siblings
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)

    async def _plan(self, run: run_pb2.Run, replan: planner_service_pb2.Replan | None = None) -> run_pb2.Plan:
        held = self._catalog.held()
        try:
            return await self._plan_with(run, replan, held)
        except RunFailure as failure:
            if held is None:
                raise
            # The held catalog may trail tools_svc by a moment (a tool registered just now):
            # if the live one differs, plan again with it.
            try:
                live = await self._catalog.live()
            except grpc.aio.AioRpcError:
                raise failure from None
            if live.catalog_version == held.catalog_version:
                raise
            return await self._plan_with(run, replan, live)

    async def _plan_with(
        self,
        run: run_pb2.Run,
        replan: planner_service_pb2.Replan | None,
        catalog: tool_service_pb2.ListToolsResponse | None,
    ) -> run_pb2.Plan:
        """Plan with `catalog`, or with the live catalog (ListTools) when None."""
        policy = resolve_policy(self._settings, "", run.retry_policy)
        timeout = self._settings.planner_timeout_s

        async def plan_once() -> tuple[
            tool_service_pb2.ListToolsResponse, planner_service_pb2.CreatePlanResponse
        ]:
            tools = catalog if catalog is not None else await self._catalog.live()
            request = planner_service_pb2.CreatePlanRequest(
                prompt=run.prompt,
                tools=tools.tools,
                max_steps=run.max_steps,
                catalog_version=tools.catalog_version,
                replan=replan,
            )
            return tools, await self._planner.CreatePlan(request, timeout=timeout)

        try:
            with tracer().start_as_current_span("plan", attributes={"agentrt.replan": replan is not None}):
                tools, response = await self._with_retries(policy, "planning", plan_once)
        except grpc.aio.AioRpcError as err:
            details = ErrorDetails.from_rpc_error(err)
            reason = details.reason if details.reason not in ("", details.code.name) else "PLANNING_FAILED"
            raise RunFailure(
                run_pb2.RunError(
                    code=details.code.name, reason=reason, message=f"planning failed: {details.message}"
                )
            ) from None
        try:
            validate_plan(response.plan, {t.name for t in tools.tools}, run.max_steps)
        except InvalidPlan as exc:
            raise RunFailure(
                run_pb2.RunError(
                    code="FAILED_PRECONDITION", reason=exc.reason, message=f"invalid plan: {exc.message}"
                )
            ) from None
        return response.plan

    async def _with_retries(self, policy: StepPolicy, what: str, call: Callable[[], Awaitable[T]]) -> T:
        attempt = 0
        while True:
            attempt += 1
            try:
                return await call()
            except grpc.aio.AioRpcError as err:
                details = ErrorDetails.from_rpc_error(err)
                if not policy.retries(details, attempt):
                    raise
                delay = policy.delay(details, attempt)
                log.warning(f"{what}.retry", attempt=attempt, code=details.code.name, delay_s=round(delay, 3))
                await asyncio.sleep(delay)

    async def _resolve_arguments(self, run: run_pb2.Run, step: run_pb2.StepState) -> None:
        """Fill the step's arguments from its plan step, references resolved just before it runs
        (the plan keeps the references themselves); a bad reference or an oversized result fails
        the step."""
        plan_step = next(s for s in run.plan.steps if s.id == step.step_id)
        outputs = {s.step_id: value_to_py(s.output) for s in run.steps if s.status == S.STEP_STATUS_SUCCEEDED}
        error = None
        try:
            step.arguments.CopyFrom(
                dict_to_struct(refs.resolve(struct_to_dict(plan_step.arguments), outputs))
            )
        except refs.InvalidReference as exc:
            error = run_pb2.RunError(
                code="INVALID_ARGUMENT",
                reason="INVALID_REFERENCE",
                message=f"step {step.step_id} ({step.tool}): {exc}",
                step_id=step.step_id,
            )
        if error is None and run.ByteSize() > self._settings.max_run_bytes:
            size = step.arguments.ByteSize()
            error = self._too_large(step, f"its arguments ({size} bytes, with references resolved)")
            step.arguments.CopyFrom(plan_step.arguments)  # the failed step is stored, not its bulk
        if error is not None:
            await self._finish_step(run, step, S.STEP_STATUS_FAILED, error=error)
            raise RunFailure(error)

    async def _run_step(self, run: run_pb2.Run, step: run_pb2.StepState) -> None:
        structlog.contextvars.bind_contextvars(step_id=step.step_id)
        policy = resolve_policy(self._settings, step.tool, run.retry_policy)
        await self._resolve_arguments(run, step)

        # A revised plan reuses step ids: its calls must not collide with the old plan's records.
        generation = f"/r{run.replan_count}" if run.replan_count else ""
        request = tool_service_pb2.InvokeToolRequest(
            tool=step.tool,
            arguments=step.arguments,
            idempotency_key=f"{run.run_id}{generation}/{step.step_id}",
        )
        if step.status == S.STEP_STATUS_RETRYING:  # resumed mid-backoff: honour what was announced
            await asyncio.sleep(max(0.0, (step.next_attempt_time.ToNanoseconds() - time.time_ns()) / 1e9))
        while True:
            step.status = S.STEP_STATUS_RUNNING
            step.attempts += 1
            for field in ("error", "retry_delay", "next_attempt_time"):
                step.ClearField(field)
            if not step.HasField("start_time"):
                step.start_time.CopyFrom(now())
            # The tool is called while this save commits (see _save): should the executor die
            # before it does, the step is re-run with the same idempotency key, and tools_svc
            # answers with the recorded output instead of running a non-idempotent tool again.
            self._save(run, {"step_updated": run_pb2.StepUpdated(step=step)})
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
                error = self._step_error(step, details, policy, will_retry)
                if not will_retry:
                    await self._finish_step(run, step, S.STEP_STATUS_FAILED, error=error)
                    raise RunFailure(error) from None
                delay = policy.delay(details, step.attempts)
                step.status = S.STEP_STATUS_RETRYING
                step.error.CopyFrom(error)
                step.retry_delay.CopyFrom(duration_of(delay))
                step.next_attempt_time.FromNanoseconds(time.time_ns() + round(delay * 1e9))
                await self._commit(run, {"step_updated": run_pb2.StepUpdated(step=step)})
                metrics.STEP_RETRIES.labels(step.tool, details.code.name).inc()
                log.warning(
                    "step.retry", attempt=step.attempts, code=details.code.name, delay_s=round(delay, 3)
                )
                await asyncio.sleep(delay)
                continue
            if run.ByteSize() + 2 * response.output.ByteSize() > self._settings.max_run_bytes:
                # Twice: the last step's output is stored again as the run's result.
                error = self._too_large(step, f"its output ({response.output.ByteSize()} bytes)")
                await self._finish_step(run, step, S.STEP_STATUS_FAILED, error=error)
                raise RunFailure(error)
            await self._finish_step(run, step, S.STEP_STATUS_SUCCEEDED, output=response.output)
            return

    async def _finish_step(
        self,
        run: run_pb2.Run,
        step: run_pb2.StepState,
        status: int,
        *,
        error: run_pb2.RunError | None = None,
        output: object | None = None,
    ) -> None:
        step.status = status  # type: ignore[assignment]
        for field in ("retry_delay", "next_attempt_time"):
            step.ClearField(field)
        if error is not None:
            step.error.CopyFrom(error)
        if output is not None:
            step.output.CopyFrom(output)  # type: ignore[arg-type]
        step.end_time.CopyFrom(now())
        elapsed = (step.end_time.ToNanoseconds() - step.start_time.ToNanoseconds()) / 1e9
        metrics.STEP_DURATION.labels(step.tool, run_pb2.StepStatus.Name(status)).observe(elapsed)
        await self._commit(run, {"step_updated": run_pb2.StepUpdated(step=step)})

    def _step_error(
        self, step: run_pb2.StepState, details: ErrorDetails, policy: StepPolicy, will_retry: bool
    ) -> run_pb2.RunError:
        if details.code == grpc.StatusCode.DEADLINE_EXCEEDED:
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

    def _too_large(self, step: run_pb2.StepState, what: str) -> run_pb2.RunError:
        return run_pb2.RunError(
            code="RESOURCE_EXHAUSTED",
            reason="RUN_TOO_LARGE",
            message=(
                f"step {step.step_id} ({step.tool}): {what} would make the run larger than "
                f"{self._settings.max_run_bytes} bytes (AGENTRT_MAX_RUN_BYTES)"
            ),
            step_id=step.step_id,
        )

    def _run_deadline_error(self, run: run_pb2.Run) -> run_pb2.RunError:
        in_flight = [s.step_id for s in run.steps if s.status in IN_FLIGHT]
        if in_flight:
            where = f" while step {', '.join(in_flight)} was running"
        elif not run.steps:
            where = " while planning"
        else:
            where = ""
        timeout_s = (self._deadline_ns(run) - run.create_time.ToNanoseconds()) / 1e9
        return run_pb2.RunError(
            code="DEADLINE_EXCEEDED",
            reason="RUN_DEADLINE_EXCEEDED",
            message=f"run exceeded its deadline (timeout {timeout_s:g}s){where}",
            step_id=in_flight[0] if in_flight else "",
        )

    def _end_transitions(self, run: run_pb2.Run, status: int, error: run_pb2.RunError) -> list[Payload]:
        """Finish the run early: in-flight steps are cancelled, unstarted ones skipped."""
        payloads: list[Payload] = []
        for step in run.steps:
            if step.status in IN_FLIGHT or step.status == S.STEP_STATUS_PENDING:
                step.status = S.STEP_STATUS_CANCELLED if step.status in IN_FLIGHT else S.STEP_STATUS_SKIPPED
                for field in ("retry_delay", "next_attempt_time"):
                    step.ClearField(field)
                step.end_time.CopyFrom(now())
                payloads.append({"step_updated": run_pb2.StepUpdated(step=step)})
        run.status = status  # type: ignore[assignment]
        run.error.CopyFrom(error)
        run.end_time.CopyFrom(now())
        payloads.append(self._status_payload(run))
        return payloads

    # -- persistence -----------------------------------------------------------------------

    @staticmethod
    def _status_payload(run: run_pb2.Run) -> Payload:
        change = run_pb2.RunStatusChanged(status=run.status)
        if run.status == S.RUN_STATUS_SUCCEEDED:
            change.result.CopyFrom(run.result)
        if run.status in (S.RUN_STATUS_FAILED, S.RUN_STATUS_CANCELLED):
            change.error.CopyFrom(run.error)
        return {"status_changed": change}

    @staticmethod
    def _next_event(run: run_pb2.Run, at: timestamp_pb2.Timestamp, **payload: object) -> run_pb2.RunEvent:
        run.last_seq += 1
        return run_pb2.RunEvent(run_id=run.run_id, seq=run.last_seq, time=at, **payload)  # type: ignore[arg-type]

    async def _commit(self, run: run_pb2.Run, *payloads: Payload) -> None:
        """Save the run with events for `payloads`; durable (and published) when this returns."""
        await self._save(run, *payloads)

    def _save(self, run: run_pb2.Run, *payloads: Payload) -> asyncio.Future[None]:
        """Queue the save and return its future at once; the events are published when it
        commits. A caller may go on without awaiting it (where nothing would be lost if the
        executor died before it commits) because a run's saves commit in call order and a
        failed save fails those queued after it: awaiting a later save answers for this one."""
        previous = self._last_save.get(run.run_id)
        if previous is not None and previous.done() and not previous.cancelled() and previous.exception():
            raise previous.exception()  # type: ignore[misc]
        # Seq numbers are assigned and the snapshot taken synchronously here (store.save queues
        # the save at the call), so concurrent steps of one run still produce 1, 2, 3 ... in order.
        at = now()
        run.update_time.CopyFrom(at)
        events = [self._next_event(run, at, **p) for p in payloads]
        lease = self._leases.get(run.run_id)
        if lease is None:
            raise LeaseLost(run.run_id)
        saved = self._store.save(run, events, lease)
        self._last_save[run.run_id] = saved
        run_id = run.run_id

        def published(future: asyncio.Future[None]) -> None:
            # exception() also marks a failure retrieved when nobody awaits this save.
            if not future.cancelled() and future.exception() is None:
                self._hub.publish(run_id, events)

        saved.add_done_callback(published)
        return saved


_PHRASES = {
    S.RUN_STATUS_PENDING: "is pending",
    S.RUN_STATUS_PLANNING: "is being planned",
    S.RUN_STATUS_RUNNING: "is still running",
    S.RUN_STATUS_SUCCEEDED: "has already succeeded",
    S.RUN_STATUS_FAILED: "has failed",
    S.RUN_STATUS_CANCELLED: "was cancelled",
}


def _status_phrase(status: int) -> str:
    """A run's status as the rest of a sentence ("run X has already succeeded")."""
    return _PHRASES.get(status, f"is {render.status(status)}")


def _reset_step(step: run_pb2.StepState) -> None:
    step.status = S.STEP_STATUS_PENDING
    for field in ("error", "end_time", "retry_delay", "next_attempt_time", "output"):
        step.ClearField(field)


def _cancelled_error() -> run_pb2.RunError:
    return run_pb2.RunError(
        code="CANCELLED", reason="RUN_CANCELLED", message="run was cancelled by CancelRun"
    )
