"""PlannerService servicer: runs the planner chain (e.g. llm, then rules) and the plan cache."""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict

import grpc
import structlog

from agentrt.client.errors import InvalidArgument
from agentrt.client.text import outgoing
from agentrt.config import Settings
from agentrt.core.runstate import add_usage
from agentrt.v1 import plan_pb2, planner_service_pb2, planner_service_pb2_grpc
from planner_svc import metrics
from planner_svc.llm import LLMPlanner
from planner_svc.planner import Planner, PlanningFailed, PlanRequest
from planner_svc.rules import RulePlanner

log = structlog.get_logger("planner_svc")


class PlanCache:
    """Plans by (prompt, catalog version, max_steps, chain); least recently used evicted."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._plans: OrderedDict[str, bytes] = OrderedDict()

    def get(self, key: str) -> plan_pb2.Plan | None:
        if key not in self._plans:
            return None
        self._plans.move_to_end(key)
        return plan_pb2.Plan.FromString(self._plans[key])

    def put(self, key: str, plan: plan_pb2.Plan) -> None:
        if self._size <= 0:
            return
        self._plans[key] = plan.SerializeToString()
        self._plans.move_to_end(key)
        while len(self._plans) > self._size:
            self._plans.popitem(last=False)


class PlannerServicer(planner_service_pb2_grpc.PlannerServiceServicer):
    def __init__(self, settings: Settings, llm: LLMPlanner | None = None) -> None:
        self._settings = settings
        planners: dict[str, Planner] = {"rules": RulePlanner()}
        if "llm" in settings.planner_chain:
            planners["llm"] = llm if llm is not None else LLMPlanner(settings)
        self._chain = [planners[name] for name in settings.planner_chain]
        self._cache = PlanCache(settings.plan_cache_size)

    async def CreatePlan(
        self, request: planner_service_pb2.CreatePlanRequest, context: grpc.aio.ServicerContext
    ) -> planner_service_pb2.CreatePlanResponse:
        prompt = request.prompt.strip()
        limit = self._settings.max_prompt_chars
        if not prompt:
            raise InvalidArgument("prompt is required", violations=[("prompt", "must not be empty")])
        if len(prompt) > limit:
            raise InvalidArgument(
                f"prompt is too long ({len(prompt)} > {limit} characters)",
                violations=[("prompt", "too long")],
            )
        if request.max_steps < 0:
            raise InvalidArgument("max_steps must be >= 0", violations=[("max_steps", "negative")])

        key = None
        if request.catalog_version and not request.HasField("replan"):
            chain = ",".join(p.name for p in self._chain)
            raw = "\x00".join([prompt, request.catalog_version, str(request.max_steps), chain])
            key = hashlib.sha256(raw.encode()).hexdigest()
            if (cached := self._cache.get(key)) is not None:
                cached.cached = True
                cached.usage.Clear()  # nothing was spent on this request
                return planner_service_pb2.CreatePlanResponse(plan=cached)

        remaining = context.time_remaining()
        deadline = time.monotonic() + remaining if remaining is not None else None
        attempts: list[plan_pb2.PlannerAttempt] = []
        usage = plan_pb2.Usage()
        failures: list[tuple[str, PlanningFailed]] = []
        planned = PlanRequest(
            prompt,
            list(request.tools),
            request.max_steps,
            request.replan if request.HasField("replan") else None,
            deadline,
        )
        for planner in self._chain:
            name = planner.name
            started = time.perf_counter()
            try:
                plan = await planner.plan(planned)
            except PlanningFailed as exc:
                add_usage(usage, exc.usage)
                metrics.PLANNER_DURATION.labels(name, "failed").observe(time.perf_counter() - started)
                metrics.PLANNER_FALLBACKS.labels(name).inc()
                log.info("planner.failed", planner=name, error=str(exc))
                # An upstream LLM error may quote anything, a provider key included: see text.py.
                attempts.append(plan_pb2.PlannerAttempt(planner=name, error=outgoing(str(exc))))
                failures.append((name, exc))
                continue
            add_usage(usage, plan.usage)
            metrics.PLANNER_DURATION.labels(name, "ok").observe(time.perf_counter() - started)
            metrics.LLM_TOKENS.labels("prompt").inc(usage.prompt_tokens)
            metrics.LLM_TOKENS.labels("completion").inc(usage.completion_tokens)
            metrics.LLM_COST.inc(usage.cost_usd)
            plan.attempts.extend(attempts)
            plan.usage.CopyFrom(usage)
            if key is not None:
                self._cache.put(key, plan)
            return planner_service_pb2.CreatePlanResponse(plan=plan)
        raise _unplannable(failures)


def _unplannable(failures: list[tuple[str, PlanningFailed]]) -> InvalidArgument:
    """Every planner failed: one message naming each planner's reason."""
    last = failures[-1][1]
    reason, not_understood = last.reason, last.not_understood
    message = str(last) if len(failures) == 1 else "; ".join(f"{name}: {exc}" for name, exc in failures)
    return InvalidArgument(
        message,
        reason=reason,
        violations=[("prompt", f"not understood: {u}") for u in not_understood],
    )
