"""Whether the configured models answer, in words: the `model` lines of `agentrt up` and
`agentrt health`. Asked of the planner (PlannerService.CheckModels) directly, with the internal
credential as the `agentrt tools` commands do, since the planner is the one that calls them."""

from __future__ import annotations

import grpc

from agentrt.cli.supervisor import internal_metadata
from agentrt.config import Settings
from agentrt.v1 import planner_service_pb2, planner_service_pb2_grpc

# A model's check takes at most 10 s (planner_svc/modelcheck.py); a little more for the call.
CHECK_TIMEOUT_S = 12.0


def model_lines(settings: Settings, *, fresh: bool = False) -> tuple[list[str], bool]:
    """One line per configured model, and whether every one answered. No model configured: one
    line saying what runs without one."""
    if not settings.planner.llm_models:
        return ["none: the rule planner only (AGENTRT_LLM_MODELS adds the LLM planner and agent mode)"], True
    try:
        with grpc.insecure_channel(settings.planner_target) as channel:
            response = planner_service_pb2_grpc.PlannerServiceStub(channel).CheckModels(
                planner_service_pb2.CheckModelsRequest(fresh=fresh),
                timeout=CHECK_TIMEOUT_S,
                metadata=internal_metadata(settings),
            )
    except grpc.RpcError as err:
        return [f"unknown: the planner at {settings.planner_target} did not say ({err.code().name})"], False  # type: ignore[attr-defined]
    lines = []
    for model in response.models:
        where = f"{model.model} at {model.endpoint}"
        if model.answers:
            lines.append(f"{where}: answers ({model.seconds:.1f} s)")
        else:
            # The message names the model and endpoint too (it is written for a run's error).
            why = model.error.message.removeprefix(f"model {where} ")
            lines.append(f"{where}: DOES NOT ANSWER ({model.error.reason}): {why}")
    return lines, all(m.answers for m in response.models)
