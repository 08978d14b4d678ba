"""PlannerService servicer: plans with the rule planner against the catalog it is given."""

from __future__ import annotations

import grpc

from agentrt.errors import InvalidArgument
from agentrt.v1 import plan_pb2, planner_service_pb2, planner_service_pb2_grpc
from agentrt.values import dict_to_struct
from planner_svc import rules


class PlannerServicer(planner_service_pb2_grpc.PlannerServiceServicer):
    def __init__(self, max_prompt_chars: int) -> None:
        self._max_prompt_chars = max_prompt_chars

    async def CreatePlan(
        self, request: planner_service_pb2.CreatePlanRequest, context: grpc.aio.ServicerContext
    ) -> planner_service_pb2.CreatePlanResponse:
        prompt = request.prompt.strip()
        if not prompt:
            raise InvalidArgument("prompt is required", violations=[("prompt", "must not be empty")])
        if len(prompt) > self._max_prompt_chars:
            raise InvalidArgument(
                f"prompt is too long ({len(prompt)} > {self._max_prompt_chars} characters)",
                violations=[("prompt", "too long")],
            )
        if request.max_steps < 0:
            raise InvalidArgument("max_steps must be >= 0", violations=[("max_steps", "negative")])
        try:
            intents = rules.plan(prompt, {t.name for t in request.tools}, request.max_steps)
        except rules.Unplannable as exc:
            raise InvalidArgument(
                exc.message,
                reason=exc.reason,
                violations=[("prompt", f"not understood: {u}") for u in exc.not_understood],
            ) from None
        steps = [
            plan_pb2.PlanStep(
                id=rules.step_id(n),
                tool=intent.tool,
                arguments=dict_to_struct(intent.arguments),
                # Clauses run in the order the user wrote them: "add ..., then show ..." must see the add.
                depends_on=[rules.step_id(n - 1)] if n > 1 else [],
                reasoning=intent.reasoning,
            )
            for n, intent in enumerate(intents, start=1)
        ]
        return planner_service_pb2.CreatePlanResponse(plan=plan_pb2.Plan(steps=steps, planner="rules"))
