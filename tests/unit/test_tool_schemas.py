"""Tool schemas are converted and compiled once, when a tool enters a catalog (the planner's
book, the executor's held catalog), and looked up after that: a second plan against the same
catalog compiles, converts and hashes no schema. (Before, every plan converted each tool's
schema three times and hashed it once per step to find its compiled validator.)"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentrt.config import LLMModel, PlannerSettings
from agentrt.core import plans, toolschemas
from agentrt.core.plans import InvalidPlan, validate_arguments
from agentrt.core.schemas import Schema
from agentrt.core.toolschemas import SchemaBook, validators
from agentrt.core.values import dict_to_struct
from agentrt.v1 import plan_pb2, tool_pb2, tool_service_pb2
from executor_svc.toolcatalog import ToolCatalog
from planner_svc.agent import AgentDecider
from planner_svc.llm import LLMPlanner
from planner_svc.llmclient import Completion
from planner_svc.planner import PlanRequest
from planner_svc.transcript import Transcript

C = tool_service_pb2
ARGS = {"n": 7}
REF = dict_to_struct({"n": {"$ref": "steps.a.output"}})  # checked by tools_svc once resolved


def schema(i: int) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["n"],
        "properties": {"n": {"type": "integer", "minimum": i}, f"flag{i}": {"type": "boolean"}},
    }


def tools(count: int = 5) -> list[tool_pb2.Tool]:
    """A fresh copy of the catalog, as each request to the planner parses its own."""
    return [
        tool_pb2.Tool(name=f"tool{i}", description="t", input_schema=dict_to_struct(schema(i)))
        for i in range(count)
    ]


class Counts:
    """Schemas compiled (toolschemas) and schemas converted and hashed to find a compiled one
    (plans.validate_arguments given plain dicts)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.compiled = 0
        self.hashed = 0
        compile_schema, cached_schema = toolschemas.compile_schema, plans.cached_schema

        def compiling(source: Any) -> Schema:
            self.compiled += 1
            return compile_schema(source)

        def hashing(source: dict[str, Any]) -> Schema:
            self.hashed += 1
            return cached_schema(source)

        monkeypatch.setattr(toolschemas, "compile_schema", compiling)
        monkeypatch.setattr(plans, "cached_schema", hashing)


def test_a_schema_in_another_key_order_is_the_same_entry() -> None:
    book = SchemaBook()
    first = book.of(tools()[0])
    reordered = tool_pb2.Tool(
        name="other", input_schema=dict_to_struct(dict(reversed(list(schema(0).items()))))
    )
    assert book.of(reordered) is first
    assert list(first.source) == sorted(first.source)  # canonical: the prompt is byte-stable
    assert json.loads(first.text) == schema(0)


def test_fresh_copies_do_not_reach_the_kept_schema() -> None:
    """litellm removes "additionalProperties": false in place for some servers."""
    compiled = SchemaBook().of(tools()[0])
    copy = compiled.fresh()
    del copy["additionalProperties"]
    assert compiled.fresh()["additionalProperties"] is False and "additionalProperties" in compiled.source


def test_a_schema_agentrt_refuses_is_left_to_tools_svc() -> None:
    bad = tool_pb2.Tool(name="bad", input_schema=dict_to_struct({"type": "object", "$ref": "http://x/"}))
    compiled = SchemaBook().catalog([bad, *tools(1)])
    assert compiled["bad"].validator is None
    plan = plan_pb2.Plan(
        steps=[
            plan_pb2.PlanStep(id="a", tool="bad", arguments=dict_to_struct({"anything": 1})),
            plan_pb2.PlanStep(id="b", tool="tool0", arguments=dict_to_struct({"n": "x"})),
        ]
    )
    with pytest.raises(InvalidPlan, match=r"step b \(tool0\) arguments.n") as raised:
        validate_arguments(plan, validators(compiled))
    assert "step a" not in raised.value.message


def test_compiled_validators_judge_as_the_schemas_did() -> None:
    catalog = tools(3)
    plan = plan_pb2.Plan(
        steps=[
            plan_pb2.PlanStep(id="a", tool="tool2", arguments=dict_to_struct({"n": 1})),
            plan_pb2.PlanStep(id="b", tool="tool1", arguments=dict_to_struct({"n": 1, "x": 2})),
            plan_pb2.PlanStep(
                id="c", tool="tool0", arguments=dict_to_struct({"n": {"$ref": "steps.a.output"}})
            ),
        ]
    )
    with pytest.raises(InvalidPlan) as old:
        validate_arguments(plan, {t.name: json.loads(json.dumps(schema(int(t.name[-1])))) for t in catalog})
    with pytest.raises(InvalidPlan) as new:
        validate_arguments(plan, validators(SchemaBook().catalog(catalog)), plans.arguments_of(plan))
    assert new.value.message == old.value.message and new.value.reason == "INVALID_ARGUMENTS"
    assert (
        "step a" in new.value.message and "step b" in new.value.message and "step c" not in new.value.message
    )


