"""The agent loop over real gRPC: gateway -> executor -> planner (Decide) -> litellm -> a scripted
OpenAI-compatible server, with the real tools. The script plays the model; several of its
replies read the tool results the loop sent back, so a test passes only if the model really
saw them."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from agentrt.config import LLMModel, Settings
from agentrt.core.values import value_to_py
from agentrt.v1 import agent_pb2, run_pb2
from tests.conftest import Stack, start_stack, watch_all
from tests.scripted_llm import COMPLETION_TOKENS, PROMPT_TOKENS, Reply, ScriptedLLM, answer, call

R = run_pb2
AGENT = agent_pb2.RUN_MODE_AGENT


async def agent_stack(settings: Settings, llm: ScriptedLLM, **update: Any) -> Stack:
    """The loop's mechanics, with no person in front of its writes (the default policy's waits
    for a person are tests/integration/test_model_robustness.py's)."""
    model = LLMModel(**llm.model())
    return await start_stack(settings.replace(llm_models=[model], **{"approval_policy": "never", **update}))


@pytest.fixture
async def stack(settings: Settings, llm: ScriptedLLM) -> AsyncIterator[Stack]:
    built = await agent_stack(settings, llm)
    yield built
    await built.close()


async def create(stack: Stack, prompt: str, **request: Any) -> R.Run:
    request.setdefault("mode", AGENT)
    return (await stack.gateway.CreateRun(R.CreateRunRequest(prompt=prompt, **request))).run


async def finish(stack: Stack, run_id: str) -> tuple[R.Run, list[R.RunEvent]]:
    events = await watch_all(stack.gateway, run_id)
    return (await stack.gateway.GetRun(R.GetRunRequest(run_id=run_id))).run, events


async def run(stack: Stack, prompt: str, **request: Any) -> R.Run:
    return (await finish(stack, (await create(stack, prompt, **request)).run_id))[0]


def last_tool_results(request: dict[str, Any]) -> list[Any]:
    """The tool results the model was just sent (function-calling messages), parsed."""
    results = []
    for message in reversed(request["messages"]):
        if message["role"] != "tool":
            break
        content = message["content"]
        results.insert(0, json.loads(content) if content.startswith("{") else content)
    return results


async def test_the_agent_looks_at_the_list_before_it_marks_a_todo_done(
    stack: Stack, llm: ScriptedLLM
) -> None:
    """The issue's case: "mark the buy eggs todo as done" must complete the right todo, whose id
    the model only knows from the list it asked for."""
    for text in ("call mom", "buy eggs", "pay rent"):
        seeded = await run(stack, f"add a todo to {text}", mode=agent_pb2.RUN_MODE_PLAN)
        assert seeded.status == R.RUN_STATUS_SUCCEEDED

    def model(request: dict[str, Any]) -> Reply:
        turn = sum(1 for m in request["messages"] if m["role"] == "assistant") + 1
        if turn == 1:
            return call("todo_store", action="list")
        if turn == 2:
            todos = last_tool_results(request)[0]["todos"]
            eggs = next(t["id"] for t in todos if t["text"] == "buy eggs")
            return call("todo_store", action="complete", id=eggs)
        done = last_tool_results(request)[0]["todo"]
        return answer(f"Marked '{done['text']}' (#{done['id']}) as done.")

    llm.script = model
    result = await run(stack, "mark the buy eggs todo as done")
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert result.mode == AGENT
    assert result.answer == "Marked 'buy eggs' (#2) as done."
    assert [len(t.calls) for t in result.turns] == [1, 1, 0]
    assert [s.step_id for s in result.steps] == ["t1-1", "t2-1"]
    assert value_to_py(result.result)["todo"] == {"id": 2, "text": "buy eggs", "done": True}
    listing = await run(stack, "show my todos", mode=agent_pb2.RUN_MODE_PLAN)
    assert [t["done"] for t in value_to_py(listing.result)["todos"]] == [False, True, False]
    # Usage per turn and per run.
    assert all(t.usage.llm_calls == 1 and t.usage.prompt_tokens == PROMPT_TOKENS for t in result.turns)
    assert result.usage.llm_calls == 3
    assert result.usage.completion_tokens == 3 * COMPLETION_TOKENS
    # The prompt the model reads: the catalog as functions, the user's words, then the transcript.
    first = llm.requests[-3]
    assert {f["function"]["name"] for f in first["tools"]} >= {"calculator", "todo_store", "decline_request"}
    assert first["messages"][1] == {"role": "user", "content": "mark the buy eggs todo as done"}
    assert first["stream"] is True


