"""PlannerService over real gRPC."""

import grpc
import pytest

from agentrt.core.errors import ErrorDetails
from agentrt.core.values import struct_to_dict
from agentrt.v1 import planner_service_pb2, tool_pb2
from tests.conftest import Stack

CATALOG = [tool_pb2.Tool(name="calculator"), tool_pb2.Tool(name="todo_store")]


async def test_create_plan_chains_steps_in_prompt_order(stack: Stack) -> None:
    response = await stack.planner.CreatePlan(
        planner_service_pb2.CreatePlanRequest(
            prompt="Add a todo to buy milk, then show me all my tasks", tools=CATALOG
        )
    )
    plan = response.plan
    assert plan.planner == "rules"
    assert [(s.id, s.tool, list(s.depends_on)) for s in plan.steps] == [
        ("s1", "todo_store", []),
        ("s2", "todo_store", ["s1"]),
    ]
    assert struct_to_dict(plan.steps[0].arguments) == {"action": "add", "text": "buy milk"}
    assert plan.steps[0].reasoning


async def test_unplannable_prompt_is_invalid_argument_naming_the_part(stack: Stack) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.planner.CreatePlan(
            planner_service_pb2.CreatePlanRequest(prompt="calculate 1+1 and book a flight", tools=CATALOG)
        )
    details = ErrorDetails.from_rpc_error(info.value)
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert details.reason == "UNPLANNABLE"
    assert details.violations == [("prompt", "not understood: book a flight")]


@pytest.mark.parametrize(
    ("prompt", "max_steps"), [("", 0), ("   ", 0), ("x" * 9000, 0), ("calculate 1+1", -1)]
)
async def test_bad_requests(stack: Stack, prompt: str, max_steps: int) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.planner.CreatePlan(
            planner_service_pb2.CreatePlanRequest(prompt=prompt, tools=CATALOG, max_steps=max_steps)
        )
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
