"""Asking the planner service for a run's plan: with the tool catalog the executor holds, retried
like a step, and validated here once (the driver keeps the execution order it returns)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import grpc
import structlog

from agentrt.client.errors import ErrorDetails
from agentrt.config import Settings
from agentrt.core.plans import InvalidPlan, validate_plan
from agentrt.server.tracing import tracer
from agentrt.v1 import plan_pb2, planner_service_pb2, planner_service_pb2_grpc, run_pb2, tool_service_pb2
from executor_svc.retry import StepPolicy, resolve_policy
from executor_svc.toolcatalog import ToolCatalog
from executor_svc.transitions import invalid_plan_error, planning_error

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

    async def plan(self, run: run_pb2.Run, replan: planner_service_pb2.Replan | None = None) -> MadePlan:
        """A valid plan for `run`, or RunFailure saying why there is none."""
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
            )
            return tools, await self._planner.CreatePlan(request, timeout=timeout)

        try:
            with tracer().start_as_current_span("plan", attributes={"agentrt.replan": replan is not None}):
                tools, response = await _with_retries(policy, "planning", plan_once)
        except grpc.aio.AioRpcError as err:
            raise RunFailure(planning_error(ErrorDetails.from_rpc_error(err))) from None
        try:
            order = validate_plan(response.plan, {t.name for t in tools.tools}, run.max_steps)
        except InvalidPlan as exc:
            raise RunFailure(invalid_plan_error(exc.reason, exc.message)) from None
        return MadePlan(response.plan, order)


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
