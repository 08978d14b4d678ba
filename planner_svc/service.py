"""PlannerService servicer: CreatePlan runs the planner chain (e.g. llm, then rules) and the plan
cache; Decide is one turn of the agent loop (agent.py), streamed.

What LLM calls cost is reported on every answer, failures included: a plan's usage, a decision's
usage, and on errors as ErrorInfo metadata (prompt_tokens, completion_tokens, cost_usd,
llm_calls), so the run that paid for them shows it."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator

import grpc
import structlog

from agentrt.config import PlannerSettings
from agentrt.core.errors import AgentrtError, FailedPrecondition, InvalidArgument, Unavailable
from agentrt.core.runstate import add_usage
from agentrt.core.text import outgoing
from agentrt.core.toolschemas import SchemaBook
from agentrt.server.metrics import series
from agentrt.v1 import plan_pb2, planner_service_pb2, planner_service_pb2_grpc
from planner_svc import metrics
from planner_svc.agent import AgentDecider, DecisionFailed
from planner_svc.llm import LLMPlanner
from planner_svc.llmclient import LLMClient
from planner_svc.modelcheck import ModelCheck
from planner_svc.planner import Planner, PlanningFailed, PlanRequest
from planner_svc.rules import RulePlanner
from planner_svc.transcript import Transcript

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
    def __init__(self, settings: PlannerSettings, llm: LLMPlanner | None = None) -> None:
        self._settings = settings
        # One LLM client for plans and agent decisions, whenever a model is configured; one book
        # of the catalog's compiled schemas for both.
        client = LLMClient(settings) if settings.llm_models and llm is None else None
        schemas = SchemaBook()
        planners: dict[str, Planner] = {"rules": RulePlanner()}
        if "llm" in settings.planner_chain:
            planners["llm"] = llm if llm is not None else LLMPlanner(settings, client, schemas)
        self._chain = [planners[name] for name in settings.planner_chain]
        self._rules_only = [planners["rules"]]
        self._decider = AgentDecider(settings, client, schemas) if client is not None else None
        self._cache = PlanCache(settings.plan_cache_size)
        self._models = ModelCheck(client, settings.llm_timeout_s)

    def _prompt(self, raw: str) -> str:
        prompt = raw.strip()
        limit = self._settings.max_prompt_chars
        if not prompt:
            raise InvalidArgument("prompt is required", violations=[("prompt", "must not be empty")])
        if len(prompt) > limit:
            raise InvalidArgument(
                f"prompt is too long ({len(prompt)} > {limit} characters)",
                violations=[("prompt", "too long")],
            )
        return prompt

    async def CreatePlan(
        self, request: planner_service_pb2.CreatePlanRequest, context: grpc.aio.ServicerContext
    ) -> planner_service_pb2.CreatePlanResponse:
        prompt = self._prompt(request.prompt)
        chain = self._rules_only if request.rules_only else self._chain
        if request.max_steps < 0:
            raise InvalidArgument("max_steps must be >= 0", violations=[("max_steps", "negative")])

        key = None
        # A thread's turn is planned with its history: the same words may mean another thing.
        if request.catalog_version and not request.HasField("replan") and not request.history:
            names = ",".join(p.name for p in chain)
            raw = "\x00".join([prompt, request.catalog_version, str(request.max_steps), names])
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
            tuple(request.history),
            request.thread_turn,
        )
        for planner in chain:
            name = planner.name
            started = time.perf_counter()
            try:
                plan = await planner.plan(planned)
            except PlanningFailed as exc:
                add_usage(usage, exc.usage)
                series(metrics.PLANNER_DURATION, name, "failed").observe(time.perf_counter() - started)
                series(metrics.PLANNER_FALLBACKS, name).inc()
                log.info("planner.failed", planner=name, error=str(exc))
                # An upstream LLM error may quote anything, a provider key included: see text.py.
                attempts.append(plan_pb2.PlannerAttempt(planner=name, error=outgoing(str(exc))))
                failures.append((name, exc))
                continue
            add_usage(usage, plan.usage)
            series(metrics.PLANNER_DURATION, name, "ok").observe(time.perf_counter() - started)
            _spent(usage)
            plan.attempts.extend(attempts)
            plan.usage.CopyFrom(usage)
            if key is not None:
                self._cache.put(key, plan)
            return planner_service_pb2.CreatePlanResponse(plan=plan)
        _spent(usage)
        raise _unplannable(failures, usage)

    async def Decide(
        self, request: planner_service_pb2.DecideRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[planner_service_pb2.DecideResponse]:
        if self._decider is None:
            raise FailedPrecondition(
                "agent mode needs an LLM, and none is configured (set AGENTRT_LLM_MODELS)",
                reason="AGENT_UNAVAILABLE",
            )
        prompt = self._prompt(request.prompt)
        settings = self._settings
        transcript = Transcript(
            list(request.turns),
            list(request.steps),
            settings.agent_observation_chars,
            settings.agent_transcript_chars,
        )
        remaining = context.time_remaining()
        deadline = time.monotonic() + remaining if remaining is not None else None

        def time_left() -> float:
            if deadline is None:
                return settings.llm_timeout_s
            return min(settings.llm_timeout_s, deadline - time.monotonic() - 0.2)

        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        started = time.perf_counter()
        task = asyncio.create_task(
            self._decider.decide(
                prompt=prompt,
                tools=list(request.tools),
                transcript=transcript,
                calls_left=request.tool_calls_left,
                tokens_left=request.tokens_left,
                on_text=pieces.put_nowait,
                time_left=time_left,
                history=tuple(request.history),
            )
        )
        task.add_done_callback(lambda _: pieces.put_nowait(None))
        try:
            while (piece := await pieces.get()) is not None:
                yield planner_service_pb2.DecideResponse(text_delta=piece)
            try:
                turn = task.result()
            except DecisionFailed as exc:
                series(metrics.PLANNER_DURATION, "agent", "failed").observe(time.perf_counter() - started)
                _spent(exc.usage)
                raise _decision_error(exc) from None
        finally:
            task.cancel()  # the caller went away (CancelRun): stop the LLM call with it
        series(metrics.PLANNER_DURATION, "agent", "ok").observe(time.perf_counter() - started)
        _spent(turn.usage)
        yield planner_service_pb2.DecideResponse(turn=turn)

    async def CheckModels(
        self, request: planner_service_pb2.CheckModelsRequest, context: grpc.aio.ServicerContext
    ) -> planner_service_pb2.CheckModelsResponse:
        return planner_service_pb2.CheckModelsResponse(models=await self._models.check(request.fresh))


def _spent(usage: plan_pb2.Usage) -> None:
    series(metrics.LLM_TOKENS, "prompt").inc(usage.prompt_tokens)
    series(metrics.LLM_TOKENS, "completion").inc(usage.completion_tokens)
    metrics.LLM_COST.inc(usage.cost_usd)


def _decision_error(exc: DecisionFailed) -> AgentrtError:
    message = outgoing(f"agent decision failed: {exc}")
    if exc.retryable:  # the model did not answer: the executor asks again within its budget
        return Unavailable(message, reason=exc.reason, usage=exc.usage)
    return FailedPrecondition(message, reason=exc.reason, usage=exc.usage)


def _unplannable(failures: list[tuple[str, PlanningFailed]], usage: plan_pb2.Usage) -> AgentrtError:
    """Every planner failed: one message naming each planner's reason. When the model did not
    answer, the whole answer is that (UNAVAILABLE, the model's reason): the executor asks again
    within its model retry budget, since the model may answer then."""
    last = failures[-1][1]
    reason, not_understood = last.reason, last.not_understood
    message = str(last) if len(failures) == 1 else "; ".join(f"{name}: {exc}" for name, exc in failures)
    if model := next((exc for _, exc in failures if exc.retryable), None):
        return Unavailable(outgoing(message), reason=model.reason, usage=usage)
    if model := next((exc for _, exc in failures if exc.reason.startswith("LLM_")), None):
        return FailedPrecondition(outgoing(message), reason=model.reason, usage=usage)
    return InvalidArgument(
        message,
        reason=reason,
        violations=[("prompt", f"not understood: {u}") for u in not_understood],
        usage=usage,
    )
