"""Asking the planner service for a run's plan (validated here once; the driver keeps the
execution order it returns) or for an agent turn's decision: with the tool catalog the executor
holds. What a failed answer cost (ErrorInfo metadata) is added to the run's usage. No answer is a
`Failed` value (outcomes.py), not an exception.

Two kinds of "no answer" are asked again, differently:
- the planner service itself UNAVAILABLE (restarting): waited for like a step's tool, until the
  run's deadline (retry.py);
- the model behind it not answering (LLM_UNREACHABLE, LLM_TIMEOUT, LLM_UNAVAILABLE): at most
  `llm_retry_attempts` in all, within `llm_retry_budget_s` of the first failure, each retry a
  stored `planner_retry` event naming the endpoint, so a dead model fails the run in seconds
  and says why instead of keeping it in PLANNING until its deadline.
While a call is out, a transient heartbeat after every `heartbeat_s` in which nothing came (no
piece of the model's text) shows the run is waiting, not hung (a small model on two cores takes
tens of seconds a turn)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import structlog

from agentrt.config import ExecutorSettings
from agentrt.core.errors import ErrorDetails
from agentrt.core.plans import InvalidPlan, validate_plan
from agentrt.core.runstate import add_usage
from agentrt.server.tracing import span
from agentrt.v1 import (
    agent_pb2,
    plan_pb2,
    planner_service_pb2,
    planner_service_pb2_grpc,
    run_pb2,
    tool_pb2,
    tool_service_pb2,
)
from executor_svc.run import failures
from executor_svc.run import transitions as tr
from executor_svc.run.history import History
from executor_svc.run.outcomes import Failed, NotUnderstood
from executor_svc.run.retry import StepPolicy, resolve_policy
from executor_svc.run.transitions import budget_use
from executor_svc.toolcatalog import ToolCatalog

log = structlog.get_logger("executor_svc.run.planning")
T = TypeVar("T")
R = TypeVar("R", planner_service_pb2.CreatePlanRequest, planner_service_pb2.DecideRequest)

# The planner's reasons for a model that did not answer (planner_svc/modelfailures.py): asked
# again within the model's retry budget, not until the run's deadline.
MODEL_REASONS = frozenset({"LLM_UNREACHABLE", "LLM_TIMEOUT", "LLM_UNAVAILABLE"})
# The model's backoff doubles from llm_retry_base_delay_s up to this.
MODEL_MAX_DELAY_S = 8.0


@dataclass(frozen=True)
class Progress:
    """How a run shows it is waiting for the planner: retries as stored events (`commit`, the
    driver's) and heartbeats as transient ones (`publish`, to live watchers only)."""

    commit: Callable[..., Awaitable[None]]
    publish: Callable[[run_pb2.RunEvent], None]


@dataclass
class _Silence:
    """When the planner last sent anything (a piece of the model's text): heartbeats fill only
    the silences."""

    since: float = field(default_factory=time.monotonic)

    def heard(self) -> None:
        self.since = time.monotonic()


@dataclass
class _Tries:
    """What asking took: attempts made, and when the model first failed to answer."""

    attempts: int = 0
    model_failed_at: float | None = field(default=None)

    def note(self) -> str:
        if self.attempts <= 1 or self.model_failed_at is None:
            return ""
        return f" (gave up after {self.attempts} attempts in {time.monotonic() - self.model_failed_at:.0f} s)"


@dataclass(frozen=True)
class MadePlan:
    plan: plan_pb2.Plan
    order: list[str]  # step ids, dependencies first (validate_plan's order)


class Planning:
    def __init__(
        self,
        planner: planner_service_pb2_grpc.PlannerServiceStub,
        catalog: ToolCatalog,
        settings: ExecutorSettings,
        history: History | None = None,
    ) -> None:
        self._planner = planner
        self._catalog = catalog
        self._settings = settings
        self._history = history  # a thread's earlier turns (history.py); None: none are sent
        # Per kind of request, one holding the held catalog's tools, with that catalog: what
        # each request copies them from (_with_tools).
        self._bases: dict[type[Any], tuple[tool_service_pb2.ListToolsResponse, Any]] = {}

    async def _prior_turns(self, run: run_pb2.Run) -> list[planner_service_pb2.PriorTurn]:
        """What `run` sees of its thread (nothing for a one-shot run), read once per request."""
        if not run.thread_id or self._history is None:
            return []
        return await self._history(run)

    def _with_tools(self, kind: type[R], tools: tool_service_pb2.ListToolsResponse, **fields: Any) -> R:
        """A new `kind` request holding `tools` and `fields`. The held catalog's tools (the
        built-ins' schemas alone are ~8 KB) are copied as one message from a request built once
        per catalog held (a new one each time it changes): copying them one by one into each
        new request cost half as much again (26 us a plan, 17 now)."""
        if tools is not self._catalog.held():  # a live one, while not in sync: once
            return kind(tools=tools.tools, **fields)
        base = self._bases.get(kind)
        if base is None or base[0] is not tools:
            base = self._bases[kind] = (tools, kind(tools=tools.tools))
        request = kind()
        request.CopyFrom(base[1])
        request.MergeFrom(kind(**fields))
        return request

    @property
    def catalog(self) -> tool_service_pb2.ListToolsResponse | None:
        """The tool catalog this executor holds (None while it is not in sync)."""
        return self._catalog.held()

    async def tools(self, policy: StepPolicy | None = None) -> tool_service_pb2.ListToolsResponse:
        """The held catalog, or the live one while not in sync; with `policy`, a tools_svc that
        is down is waited for as a step's call would be (retries until the run's deadline)."""
        held = self._catalog.held()
        if held is not None:
            return held
        if policy is None:
            return await self._catalog.live()
        return await _with_retries(policy, "catalog", self._catalog.live)

    def streams_progress(self, tool: str) -> bool:
        """Whether the held catalog says `tool` is a remote agent's skill, whose call reports
        progress (InvokeToolStream); a catalog not in sync says no (the call is made plainly)."""
        held = self._catalog.held_tool(tool)
        return held is not None and held.source == tool_pb2.TOOL_SOURCE_A2A

    async def plan(
        self,
        run: run_pb2.Run,
        replan: planner_service_pb2.Replan | None = None,
        *,
        rules_only: bool = False,
        progress: Progress | None = None,
    ) -> MadePlan | Failed:
        """A valid plan for `run`, or why there is none; `progress` shows retries and heartbeats."""
        held = self._catalog.held()
        made = await self._plan_with(run, replan, held, rules_only, progress)
        if isinstance(made, MadePlan) or held is None:
            return made
        # The held catalog may trail tools_svc by a moment (a tool registered just now):
        # if the live one differs, plan again with it.
        try:
            live = await self._catalog.live()
        except grpc.aio.AioRpcError:
            return made
        if live.catalog_version == held.catalog_version:
            return made
        return await self._plan_with(run, replan, live, rules_only, progress)

    async def _plan_with(
        self,
        run: run_pb2.Run,
        replan: planner_service_pb2.Replan | None,
        catalog: tool_service_pb2.ListToolsResponse | None,
        rules_only: bool,
        progress: Progress | None,
    ) -> MadePlan | Failed:
        """Plan with `catalog`, or with the live catalog (ListTools) when None."""
        policy = resolve_policy(self._settings, "", run.retry_policy)
        timeout = self._settings.planner_timeout_s
        history = await self._prior_turns(run)

        async def plan_once() -> tuple[
            tool_service_pb2.ListToolsResponse, planner_service_pb2.CreatePlanResponse
        ]:
            tools = catalog if catalog is not None else await self._catalog.live()
            request = self._with_tools(
                planner_service_pb2.CreatePlanRequest,
                tools,
                prompt=run.prompt,
                max_steps=run.max_steps,
                catalog_version=tools.catalog_version,
                replan=replan,
                rules_only=rules_only,
                history=history,
                thread_turn=run.thread_turn,
            )
            return tools, await self._planner.CreatePlan(request, timeout=timeout)

        tries = _Tries()
        try:
            with span("plan", {"agentrt.replan": replan is not None}):
                tools, response = await self._ask(
                    run, "planning", plan_once, policy=policy, progress=progress, tries=tries
                )
        except grpc.aio.AioRpcError as err:
            details = ErrorDetails.from_rpc_error(err)
            if details.usage is not None:
                add_usage(run.usage, details.usage)
            error = failures.planning(details, tries.note())
            return NotUnderstood(error) if error.reason in failures.NOT_UNDERSTOOD else Failed(error)
        try:
            order = validate_plan(response.plan, {t.name for t in tools.tools}, run.max_steps)
        except InvalidPlan as exc:
            return Failed(failures.invalid_plan(exc.reason, exc.message))
        return MadePlan(response.plan, order)

    async def decide(
        self, run: run_pb2.Run, on_text: Callable[[str], None], progress: Progress | None = None
    ) -> agent_pb2.Turn | Failed:
        """The model's next decision for agent run `run` (not yet recorded), or why there is
        none. The model's text reaches `on_text` as it streams; a retried call may stream it
        again."""
        policy = resolve_policy(self._settings, "", run.retry_policy)
        turns, calls, tokens, _ = budget_use(run)
        budgets = run.budgets
        tokens_left = max(1, budgets.max_tokens - tokens) if budgets.max_tokens else 0
        history = await self._prior_turns(run)
        silence = _Silence()

        async def decide_once() -> agent_pb2.Turn | None:
            tools = await self.tools()
            request = self._with_tools(
                planner_service_pb2.DecideRequest,
                tools,
                prompt=run.prompt,
                turns=run.turns,
                steps=[s for s in run.steps if s.step_id.startswith("t")],
                turn=len(run.turns) + 1,
                tool_calls_left=max(0, budgets.max_tool_calls - calls),
                tokens_left=tokens_left,
                history=history,
            )
            turn = None
            call = self._planner.Decide(request, timeout=self._settings.planner_timeout_s)
            try:
                async for response in call:
                    if response.HasField("turn"):
                        turn = response.turn
                    else:
                        silence.heard()
                        on_text(response.text_delta)
            finally:
                call.cancel()  # CancelRun, a lease lost: the planner stops the LLM call too
            return turn

        tries = _Tries()
        try:
            with span("decide", {"agentrt.turn": turns + 1}):
                turn = await self._ask(
                    run,
                    "deciding",
                    decide_once,
                    policy=policy,
                    progress=progress,
                    tries=tries,
                    silence=silence,
                )
        except grpc.aio.AioRpcError as err:
            details = ErrorDetails.from_rpc_error(err)
            if details.usage is not None:
                add_usage(run.usage, details.usage)
            return Failed(failures.decision(details, tries.note()))
        return turn if turn is not None else Failed(failures.no_decision())

    async def _ask(
        self,
        run: run_pb2.Run,
        activity: str,
        call: Callable[[], Awaitable[T]],
        *,
        policy: StepPolicy,
        progress: Progress | None,
        tries: _Tries,
        silence: _Silence | None = None,
    ) -> T:
        """`call` until it answers, or raise its last error: the model's failures within the
        model's budget, the planner's outage until the deadline (see the module's docstring)."""
        settings = self._settings
        while True:
            tries.attempts += 1
            try:
                return await self._beating(run, activity, call, progress, silence or _Silence())
            except grpc.aio.AioRpcError as err:
                details = ErrorDetails.from_rpc_error(err)
                if details.reason in MODEL_REASONS:
                    if tries.model_failed_at is None:
                        tries.model_failed_at = time.monotonic()
                    delay = _model_delay(settings.llm_retry_base_delay_s, tries.attempts)
                    waited = time.monotonic() - tries.model_failed_at
                    if (
                        tries.attempts >= settings.llm_retry_attempts
                        or waited + delay > settings.llm_retry_budget_s
                    ):
                        raise
                    if details.usage is not None:
                        add_usage(run.usage, details.usage)  # spent on the failed attempt
                        details.usage = None
                    if progress is not None:
                        error = failures.relayed(details, details.message, "LLM_UNAVAILABLE")
                        attempts = (tries.attempts, settings.llm_retry_attempts)
                        await progress.commit(run, *tr.planner_retry(run, activity, attempts, delay, error))
                elif policy.retries(details, tries.attempts):
                    delay = policy.delay(details, tries.attempts)
                else:
                    raise
                log.warning(
                    f"{activity}.retry",
                    attempt=tries.attempts,
                    code=details.code.name,
                    reason=details.reason,
                    delay_s=round(delay, 3),
                )
                await asyncio.sleep(delay)

    async def _beating(
        self,
        run: run_pb2.Run,
        activity: str,
        call: Callable[[], Awaitable[T]],
        progress: Progress | None,
        silence: _Silence,
    ) -> T:
        """`call`, with a transient heartbeat to live watchers after every heartbeat_s in which
        nothing came."""
        every = self._settings.heartbeat_s
        if progress is None or every <= 0:
            return await call()
        started = time.monotonic()
        silence.heard()
        # A timer, not a task: most calls end long before the first beat, and a timer costs
        # nothing to cancel (a task is scheduled twice, to start and to be cancelled).
        loop = asyncio.get_running_loop()
        timer: asyncio.TimerHandle | None = None

        def beat() -> None:
            nonlocal timer
            if time.monotonic() - silence.since >= every:
                progress.publish(tr.heartbeat(run, activity, time.monotonic() - started))
                silence.heard()
            timer = loop.call_later(max(0.05, silence.since + every - time.monotonic()), beat)

        timer = loop.call_later(every, beat)
        try:
            return await call()
        finally:
            timer.cancel()


def _model_delay(base_s: float, failed_attempt: int) -> float:
    """Exponential from base_s, capped, with "equal jitter" (between half and all of it): runs
    failing on one model spread out, and the retry event's "in N s" is never a misleading 0."""
    cap = min(MODEL_MAX_DELAY_S, base_s * 2 ** (failed_attempt - 1))
    return random.uniform(cap / 2, cap)


async def _with_retries(policy: StepPolicy, what: str, call: Callable[[], Awaitable[T]]) -> T:
    """`call` retried as a step's tool call is (the tools service restarting: until the deadline)."""
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
