"""RunService as served by the executor: request validation, who may see and change each run,
then the engine and the store.

Requests are checked against the protos' field rules (agentrt/core/fieldrules.py, the configured
limits read from this process's settings): the rules the gateway's OpenAPI document states, so a
request that document calls valid is never refused here for its fields.

Every call is for a principal (`current_principal()`, set from what the gateway says once it
presented the internal credential; `local`, with every role, when no keys are configured). A run
another principal owns does not exist for the caller (NOT_FOUND, the same answer as for an id
that was never used), unless the caller is an approver (sees it, decides its steps) or an admin
(everything). An approver who may see a run but not cancel or retry it gets PERMISSION_DENIED.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

import grpc

from agentrt.config import ExecutorSettings
from agentrt.core.errors import InvalidArgument, PermissionDenied
from agentrt.core.fieldrules import Rules
from agentrt.core.principals import ALL_OWNERS, Principal
from agentrt.core.runstate import TERMINAL, is_terminal_event
from agentrt.server.internal import current_principal
from agentrt.server.periodic import wait_event
from agentrt.v1 import agent_pb2, run_pb2, run_pb2_grpc
from executor_svc import metrics
from executor_svc.engine import Engine, run_not_found
from executor_svc.hub import EventHub
from executor_svc.store import PageCursor, RunStore, page_cursor_of
from executor_svc.threads import ThreadStore, thread_cursor_of, thread_not_found

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
# GetThread: the latest turns it returns unless asked for fewer, and at most.
DEFAULT_TURNS = 50
MAX_TURNS = 100
# A page of ListRuns stops growing at this many bytes (it always holds at least one run, which
# the executor keeps under max_run_bytes): clients' default limit on a message is 4 MiB.
MAX_PAGE_BYTES = 3 * 1024 * 1024
WATCH_BATCH = 256
# Watchers also re-check the store this often without a wake-up, so events written by another
# process (a restarted or a second executor) still reach them.
WATCH_POLL_S = 2.0
_MODES = {
    "auto": agent_pb2.RUN_MODE_AUTO,
    "plan": agent_pb2.RUN_MODE_PLAN,
    "agent": agent_pb2.RUN_MODE_AGENT,
}


class RunServicer(run_pb2_grpc.RunServiceServicer):
    def __init__(
        self, engine: Engine, store: RunStore, hub: EventHub, settings: ExecutorSettings, threads: ThreadStore
    ) -> None:
        self._engine = engine
        self._store = store
        self._threads = threads
        self._hub = hub
        self._settings = settings
        self._rules = Rules(settings)

    async def CreateRun(
        self, request: run_pb2.CreateRunRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.CreateRunResponse:
        self._rules.check(request)  # every field: all of its violations in one answer
        prompt = request.prompt.strip()
        timeout_s = request.timeout.ToNanoseconds() / 1e9 if request.HasField("timeout") else None
        approval_timeout_s = (
            request.approval_timeout.ToNanoseconds() / 1e9 if request.HasField("approval_timeout") else 0.0
        )
        mode = request.mode or _MODES[self._settings.default_mode]
        budgets = self._budgets(request.budgets)
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
            thread_id=request.thread_id,
            multitask=request.multitask_strategy,
        )
        return run_pb2.CreateRunResponse(run=run)

    def _budgets(self, asked: agent_pb2.Budgets) -> agent_pb2.Budgets:
        """The request's budgets (within their rules: checked), each unset one from the server's
        defaults."""
        defaults = self._settings.agent_budgets
        budgets = agent_pb2.Budgets()
        for name in type(defaults).model_fields:
            setattr(budgets, name, getattr(asked, name) or getattr(defaults, name))
        return budgets

    async def GetRun(
        self, request: run_pb2.GetRunRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.GetRunResponse:
        self._rules.check(request)
        if not current_principal().is_admin:
            # Who owns it first: another principal's run is never read (nor timed as read).
            await self._authorize(request.run_id, Principal.can_see, "see")
        return run_pb2.GetRunResponse(run=await self._get(request.run_id))

    async def ListRuns(
        self, request: run_pb2.ListRunsRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.ListRunsResponse:
        after = _decode_token(request.page_token) if request.page_token else None
        self._rules.check(request)
        owner = _listed_owner(current_principal(), request.owner)
        page_size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        runs = await self._store.list_runs(page_size + 1, after, request.status, owner)
        more = len(runs) > page_size
        runs = runs[:page_size]
        size = 0
        for count, run in enumerate(runs):
            size += run.ByteSize()
            if count and size > MAX_PAGE_BYTES:  # the page ends early rather than overflow
                runs, more = runs[:count], True
                break
        token = _encode_token(page_cursor_of(runs[-1])) if more else ""
        return run_pb2.ListRunsResponse(runs=runs, next_page_token=token)

    async def CancelRun(
        self, request: run_pb2.CancelRunRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.CancelRunResponse:
        self._rules.check(request)
        await self._authorize(request.run_id, Principal.can_manage, "cancel")
        return run_pb2.CancelRunResponse(run=await self._engine.cancel_run(request.run_id))

    async def RetryRun(
        self, request: run_pb2.RetryRunRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.RetryRunResponse:
        self._rules.check(request)
        await self._authorize(request.run_id, Principal.can_manage, "retry")
        return run_pb2.RetryRunResponse(run=await self._engine.retry_run(request.run_id))

    async def ApproveStep(
        self, request: run_pb2.ApproveStepRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.ApproveStepResponse:
        self._rules.check(request)
        owner = await self._authorize(request.run_id, Principal.can_decide, "decide on")
        if request.HasField("arguments") and not current_principal().can_manage(owner):
            # Edited arguments would run as the owner's call (its todos, its context): an approver
            # decides on what the owner's run asked for, and does not act as the owner.
            raise PermissionDenied(
                f"run {request.run_id} belongs to another principal: approve the call as it is, or "
                "reject it; only its owner or an admin may edit its arguments",
                reason="NOT_RUN_OWNER",
            )
        # A size in protobuf bytes, as the outputs it becomes are bounded: not a field rule.
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
        self._rules.check(request)
        await self._authorize(request.run_id, Principal.can_decide, "decide on")
        run = await self._engine.decide_step(
            request.run_id, request.step_id, current_principal().name, approve=False, reason=request.reason
        )
        return run_pb2.RejectStepResponse(run=run)

    async def WatchRun(
        self, request: run_pb2.WatchRunRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        self._rules.check(request)
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
        # A watch that began while the run went on here sees its end come (whether it waited for
        # it or, behind, read it from memory with the events before it): that end needs no store.
        saw_it_run = self._hub.running(run_id)
        while True:
            wakeup = self._hub.wakeup(run_id)
            transient = self._hub.transient_after(run_id, cursor, sent)
            for event in transient:
                yield run_pb2.WatchRunResponse(event=event)
            sent += len(transient)
            events = self._hub.events_after(run_id, cursor)
            # Memory holds a run's latest events while this replica drives it and for a while
            # after it ended here: then "nothing new" never needs the store, nor an end the watch
            # saw come.
            in_memory = events is not None
            if events is None:  # behind the in-memory ring: read from the store
                events = await self._store.list_events(run_id, cursor, WATCH_BATCH)
            for event in events:
                yield run_pb2.WatchRunResponse(event=event)
                cursor, sent = event.seq, 0
            if in_memory:
                if self._hub.ended(run_id, cursor):
                    # A watch that begins after the end asks the store once: another replica may
                    # have restarted the run (RetryRun) just before, its notice not here yet.
                    if saw_it_run or await self._ended(run_id, cursor):
                        return
                    self._hub.forget(run_id)  # behind the store: read it from there on
                    continue
            elif (not events or is_terminal_event(events[-1])) and await self._ended(run_id, cursor):
                return  # (else RetryRun restarted the run since: keep streaming)
            if events or transient:
                continue
            saw_it_run = True  # (no end in memory: it runs, or another replica drives it)
            await wait_event(wakeup, WATCH_POLL_S)

    # -- threads -------------------------------------------------------------------------------

    async def CreateThread(
        self, request: run_pb2.CreateThreadRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.CreateThreadResponse:
        self._rules.check(request)  # the labels' count and form (field_rules.proto's map rules)
        metadata = dict(request.metadata)
        now_us = time.time_ns() // 1000
        thread = await self._threads.create(current_principal().name, metadata, now_us)
        return run_pb2.CreateThreadResponse(thread=thread)

    async def GetThread(
        self, request: run_pb2.GetThreadRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.GetThreadResponse:
        self._rules.check(request)
        await self._thread_owner(request.thread_id)
        page_size = min(request.page_size or DEFAULT_TURNS, MAX_TURNS)
        before = int(request.page_token) if request.page_token else None
        found = await self._threads.get(request.thread_id, page_size, before)
        if found is None:  # deleted meanwhile
            raise thread_not_found(request.thread_id)
        thread, below = found
        return run_pb2.GetThreadResponse(thread=thread, next_page_token=str(below) if below else "")

    async def ListThreads(
        self, request: run_pb2.ListThreadsRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.ListThreadsResponse:
        after = _decode_token(request.page_token) if request.page_token else None
        self._rules.check(request)
        page_size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        threads = await self._threads.list(current_principal().name, page_size + 1, after)
        token = _encode_token(thread_cursor_of(threads[page_size - 1])) if len(threads) > page_size else ""
        return run_pb2.ListThreadsResponse(threads=threads[:page_size], next_page_token=token)

    async def DeleteThread(
        self, request: run_pb2.DeleteThreadRequest, context: grpc.aio.ServicerContext
    ) -> run_pb2.DeleteThreadResponse:
        self._rules.check(request)
        await self._thread_owner(request.thread_id)
        await self._engine.delete_thread(request.thread_id)
        return run_pb2.DeleteThreadResponse()

    async def _thread_owner(self, thread_id: str) -> str:
        """A thread is its owner's (and an admin's): for anybody else it does not exist."""
        principal = current_principal()
        owner = await self._threads.owner(thread_id)
        if owner is None or not (owner == principal.name or principal.is_admin):
            raise thread_not_found(thread_id)
        return owner

    async def _authorize(self, run_id: str, may: Callable[[Principal, str], bool], action: str) -> str:
        """The run's owner; NOT_FOUND unless the caller may see the run, PERMISSION_DENIED when it
        may see it but not `may` (an approver cancelling another principal's run). `run_id` has
        passed its field rules (every RPC checks its request first)."""
        principal = current_principal()
        owner = await self._store.get_owner(run_id)
        if owner is None or not principal.can_see(owner):
            raise run_not_found(run_id)
        if not may(principal, owner):
            raise PermissionDenied(
                f"run {run_id} belongs to another principal: '{principal.name}' may not {action} it",
                reason="NOT_RUN_OWNER",
            )
        return owner

    async def _ended(self, run_id: str, cursor: int) -> bool:
        """Whether the store shows the run ended at or before event `cursor`."""
        status, last_seq = await self._progress(run_id)
        return status in TERMINAL and last_seq <= cursor

    async def _progress(self, run_id: str) -> tuple[int, int]:
        progress = await self._store.get_progress(run_id)
        if progress is None:
            raise run_not_found(run_id)
        return progress

    async def _get(self, run_id: str) -> run_pb2.Run:
        run = await self._store.get_run(run_id)
        if run is None:
            raise run_not_found(run_id)
        return run


def _listed_owner(principal: Principal, asked: str) -> str | None:
    """Whose runs a ListRuns lists: the caller's own unless it asks for another owner (or "*",
    every owner: None), which only approvers and admins may."""
    if not asked or asked == principal.name:
        return principal.name
    if not principal.is_approver:
        raise PermissionDenied(
            "only an approver or an admin may list other principals' runs",
            reason="NOT_RUN_OWNER",
        )
    return None if asked == ALL_OWNERS else asked


# The fixed field rules (none that names a setting), for the page token's parts.
_FIXED_RULES = Rules(None)


def _encode_token(cursor: PageCursor) -> str:
    """The position of a page's last run, "<create time in µs>.<run id>": the form the page_token
    rule states, so that every token of that form is one the listing can continue from."""
    token = f"{cursor.create_time_us}.{cursor.run_id}"
    if _FIXED_RULES.problem(run_pb2.ListRunsRequest.DESCRIPTOR, "page_token", token) is not None:
        # Run ids are uuid4 hex and create times 16 digits until the year 2286: never here.
        raise RuntimeError(f"run {cursor.run_id} has no page token")
    return token


def _decode_token(token: str) -> PageCursor:
    # The rule's form is all a token needs: any time and run id then is a position to list from.
    if _FIXED_RULES.problem(run_pb2.ListRunsRequest.DESCRIPTOR, "page_token", token) is not None:
        raise InvalidArgument("invalid page_token", violations=[("page_token", "not a token from ListRuns")])
    create_time_us, _, run_id = token.partition(".")
    return PageCursor(int(create_time_us), run_id)
