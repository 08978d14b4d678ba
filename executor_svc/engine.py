"""The run engine: drives each run from pending to a terminal status.

One asyncio task per active run owns that run's in-memory `Run`; every transition is saved with
its events in one store transaction (seq assigned here, +1 per event) and then announced on the
hub. Runs left unfinished by a stopped or killed executor are resumed on start: succeeded steps
are kept, and a step that was in flight is re-invoked with the same idempotency key, so
tools_svc returns its recorded result instead of repeating the side effect.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import grpc
import structlog
from google.protobuf import timestamp_pb2

from agentrt.config import Settings
from agentrt.errors import AlreadyExists, ErrorDetails, FailedPrecondition, NotFound
from agentrt.v1 import (
    planner_service_pb2,
    planner_service_pb2_grpc,
    run_pb2,
    tool_service_pb2,
    tool_service_pb2_grpc,
)
from executor_svc.hub import EventHub
from executor_svc.plans import InvalidPlan, validate_plan
from executor_svc.store import TERMINAL, RunStore

log = structlog.get_logger("executor_svc.engine")

S = run_pb2


class RunFailure(Exception):
    """Ends a run as FAILED with `error`."""

    def __init__(self, error: run_pb2.RunError) -> None:
        super().__init__(error.message)
        self.error = error


def now() -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    ts.FromNanoseconds(time.time_ns())
    return ts


def status_name(status: int) -> str:
    return run_pb2.RunStatus.Name(status).removeprefix("RUN_STATUS_").lower()


class Engine:
    def __init__(
        self,
        store: RunStore,
        hub: EventHub,
        planner: planner_service_pb2_grpc.PlannerServiceStub,
        tools: tool_service_pb2_grpc.ToolServiceStub,
        settings: Settings,
    ) -> None:
        self._store = store
        self._hub = hub
        self._planner = planner
        self._tools = tools
        self._settings = settings
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._cancel_requested: set[str] = set()

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every run a previous executor left unfinished."""
        for run_id in await self._store.unfinished_run_ids():
            log.info("run.resume", run_id=run_id)
            self._spawn(run_id)

    async def close(self) -> None:
        """Stop driving runs without changing their stored state: they resume on next start."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _spawn(self, run_id: str) -> None:
        task = asyncio.create_task(self._drive(run_id), name=f"run-{run_id}")
        self._tasks[run_id] = task

    # -- API -------------------------------------------------------------------------------

    async def create_run(self, prompt: str, max_steps: int, idempotency_key: str) -> run_pb2.Run:
        created = now()
        run = run_pb2.Run(
            run_id=uuid.uuid4().hex,
            prompt=prompt,
            status=S.RUN_STATUS_PENDING,
            max_steps=max_steps,
            idempotency_key=idempotency_key,
            create_time=created,
            update_time=created,
        )
        event = self._next_event(
            run, created, status_changed=run_pb2.RunStatusChanged(status=S.RUN_STATUS_PENDING)
        )
        stored, is_new = await self._store.create_run(run, [event])
        if not is_new:
            if (stored.prompt, stored.max_steps) != (prompt, max_steps):
                raise AlreadyExists(
                    f"idempotency key '{idempotency_key}' was already used for run {stored.run_id} "
                    "with a different prompt or max_steps",
                    reason="IDEMPOTENCY_KEY_REUSED",
                    metadata={"run_id": stored.run_id},
                )
            return stored
        self._hub.publish(run.run_id)
        self._spawn(run.run_id)
        return run

    async def cancel_run(self, run_id: str) -> run_pb2.Run:
        run = await self._store.get_run(run_id)
        if run is None:
            raise NotFound(f"run {run_id} not found", reason="RUN_NOT_FOUND")
        if run.status in TERMINAL:
            raise FailedPrecondition(
                f"run {run_id} already finished ({status_name(run.status)}); "
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
            await self._commit(run, *self._cancel_transitions(run))
        run = await self._store.get_run(run_id)
        assert run is not None
        if run.status != S.RUN_STATUS_CANCELLED:
            raise FailedPrecondition(
                f"run {run_id} finished ({status_name(run.status)}) before it could be cancelled",
                reason="RUN_FINISHED",
            )
        return run

    # -- driving a run ---------------------------------------------------------------------

    async def _drive(self, run_id: str) -> None:
        structlog.contextvars.bind_contextvars(run_id=run_id)
        run = await self._store.get_run(run_id)
        if run is None or run.status in TERMINAL:
            self._tasks.pop(run_id, None)
            return
        deadline: asyncio.Timeout | None = None
        try:
            try:
                started = run.start_time.ToNanoseconds() / 1e9 if run.HasField("start_time") else time.time()
                remaining = max(0.0, started + self._settings.run_timeout_s - time.time())
                async with asyncio.timeout(remaining) as deadline:
                    await self._execute(run)
            except TimeoutError:
                if deadline is None or not deadline.expired():
                    raise
                raise RunFailure(self._run_deadline_error(run)) from None
        except RunFailure as failure:
            await self._fail(run, failure.error)
        except asyncio.CancelledError:
            if run_id not in self._cancel_requested:
                raise  # executor shutdown: leave the run as stored, it resumes on restart
            await self._commit(run, *self._cancel_transitions(run))
            log.info("run.cancelled")
        except Exception as exc:
            log.exception("run.crashed")
            await self._fail(
                run, run_pb2.RunError(code="INTERNAL", reason="INTERNAL", message=f"executor error: {exc!r}")
            )
        finally:
            self._tasks.pop(run_id, None)
            self._cancel_requested.discard(run_id)

    async def _execute(self, run: run_pb2.Run) -> None:
        if run.status == S.RUN_STATUS_PENDING:
            run.status = S.RUN_STATUS_PLANNING
            run.start_time.CopyFrom(now())
            await self._commit(run, self._status_payload(run))
        if not run.HasField("plan"):
            plan = await self._plan(run)
            run.plan.CopyFrom(plan)
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
            await self._commit(run, {"plan_created": run_pb2.PlanCreated(plan=plan)})
        if run.status != S.RUN_STATUS_RUNNING:
            run.status = S.RUN_STATUS_RUNNING
            await self._commit(run, self._status_payload(run))

        # The plan was validated against the catalog when it was made; here we only need its order.
        order = validate_plan(run.plan, {s.tool for s in run.plan.steps}, len(run.plan.steps))
        states = {s.step_id: s for s in run.steps}
        for step_id in order:
            if states[step_id].status != S.STEP_STATUS_SUCCEEDED:
                await self._run_step(run, states[step_id])

        run.result.CopyFrom(run.steps[-1].output)
        run.status = S.RUN_STATUS_SUCCEEDED
        run.end_time.CopyFrom(now())
        await self._commit(run, self._status_payload(run))
        log.info("run.succeeded")

    async def _plan(self, run: run_pb2.Run) -> run_pb2.Plan:
        timeout = self._settings.planner_timeout_s
        try:
            tools = await self._tools.ListTools(tool_service_pb2.ListToolsRequest(), timeout=timeout)
            response = await self._planner.CreatePlan(
                planner_service_pb2.CreatePlanRequest(
                    prompt=run.prompt, tools=tools.tools, max_steps=run.max_steps
                ),
                timeout=timeout,
            )
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

    async def _run_step(self, run: run_pb2.Run, step: run_pb2.StepState) -> None:
        structlog.contextvars.bind_contextvars(step_id=step.step_id)
        step.status = S.STEP_STATUS_RUNNING
        step.attempts += 1
        step.ClearField("error")
        if not step.HasField("start_time"):
            step.start_time.CopyFrom(now())
        await self._commit(run, {"step_updated": run_pb2.StepUpdated(step=step)})
        request = tool_service_pb2.InvokeToolRequest(
            tool=step.tool, arguments=step.arguments, idempotency_key=f"{run.run_id}/{step.step_id}"
        )
        try:
            response = await self._tools.InvokeTool(request, timeout=self._settings.step_timeout_s)
        except grpc.aio.AioRpcError as err:
            error = self._step_error(step, ErrorDetails.from_rpc_error(err))
            step.status = S.STEP_STATUS_FAILED
            step.error.CopyFrom(error)
            step.end_time.CopyFrom(now())
            await self._commit(run, {"step_updated": run_pb2.StepUpdated(step=step)})
            raise RunFailure(error) from None
        finally:
            structlog.contextvars.unbind_contextvars("step_id")
        step.status = S.STEP_STATUS_SUCCEEDED
        step.output.CopyFrom(response.output)
        step.end_time.CopyFrom(now())
        await self._commit(run, {"step_updated": run_pb2.StepUpdated(step=step)})

    def _step_error(self, step: run_pb2.StepState, details: ErrorDetails) -> run_pb2.RunError:
        if details.code == grpc.StatusCode.DEADLINE_EXCEEDED:
            message = (
                f"step {step.step_id} ({step.tool}) exceeded the step deadline "
                f"(step_timeout_s={self._settings.step_timeout_s:g})"
            )
            reason = "STEP_DEADLINE_EXCEEDED"
        else:
            message = f"step {step.step_id} ({step.tool}) failed: {details.message}"
            reason = details.reason or details.code.name
        return run_pb2.RunError(code=details.code.name, reason=reason, message=message, step_id=step.step_id)

    def _run_deadline_error(self, run: run_pb2.Run) -> run_pb2.RunError:
        running = [s.step_id for s in run.steps if s.status == S.STEP_STATUS_RUNNING]
        where = (
            f" while step {running[0]} was running"
            if running
            else (" while planning" if not run.steps else "")
        )
        return run_pb2.RunError(
            code="DEADLINE_EXCEEDED",
            reason="RUN_DEADLINE_EXCEEDED",
            message=f"run exceeded the run deadline (run_timeout_s={self._settings.run_timeout_s:g}){where}",
            step_id=running[0] if running else "",
        )

    async def _fail(self, run: run_pb2.Run, error: run_pb2.RunError) -> None:
        payloads = []
        for step in run.steps:
            if step.status in (S.STEP_STATUS_PENDING, S.STEP_STATUS_RUNNING):
                # A running step here was interrupted by the run deadline: its call was cancelled.
                step.status = (
                    S.STEP_STATUS_SKIPPED if step.status == S.STEP_STATUS_PENDING else S.STEP_STATUS_CANCELLED
                )
                step.end_time.CopyFrom(now())
                payloads.append({"step_updated": run_pb2.StepUpdated(step=step)})
        run.status = S.RUN_STATUS_FAILED
        run.error.CopyFrom(error)
        run.end_time.CopyFrom(now())
        payloads.append(self._status_payload(run))
        await self._commit(run, *payloads)
        log.info("run.failed", reason=error.reason, error=error.message)

    def _cancel_transitions(self, run: run_pb2.Run) -> list[dict[str, object]]:
        payloads: list[dict[str, object]] = []
        for step in run.steps:
            if step.status in (S.STEP_STATUS_PENDING, S.STEP_STATUS_RUNNING):
                step.status = (
                    S.STEP_STATUS_CANCELLED if step.status == S.STEP_STATUS_RUNNING else S.STEP_STATUS_SKIPPED
                )
                step.end_time.CopyFrom(now())
                payloads.append({"step_updated": run_pb2.StepUpdated(step=step)})
        run.status = S.RUN_STATUS_CANCELLED
        run.error.CopyFrom(
            run_pb2.RunError(
                code="CANCELLED", reason="RUN_CANCELLED", message="run was cancelled by CancelRun"
            )
        )
        run.end_time.CopyFrom(now())
        payloads.append(self._status_payload(run))
        return payloads

    # -- persistence -----------------------------------------------------------------------

    @staticmethod
    def _status_payload(run: run_pb2.Run) -> dict[str, object]:
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

    async def _commit(self, run: run_pb2.Run, *payloads: dict[str, object]) -> None:
        at = now()
        run.update_time.CopyFrom(at)
        events = [self._next_event(run, at, **p) for p in payloads]
        await self._store.save(run, events)
        self._hub.publish(run.run_id)


def is_terminal_event(event: run_pb2.RunEvent) -> bool:
    return event.WhichOneof("kind") == "status_changed" and event.status_changed.status in TERMINAL
