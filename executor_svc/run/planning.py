"""Asking the planner service for a run's plan (validated here once; the driver keeps the
execution order it returns) or for an agent turn's decision: with the tool catalog the executor
holds, retried like a step when the planner or its LLM is unavailable. What a failed answer
cost (ErrorInfo metadata) is added to the run's usage. No answer is a `Failed` value
(outcomes.py), not an exception."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import grpc
import structlog

from agentrt.config import ExecutorSettings
from agentrt.core.errors import ErrorDetails
from agentrt.core.plans import InvalidPlan, validate_plan
from agentrt.core.runstate import add_usage
from agentrt.server.tracing import tracer
from agentrt.v1 import (
    agent_pb2,
    plan_pb2,
    planner_service_pb2,
    planner_service_pb2_grpc,
    run_pb2,
    tool_service_pb2,
)
from executor_svc.run import failures
from executor_svc.run.history import History
from executor_svc.run.outcomes import Failed, NotUnderstood
from executor_svc.run.retry import StepPolicy, resolve_policy
from executor_svc.run.transitions import budget_use
from executor_svc.toolcatalog import ToolCatalog

log = structlog.get_logger("executor_svc.run.planning")
T = TypeVar("T")


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

    async def _prior_turns(self, run: run_pb2.Run) -> list[planner_service_pb2.PriorTurn]:
        """What `run` sees of its thread (nothing for a one-shot run), read once per request."""
        if not run.thread_id or self._history is None:
            return []
        return await self._history(run)

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

    async def plan(
        self, run: run_pb2.Run, replan: planner_service_pb2.Replan | None = None, *, rules_only: bool = False
    ) -> MadePlan | Failed:
        """A valid plan for `run`, or why there is none."""
        held = self._catalog.held()
        made = await self._plan_with(run, replan, held, rules_only)
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
        return await self._plan_with(run, replan, live, rules_only)

    async def _plan_with(
        self,
        run: run_pb2.Run,
        replan: planner_service_pb2.Replan | None,
        catalog: tool_service_pb2.ListToolsResponse | None,
        rules_only: bool,
    ) -> MadePlan | Failed:
        """Plan with `catalog`, or with the live catalog (ListTools) when None."""
        policy = resolve_policy(self._settings, "", run.retry_policy)
        timeout = self._settings.planner_timeout_s
        history = await self._prior_turns(run)

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
                rules_only=rules_only,
                history=history,
            )
            return tools, await self._planner.CreatePlan(request, timeout=timeout)

        try:
            with tracer().start_as_current_span("plan", attributes={"agentrt.replan": replan is not None}):
                tools, response = await _with_retries(policy, "planning", plan_once)
        except grpc.aio.AioRpcError as err:
            details = ErrorDetails.from_rpc_error(err)
            if details.usage is not None:
                add_usage(run.usage, details.usage)
            error = failures.planning(details)
            return NotUnderstood(error) if error.reason in failures.NOT_UNDERSTOOD else Failed(error)
        try:
            order = validate_plan(response.plan, {t.name for t in tools.tools}, run.max_steps)
        except InvalidPlan as exc:
            return Failed(failures.invalid_plan(exc.reason, exc.message))
        return MadePlan(response.plan, order)

    async def decide(self, run: run_pb2.Run, on_text: Callable[[str], None]) -> agent_pb2.Turn | Failed:
        """The model's next decision for agent run `run` (not yet recorded), or why there is
        none. The model's text reaches `on_text` as it streams; a retried call may stream it
        again."""
        policy = resolve_policy(self._settings, "", run.retry_policy)
        turns, calls, tokens, _ = budget_use(run)
        budgets = run.budgets
        tokens_left = max(1, budgets.max_tokens - tokens) if budgets.max_tokens else 0
        history = await self._prior_turns(run)

        async def decide_once() -> agent_pb2.Turn | None:
            tools = await self.tools()
            request = planner_service_pb2.DecideRequest(
                prompt=run.prompt,
                tools=tools.tools,
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
                        on_text(response.text_delta)
            finally:
                call.cancel()  # CancelRun, a lease lost: the planner stops the LLM call too
            return turn

        try:
            with tracer().start_as_current_span("decide", attributes={"agentrt.turn": turns + 1}):
                turn = await _with_retries(policy, "deciding", decide_once)
        except grpc.aio.AioRpcError as err:
            details = ErrorDetails.from_rpc_error(err)
            if details.usage is not None:
                add_usage(run.usage, details.usage)
            return Failed(failures.decision(details))
        return turn if turn is not None else Failed(failures.no_decision())


async def _with_retries(policy: StepPolicy, what: str, call: Callable[[], Awaitable[T]]) -> T:
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