async def test_a_tool_error_is_an_observation_the_model_recovers_from(stack: Stack, llm: ScriptedLLM) -> None:
    def model(request: dict[str, Any]) -> Reply:
        results = last_tool_results(request)
        if not results:
            return call("calculator", expression="10 / (5 - 5)")
        if isinstance(results[0], str) and results[0].startswith("error"):
            return call("calculator", expression="10 / 5")
        return answer(f"10 / 5 = {results[0]['value']}")

    llm.script = model
    result = await run(stack, "divide ten by five minus five, or by five if that fails")
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    failed, fine = result.steps
    assert failed.status == R.STEP_STATUS_FAILED and "zero" in failed.error.message.lower()
    assert fine.status == R.STEP_STATUS_SUCCEEDED
    assert result.answer == "10 / 5 = 2"
    # The error the model saw is the tool's own.
    seen = last_tool_results(llm.requests[1])[0]
    assert seen.startswith("error (") and failed.error.message in seen


async def test_independent_calls_of_a_turn_run_in_parallel(settings: Settings, llm: ScriptedLLM) -> None:
    """Three gate calls in one turn: each blocks until the test releases it, so all three being
    in flight at once proves they were started together."""
    from tests.harness import Harness  # noqa: PLC0415

    llm.replies = [
        Reply(calls=[("gate", {"label": "a"}), ("gate", {"label": "b"}), ("gate", {"label": "c"})]),
        answer("all three gates opened"),
    ]
    harness = Harness(settings.replace(llm_models=[LLMModel(**llm.model())]))
    await harness.start()
    try:
        created = (await harness.runs.CreateRun(R.CreateRunRequest(prompt="open the gates", mode=AGENT))).run
        started = {await harness.gate.next_started() for _ in range(3)}
        assert started == {"a", "b", "c"}
        assert harness.gate.active == 3
        harness.gate.release("a", "b", "c")
        result, _ = await harness.finish(created.run_id)
    finally:
        await harness.close()
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert result.answer == "all three gates opened"
    assert [s.status for s in result.steps] == [R.STEP_STATUS_SUCCEEDED] * 3


async def test_the_model_declining_fails_the_run_as_refused(stack: Stack, llm: ScriptedLLM) -> None:
    llm.replies = [call("decline_request", reason="no tool can book flights")]
    result = await run(stack, "book me a flight to Lisbon")
    assert result.status == R.RUN_STATUS_FAILED
    assert result.error.reason == "REFUSED"
    assert "no tool can book flights" in result.error.message
    assert result.turns[0].refusal == "no tool can book flights"


async def test_invalid_arguments_go_back_to_the_model_before_any_call(stack: Stack, llm: ScriptedLLM) -> None:
    llm.replies = [
        call("todo_store", action="add"),  # no text: the schema says it is required
        call("todo_store", action="add", text="fixed"),
        answer("Added 'fixed'."),
    ]
    result = await run(stack, "add a todo")
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert len(result.turns) == 2 and result.turns[0].usage.llm_calls == 2  # one repair round
    repair = llm.requests[1]["messages"][-1]
    assert repair["role"] == "tool" and "not executed" in repair["content"] and "text" in repair["content"]
    assert [s.arguments["text"] for s in result.steps] == ["fixed"]