class ScriptedClient:
    """An LLM that answers a 5-step plan, or 3 calls, at once."""

    def response_format(self, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}

    def uses_tools(self) -> bool:
        return True

    async def complete(self, call: dict[str, Any], seconds: float) -> Completion:
        steps = [{"id": f"s{k}", "tool": f"tool{k}", "arguments": ARGS, "depends_on": []} for k in range(5)]
        return Completion(content=json.dumps({"steps": steps}), usage=plan_pb2.Usage(llm_calls=1))

    async def stream(self, call: dict[str, Any], seconds: float, on_text: Any) -> Completion:
        calls = [(f"tool{k}", json.dumps(ARGS)) for k in range(3)]
        return Completion(content="", tool_calls=calls, usage=plan_pb2.Usage(llm_calls=1))


def llm_settings() -> PlannerSettings:
    return PlannerSettings(llm_models=[LLMModel(model="openai/x", api_base="http://127.0.0.1:9/v1")])


async def test_two_plans_with_one_catalog_compile_each_schema_once(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = Counts(monkeypatch)
    planner = LLMPlanner(llm_settings(), ScriptedClient())  # type: ignore[arg-type]
    first = await planner.plan(PlanRequest("do it", tools(), 5))
    assert (counts.compiled, counts.hashed) == (5, 0)
    second = await planner.plan(PlanRequest("do it", tools(), 5))
    assert (counts.compiled, counts.hashed) == (5, 0)
    assert first == second and len(first.steps) == 5


async def test_two_decisions_with_one_catalog_compile_each_schema_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counts = Counts(monkeypatch)
    decider = AgentDecider(llm_settings(), ScriptedClient())  # type: ignore[arg-type]
    for _ in range(2):
        turn = await decider.decide(
            prompt="do it",
            tools=tools(),
            transcript=Transcript([], [], 4000, 16000),
            calls_left=8,
            tokens_left=0,
            on_text=lambda _: None,
            time_left=lambda: 10.0,
        )
        assert [c.tool for c in turn.calls] == ["tool0", "tool1", "tool2"]
    assert (counts.compiled, counts.hashed) == (5, 0)


class Watch:
    """WatchTools as a stub returns it: the messages, then an open stream."""

    def __init__(self, messages: list[tool_service_pb2.WatchToolsResponse]) -> None:
        self._messages = messages

    def __aiter__(self) -> AsyncIterator[tool_service_pb2.WatchToolsResponse]:
        return self._stream()

    async def _stream(self) -> AsyncIterator[tool_service_pb2.WatchToolsResponse]:
        for message in self._messages:
            yield message
        await asyncio.Event().wait()

    def cancel(self) -> None:
        pass


class Stub:
    def __init__(self, messages: list[tool_service_pb2.WatchToolsResponse]) -> None:
        self.messages = messages

    def WatchTools(self, request: Any) -> Watch:
        return Watch(self.messages)


async def test_the_executor_compiles_a_schema_as_its_tool_arrives(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = Counts(monkeypatch)
    changed = tools(2)[1]
    changed.input_schema.CopyFrom(dict_to_struct(schema(9)))
    stub = Stub(
        [
            C.WatchToolsResponse(change=C.TOOL_CHANGE_TYPE_SNAPSHOT, tools=tools(2), catalog_version="v1"),
            C.WatchToolsResponse(change=C.TOOL_CHANGE_TYPE_UPDATED, tools=[changed], catalog_version="v2"),
            C.WatchToolsResponse(change=C.TOOL_CHANGE_TYPE_REMOVED, tools=tools(1), catalog_version="v3"),
        ]
    )
    catalog = ToolCatalog(stub, 5.0)  # type: ignore[arg-type]
    following = asyncio.create_task(catalog.follow())
    try:
        for _ in range(100):
            if (held := catalog.held()) is not None and held.catalog_version == "v3":
                break
            await asyncio.sleep(0.01)
        held = catalog.held()
        assert held is not None and [t.name for t in held.tools] == ["tool1"]
        assert counts.compiled == 3  # two at the snapshot, the updated one
        for _ in range(3):
            compiled = catalog.compiled(held)
        assert list(compiled) == ["tool1"] and compiled["tool1"].source["properties"]["n"]["minimum"] == 9
        # A live answer (ListTools) with the same schemas: looked up, not compiled again.
        live = C.ListToolsResponse(tools=[changed, *tools(1)], catalog_version="v4")
        assert set(catalog.compiled(live)) == {"tool0", "tool1"}
        assert (counts.compiled, counts.hashed) == (3, 0)
    finally:
        following.cancel()
        await asyncio.gather(following, return_exceptions=True)
