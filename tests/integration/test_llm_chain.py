"""The planner chain over real gRPC and real HTTP: executor -> planner -> litellm -> a fake
OpenAI-compatible server that answers slowly or with a scripted plan."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agentrt.config import LLMModel, Settings
from agentrt.core.values import value_to_py
from agentrt.v1 import agent_pb2, run_pb2
from gateway.http import HttpServer
from planner_svc.llm import NEW_REQUEST
from tests.conftest import Stack, start_stack, watch_all


class FakeOpenAI:
    """Answers /v1/chat/completions with `plan` after `delay` seconds; counts requests in flight."""

    def __init__(self) -> None:
        self.delay = 0.0
        self.plan: dict[str, Any] = {"steps": []}
        self.in_flight = 0
        self.requests: list[dict[str, Any]] = []
        self.refuse_quoting_key = False  # answer 401 quoting the key, as OpenAI does
        self.server = HttpServer(
            Starlette(routes=[Route("/v1/chat/completions", self.complete, methods=["POST"])]), "127.0.0.1", 0
        )

    async def complete(self, request: Request) -> JSONResponse:
        self.requests.append(await request.json())
        if self.refuse_quoting_key:
            key = request.headers.get("authorization", "").removeprefix("Bearer ")
            error = {"message": f"Incorrect API key provided: {key}.", "type": "invalid_request_error"}
            return JSONResponse({"error": error}, status_code=401)
        self.in_flight += 1
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        return JSONResponse(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "fake",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": json.dumps(self.plan)},
                    }
                ],
                "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
            }
        )


@pytest.fixture
async def fake() -> AsyncIterator[FakeOpenAI]:
    f = FakeOpenAI()
    await f.server.start()
    yield f
    await f.server.stop()


@pytest.fixture
async def llm_stack(settings: Settings, fake: FakeOpenAI) -> AsyncIterator[Stack]:
    model = LLMModel(
        model="openai/fake", api_base=f"http://127.0.0.1:{fake.server.port}/v1", response_format="json_schema"
    )
    stack = await start_stack(
        settings.replace(planner_chain=["llm", "rules"], llm_models=[model], llm_timeout_s=0.5)
    )
    yield stack
    await stack.close()


async def run(stack: Stack, prompt: str, **request_fields: Any) -> run_pb2.Run:
    # Plan mode: the chain plans (auto mode would try the rules first, then the agent loop).
    request = run_pb2.CreateRunRequest(prompt=prompt, mode=agent_pb2.RUN_MODE_PLAN, **request_fields)
    created = (await stack.gateway.CreateRun(request)).run
    await watch_all(stack.gateway, created.run_id)
    return (await stack.gateway.GetRun(run_pb2.GetRunRequest(run_id=created.run_id))).run


async def test_an_llm_plan_runs_and_its_usage_is_summed_on_the_run(
    llm_stack: Stack, fake: FakeOpenAI
) -> None:
    fake.plan = {
        "steps": [
            {"id": "a", "tool": "calculator", "arguments": {"expression": "6 * 7"}, "depends_on": []},
            {
                "id": "b",
                "tool": "todo_store",
                "arguments": {"action": "add", "text": "answer {{steps.a.output.value}}"},
                "depends_on": ["a"],
            },
        ]
    }
    # Its todo is a change a model chose: under the default policy it would wait for a person
    # (tests/integration/test_model_robustness.py); this test is about usage, so no policy.
    result = await run(
        llm_stack, "work out six times seven and write it down", approval_policy=run_pb2.APPROVAL_POLICY_NEVER
    )
    assert result.status == run_pb2.RUN_STATUS_SUCCEEDED, result.error.message
    assert result.plan.planner == "llm"
    assert value_to_py(result.result)["todo"]["text"] == "answer 42"
    assert (result.usage.llm_calls, result.usage.prompt_tokens, result.usage.completion_tokens) == (
        1,
        120,
        30,
    )
    assert result.plan.usage == result.usage
    sent = fake.requests[0]
    assert sent["model"] == "fake"
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["messages"][-1] == {
        "role": "user",
        "content": NEW_REQUEST + "work out six times seven and write it down",
    }


async def test_an_llm_timeout_falls_back_to_rules_within_the_deadline(
    llm_stack: Stack, fake: FakeOpenAI
) -> None:
    fake.delay = 30.0  # far beyond llm_timeout_s
    result = await run(llm_stack, "calculate (10 + 5) * 2")
    assert result.status == run_pb2.RUN_STATUS_SUCCEEDED, result.error.message
    assert result.plan.planner == "rules"
    assert [a.planner for a in result.plan.attempts] == ["llm"]
    assert "did not answer within" in result.plan.attempts[0].error
    # The run finished while the model was still "thinking": the planner did not wait for it.
    assert fake.in_flight == 1
    assert value_to_py(result.result)["value"] == 30


async def test_the_router_falls_back_to_the_next_model(settings: Settings, fake: FakeOpenAI) -> None:
    dead = LLMModel(model="openai/dead", api_base="http://127.0.0.1:9/v1", response_format="json_schema")
    alive = LLMModel(
        model="openai/fake", api_base=f"http://127.0.0.1:{fake.server.port}/v1", response_format="json_schema"
    )
    fake.plan = {
        "steps": [{"id": "s1", "tool": "calculator", "arguments": {"expression": "1 + 1"}, "depends_on": []}]
    }
    stack = await start_stack(
        settings.replace(planner_chain=["llm"], llm_models=[dead, alive], llm_timeout_s=5)
    )
    try:
        result = await run(stack, "one plus one, please")
    finally:
        await stack.close()
    assert result.status == run_pb2.RUN_STATUS_SUCCEEDED, result.error.message
    assert result.plan.planner == "llm"
    assert value_to_py(result.result)["value"] == 2
    assert len(fake.requests) == 1  # the primary failed to connect; the fallback answered


async def test_an_upstream_error_quoting_the_api_key_never_leaves_the_planner(
    settings: Settings, fake: FakeOpenAI
) -> None:
    """Providers quote the key they were sent ("Incorrect API key provided: sk-...") and litellm
    passes their text on: plan attempts, run errors and logs carry it redacted."""
    secret = "sk-test-0123456789abcdef"

    fake.refuse_quoting_key = True
    model = LLMModel(
        model="openai/fake",
        api_base=f"http://127.0.0.1:{fake.server.port}/v1",
        api_key=SecretStr(secret),
        response_format="json_schema",
    )
    stack = await start_stack(settings.replace(planner_chain=["llm", "rules"], llm_models=[model]))
    try:
        planned = await run(stack, "calculate 2 + 3")  # the LLM fails, the rules plan it
        assert planned.status == run_pb2.RUN_STATUS_SUCCEEDED, planned.error.message
        assert fake.requests, "the fake provider was never asked"
        attempt = planned.plan.attempts[0].error
        assert "refused the credentials (HTTP 401)" in attempt and "api_key" in attempt
        assert secret not in attempt
        failed = await run(stack, "book me a flight")  # both fail: the run's error quotes both
        assert failed.status == run_pb2.RUN_STATUS_FAILED
        assert secret not in failed.error.message
    finally:
        await stack.close()


async def test_a_plan_the_model_declines_still_shows_what_it_cost(
    settings: Settings, fake: FakeOpenAI
) -> None:
    """The tokens of failed attempts belong on the run, not only in the planner's metrics."""
    model = LLMModel(
        model="openai/fake", api_base=f"http://127.0.0.1:{fake.server.port}/v1", response_format="json_schema"
    )
    fake.plan = {"steps": [], "refusal": "I cannot do that"}
    stack = await start_stack(settings.replace(planner_chain=["llm"], llm_models=[model]))
    try:
        failed = await run(stack, "book me a flight")
    finally:
        await stack.close()
    assert failed.status == run_pb2.RUN_STATUS_FAILED
    assert "declined" in failed.error.message
    assert (failed.usage.llm_calls, failed.usage.prompt_tokens, failed.usage.completion_tokens) == (
        1,
        120,
        30,
    )
