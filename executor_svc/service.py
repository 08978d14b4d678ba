"""RunService as served by the executor: request validation, who may see and change each run,
then the engine and the store.

Every call is for a principal (`current_principal()`, set from what the gateway says once it
presented the internal credential; `local`, with every role, when no keys are configured). A run
another principal owns does not exist for the caller (NOT_FOUND, the same answer as for an id
that was never used), unless the caller is an approver (sees it, decides its steps) or an admin
(everything). An approver who may see a run but not cancel or retry it gets PERMISSION_DENIED.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import AsyncIterator, Callable

import grpc

from agentrt.client.errors import InvalidArgument, NotFound, PermissionDenied
from agentrt.client.text import clip
from agentrt.config import Settings
from agentrt.core.principals import ALL_OWNERS, MAX_NAME_CHARS, Principal
from agentrt.core.runstate import TERMINAL, is_terminal_event
from agentrt.server.internal import current_principal
from agentrt.server.periodic import wait_event
from agentrt.v1 import agent_pb2, run_pb2, run_pb2_grpc
from executor_svc import metrics
from executor_svc.engine import Engine
from executor_svc.hub import EventHub
from executor_svc.retry import duration_problem, validate_run_policy
from executor_svc.store import PageCursor, RunStore, page_cursor_of

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
MAX_IDEMPOTENCY_KEY_CHARS = 200
MAX_RUN_ID_CHARS = 64
NUL_MESSAGE = "must not contain NUL characters"
# A page of ListRuns stops growing at this many bytes (it always holds at least one run, which
# the executor keeps under max_run_bytes): clients' default limit on a message is 4 MiB.
MAX_PAGE_BYTES = 3 * 1024 * 1024
_MAX_INT64 = 2**63 - 1
WATCH_BATCH = 256
MAX_REJECT_REASON_CHARS = 1000
# Watchers also re-check the store this often without a wake-up, so events written by another
# process (a restarted or a second executor) still reach them.
WATCH_POLL_S = 2.0
_MODES = {
    "auto": agent_pb2.RUN_MODE_AUTO,
    "plan": agent_pb2.RUN_MODE_PLAN,
    "agent": agent_pb2.RUN_MODE_AGENT,
}


class RunServicer(run_pb2_grpc.RunServiceServicer):
    def __init__(self, engine: Engine, store: RunStore, hub: EventHub, settings: Settings) -> None:
        self._engine = engine
        self._store = store
        self._hub = hub
        self._settings = settings

    async def CreateRun(
        self, request: run_pb2.CreateRunRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.CreateRunResponse:
        prompt = request.prompt.strip()
        violations = []
        if not prompt:
            violations.append(("prompt", "must not be empty"))
        elif len(prompt) > self._settings.max_prompt_chars:
            violations.append(("prompt", f"must be at most {self._settings.max_prompt_chars} characters"))
        elif "\x00" in prompt:
            violations.append(("prompt", NUL_MESSAGE))
        if not 0 <= request.max_steps <= self._settings.max_steps_limit:
            violations.append(
                ("max_steps", f"must be between 0 (default) and {self._settings.max_steps_limit}")
            )
        if len(request.idempotency_key) > MAX_IDEMPOTENCY_KEY_CHARS:
            violations.append(("idempotency_key", f"must be at most {MAX_IDEMPOTENCY_KEY_CHARS} characters"))
        elif "\x00" in request.idempotency_key:
            violations.append(("idempotency_key", NUL_MESSAGE))
        max_s = self._settings.max_run_timeout_s
        violations += validate_run_policy(request.retry_policy, max_s)
        timeout_s = None
        if request.HasField("timeout"):
            if problem := duration_problem(request.timeout, max_s, allow_zero=False):
                violations.append(("timeout", problem))
            else:
                timeout_s = request.timeout.ToNanoseconds() / 1e9
        if request.mode not in agent_pb2.RunMode.values():
            violations.append(("mode", f"unknown mode {request.mode}"))
        budgets = self._budgets(request.budgets, violations)
        if request.approval_policy not in run_pb2.ApprovalPolicy.values():
            violations.append(("approval_policy", f"unknown policy {request.approval_policy}"))
        approval_timeout_s = 0.0
        if request.HasField("approval_timeout"):
            if problem := duration_problem(request.approval_timeout, max_s, allow_zero=False):
                violations.append(("approval_timeout", problem))
            else:
                approval_timeout_s = request.approval_timeout.ToNanoseconds() / 1e9
        mode = request.mode or _MODES[self._settings.default_mode]
        if violations:
            raise InvalidArgument(
                "invalid CreateRunRequest: " + "; ".join(f"{f} {d}" for f, d in violations),
                violations=violations,
            )
        max_steps = request.max_steps or self._settings.default_max_steps
        policy = request.retry_policy if request.HasField("retry_policy") else None
        run = await self._engine.create_run(
            prompt,
            max_steps,
            request.idempotency_key,
            policy,
            timeout_s,
            mode=mode,
            owner=current_principal().name,
            budgets=budgets,
            approval_policy=request.approval_policy,
            approval_timeout_s=approval_timeout_s,
        )
        return run_pb2.CreateRunResponse(run=run)

    def _budgets(self, asked: agent_pb2.Budgets, violations: list[tuple[str, str]]) -> agent_pb2.Budgets:
        """The request's budgets, each unset one from the server's defaults; past a limit is bad input."""
        defaults, limits = self._settings.agent_budgets, self._settings.agent_budget_limits
        budgets = agent_pb2.Budgets()
        for name in type(defaults).model_fields:
            value, limit = getattr(asked, name), getattr(limits, name)
            if not math.isfinite(value) or value < 0:
                violations.append((f"budgets.{name}", "must be >= 0 (0 uses the server default)"))
            elif value > limit:
                violations.append(
                    (f"budgets.{name}", f"must be at most {limit:g} (AGENTRT_AGENT_BUDGET_LIMITS)")
                )
            else:
                setattr(budgets, name, value or getattr(defaults, name))
        return budgets

    async def GetRun(
        self, request: run_pb2.GetRunRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.GetRunResponse:
        if not current_principal().is_admin:
            # Who owns it first: another principal's run is never read (nor timed as read).
            await self._authorize(request.run_id, Principal.can_see, "see")
        return run_pb2.GetRunResponse(run=await self._get(request.run_id))

    async def ListRuns(
        self, request: run_pb2.ListRunsRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.ListRunsResponse:
        if request.page_size < 0:
            raise InvalidArgument("page_size must be >= 0", violations=[("page_size", "negative")])
        if request.status not in run_pb2.RunStatus.values():
            raise InvalidArgument(
                f"unknown status {request.status}", violations=[("status", "unknown value")]
            )
        owner = _listed_owner(current_principal(), request.owner)
        page_size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        after = _decode_token(request.page_token, request.status) if request.page_token else None
        runs = await self._store.list_runs(page_size + 1, after, request.status, owner)
        more = len(runs) > page_size
        runs = runs[:page_size]
        size = 0
        for count, run in enumerate(runs):
            size += run.ByteSize()
            if count and size > MAX_PAGE_BYTES:  # the page ends early rather than overflow
                runs, more = runs[:count], True
                break
        token = _encode_token(page_cursor_of(runs[-1]), request.status) if more else ""
        return run_pb2.ListRunsResponse(runs=runs, next_page_token=token)

    async def CancelRun(
        self, request: run_pb2.CancelRunRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.CancelRunResponse:
        await self._authorize(request.run_id, Principal.can_manage, "cancel")
        return run_pb2.CancelRunResponse(run=await self._engine.cancel_run(request.run_id))

    async def RetryRun(
        self, request: run_pb2.RetryRunRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.RetryRunResponse:
        await self._authorize(request.run_id, Principal.can_manage, "retry")
        return run_pb2.RetryRunResponse(run=await self._engine.retry_run(request.run_id))

    async def ApproveStep(
        self, request: run_pb2.ApproveStepRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.ApproveStepResponse:
        _require_run_id(request.run_id)
        _require_step_id(request.step_id)
        owner = await self._authorize(request.run_id, Principal.can_decide, "decide on")
        if request.HasField("arguments") and not current_principal().can_manage(owner):
            # Edited arguments would run as the owner's call (its todos, its context): an approver
            # decides on what the owner's run asked for, and does not act as the owner.
            raise PermissionDenied(
                f"run {request.run_id} belongs to another principal: approve the call as it is, or "
                "reject it; only its owner or an admin may edit its arguments",
                reason="NOT_RUN_OWNER",
            )
        if (
            request.HasField("arguments")
            and request.arguments.ByteSize() > self._settings.max_tool_output_bytes
        ):
            raise InvalidArgument("edited arguments are too large", violations=[("arguments", "too large")])
        arguments = request.arguments if request.HasField("arguments") else None
        run = await self._engine.decide_step(
            request.run_id, request.step_id, current_principal().name, approve=True, arguments=arguments
        )
        return run_pb2.ApproveStepResponse(run=run)

    async def RejectStep(
        self, request: run_pb2.RejectStepRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.RejectStepResponse:
        _require_run_id(request.run_id)
        _require_step_id(request.step_id)
        await self._authorize(request.run_id, Principal.can_decide, "decide on")
        if len(request.reason) > MAX_REJECT_REASON_CHARS or "\x00" in request.reason:
            raise InvalidArgument(
                f"reason must be at most {MAX_REJECT_REASON_CHARS} characters, without NUL",
                violations=[("reason", "too long or NUL")],
            )
        run = await self._engine.decide_step(
            request.run_id, request.step_id, current_principal().name, approve=False, reason=request.reason
        )
        return run_pb2.RejectStepResponse(run=run)

    async def WatchRun(
        self, request: run_pb2.WatchRunRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        if request.after_seq < 0:
            raise InvalidArgument("after_seq must be >= 0", violations=[("after_seq", "negative")])
        principal = current_principal()
        if not principal.is_admin:  # (an admin, `local` among them, sees every run that exists)
            await self._authorize(request.run_id, Principal.can_see, "watch")
        elif not self._hub.holds(request.run_id):  # else the run exists: no need to look it up
            await self._progress(request.run_id)
        metrics.WATCHERS.inc()
        try:
            async for response in self._tail(request.run_id, request.after_seq):
                yield response
        finally:
            metrics.WATCHERS.dec()

    async def _tail(self, run_id: str, cursor: int) -> AsyncIterator[run_pb2.WatchRunResponse]:
        """Stored events after `cursor`, then live ones, until the run's final terminal event;
        transient events (hub.py) as they come, between stored ones."""
        sent = 0  # transient events already sent after the stored event `cursor`
        while True:
            wakeup = self._hub.wakeup(run_id)
            transient = self._hub.transient_after(run_id, cursor, sent)
            for event in transient:
                yield run_pb2.WatchRunResponse(event=event)
            sent += len(transient)
            events = self._hub.events_after(run_id, cursor)
            # Memory holds a run's latest events while this replica drives it and for a while
            # after it ended here: then neither "nothing new" nor "ended" needs the store.
            in_memory = events is not None
            if events is None:  # behind the in-memory ring: read from the store
                events = await self._store.list_events(run_id, cursor, WATCH_BATCH)
            for event in events:
                yield run_pb2.WatchRunResponse(event=event)
                cursor, sent = event.seq, 0
            if in_memory:
                if self._hub.ended(run_id, cursor):
                    return
            elif not events or is_terminal_event(events[-1]):
                # Ended unless RetryRun restarted the run since: then keep streaming.
                status, last_seq = await self._progress(run_id)
                if status in TERMINAL and last_seq <= cursor:
                    return
            if events or transient:
                continue
            await wait_event(wakeup, WATCH_POLL_S)

    async def _authorize(self, run_id: str, may: Callable[[Principal, str], bool], action: str) -> str:
        """The run's owner; NOT_FOUND unless the caller may see the run, PERMISSION_DENIED when it
        may see it but not `may` (an approver cancelling another principal's run)."""
        _require_run_id(run_id)
        principal = current_principal()
        owner = await self._store.get_owner(run_id)
        if owner is None or not principal.can_see(owner):
            raise _not_found(run_id)
        if not may(principal, owner):
            raise PermissionDenied(
                f"run {run_id} belongs to another principal: '{principal.name}' may not {action} it",
                reason="NOT_RUN_OWNER",
            )
        return owner

    async def _progress(self, run_id: str) -> tuple[int, int]:
        _require_run_id(run_id)
        progress = await self._store.get_progress(run_id)
        if progress is None:
            raise _not_found(run_id)
        return progress

    async def _get(self, run_id: str) -> run_pb2.Run:
        _require_run_id(run_id)
        run = await self._store.get_run(run_id)
        if run is None:
            raise _not_found(run_id)
        return run


def _not_found(run_id: str) -> NotFound:
    # One answer for "no such run" and "another principal's run": ids reveal nothing.
    return NotFound(f"run {run_id} not found", reason="RUN_NOT_FOUND")


def _listed_owner(principal: Principal, asked: str) -> str | None:
    """Whose runs a ListRuns lists: the caller's own unless it asks for another owner (or "*",
    every owner: None), which only approvers and admins may."""
    if not asked or asked == principal.name:
        return principal.name
    if len(asked) > MAX_NAME_CHARS or not asked.isprintable():
        raise InvalidArgument(
            f"owner {clip(asked, 80)!r} is not a principal's name",
            violations=[("owner", f"at most {MAX_NAME_CHARS} printable characters, or '*'")],
        )
    if not principal.is_approver:
        raise PermissionDenied(
            "only an approver or an admin may list other principals' runs",
            reason="NOT_RUN_OWNER",
        )
    return None if asked == ALL_OWNERS else asked


def _require_step_id(step_id: str) -> None:
    if not step_id or len(step_id) > MAX_RUN_ID_CHARS or not step_id.isprintable():
        raise InvalidArgument(
            f"step_id {clip(step_id, 80)!r} is not a step id",
            violations=[("step_id", f"1 to {MAX_RUN_ID_CHARS} printable characters")],
        )


def _require_run_id(run_id: str) -> None:
    if not run_id:
        raise InvalidArgument("run_id is required", violations=[("run_id", "must not be empty")])
    # Run ids are 32 hex characters; anything far off is bad input, not an unknown run (and is
    # never echoed whole or handed to the database: PostgreSQL refuses NUL in text).
    if len(run_id) > MAX_RUN_ID_CHARS or not run_id.isprintable():
        raise InvalidArgument(
            f"run_id {clip(run_id, 80)!r} is not a run id",
            violations=[("run_id", f"at most {MAX_RUN_ID_CHARS} printable characters")],
        )


def _encode_token(cursor: PageCursor, status: int) -> str:
    raw = json.dumps({"t": cursor.create_time_us, "id": cursor.run_id, "s": status}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode_token(token: str, status: int) -> PageCursor:
    invalid = InvalidArgument("invalid page_token", violations=[("page_token", "not a token from ListRuns")])
    if len(token) > 512:
        raise invalid
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        t, run_id, token_status = data["t"], data["id"], data["s"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise invalid from None
    # Exactly the types _encode_token writes: a float (1e400, Infinity) or an int past 64 bits
    # would reach the database as a value it cannot compare.
    if not (
        type(t) is int
        and 0 <= t <= _MAX_INT64
        and type(run_id) is str
        and len(run_id) <= MAX_RUN_ID_CHARS
        and run_id.isprintable()
        and type(token_status) is int
    ):
        raise invalid
    cursor = PageCursor(t, run_id)
    if token_status != status:
        raise InvalidArgument(
            "page_token belongs to a listing with a different status filter",
            violations=[("page_token", "status filter changed")],
        )
    return cursor
