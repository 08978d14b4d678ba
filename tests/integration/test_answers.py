"""Runs planned by the rules answer in words (Run.answer and the terminal event), over gRPC and
REST, with what the tools actually did filled in."""

from __future__ import annotations

import httpx

from agentrt.v1 import run_pb2
from tests.conftest import Stack, watch_all


async def finish(stack: Stack, prompt: str) -> tuple[run_pb2.Run, list[run_pb2.RunEvent]]:
    created = await stack.gateway.CreateRun(run_pb2.CreateRunRequest(prompt=prompt), timeout=10)
    events = await watch_all(stack.gateway, created.run.run_id)
    run = (await stack.gateway.GetRun(run_pb2.GetRunRequest(run_id=created.run.run_id), timeout=10)).run
    return run, events


async def test_arithmetic_answers_with_the_computed_value(stack: Stack) -> None:
    run, events = await finish(stack, "what's 20% of 150?")
    assert run.status == run_pb2.RUN_STATUS_SUCCEEDED
    assert run.answer == "20% of 150 = 30"
    assert run.plan.answer_template == "20% of 150 = {{steps.s1.output.value}}"
    assert events[-1].status_changed.answer == "20% of 150 = 30"
    exact, _ = await finish(stack, "what is 0.1 + 0.2")
    assert exact.answer == "0.1 + 0.2 = 0.3"


async def test_a_todo_conversation_in_one_prompt(stack: Stack) -> None:
    run, _ = await finish(
        stack,
        "Add todos: buy eggs, pay rent and call mom. Then tick off the pay-rent todo. "
        "Then how many todos do I have?",
    )
    assert run.status == run_pb2.RUN_STATUS_SUCCEEDED, run.error.message
    assert run.answer == (
        "Added 3 todos: 'buy eggs', 'pay rent', 'call mom'. Marked 'pay rent' as done. "
        "You have 3 todos (2 open, 1 done)."
    )
    listed, _ = await finish(stack, "remove the dentist todo")
    assert listed.status == run_pb2.RUN_STATUS_FAILED and not listed.answer  # no such todo: no answer
    assert "no todo matches 'dentist'" in listed.error.message
    async with httpx.AsyncClient(base_url=stack.http) as client:
        got = (await client.get(f"/v1/runs/{run.run_id}")).json()["run"]
    assert got["answer"] == run.answer


async def test_retry_clears_the_answer_until_the_run_succeeds_again(stack: Stack) -> None:
    failed, _ = await finish(stack, "mark the buy flour todo as done")
    assert failed.status == run_pb2.RUN_STATUS_FAILED and not failed.answer
    await finish(stack, "add a todo to buy flour")
    retried = await stack.gateway.RetryRun(run_pb2.RetryRunRequest(run_id=failed.run_id), timeout=10)
    assert not retried.run.answer
    await watch_all(stack.gateway, failed.run_id)
    done = (await stack.gateway.GetRun(run_pb2.GetRunRequest(run_id=failed.run_id), timeout=10)).run
    assert done.status == run_pb2.RUN_STATUS_SUCCEEDED and done.answer == "Marked 'buy flour' as done."


async def test_a_refused_request_changes_nothing(stack: Stack) -> None:
    await finish(stack, "add buy eggs and pay rent to my list")
    # The second name fits no todo: checked first, so the eggs are not added and rent stays open.
    for prompt in ("add milk, then mark the dentist done", "I paid rent and called the dentist"):
        run, _ = await finish(stack, prompt)
        assert run.status == run_pb2.RUN_STATUS_FAILED and "dentist" in run.error.message
    listed, _ = await finish(stack, "list my todos")
    assert listed.answer == "You have 2 todos: 1. buy eggs; 2. pay rent."
    both, _ = await finish(stack, "I paid rent and bought eggs")
    assert both.answer == "Marked 2 todos done: 'pay rent', 'buy eggs'."