@pytest.mark.parametrize(
    ("budgets", "budget", "turns"),
    [
        (agent_pb2.Budgets(max_turns=2), "max_turns", 2),
        (agent_pb2.Budgets(max_tool_calls=3), "max_tool_calls", 2),
        (agent_pb2.Budgets(max_tokens=3 * (PROMPT_TOKENS + COMPLETION_TOKENS) - 1), "max_tokens", 3),
    ],
)
async def test_each_budget_ends_a_run_that_never_answers(
    stack: Stack, llm: ScriptedLLM, budgets: agent_pb2.Budgets, budget: str, turns: int
) -> None:
    llm.script = lambda _: Reply(calls=[("calculator", {"expression": "1 + 1"})] * 2)
    result = await run(stack, "keep adding", budgets=budgets)
    assert result.status == R.RUN_STATUS_FAILED
    assert (result.error.code, result.error.reason) == ("RESOURCE_EXHAUSTED", "BUDGET_EXCEEDED")
    assert f"budget {budget} exceeded" in result.error.message
    assert len(result.turns) == turns
    assert len(llm.requests) == turns  # nothing asked past the budget
    calls_run = [s for s in result.steps if s.status == R.STEP_STATUS_SUCCEEDED]
    assert len(calls_run) <= (budgets.max_tool_calls or 100)
    assert result.usage.llm_calls == turns


async def test_the_cost_budget_uses_litellms_prices(settings: Settings, llm: ScriptedLLM) -> None:
    """A model litellm knows the price of (served by the script): the run's cost is priced, and
    the cost budget ends the run."""
    model = LLMModel(model="openai/gpt-4o-mini", api_base=llm.api_base, tool_calling="tools")
    stack = await start_stack(settings.replace(llm_models=[model]))
    llm.script = lambda _: call("calculator", expression="1 + 1")
    try:
        result = await run(stack, "keep adding", budgets=agent_pb2.Budgets(max_cost_usd=0.00005))
    finally:
        await stack.close()
    assert result.status == R.RUN_STATUS_FAILED, result.error.message
    assert "budget max_cost_usd exceeded" in result.error.message
    assert result.usage.cost_usd > 0.00005
    assert all(t.usage.cost_usd > 0 for t in result.turns)


