"""The agent with a model that is down, slow, wrong or overeager, over real gRPC: gateway ->
executor -> planner -> litellm -> a scripted OpenAI-compatible server (or a port nobody listens
on). A dead model fails the run fast and names its endpoint; calls that write run in the model's
order; what a model chose to change waits for a person; tool errors help the model recover."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from agentrt.config import LLMModel, Settings
from agentrt.core.values import value_to_py
from agentrt.v1 import agent_pb2, planner_service_pb2, run_pb2
from tests.conftest import Stack, start_stack, watch_all
from tests.scripted_llm import Reply, ScriptedLLM, answer, call, error

R = run_pb2
AGENT = agent_pb2.RUN_MODE_AGENT
# A fast retry budget, so the dead-model tests take a second, not half a minute.
FAST = {"llm_retry_base_delay_s": 0.05, "llm_retry_attempts": 3}
SECRET = "sk-test-0123456789abcdefghijklmnop"


def dead_port() -> int:
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def model_stack(settings: Settings, model: dict[str, Any], **update: Any) -> Stack:
    return await start_stack(settings.replace(llm_models=[LLMModel(**model)], **{**FAST, **update}))


@pytest.fixture
async def dead(settings: Settings) -> AsyncIterator[tuple[Stack, str]]:
    base = f"http://127.0.0.1:{dead_port()}/v1"
    model = {"model": "openai/local", "api_base": base, "api_key": SECRET, "tool_calling": "tools"}
    built = await model_stack(settings, model, planner_chain=["llm", "rules"])
    yield built, base
    await built.close()


@pytest.fixture
async def stack(settings: Settings, llm: ScriptedLLM) -> AsyncIterator[Stack]:
    built = await model_stack(settings, llm.model())
    yield built
    await built.close()


async def finish(stack: Stack, prompt: str, **request: Any) -> tuple[R.Run, list[R.RunEvent]]:
    request.setdefault("mode", AGENT)
    run_id = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt=prompt, **request))).run.run_id
    events = await watch_all(stack.gateway, run_id)
    return (await stack.gateway.GetRun(R.GetRunRequest(run_id=run_id))).run, events


@pytest.mark.parametrize("mode", [AGENT, agent_pb2.RUN_MODE_PLAN])
async def test_a_dead_model_fails_the_run_in_a_few_retries_naming_its_endpoint(
    dead: tuple[Stack, str], mode: int
) -> None:
    stack, base = dead
    run, events = await finish(stack, "write a haiku about my todo list", mode=mode)
    assert run.status == R.RUN_STATUS_FAILED
    assert run.error.reason == "LLM_UNREACHABLE", run.error
    assert base in run.error.message and "refused the connection" in run.error.message
    assert "agentrt model serve" in run.error.message  # what to do
    assert "gave up after 3 attempts" in run.error.message
    assert SECRET not in str(run) and SECRET not in str(events)
    # Each retry is an event of the run, saying why and when the next attempt comes.
    retries = [e.planner_retry for e in events if e.HasField("planner_retry")]
    assert [(r.attempt, r.max_attempts) for r in retries] == [(1, 3), (2, 3)]
    assert all(r.error.reason == "LLM_UNREACHABLE" and base in r.error.message for r in retries)
    assert all(r.delay.ToNanoseconds() > 0 for r in retries)
    assert retries[0].activity == ("deciding" if mode == AGENT else "planning")
    # Stored: a watcher that comes later replays them, in order, without gaps.
    again = await watch_all(stack.gateway, run.run_id)
    assert [e.seq for e in again] == list(range(1, len(again) + 1))
    assert sum(e.HasField("planner_retry") for e in again) == 2


async def test_the_rules_still_answer_with_the_model_dead(dead: tuple[Stack, str]) -> None:
    """Auto mode asks the rules first: what they understand never waits on the model."""
    stack, _ = dead
    run, events = await finish(stack, "what is 6 times 7", mode=agent_pb2.RUN_MODE_AUTO)
    assert run.status == R.RUN_STATUS_SUCCEEDED and value_to_py(run.result)["value"] == 42
    assert not any(e.HasField("planner_retry") for e in events)


async def test_a_refused_key_fails_at_once_without_retries(stack: Stack, llm: ScriptedLLM) -> None:
    llm.replies = [error(401, "Incorrect API key provided")]
    run, events = await finish(stack, "list my todos")
    assert run.status == R.RUN_STATUS_FAILED
    assert run.error.reason == "LLM_AUTH_FAILED"
    assert llm.api_base in run.error.message and "api_key" in run.error.message
    assert not any(e.HasField("planner_retry") for e in events)
    assert len(llm.requests) == 1


async def test_a_model_that_errs_then_answers_is_retried_within_the_run(
    stack: Stack, llm: ScriptedLLM
) -> None:
    llm.replies = [error(503, "overloaded"), answer("Nothing to do.")]
    run, events = await finish(stack, "say hello")
    assert run.status == R.RUN_STATUS_SUCCEEDED and run.answer == "Nothing to do."
    retries = [e.planner_retry for e in events if e.HasField("planner_retry")]
    assert len(retries) == 1 and retries[0].error.reason == "LLM_UNAVAILABLE"


async def test_a_slow_model_sends_heartbeats_to_watchers(settings: Settings, llm: ScriptedLLM) -> None:
    stack = await model_stack(settings, llm.model(), heartbeat_s=0.1)
    try:
        llm.hold_replies()
        llm.replies = [answer("done")]
        run_id = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt="hi", mode=AGENT))).run.run_id
        beats: list[R.RunEvent] = []

        async def watch() -> None:
            async for response in stack.gateway.WatchRun(R.WatchRunRequest(run_id=run_id), timeout=20):
                if response.event.HasField("heartbeat"):
                    beats.append(response.event)
                    if len(beats) == 2:
                        llm.release()

        await asyncio.wait_for(watch(), 20)
        assert len(beats) >= 2 and all(b.transient for b in beats)
        assert beats[0].heartbeat.activity == "deciding"
        assert beats[1].heartbeat.elapsed.ToNanoseconds() > beats[0].heartbeat.elapsed.ToNanoseconds()
        # Transient: never stored, so never replayed.
        replayed = await watch_all(stack.gateway, run_id)
        assert not any(e.HasField("heartbeat") for e in replayed)
    finally:
        await stack.close()


async def waiting(stack: Stack, run_id: str) -> R.Run:
    """The run once it waits for a person (it holds no watch stream open meanwhile)."""
    for _ in range(600):
        run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=run_id))).run
        if run.status == R.RUN_STATUS_WAITING:
            return run
        assert run.status not in (R.RUN_STATUS_SUCCEEDED, R.RUN_STATUS_FAILED), run.error
        await asyncio.sleep(0.05)
    raise AssertionError("the run never waited")


def tool_results(request: dict[str, Any]) -> list[str]:
    out = []
    for message in reversed(request["messages"]):
        if message["role"] != "tool":
            break
        out.insert(0, message["content"])
    return out


async def test_add_then_list_in_one_turn_lists_what_was_added(stack: Stack, llm: ScriptedLLM) -> None:
    """The issue's case: the model asks for the add and the list in one turn; the list must
    show the new todo (a write runs before the calls after it)."""

    def model(request: dict[str, Any]) -> Reply:
        results = tool_results(request)
        if not results:
            return Reply(
                calls=[
                    ("todo_store", {"action": "add", "text": "buy oat milk"}),
                    ("todo_store", {"action": "list"}),
                ]
            )
        listed = json.loads(results[1])
        return answer(listed["summary"])

    llm.script = model
    run, _ = await finish(stack, "add buy oat milk and show my list", approval_policy=R.APPROVAL_POLICY_NEVER)
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error
    assert "buy oat milk" in run.answer
    # In the order the model gave them: the add finished before the list started.
    add, listing = run.steps[0], run.steps[1]
    assert add.end_time.ToNanoseconds() <= listing.start_time.ToNanoseconds()


async def test_read_only_calls_of_one_turn_still_run_side_by_side(stack: Stack, llm: ScriptedLLM) -> None:
    def model(request: dict[str, Any]) -> Reply:
        if not tool_results(request):
            return Reply(calls=[("todo_store", {"action": "list"}), ("todo_store", {"action": "count"})])
        return answer("looked")

    llm.script = model
    run, events = await finish(stack, "show and count my todos")
    assert run.status == R.RUN_STATUS_SUCCEEDED
    # Both started before either finished: the RUNNING updates of both come before any SUCCEEDED.
    updates = [
        (e.step_updated.step.step_id, e.step_updated.step.status)
        for e in events
        if e.HasField("step_updated")
    ]
    first_done = next(i for i, (_, status) in enumerate(updates) if status == R.STEP_STATUS_SUCCEEDED)
    started = {sid for sid, status in updates[:first_done] if status == R.STEP_STATUS_RUNNING}
    assert started == {"t1-1", "t1-2"}


async def test_by_default_a_change_the_model_chose_waits_for_a_person(stack: Stack, llm: ScriptedLLM) -> None:
    llm.replies = [call("todo_store", action="add", text="buy a boat"), answer("Added.")]
    created = await stack.gateway.CreateRun(R.CreateRunRequest(prompt="I might want a boat", mode=AGENT))
    first = await waiting(stack, created.run.run_id)
    step = first.steps[0]
    assert (
        step.status == R.STEP_STATUS_AWAITING_APPROVAL and "approval policy: writes" in step.approval.reason
    )
    # Reading does not wait; and what the rules parsed from the user's own words runs at once.
    rules, _ = await finish(stack, "add a todo to buy milk", mode=agent_pb2.RUN_MODE_AUTO)
    assert rules.status == R.RUN_STATUS_SUCCEEDED and rules.plan.planner == "rules"
    llm.replies = [call("todo_store", action="list"), answer("You have one todo.")]
    reading, _ = await finish(stack, "what is on my list?")
    assert reading.status == R.RUN_STATUS_SUCCEEDED


async def test_a_declined_call_reaches_the_model_as_declined(stack: Stack, llm: ScriptedLLM) -> None:
    llm.replies = [call("todo_store", action="add", text="sell the car"), answer("ok")]
    run_id = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt="sell my car", mode=AGENT))).run.run_id
    await waiting(stack, run_id)
    await stack.gateway.RejectStep(R.RejectStepRequest(run_id=run_id, step_id="t1-1", reason="not now"))
    await watch_all(stack.gateway, run_id)
    seen = tool_results(llm.requests[-1])
    assert len(seen) == 1 and seen[0].startswith("declined (REJECTED): the user declined this call")
    assert "not now" in seen[0] and "not found" not in seen[0].lower()


async def test_a_todo_that_does_not_match_names_the_closest_ones(stack: Stack, llm: ScriptedLLM) -> None:
    for text in ("buy oat milk", "call the plumber", "pay rent"):
        seeded, _ = await finish(stack, f"add a todo to {text}", mode=agent_pb2.RUN_MODE_AUTO)
        assert seeded.status == R.RUN_STATUS_SUCCEEDED
    llm.replies = [
        call("todo_store", action="complete", text="buy milk please"),
        call("todo_store", action="complete", id=99),
        answer("done"),
    ]
    run, _ = await finish(stack, "I bought the milk", approval_policy=R.APPROVAL_POLICY_NEVER)
    by_text, by_id = run.steps[0].error, run.steps[1].error
    assert by_text.reason == "TODO_NOT_FOUND"
    assert "the closest are #1 'buy oat milk'" in by_text.message and "plumber" not in by_text.message
    assert by_id.reason == "TODO_NOT_FOUND" and "todo 99 does not exist" in by_id.message
    assert "#1 'buy oat milk'" in by_id.message and "#3 'pay rent'" in by_id.message


async def test_check_models_says_which_answer(settings: Settings, llm: ScriptedLLM) -> None:
    base = f"http://127.0.0.1:{dead_port()}/v1"
    models = [llm.model(), {"model": "openai/fallback", "api_base": base, "api_key": SECRET}]
    stack = await start_stack(settings.replace(llm_models=[LLMModel(**m) for m in models]))
    try:
        checked = await stack.planner.CheckModels(planner_service_pb2.CheckModelsRequest(fresh=True))
        up, down = checked.models
        assert (up.model, up.endpoint, up.answers) == ("openai/scripted", llm.api_base, True)
        assert (down.endpoint, down.answers, down.error.reason) == (base, False, "LLM_UNREACHABLE")
        assert SECRET not in str(checked)
        # An OpenAI-compatible server is asked for its model list: no completion, no tokens.
        assert llm.model_lists == 1 and llm.requests == []
        # /healthz reports them; the services decide its status.
        async with httpx.AsyncClient() as client:
            body = (await client.get(f"{stack.http}/healthz")).json()
        assert body["status"] == "SERVING"
        assert [m.get("answers", False) for m in body["models"]] == [True, False]
        assert body["models"][1]["error"]["reason"] == "LLM_UNREACHABLE"
        # It answers anyone: no endpoint, no message naming one.
        assert base not in json.dumps(body) and llm.api_base not in json.dumps(body)
    finally:
        await stack.close()


async def test_a_key_in_the_endpoint_never_shows(settings: Settings) -> None:
    base = f"http://user:{SECRET}@127.0.0.1:{dead_port()}/v1?key={SECRET}"
    stack = await model_stack(
        settings,
        {"model": "openai/local", "api_base": base, "api_key": SecretStr(SECRET), "tool_calling": "tools"},
    )
    try:
        run, events = await finish(stack, "hello")
        assert run.error.reason == "LLM_UNREACHABLE"
        assert SECRET not in str(run) and SECRET not in str(events)
    finally:
        await stack.close()


async def test_a_refused_key_on_the_model_list_is_said_and_its_body_not_read_whole(
    settings: Settings,
) -> None:
    from starlette.applications import Starlette  # noqa: PLC0415
    from starlette.responses import Response  # noqa: PLC0415
    from starlette.routing import Route  # noqa: PLC0415

    from gateway.http import HttpServer  # noqa: PLC0415

    huge = "Incorrect API key provided\n" + "x" * 4_000_000

    async def models(request: Any) -> Response:
        return Response(huge, status_code=401)

    server = HttpServer(Starlette(routes=[Route("/v1/models", models)]), "127.0.0.1", 0)
    await server.start()
    base = f"http://127.0.0.1:{server.port}/v1"
    stack = await start_stack(settings.replace(llm_models=[LLMModel(model="openai/x", api_base=base)]))
    try:
        checked = await stack.planner.CheckModels(planner_service_pb2.CheckModelsRequest(fresh=True))
        (model,) = checked.models
        assert (model.answers, model.error.reason) == (False, "LLM_AUTH_FAILED")
        assert "refused the credentials (HTTP 401)" in model.error.message
        assert len(model.error.message) < 1000
    finally:
        await stack.close()
        await server.stop()
