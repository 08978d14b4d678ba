"""The LLM planner's validation and repair, through litellm's own mock_response path.

A spy sits on the Router: it records the exact request the planner sends (model, schema,
messages, timeout) and lets litellm produce the scripted answer with mock_response.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from agentrt.config import LLMModel, PlannerSettings, ToolsSettings
from agentrt.core.errors import InvalidArgument
from agentrt.core.values import dict_to_struct, struct_to_dict
from agentrt.server.db import open_database
from agentrt.v1 import planner_service_pb2, tool_pb2
from planner_svc.llm import NEW_REQUEST, LLMPlanner, parse_plan, plan_schema
from planner_svc.planner import PlanningFailed, PlanRequest
from planner_svc.service import PlannerServicer
from tools_svc import server as tools_server

GOOD = {"steps": [{"id": "s1", "tool": "calculator", "arguments": {"expression": "2 + 2"}, "depends_on": []}]}


@pytest.fixture
async def tools(tmp_path: Path) -> list[tool_pb2.Tool]:
    db = await open_database(
        ToolsSettings(data_dir=tmp_path, database_url=None), "tools", tools_server.MIGRATIONS
    )
    specs = tools_server.builtin_tools(db).specs()
    await db.close()
    return specs


def settings(**overrides: Any) -> PlannerSettings:
    model = LLMModel(
        model="openai/test-model", api_base="http://127.0.0.1:9/v1", response_format="json_schema"
    )
    base: dict[str, Any] = {"planner_chain": ["llm", "rules"], "llm_models": [model], "llm_timeout_s": 7.5}
    return PlannerSettings(**{**base, **overrides})


class Spy:
    """Replaces Router.acompletion: records each request, answers with mock_response."""

    def __init__(self, planner: LLMPlanner, answers: list[Any]) -> None:
        self.requests: list[dict[str, Any]] = []
        self._answers: Iterator[Any] = iter(answers)
        router = planner._client._router
        self._real = router.acompletion
        router.acompletion = self  # type: ignore[method-assign]

    async def __call__(self, **kwargs: Any) -> Any:
        self.requests.append(kwargs)
        answer = next(self._answers)
        content = answer if isinstance(answer, str) else json.dumps(answer)
        return await self._real(**kwargs, mock_response=content)


async def test_the_exact_request(tools: list[tool_pb2.Tool]) -> None:
    planner = LLMPlanner(settings())
    spy = Spy(planner, [GOOD])
    plan = await planner.plan(PlanRequest("what is 2 + 2", tools, 5))
    usage = plan.usage
    (request,) = spy.requests
    assert request["model"] == "m0"  # the Router's primary deployment (openai/test-model)
    assert request["timeout"] == 7.5
    assert request["temperature"] == 0.0
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "plan", "schema": plan_schema(tools, 5)},
    }
    schema = request["response_format"]["json_schema"]["schema"]
    variants = schema["properties"]["steps"]["items"]["anyOf"]
    assert [v["properties"]["tool"]["enum"] for v in variants] == [["calculator"], ["todo_store"]]
    assert variants[0]["properties"]["arguments"] == struct_to_dict(tools[0].input_schema)
    assert schema["properties"]["steps"]["maxItems"] == 5
    messages = request["messages"]
    assert messages[0]["role"] == "system"
    assert "calculator:" in messages[0]["content"] and "todo_store:" in messages[0]["content"]
    assert "{{steps.<id>.output.<field>}}" in messages[0]["content"]
    assert "Use at most 5 steps." in messages[0]["content"]
    # Few-shot examples, then the request marked as the new one (a small model carried an
    # unmarked example's steps into its plan).
    assert [m["role"] for m in messages[1:-1]] == ["user", "assistant"] * 6
    assert messages[-1] == {"role": "user", "content": NEW_REQUEST + "what is 2 + 2"}
    assert plan.planner == "llm"
    assert [(s.tool, struct_to_dict(s.arguments)) for s in plan.steps] == [
        ("calculator", {"expression": "2 + 2"})
    ]
    assert (usage.llm_calls, usage.prompt_tokens > 0, usage.completion_tokens > 0) == (1, True, True)


async def test_json_mode_when_asked(tools: list[tool_pb2.Tool]) -> None:
    model = LLMModel(
        model="openai/test-model", api_base="http://127.0.0.1:9/v1", response_format="json_object"
    )
    planner = LLMPlanner(settings(llm_models=[model]))
    spy = Spy(planner, [GOOD])
    await planner.plan(PlanRequest("what is 2 + 2", tools, 0))
    assert spy.requests[0]["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in spy.requests[0]["messages"][1:-1]] == ["user", "assistant"] * 6


async def test_the_prompt_is_byte_stable_whatever_the_catalog_order(tools: list[tool_pb2.Tool]) -> None:
    """A server's prompt cache only helps if the same catalog gives the same bytes: after a
    restart the catalog may arrive in another order, and schemas with their keys reordered."""
    planner = LLMPlanner(settings())
    shuffled = [tool_pb2.Tool() for _ in tools]
    for copy, tool in zip(shuffled, reversed(tools), strict=True):
        copy.CopyFrom(tool)
        schema = struct_to_dict(tool.input_schema)
        copy.input_schema.CopyFrom(dict_to_struct(dict(reversed(list(schema.items())))))
    first = planner.request("what is 2 + 2", tools, 5, None)
    again = planner.request("what is 2 + 2", shuffled, 5, None)
    assert json.dumps(first) == json.dumps(again)


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("{not json", "not valid JSON"),
        ({"plan": []}, 'must be a JSON object with a "steps" list'),
        (
            {"steps": [{"id": "s1", "tool": "weather", "arguments": {}, "depends_on": []}]},
            "unknown tool 'weather'",
        ),
        (
            {"steps": [{"id": "s1", "tool": "calculator", "arguments": {"expr": "1"}, "depends_on": []}]},
            '"expression" is a required property',
        ),
        (
            {
                "steps": [
                    {"id": "s1", "tool": "calculator", "arguments": {"expression": "1"}, "depends_on": ["s9"]}
                ]
            },
            "unknown step 's9'",
        ),
    ],
)
async def test_invalid_answers_are_repaired_with_the_exact_errors(
    tools: list[tool_pb2.Tool], bad: Any, problem: str
) -> None:
    planner = LLMPlanner(settings())
    spy = Spy(planner, [bad, GOOD])
    plan = await planner.plan(PlanRequest("what is 2 + 2", tools, 5))
    usage = plan.usage
    assert [s.tool for s in plan.steps] == ["calculator"]
    assert usage.llm_calls == 2
    repair = spy.requests[1]["messages"]
    assert repair[:-2] == spy.requests[0]["messages"]
    assert repair[-2] == {"role": "assistant", "content": bad if isinstance(bad, str) else json.dumps(bad)}
    assert repair[-1]["role"] == "user"
    assert problem in repair[-1]["content"]
    assert repair[-1]["content"].startswith("That plan is invalid:")


async def test_repairs_are_bounded(tools: list[tool_pb2.Tool]) -> None:
    planner = LLMPlanner(settings(llm_repair_rounds=1))
    spy = Spy(planner, ["{bad", "{still bad"])
    with pytest.raises(
        PlanningFailed, match="no valid plan after 2 attempts; last problem: the answer is not valid JSON"
    ) as info:
        await planner.plan(PlanRequest("what is 2 + 2", tools, 5))
    assert len(spy.requests) == 2
    assert info.value.usage.llm_calls == 2


async def test_a_refusal_is_not_repaired(tools: list[tool_pb2.Tool]) -> None:
    planner = LLMPlanner(settings())
    spy = Spy(planner, [{"steps": [], "refusal": "no tool books flights"}])
    with pytest.raises(PlanningFailed, match="the model declined: no tool books flights"):
        await planner.plan(PlanRequest("book a flight", tools, 5))
    assert len(spy.requests) == 1


def create_plan(prompt: str, tools: list[tool_pb2.Tool], **kw: Any) -> planner_service_pb2.CreatePlanRequest:
    return planner_service_pb2.CreatePlanRequest(prompt=prompt, tools=tools, max_steps=5, **kw)


class Context:
    def time_remaining(self) -> float:
        return 30.0


async def test_chain_falls_back_to_rules_and_records_why(tools: list[tool_pb2.Tool]) -> None:
    planner = LLMPlanner(settings(llm_repair_rounds=1))
    Spy(planner, [{"steps": [{"id": "s1", "tool": "nope", "arguments": {}, "depends_on": []}]}] * 2)
    servicer = PlannerServicer(settings(llm_repair_rounds=1), llm=planner)
    response = await servicer.CreatePlan(create_plan("calculate (10 + 5) * 2", tools), Context())  # type: ignore[arg-type]
    plan = response.plan
    assert plan.planner == "rules"
    assert [(a.planner, "unknown tool 'nope'" in a.error) for a in plan.attempts] == [("llm", True)]
    assert plan.usage.llm_calls == 2  # the failed LLM rounds are still accounted for
    assert struct_to_dict(plan.steps[0].arguments) == {"expression": "(10 + 5) * 2"}


async def test_when_every_planner_fails_the_error_names_each(tools: list[tool_pb2.Tool]) -> None:
    planner = LLMPlanner(settings())
    Spy(planner, [{"steps": [], "refusal": "no tool books flights"}])
    servicer = PlannerServicer(settings(), llm=planner)
    with pytest.raises(InvalidArgument) as info:
        await servicer.CreatePlan(create_plan("book a flight to Rome", tools), Context())  # type: ignore[arg-type]
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.reason == "UNPLANNABLE"
    assert info.value.message.startswith(
        "llm: the model declined: no tool books flights; rules: could not plan"
    )


async def test_plan_cache_returns_the_same_plan_for_the_same_catalog(tools: list[tool_pb2.Tool]) -> None:
    planner = LLMPlanner(settings(plan_cache_size=8))
    spy = Spy(planner, [GOOD, GOOD])
    servicer = PlannerServicer(settings(plan_cache_size=8), llm=planner)
    first = (
        await servicer.CreatePlan(create_plan("what is 2+2", tools, catalog_version="v1"), Context())
    ).plan  # type: ignore[arg-type]
    again = (
        await servicer.CreatePlan(create_plan("what is 2+2", tools, catalog_version="v1"), Context())
    ).plan  # type: ignore[arg-type]
    assert len(spy.requests) == 1
    assert (first.cached, again.cached) == (False, True)
    assert again.usage.llm_calls == 0 and first.usage.llm_calls == 1
    assert list(again.steps) == list(first.steps)
    await servicer.CreatePlan(create_plan("what is 2+2", tools, catalog_version="v2"), Context())  # type: ignore[arg-type]
    assert len(spy.requests) == 2  # a changed catalog is a new key


async def test_a_turn_with_history_is_never_served_nor_stored_by_the_plan_cache(
    tools: list[tool_pb2.Tool],
) -> None:
    """The same words mean another thing after other turns ("add that as a todo"): a plan made
    without history is not one for a request with history, nor the other way round."""
    planner = LLMPlanner(settings(plan_cache_size=8))
    spy = Spy(planner, [GOOD, GOOD, GOOD])
    servicer = PlannerServicer(settings(plan_cache_size=8), llm=planner)
    prior = planner_service_pb2.PriorTurn(turn=1, prompt="what is 1+1", answer="2")
    alone = create_plan("what is 2+2", tools, catalog_version="v1")
    in_thread = create_plan("what is 2+2", tools, catalog_version="v1", history=[prior])
    cached = [(await servicer.CreatePlan(r, Context())).plan.cached for r in (alone, in_thread, in_thread)]  # type: ignore[arg-type]
    assert cached == [False, False, False] and len(spy.requests) == 3
    assert any(m["content"] == "what is 1+1" for m in spy.requests[1]["messages"])
    assert (await servicer.CreatePlan(alone, Context())).plan.cached  # type: ignore[arg-type]


def test_parse_plan_names_every_field_the_model_got_wrong() -> None:
    answer = {"steps": [{"id": "s1", "tool": "calculator", "arguments": [1], "depends_on": "s0"}]}
    with pytest.raises(ValueError) as info:
        parse_plan(json.dumps(answer))
    assert "steps.0.arguments" in str(info.value) and "steps.0.depends_on" in str(info.value)
    # Ids the model left out are numbered; unknown keys (its own notes) are ignored.
    plan = parse_plan(json.dumps({"steps": [{"tool": "calculator", "note": "x"}, {"tool": "calculator"}]}))
    assert [s.id for s in plan.steps] == ["s1", "s2"] and plan.steps[0].arguments == dict_to_struct({})
