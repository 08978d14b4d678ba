"""A person in front of side effects: calls that need approval wait, holding nothing, and run
once approved, never without it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import duration_pb2

from agentrt.config import LLMModel, Settings
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.v1 import agent_pb2, run_pb2
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack, watch_all
from tests.keys import key_for
from tests.scripted_llm import Reply, ScriptedLLM, answer, call

R = run_pb2
AGENT = agent_pb2.RUN_MODE_AGENT


@pytest.fixture
async def stack(settings: Settings, llm: ScriptedLLM) -> AsyncIterator[Stack]:
    # "destructive": these tests hold deletions and let adds run (the default, "writes", holds
    # every change a model chose: tests/integration/test_model_robustness.py).
    built = await start_stack(
        settings.replace(llm_models=[LLMModel(**llm.model())], approval_policy="destructive")
    )
    yield built
    await built.close()


async def seed(stack: Stack, *texts: str) -> None:
    for text in texts:
        created = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt=f"add a todo to {text}"))).run
        await watch_all(stack.gateway, created.run_id)


async def todos(stack: Stack) -> list[dict[str, Any]]:
    created = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt="show my todos"))).run
    await watch_all(stack.gateway, created.run_id)
    run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run_id))).run
    return value_to_py(run.result)["todos"]


async def until_waiting(stack: Stack, run_id: str) -> R.Run:
    async for response in stack.gateway.WatchRun(R.WatchRunRequest(run_id=run_id), timeout=30):
        change = response.event.status_changed
        if response.event.HasField("status_changed") and change.status == R.RUN_STATUS_WAITING:
            return (await stack.gateway.GetRun(R.GetRunRequest(run_id=run_id))).run
    raise AssertionError("the run ended without waiting")


async def finish(stack: Stack, run_id: str) -> R.Run:
    await watch_all(stack.gateway, run_id)
    return (await stack.gateway.GetRun(R.GetRunRequest(run_id=run_id))).run


async def agent_run(stack: Stack, prompt: str, **request: Any) -> R.Run:
    return (await stack.gateway.CreateRun(R.CreateRunRequest(prompt=prompt, mode=AGENT, **request))).run


async def test_a_destructive_call_waits_and_runs_once_approved(stack: Stack, llm: ScriptedLLM) -> None:
    await seed(stack, "buy flour", "call mom")
    llm.replies = [call("todo_store", action="delete", id=1), answer("Deleted 'buy flour'.")]
    created = await agent_run(stack, "delete the flour todo")
    waiting = await until_waiting(stack, created.run_id)
    (step,) = waiting.steps
    assert step.status == R.STEP_STATUS_AWAITING_APPROVAL
    assert step.approval.reason == "todo_store delete is destructive (approval policy: destructive)"
    assert step.approval.deadline.ToNanoseconds() > step.approval.request_time.ToNanoseconds()
    assert len(await todos(stack)) == 2  # nothing deleted while it waits
    approved = (
        await stack.gateway.ApproveStep(R.ApproveStepRequest(run_id=created.run_id, step_id="t1-1"))
    ).run
    assert approved.status == R.RUN_STATUS_RUNNING
    again = (await stack.gateway.ApproveStep(R.ApproveStepRequest(run_id=created.run_id, step_id="t1-1"))).run
    assert again.run_id == created.run_id  # a repeated approval is harmless
    result = await finish(stack, created.run_id)
    assert result.status == R.RUN_STATUS_SUCCEEDED, result.error.message
    assert result.steps[0].approval.decision == R.APPROVAL_DECISION_APPROVED
    assert result.steps[0].approval.decided_by == "local"
    assert [t["text"] for t in await todos(stack)] == ["call mom"]


async def test_reads_and_writes_do_not_wait_under_the_destructive_policy(
    stack: Stack, llm: ScriptedLLM
) -> None:
    llm.replies = [
        Reply(calls=[("todo_store", {"action": "add", "text": "x"}), ("todo_store", {"action": "list"})]),
        answer("done"),
    ]
    result = await finish(stack, (await agent_run(stack, "add x and list")).run_id)
    assert result.status == R.RUN_STATUS_SUCCEEDED
    assert all(not s.HasField("approval") for s in result.steps)


async def test_approve_with_edited_arguments_validated_against_the_schema(
    stack: Stack, llm: ScriptedLLM
) -> None:
    await seed(stack, "call mom", "buy eggs")
    llm.replies = [call("todo_store", action="delete", id=1), answer("Deleted.")]
    created = await agent_run(stack, "delete the eggs todo")
    await until_waiting(stack, created.run_id)
    bad = R.ApproveStepRequest(
        run_id=created.run_id, step_id="t1-1", arguments=dict_to_struct({"action": "zap"})
    )
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.gateway.ApproveStep(bad)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not valid for todo_store" in (info.value.details() or "")
    fixed = R.ApproveStepRequest(
        run_id=created.run_id, step_id="t1-1", arguments=dict_to_struct({"action": "delete", "id": 2})
    )
    await stack.gateway.ApproveStep(fixed)
    result = await finish(stack, created.run_id)
    assert result.status == R.RUN_STATUS_SUCCEEDED
    assert result.steps[0].approval.edited
    assert [t["text"] for t in await todos(stack)] == ["call mom"]


async def test_a_rejection_is_an_observation_in_agent_mode(stack: Stack, llm: ScriptedLLM) -> None:
    await seed(stack, "buy flour")

    def model(request: dict[str, Any]) -> Reply:
        last = request["messages"][-1]
        if last["role"] == "tool":
            return answer(f"I did not delete it: {last['content']}")
        return call("todo_store", action="delete", id=1)

    llm.script = model
    created = await agent_run(stack, "delete the flour todo")
    await until_waiting(stack, created.run_id)
    request = R.RejectStepRequest(run_id=created.run_id, step_id="t1-1", reason="I still need flour")
    await stack.gateway.RejectStep(request)
    result = await finish(stack, created.run_id)
    assert result.status == R.RUN_STATUS_SUCCEEDED
    assert result.steps[0].error.reason == "REJECTED"
    assert "I still need flour" in result.answer and "REJECTED" in result.answer
    assert len(await todos(stack)) == 1


async def test_in_a_plan_a_rejection_fails_the_step_and_the_run(stack: Stack) -> None:
    created = (
        await stack.gateway.CreateRun(
            R.CreateRunRequest(
                prompt="add a todo to x, then delete todo 1",
                approval_policy=R.APPROVAL_POLICY_WRITES,
            )
        )
    ).run
    # Rule plans are exempt (the user spelled the calls out) unless the server says otherwise:
    result = await finish(stack, created.run_id)
    assert result.status == R.RUN_STATUS_SUCCEEDED


async def test_approval_timeout_and_cancel_while_waiting(settings: Settings, llm: ScriptedLLM) -> None:
    stack = await start_stack(settings.replace(llm_models=[LLMModel(**llm.model())], run_lease_ttl_s=0.6))
    try:
        llm.replies = [call("todo_store", action="delete", id=1)]
        timeout = duration_pb2.Duration(nanos=500_000_000)
        timed = await agent_run(stack, "delete todo 1", approval_timeout=timeout)
        result = await finish(stack, timed.run_id)
        assert result.status == R.RUN_STATUS_FAILED
        assert result.error.reason == "APPROVAL_TIMEOUT"
        assert result.steps[0].approval.decision == R.APPROVAL_DECISION_TIMED_OUT

        llm.replies = [call("todo_store", action="delete", id=1)]
        waiting = await agent_run(stack, "delete todo 1")
        await until_waiting(stack, waiting.run_id)
        cancelled = (await stack.gateway.CancelRun(R.CancelRunRequest(run_id=waiting.run_id))).run
        assert cancelled.status == R.RUN_STATUS_CANCELLED
        assert cancelled.steps[0].status == R.STEP_STATUS_SKIPPED
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stack.gateway.ApproveStep(R.ApproveStepRequest(run_id=waiting.run_id, step_id="t1-1"))
        details = ErrorDetails.from_rpc_error(info.value)
        assert (details.code.name, details.reason) == ("FAILED_PRECONDITION", "STEP_NOT_AWAITING_APPROVAL")
    finally:
        await stack.close()


async def test_rest_routes_and_api_keys_on_the_new_rpcs(settings: Settings, llm: ScriptedLLM) -> None:
    from pydantic import SecretStr  # noqa: PLC0415

    stack = await start_stack(
        settings.replace(
            llm_models=[LLMModel(**llm.model())],
            api_keys={"alice": SecretStr(key_for("alice"))},
            internal_token=INTERNAL_TOKEN,
        )
    )
    headers = {"authorization": f"Bearer {key_for('alice')}"}
    try:
        async with httpx.AsyncClient(base_url=stack.http, timeout=30) as http:
            llm.replies = [call("todo_store", action="delete", id=1), answer("ok")]
            body = {"prompt": "delete todo 1", "mode": "RUN_MODE_AGENT"}
            run_id = (await http.post("/v1/runs", json=body, headers=headers)).json()["run"]["runId"]
            for _ in range(200):
                got = (await http.get(f"/v1/runs/{run_id}", headers=headers)).json()["run"]
                if got["status"] == "RUN_STATUS_WAITING":
                    break
                await asyncio.sleep(0.05)
            assert got["steps"][0]["status"] == "STEP_STATUS_AWAITING_APPROVAL"
            denied = await http.post(f"/v1/runs/{run_id}/steps/t1-1:approve", json={})
            assert denied.status_code == 401
            approved = await http.post(f"/v1/runs/{run_id}/steps/t1-1:approve", json={}, headers=headers)
            assert approved.status_code == 200, approved.text
            missing = await http.post(
                f"/v1/runs/{run_id}/steps/t9-9:reject", json={"reason": "no"}, headers=headers
            )
            assert missing.status_code == 404
            for _ in range(200):
                got = (await http.get(f"/v1/runs/{run_id}", headers=headers)).json()["run"]
                if got["status"] == "RUN_STATUS_SUCCEEDED":
                    break
                await asyncio.sleep(0.05)
        assert got["steps"][0]["approval"]["decidedBy"] == "alice"
    finally:
        await stack.close()
    assert json.dumps(got)


async def test_a_plan_step_rejected_fails_the_run_when_rule_plans_are_not_exempt(settings: Settings) -> None:
    stack = await start_stack(settings.replace(approval_exempt_rules=False, approval_policy="destructive"))
    try:
        await seed(stack, "x")  # adding writes, not destructive: no approval under "destructive"
        created = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt="delete todo 1"))).run
        waiting = await until_waiting(stack, created.run_id)
        assert waiting.steps[0].status == R.STEP_STATUS_AWAITING_APPROVAL
        await stack.gateway.RejectStep(
            R.RejectStepRequest(run_id=created.run_id, step_id="s1", reason="keep it")
        )
        result = await finish(stack, created.run_id)
        assert result.status == R.RUN_STATUS_FAILED
        assert (result.error.reason, result.error.step_id) == ("REJECTED", "s1")
        assert "rejected by local: keep it" in result.error.message
        assert len(await todos(stack)) == 1
    finally:
        await stack.close()


async def test_the_cli_shows_what_waits_and_approves_it(
    stack: Stack, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentrt import cli  # noqa: PLC0415

    await seed(stack, "buy flour")
    llm.replies = [call("todo_store", action="delete", id=1), answer("Deleted 'buy flour'.")]
    created = await agent_run(stack, "delete the flour todo")
    await until_waiting(stack, created.run_id)
    target = f"127.0.0.1:{stack.port('gateway')}"
    capsys.readouterr()
    watcher = asyncio.create_task(asyncio.to_thread(cli.main, ["watch", "--target", target, created.run_id]))
    await asyncio.sleep(0.5)
    assert await asyncio.to_thread(cli.main, ["approve", "--target", target, created.run_id, "t1-1"]) == 0
    assert await asyncio.wait_for(watcher, 30) == 0
    out = capsys.readouterr().out
    assert "t1-1 todo_store awaiting_approval" in out
    assert "todo_store delete is destructive (approval policy: destructive)" in out
    assert f"agentrt approve {created.run_id} t1-1" in out
    assert "run succeeded: Deleted 'buy flour'." in out
    bad = await asyncio.to_thread(
        cli.main, ["approve", "--target", target, created.run_id, "t1-1", "--arguments", "[1]"]
    )
    assert bad == 2


async def test_a_rule_plan_that_sweeps_waits_under_the_default_policy(settings: Settings) -> None:
    """The rule planner's calls run at once (they are the user's own words), except one whose
    words sweep: "delete all my todos" waits for a person under the default policy, "writes";
    deleting one named todo does not, and with the policy "never" nothing waits."""
    assert settings.executor.approval_policy == "writes"
    stack = await start_stack(settings)
    try:
        await seed(stack, "buy flour", "call mom", "pay rent")
        one = await finish(
            stack,
            (await stack.gateway.CreateRun(R.CreateRunRequest(prompt="remove the flour todo"))).run.run_id,
        )
        assert one.status == R.RUN_STATUS_SUCCEEDED and [t["text"] for t in await todos(stack)] == [
            "call mom",
            "pay rent",
        ]
        created = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt="delete all my todos"))).run
        waiting = await until_waiting(stack, created.run_id)
        assert waiting.plan.steps[0].confirm
        (step,) = waiting.steps
        assert step.status == R.STEP_STATUS_AWAITING_APPROVAL
        assert step.approval.reason == "todo_store delete_all is destructive (approval policy: writes)"
        assert len(await todos(stack)) == 2  # nothing deleted while it waits
        await stack.gateway.ApproveStep(R.ApproveStepRequest(run_id=created.run_id, step_id=step.step_id))
        done = await finish(stack, created.run_id)
        assert done.answer == "Deleted 2 todos: 'call mom', 'pay rent'."
        assert await todos(stack) == []
        await seed(stack, "water plants")
        never = await finish(
            stack,
            (
                await stack.gateway.CreateRun(
                    R.CreateRunRequest(prompt="clear my list", approval_policy=R.APPROVAL_POLICY_NEVER)
                )
            ).run.run_id,
        )
        assert never.status == R.RUN_STATUS_SUCCEEDED and await todos(stack) == []
    finally:
        await stack.close()
