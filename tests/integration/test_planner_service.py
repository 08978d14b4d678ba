"""PlannerService over real gRPC."""

import json

import grpc
import pytest

from agentrt.config import LLMModel, Settings
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct, py_to_value, struct_to_dict
from agentrt.v1 import planner_service_pb2, run_pb2, tool_pb2
from planner_svc import server as planner_server
from planner_svc.llm import NEXT_TURN_AFTER_EXAMPLES
from tests.conftest import Stack
from tests.scripted_llm import Reply, ScriptedLLM, answer

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


async def test_create_plan_and_decide_send_the_threads_history_to_the_model(
    settings: Settings, llm: ScriptedLLM
) -> None:
    """Over real gRPC and real HTTP (planner on port 0 -> litellm -> the scripted model): a
    thread's earlier turns reach the model as messages before the request, in both modes."""
    configured = settings.replace(planner_chain=["llm", "rules"], llm_models=[LLMModel(**llm.model())])
    built = await planner_server.build_server(configured.planner, 0)
    await built.start()
    stack = Stack(configured, {"planner": built}, [])
    earlier = planner_service_pb2.PriorTurn(
        turn=1,
        prompt="what is 12 times 4",
        answer="12 * 4 = 48",
        status=run_pb2.RUN_STATUS_SUCCEEDED,
        steps=[
            run_pb2.StepState(
                tool="calculator",
                arguments=dict_to_struct({"expression": "12 * 4"}),
                status=run_pb2.STEP_STATUS_SUCCEEDED,
                output=py_to_value({"value": 48}),
            )
        ],
    )
    seen = [
        {"role": "user", "content": "what is 12 times 4"},
        {
            "role": "assistant",
            "content": 'Tool calls:\n- calculator {"expression":"12 * 4"} -> {"value":48}\n'
            "Answer: 12 * 4 = 48",
        },
    ]
    plan = {
        "steps": [{"id": "s1", "tool": "calculator", "arguments": {"expression": "48 + 2"}, "depends_on": []}]
    }
    llm.replies = [Reply(content=json.dumps(plan)), answer("That is 50.")]
    try:
        planned = await stack.planner.CreatePlan(
            planner_service_pb2.CreatePlanRequest(
                prompt="add 2 to that", tools=CATALOG, catalog_version="v1", history=[earlier]
            )
        )
        assert planned.plan.planner == "llm" and not planned.plan.cached
        decided = [
            r
            async for r in stack.planner.Decide(
                planner_service_pb2.DecideRequest(
                    prompt="add 2 to that", tools=CATALOG, tool_calls_left=5, history=[earlier]
                )
            )
        ]
        assert decided[-1].turn.answer == "That is 50."
    finally:
        await stack.close()
    to_plan, to_decide = (r["messages"] for r in llm.requests)
    assert to_plan[-3:] == [*seen, {"role": "user", "content": NEXT_TURN_AFTER_EXAMPLES + "add 2 to that"}]
    assert to_decide[1:] == [*seen, {"role": "user", "content": "add 2 to that"}]
    assert [m["role"] for m in to_plan + to_decide].count("system") == 2  # each request's own, only