async def test_budgets_default_from_the_server_and_are_bounded(stack: Stack, llm: ScriptedLLM) -> None:
    llm.replies = [answer("hello")]
    created = await create(stack, "say hello", budgets=agent_pb2.Budgets(max_turns=3))
    defaults = stack.settings.executor.agent_budgets
    assert created.budgets == agent_pb2.Budgets(
        max_turns=3,
        max_tool_calls=defaults.max_tool_calls,
        max_tokens=defaults.max_tokens,
        max_cost_usd=defaults.max_cost_usd,
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await create(stack, "say hello", budgets=agent_pb2.Budgets(max_turns=10_000))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "budgets.max_turns must be at most 50" in (err.value.details() or "")


async def test_cancel_during_an_llm_call_cancels_the_call(stack: Stack, llm: ScriptedLLM) -> None:
    llm.hold = asyncio.Event()
    created = await create(stack, "think for a long time")
    for _ in range(200):
        if llm.requests:
            break
        await asyncio.sleep(0.05)
    assert llm.requests, "the model was never asked"
    cancelled = (await stack.gateway.CancelRun(R.CancelRunRequest(run_id=created.run_id))).run
    assert cancelled.status == R.RUN_STATUS_CANCELLED
    for _ in range(200):  # the HTTP request to the model is closed, not left to finish
        if llm.disconnected:
            break
        await asyncio.sleep(0.05)
    assert llm.disconnected == 1
    assert not cancelled.turns


async def test_streamed_text_reaches_live_watchers_and_replay_stays_exact(
    stack: Stack, llm: ScriptedLLM
) -> None:
    words = "The answer is forty two, as you asked."
    llm.replies = [call("calculator", expression="6 * 7"), answer(words)]
    llm.hold = asyncio.Event()
    created = await create(stack, "what is six times seven, in words")
    live = asyncio.create_task(watch_all(stack.gateway, created.run_id))
    await asyncio.sleep(0.2)  # the watcher is connected before the model answers
    llm.hold.set()
    events = await live
    transient = [e for e in events if e.transient]
    stored = [e for e in events if not e.transient]
    assert "".join(e.text_delta.text for e in transient) == words
    assert {e.text_delta.turn for e in transient} == {2}
    assert len(transient) > 1  # it arrived in pieces
    answered = next(e for e in stored if e.HasField("turn_decided") and e.turn_decided.turn.answer)
    assert answered.turn_decided.turn.answer == words  # the stored event has the whole text
    assert all(e.seq == answered.seq - 1 for e in transient)  # they follow the event before it
    # A watcher that (re)connects later gets exactly the stored events, gap-free.
    replay = await watch_all(stack.gateway, created.run_id)
    assert [e.seq for e in replay] == list(range(1, len(replay) + 1))
    assert replay == stored
    resumed = await watch_all(stack.gateway, created.run_id, after_seq=answered.seq - 1)
    assert resumed == stored[answered.seq - 1 :]


async def test_retry_continues_the_loop_where_it_stopped(stack: Stack, llm: ScriptedLLM) -> None:
    llm.replies = [call("todo_store", action="add", text="once"), answer("Added 'once'.")]
    failed = await run(stack, "add a todo 'once'", budgets=agent_pb2.Budgets(max_turns=1))
    assert failed.status == R.RUN_STATUS_FAILED and failed.error.reason == "BUDGET_EXCEEDED"
    await stack.gateway.RetryRun(R.RetryRunRequest(run_id=failed.run_id))
    result, _ = await finish(stack, failed.run_id)
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert result.answer == "Added 'once'."
    assert len(llm.requests) == 2  # the first turn was not asked again
    assert result.budget_start_turn == 1
    # The second question carried the first turn and its result.
    assert last_tool_results(llm.requests[1])[0]["todo"]["text"] == "once"
    assert [s.step_id for s in result.steps] == ["t1-1"]


async def test_auto_mode_plans_with_rules_and_loops_otherwise(stack: Stack, llm: ScriptedLLM) -> None:
    planned = await run(stack, "calculate (10 + 5) * 2", mode=agent_pb2.RUN_MODE_AUTO)
    assert planned.status == R.RUN_STATUS_SUCCEEDED
    assert (planned.mode, planned.plan.planner, planned.answer) == (
        agent_pb2.RUN_MODE_PLAN,
        "rules",
        "(10 + 5) * 2 = 30",
    )
    assert not llm.requests  # the rules understood it: no LLM call
    llm.replies = [answer("I can only calculate and keep todos.")]
    looped = await run(stack, "what can you do?", mode=agent_pb2.RUN_MODE_AUTO)
    assert looped.status == R.RUN_STATUS_SUCCEEDED, looped.error.message
    assert (looped.mode, looped.answer) == (AGENT, "I can only calculate and keep todos.")
    assert not looped.HasField("plan")


async def test_without_an_llm_auto_fails_as_before_and_agent_says_why(settings: Settings) -> None:
    stack = await start_stack(settings)
    try:
        auto = await run(stack, "what can you do?", mode=agent_pb2.RUN_MODE_UNSPECIFIED)
        agent = await run(stack, "what can you do?", mode=AGENT)
    finally:
        await stack.close()
    assert (auto.status, auto.error.reason) == (R.RUN_STATUS_FAILED, "UNPLANNABLE")
    assert (agent.status, agent.error.reason) == (R.RUN_STATUS_FAILED, "AGENT_UNAVAILABLE")
    assert "AGENTRT_LLM_MODELS" in agent.error.message


async def test_tool_outputs_are_trimmed_for_the_model_and_it_is_told(
    settings: Settings, llm: ScriptedLLM
) -> None:
    stack = await agent_stack(settings, llm, agent_observation_chars=300)
    llm.replies = [
        call("todo_store", action="add", texts=[f"item number {i} of a long list" for i in range(40)]),
        answer("Added 40 todos."),
    ]
    try:
        result = await run(stack, "add forty todos")
    finally:
        await stack.close()
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    seen = llm.requests[1]["messages"][-1]["content"]
    assert len(seen) < 400
    assert "trimmed:" in seen and "more characters not shown" in seen
    assert len(value_to_py(result.result)["todos"]) == 40  # the run keeps the whole output


async def test_json_mode_for_servers_without_function_calling(settings: Settings, llm: ScriptedLLM) -> None:
    """Local servers without function calling: one JSON answer held to a schema; the answer's
    words (not the JSON around them) stream to watchers."""
    model = LLMModel(**llm.model(tool_calling="json", response_format="json_schema"))
    stack = await start_stack(settings.replace(llm_models=[model]))
    llm.replies = [
        Reply(
            content=json.dumps({"tool_calls": [{"tool": "calculator", "arguments": {"expression": "6 * 7"}}]})
        ),
        Reply(content=json.dumps({"answer": "Six times seven is 42."})),
    ]
    try:
        created = await create(stack, "six times seven?")
        result, events = await finish(stack, created.run_id)
    finally:
        await stack.close()
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert result.answer == "Six times seven is 42."
    assert value_to_py(result.result)["value"] == 42
    first = llm.requests[0]
    assert "tools" not in first
    schema = first["response_format"]["json_schema"]["schema"]
    assert [list(v["properties"]) for v in schema["anyOf"]] == [["tool_calls"], ["answer"], ["refusal"]]
    assert "Tools:\n- calculator:" in first["messages"][0]["content"]
    assert llm.requests[1]["messages"][-1]["content"].startswith("Tool results:\n- t1-1 calculator: ")
    streamed = "".join(e.text_delta.text for e in events if e.transient)
    assert streamed == "Six times seven is 42."


async def test_the_cli_streams_the_answer_and_shows_the_turns(
    stack: Stack, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentrt import cli  # noqa: PLC0415

    llm.replies = [call("calculator", expression="6 * 7"), answer("Six times seven is 42.")]
    target = f"127.0.0.1:{stack.port('gateway')}"
    argv = ["run", "--target", target, "--mode", "agent", "--max-turns", "4", "six times seven?"]
    code = await asyncio.to_thread(cli.main, argv)
    # The servers in this process log to stdout too, even in the middle of a streamed line.
    out = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[[a-z ]+\][^\n]*\n", "", capsys.readouterr().out)
    assert code == 0, out
    lines = out.splitlines()
    assert any(
        line.startswith('[  3] turn 1: t1-1 calculator {"expression": "6 * 7"} (1 LLM call, 120 tokens)')
        for line in lines
    ), lines
    assert "      Six times seven is 42." in lines  # streamed as it was written
    assert any(line.endswith("run succeeded: Six times seven is 42.") for line in lines)
    run_id = lines[0].split()[1]
    assert await asyncio.to_thread(cli.main, ["get", "--target", target, run_id]) == 0
    shown = capsys.readouterr().out
    assert "  mode: agent" in shown and "  turn 2: answered (1 LLM call, 120 tokens)" in shown
    assert "  usage: 2 LLM calls, 240 tokens" in shown
    assert "budgets" not in shown
    created = await create(stack, "x", budgets=agent_pb2.Budgets(max_turns=4))
    assert created.budgets.max_turns == 4


async def test_a_threads_second_turn_reads_the_first_as_messages(stack: Stack, llm: ScriptedLLM) -> None:
    """Executor -> planner -> model: turn 2 of a thread ("add 2 to that") is asked with turn 1's
    prompt, calls and answer before its own words, and the model answers from them."""
    thread_id = (await stack.gateway.CreateThread(R.CreateThreadRequest())).thread.thread_id

    def model(request: dict[str, Any]) -> Reply:
        if results := last_tool_results(request):
            return answer(f"That is {results[0]['value']}.")
        said = "\n".join(m["content"] or "" for m in request["messages"] if m["role"] == "assistant")
        if (earlier := re.search(r'"value":(\d+)\}', said)) is not None:
            return call("calculator", expression=f"{earlier.group(1)} + 2")  # "that" is 48
        return call("calculator", expression="12 * 4")

    llm.script = model
    first = await run(stack, "what is 12 times 4", thread_id=thread_id)
    assert (first.status, first.answer) == (R.RUN_STATUS_SUCCEEDED, "That is 48."), first.error.message
    llm.requests.clear()
    second = await run(stack, "add 2 to that", thread_id=thread_id)
    assert second.thread_turn == 2 and second.status == R.RUN_STATUS_SUCCEEDED, second.error.message
    assert second.answer == "That is 50."
    asked = llm.requests[0]["messages"]
    assert asked[1:4] == [
        {"role": "user", "content": "what is 12 times 4"},
        {
            "role": "assistant",
            "content": 'Tool calls:\n- calculator {"expression":"12 * 4"} -> '
            '{"expression":"12 * 4","value":48}\nAnswer: That is 48.',
        },
        {"role": "user", "content": "add 2 to that"},
    ]
    assert "earlier turns of this conversation" in asked[0]["content"]
