"""Whether each configured model answers (PlannerService.CheckModels): what `agentrt up`, `agentrt
health` and the gateway's /healthz report, so a dead endpoint is seen before a run waits on it.

Each check is one request of one token per model, at most CHECK_S long. Answers are kept for
KEEP_S: /healthz is polled (by a load balancer, say) and must not become a stream of paid calls to
a hosted model. Concurrent checks share one round of requests."""

from __future__ import annotations

import asyncio
import time

from agentrt.core.reasons import REASONS
from agentrt.core.text import outgoing
from agentrt.v1 import planner_service_pb2, run_pb2
from planner_svc.llmclient import LLMCallFailed, LLMClient
from planner_svc.modelfailures import endpoint

KEEP_S = 30.0
CHECK_S = 10.0


class ModelCheck:
    def __init__(self, client: LLMClient | None, timeout_s: float) -> None:
        self._client = client
        self._timeout = min(CHECK_S, timeout_s)
        self._kept: tuple[float, list[planner_service_pb2.ModelHealth]] | None = None
        self._round: asyncio.Task[list[planner_service_pb2.ModelHealth]] | None = None

    async def check(self, fresh: bool = False) -> list[planner_service_pb2.ModelHealth]:
        if self._client is None:
            return []
        if not fresh and self._kept is not None and time.monotonic() - self._kept[0] < KEEP_S:
            return self._kept[1]
        if self._round is None or self._round.done():
            self._round = asyncio.create_task(self._ask_all(self._client))
        # shield: a caller that goes away does not cancel the round the others wait for
        return await asyncio.shield(self._round)

    async def _ask_all(self, client: LLMClient) -> list[planner_service_pb2.ModelHealth]:
        answers = list(await asyncio.gather(*(self._ask(client, i) for i in range(len(client.models)))))
        self._kept = (time.monotonic(), answers)
        return answers

    async def _ask(self, client: LLMClient, index: int) -> planner_service_pb2.ModelHealth:
        model = client.models[index]
        health = planner_service_pb2.ModelHealth(model=model.model, endpoint=endpoint(model))
        started = time.perf_counter()
        try:
            await client.ping(index, self._timeout)
            health.answers = True
        except LLMCallFailed as exc:
            health.error.CopyFrom(
                run_pb2.RunError(
                    code=REASONS[exc.failure.reason].code,
                    reason=exc.failure.reason,
                    message=outgoing(exc.failure.message),
                )
            )
        health.seconds = round(time.perf_counter() - started, 3)
        return health
