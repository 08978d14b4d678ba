"""One step's call, from its arguments to its outcome: the one place that says what happens to a
step when a tool fails, times out, needs a person, or answers too much.

A step ends as a value (outcomes.py), never as an exception: `Succeeded`, `Failed(error)`
(retries spent, a bad reference, an output too large; the step is recorded FAILED) or `Waiting`
(a person must approve the call first; recorded AWAITING_APPROVAL). Each attempt ends as a value
too: `RetryAfter(error, delay)` for a retryable failure with attempts left, which is recorded as
RETRYING with its delay, slept, and tried again under the same idempotency key.

A tool that times out: the attempt's InvokeTool deadline is the step's timeout (the tool's
policy, else AGENTRT_STEP_TIMEOUT_S); DEADLINE_EXCEEDED is retryable, so the step is retried
with backoff until its attempts are spent, then fails with STEP_DEADLINE_EXCEEDED; a plan run
fails with it (or is replanned), an agent run shows it to the model. The run's own deadline
stops everything in between (RUN_DEADLINE_EXCEEDED, driver.py).

Only cancellation (CancelRun, a lost lease, shutdown) leaves by exception. The plan's DAG
(planrun.py) and the agent loop (agentloop.py) decide what an outcome means for the run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import grpc
import structlog
from google.protobuf import struct_pb2

from agentrt.config import ExecutorSettings
from agentrt.core import refs
from agentrt.core.errors import ErrorDetails
from agentrt.core.principals import LOCAL_NAME
from agentrt.core.values import dict_to_struct, struct_to_dict
from agentrt.server.metrics import series
from agentrt.server.tracing import span
from agentrt.v1 import run_pb2, tool_pb2, tool_service_pb2, tool_service_pb2_grpc
from executor_svc import metrics
from executor_svc.run import failures
from executor_svc.run import transitions as tr
from executor_svc.run.approvals import policy_for, reason_to_ask
from executor_svc.run.outcomes import AttemptOutcome, Failed, RetryAfter, StepOutcome, Succeeded, Waiting
from executor_svc.run.planning import Planning
from executor_svc.run.retry import StepPolicy, resolve_policy

log = structlog.get_logger("executor_svc.run.steps")
S = run_pb2
Commit = Callable[..., Awaitable[None]]
Pipeline = Callable[..., None]


def outputs_of(run: run_pb2.Run, step_ids: set[str]) -> dict[str, struct_pb2.Value]:
    """The stored outputs of those of `step_ids` that succeeded (refs.resolve explains a missing
    one, and converts only the part of an output a reference names)."""
    return {
        step.step_id: step.output
        for step in run.steps
        if step.step_id in step_ids and step.status == S.STEP_STATUS_SUCCEEDED
    }


class StepRunner:
    def __init__(
        self,
        *,
        commit: Commit,
        pipeline: Pipeline,
        planning: Planning,
        tools: tool_service_pb2_grpc.ToolServiceStub,
        settings: ExecutorSettings,
        publish: Callable[[run_pb2.RunEvent], None] = lambda event: None,
    ) -> None:
        self._commit = commit  # the run's saves: awaited (durable when it returns), or
        self._pipeline = pipeline  # queued while the work goes on (see Recorder.pipeline)
        self._planning = planning
        self._tools = tools
        self._settings = settings
        self._publish = publish  # transient events, to live watchers only

    async def plan_step(self, run: run_pb2.Run, step: run_pb2.StepState) -> StepOutcome:
        """A plan step: its references resolved, then the call. An approved step keeps the
        arguments the person saw (or edited)."""
        if step.approval.decision != run_pb2.APPROVAL_DECISION_APPROVED:
            error = self._resolve_arguments(run, step)
            if error is not None:
                return await self._fail(run, step, error)
        # A step no other step depends on (the last of a chain): nothing starts from its output
        # before the run ends, so its success may ride on the run's next save (see _attempt).
        last = not any(step.step_id in other.depends_on for other in run.steps)
        return await self.call(run, step, queue_success=last)

    async def call(
        self, run: run_pb2.Run, step: run_pb2.StepState, *, queue_success: bool = False
    ) -> StepOutcome:
        """Call the step's tool with its arguments, retrying as its policy says."""
        structlog.contextvars.bind_contextvars(step_id=step.step_id)
        policy = resolve_policy(self._settings, step.tool, run.retry_policy)
        if (outcome := await self._approval(run, step, policy)) is not None:
            return outcome
        request = _request(run, step)
        if step.status == S.STEP_STATUS_RETRYING:  # resumed mid-backoff: honour what was announced
            await asyncio.sleep(max(0.0, (step.next_attempt_time.ToNanoseconds() - time.time_ns()) / 1e9))
        while True:
            attempt = await self._attempt(run, step, request, policy, queue_success)
            if not isinstance(attempt, RetryAfter):
                return attempt
            await self._commit(run, tr.retry_later(step, attempt.error, attempt.delay_s))
            series(metrics.STEP_RETRIES, step.tool, attempt.error.code).inc()
            log.warning(
                "step.retry",
                attempt=step.attempts,
                code=attempt.error.code,
                delay_s=round(attempt.delay_s, 3),
            )
            await asyncio.sleep(attempt.delay_s)

    async def _attempt(
        self,
        run: run_pb2.Run,
        step: run_pb2.StepState,
        request: tool_service_pb2.InvokeToolRequest,
        policy: StepPolicy,
        queue_success: bool,
    ) -> AttemptOutcome:
        """One InvokeTool under the step's timeout: its success or failure recorded, or the
        retry it earns (recorded by the caller). A success is awaited while another step may
        start from its output: resumed after a crash, that step must be called again with the
        same arguments (and idempotency key); else it is queued (`queue_success`), to commit
        with the run's next save."""
        self._pipeline(run, tr.start_attempt(step))  # the call goes on while it commits
        request.context.attempt = step.attempts
        attributes = {
            "agentrt.step_id": step.step_id,
            "agentrt.tool": step.tool,
            "agentrt.attempt": step.attempts,
        }
        try:
            with span(f"step {step.step_id}", attributes):
                if self._planning.streams_progress(step.tool):
                    response = await self._streamed(run, step, request, policy)
                else:
                    response = await self._tools.InvokeTool(request, timeout=policy.timeout_s)
        except grpc.aio.AioRpcError as err:
            details = ErrorDetails.from_rpc_error(err)
            will_retry = policy.retries(details, step.attempts)
            error = failures.step_error(step, details, policy, will_retry)
            if will_retry:
                return RetryAfter(error, policy.delay(details, step.attempts))
            return await self._fail(run, step, error)
        if run.ByteSize() + 2 * response.output.ByteSize() > self._settings.max_run_bytes:
            # Twice: the last step's output is stored again as the run's result.
            what = f"its output ({response.output.ByteSize()} bytes)"
            return await self._fail(run, step, failures.too_large(step, what, self._settings.max_run_bytes))
        if queue_success:
            self._succeeded(run, step, response.output)  # see Recorder.pipeline
        else:
            await self._finish(run, step, S.STEP_STATUS_SUCCEEDED, output=response.output)
        return Succeeded()

    async def _streamed(
        self,
        run: run_pb2.Run,
        step: run_pb2.StepState,
        request: tool_service_pb2.InvokeToolRequest,
        policy: StepPolicy,
    ) -> tool_service_pb2.InvokeToolResponse:
        """InvokeToolStream: what the tool says of its work shown to live watchers as it comes
        (transient: a remote agent's words, never stored), then its result."""
        stream = self._tools.InvokeToolStream(
            tool_service_pb2.InvokeToolStreamRequest(invocation=request), timeout=policy.timeout_s
        )
        async for message in stream:
            if message.HasField("result"):
                return message.result
            self._publish(tr.step_progress(run, step.step_id, message.progress.message))
        # A stream that ends with no result: as a call that dropped (retried as one).
        no_result = "the tool's stream ended with no result"
        raise grpc.aio.AioRpcError(
            grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), no_result
        )

    async def _approval(
        self, run: run_pb2.Run, step: run_pb2.StepState, policy: StepPolicy
    ) -> StepOutcome | None:
        """Waiting (recorded) when a person must approve the call first; None when it may run.
        The tool's annotations come from the catalog, waited for as the call would be."""
        if step.status == S.STEP_STATUS_AWAITING_APPROVAL:
            return Waiting()
        approval = policy_for(self._settings, run, step)
        if approval is None:
            return None
        try:
            catalog = await self._planning.tools(policy)
        except grpc.aio.AioRpcError as err:
            error = failures.step_error(step, ErrorDetails.from_rpc_error(err), policy, False)
            return await self._fail(run, step, error)
        why = reason_to_ask(approval, step, catalog)
        if why is None:
            return None
        timeout_s = (
            run.approval_timeout.ToNanoseconds() / 1e9
            if run.HasField("approval_timeout")
            else self._settings.approval_timeout_s
        )
        await self._commit(run, tr.await_approval(step, why, timeout_s))
        log.info("step.awaiting_approval", reason=why)
        return Waiting()

    def _resolve_arguments(self, run: run_pb2.Run, step: run_pb2.StepState) -> run_pb2.RunError | None:
        """Fill the step's arguments from its plan step, references resolved just before it runs
        (the plan keeps the references themselves); the error when a reference does not resolve
        or the result is too large. Only the outputs a step references are converted."""
        plan_step = next(s for s in run.plan.steps if s.id == step.step_id)
        try:
            if not refs.may_reference(plan_step.arguments):
                step.arguments.CopyFrom(plan_step.arguments)  # nothing to resolve: no conversion
            else:
                arguments = struct_to_dict(plan_step.arguments)
                referenced = refs.referenced_steps(arguments)
                if referenced:
                    resolved = refs.resolve(arguments, outputs_of(run, referenced))
                    step.arguments.CopyFrom(dict_to_struct(resolved))
                else:
                    step.arguments.CopyFrom(plan_step.arguments)
        except refs.InvalidReference as exc:
            return failures.invalid_reference(step, str(exc))
        if run.ByteSize() > self._settings.max_run_bytes:
            size = step.arguments.ByteSize()
            what = f"its arguments ({size} bytes, with references resolved)"
            step.arguments.CopyFrom(plan_step.arguments)  # the failed step is stored, not its bulk
            return failures.too_large(step, what, self._settings.max_run_bytes)
        return None

    async def _fail(self, run: run_pb2.Run, step: run_pb2.StepState, error: run_pb2.RunError) -> Failed:
        await self._finish(run, step, S.STEP_STATUS_FAILED, error=error)
        return Failed(error)

    async def _finish(
        self,
        run: run_pb2.Run,
        step: run_pb2.StepState,
        status: int,
        *,
        error: run_pb2.RunError | None = None,
        output: object | None = None,
    ) -> None:
        await self._commit(run, self._finished(step, status, error=error, output=output))

    def _succeeded(self, run: run_pb2.Run, step: run_pb2.StepState, output: object) -> None:
        self._pipeline(run, self._finished(step, S.STEP_STATUS_SUCCEEDED, output=output))

    def _finished(
        self,
        step: run_pb2.StepState,
        status: int,
        *,
        error: run_pb2.RunError | None = None,
        output: object | None = None,
    ) -> tr.Payload:
        payload = tr.finish_step(step, status, error=error, output=output)
        elapsed = (step.end_time.ToNanoseconds() - step.start_time.ToNanoseconds()) / 1e9
        series(metrics.STEP_DURATION, step.tool, run_pb2.StepStatus.Name(status)).observe(elapsed)
        return payload


def _request(run: run_pb2.Run, step: run_pb2.StepState) -> tool_service_pb2.InvokeToolRequest:
    """The step's InvokeTool: its idempotency key is the same for every attempt (a revised plan
    reuses step ids, so its generation is part of the key), and its context says whom it is for
    (tools keep state per principal: the todo list is the owner's)."""
    generation = f"/r{run.replan_count}" if run.replan_count else ""
    key = f"{run.run_id}{generation}/{step.step_id}"
    return tool_service_pb2.InvokeToolRequest(
        tool=step.tool,
        arguments=step.arguments,
        idempotency_key=key,
        context=tool_pb2.CallContext(
            principal=run.owner or LOCAL_NAME, run_id=run.run_id, step_id=step.step_id, idempotency_key=key
        ),
    )
