"""Asking the planner service for a run's plan (validated here once; the driver keeps the
execution order it returns) or for an agent turn's decision: with the tool catalog the executor
holds, retried like a step when the planner or its LLM is unavailable. What a failed answer
cost (ErrorInfo metadata) is added to the run's usage."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import grpc
import structlog
from google.protobuf import message as pb_message

from agentrt.config import Settings
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
from executor_svc.retry import StepPolicy, resolve_policy
from executor_svc.toolcatalog import ToolCatalog
from executor_svc.transitions import budget_use as tr_budget_use
from executor_svc.transitions import decision_error, invalid_plan_error, planning_error

log = structlog.get_logger("executor_svc.planning")
T = TypeVar("T")


class RunFailure(Exception):
    """Ends a run as FAILED with `error`."""

    def __init__(self, error: run_pb2.RunError) -> None:
        super().__init__(error.message)
        self.error = error


@dataclass(frozen=True)
class MadePlan:
    plan: plan_pb2.Plan
    order: list[str]  # step ids, dependencies first (validate_plan's order)


class Planning:
    def __init__(
        self, planner: planner_service_pb2_grpc.PlannerServiceStub, catalog: ToolCatalog, settings: Settings
    ) -> None:
        self._planner = planner
        self._catalog = catalog
        self._settings = settings

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
    ) -> MadePlan:
        """A valid plan for `run`, or RunFailure saying why there is none."""
        held = self._catalog.held()
        try:
            return await self._plan_with(run, replan, held, rules_only)
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
            return await self._plan_with(run, replan, live, rules_only)

    async def _plan_with(
        self,
        run: run_pb2.Run,
        replan: planner_service_pb2.Replan | None,
        catalog: tool_service_pb2.ListToolsResponse | None,
        rules_only: bool,
    ) -> MadePlan:
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
                rules_only=rules_only,
            )
            return tools, await self._planner.CreatePlan(request, timeout=timeout)

        try:
            with tracer().start_as_current_span("plan", attributes={"agentrt.replan": replan is not None}):
                tools, response = await _with_retries(policy, "planning", plan_once)
        except grpc.aio.AioRpcError as err:
            details = ErrorDetails.from_rpc_error(err)
            add_usage(run.usage, usage_of(details))
            raise RunFailure(planning_error(details)) from None
        try:
            order = validate_plan(response.plan, {t.name for t in tools.tools}, run.max_steps)
        except InvalidPlan as exc:
            raise RunFailure(invalid_plan_error(exc.reason, exc.message)) from None
        return MadePlan(response.plan, order)

    async def decide(self, run: run_pb2.Run, on_text: Callable[[str], None]) -> agent_pb2.Turn:
        """The model's next decision for agent run `run` (not yet recorded), or RunFailure. The
        model's text reaches `on_text` as it streams; a retried call may stream it again."""
        policy = resolve_policy(self._settings, "", run.retry_policy)
        turns, calls, tokens, _ = tr_budget_use(run)
        budgets = run.budgets
        tokens_left = max(1, budgets.max_tokens - tokens) if budgets.max_tokens else 0

        async def decide_once() -> agent_pb2.Turn:
            tools = await self.tools()
            request = planner_service_pb2.DecideRequest(
                prompt=run.prompt,
                tools=tools.tools,
                turns=run.turns,
                steps=[s for s in run.steps if s.step_id.startswith("t")],
                turn=len(run.turns) + 1,
                tool_calls_left=max(0, budgets.max_tool_calls - calls),
                tokens_left=tokens_left,
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
            if turn is None:
                raise RunFailure(
                    run_pb2.RunError(
                        code="INTERNAL", reason="NO_DECISION", message="the planner sent no decision"
                    )
                )
            return turn

        try:
            with tracer().start_as_current_span("decide", attributes={"agentrt.turn": turns + 1}):
                return await _with_retries(policy, "deciding", decide_once)
        except grpc.aio.AioRpcError as err:
            details = ErrorDetails.from_rpc_error(err)
            add_usage(run.usage, usage_of(details))
            raise RunFailure(decision_error(details)) from None


def usage_of(details: ErrorDetails) -> plan_pb2.Usage:
    """What a failed planner answer had spent (its ErrorInfo metadata), zero if it says nothing."""
    usage = plan_pb2.Usage()
    meta = details.metadata
    try:
        usage.prompt_tokens = int(meta.get("prompt_tokens", 0))
        usage.completion_tokens = int(meta.get("completion_tokens", 0))
        usage.cost_usd = float(meta.get("cost_usd", 0.0))
        usage.llm_calls = int(meta.get("llm_calls", 0))
    except (ValueError, pb_message.Error):
        return plan_pb2.Usage()
    return usage


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
