"""Ownership over every interface, with four keys: alice and bob (users), carol (approver) and root
(admin). Another principal's run does not exist for a user (NOT_FOUND, the same answer as for an
id never used), on gRPC, REST, SSE and /mcp; approvers decide, admins manage; todos and
idempotency keys are per principal; the internal ports refuse calls without the internal
credential, whatever caller they name."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pydantic import SecretStr

from agentrt.config import ApiKey, Settings
from agentrt.core.channels import aio_channel
from agentrt.core.errors import ErrorDetails
from agentrt.core.principals import INTERNAL_HEADER, PRINCIPAL_HEADER, ROLES_HEADER
from agentrt.core.values import dict_to_struct
from agentrt.v1 import (
    planner_service_pb2,
    planner_service_pb2_grpc,
    run_pb2,
    run_pb2_grpc,
    tool_pb2,
    tool_service_pb2,
    tool_service_pb2_grpc,
)
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack, watch_all
from tests.keys import key_for

R = run_pb2
KEYS = {name: key_for(name) for name in ("alice", "bob", "carol", "root")}


def auth(who: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {KEYS[who]}"),)


@pytest.fixture
async def team(settings: Settings) -> AsyncIterator[Stack]:
    built = await start_stack(
        settings.replace(
            api_keys={
                "alice": SecretStr(KEYS["alice"]),
                "bob": SecretStr(KEYS["bob"]),
                "carol": ApiKey(key=SecretStr(KEYS["carol"]), roles=["approver"]),
                "root": ApiKey(key=SecretStr(KEYS["root"]), roles=["admin"]),
            },
            internal_token=INTERNAL_TOKEN,
            approval_exempt_rules=False,
            approval_policy="destructive",
            rate_limit_rps=1000.0,
            rate_limit_burst=1000,
        )
    )
    yield built
    await built.close()


async def error_of(call: Any) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return ErrorDetails.from_rpc_error(info.value)


async def run_as(stack: Stack, who: str, prompt: str, **request: Any) -> run_pb2.Run:
    created = (
        await stack.gateway.CreateRun(R.CreateRunRequest(prompt=prompt, **request), metadata=auth(who))
    ).run
    await drain(stack, who, created.run_id)
    return (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run_id), metadata=auth(who))).run


async def drain(stack: Stack, who: str, run_id: str) -> None:
    async for _ in stack.gateway.WatchRun(R.WatchRunRequest(run_id=run_id), metadata=auth(who), timeout=20):
        pass


async def waiting_run(stack: Stack, who: str) -> run_pb2.Run:
    """A run of `who` whose todo delete waits for approval."""
    await run_as(stack, who, "add a todo to water the plants")
    created = (
        await stack.gateway.CreateRun(
            R.CreateRunRequest(prompt="delete the water the plants todo"), metadata=auth(who)
        )
    ).run
    for _ in range(200):
        run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run_id), metadata=auth(who))).run
        if run.status == R.RUN_STATUS_WAITING:
            return run
        await asyncio.sleep(0.05)
    raise AssertionError(f"run never waited: {run}")


async def test_another_users_run_does_not_exist_for_them_over_grpc(team: Stack) -> None:
    gw = team.gateway
    run = await run_as(team, "alice", "what is 2+3")
    assert (run.status, run.owner) == (R.RUN_STATUS_SUCCEEDED, "alice")
    never = await error_of(gw.GetRun(R.GetRunRequest(run_id="0" * 32), metadata=auth("bob")))
    assert (never.code, never.reason) == (grpc.StatusCode.NOT_FOUND, "RUN_NOT_FOUND")

    bobs_view = [
        gw.GetRun(R.GetRunRequest(run_id=run.run_id), metadata=auth("bob")),
        gw.CancelRun(R.CancelRunRequest(run_id=run.run_id), metadata=auth("bob")),
        gw.RetryRun(R.RetryRunRequest(run_id=run.run_id), metadata=auth("bob")),
        gw.ApproveStep(R.ApproveStepRequest(run_id=run.run_id, step_id="s1"), metadata=auth("bob")),
        gw.RejectStep(R.RejectStepRequest(run_id=run.run_id, step_id="s1"), metadata=auth("bob")),
    ]
    for call in bobs_view:
        details = await error_of(call)
        # Exactly what an id that was never used gets: the message names only the id asked for.
        assert (details.code, details.reason) == (never.code, never.reason)
        assert details.message == never.message.replace("0" * 32, run.run_id)
    with pytest.raises(grpc.aio.AioRpcError) as watched:
        await watch_all(run_pb2_grpc.RunServiceStub(team.channel("gateway")), run.run_id)
    assert watched.value.code() == grpc.StatusCode.UNAUTHENTICATED  # (no key at all)
    with pytest.raises(grpc.aio.AioRpcError) as watched:
        async for _ in gw.WatchRun(R.WatchRunRequest(run_id=run.run_id), metadata=auth("bob")):
            pass
    assert watched.value.code() == grpc.StatusCode.NOT_FOUND

    own = (await gw.ListRuns(R.ListRunsRequest(), metadata=auth("alice"))).runs
    assert [r.run_id for r in own] == [run.run_id]
    assert list((await gw.ListRuns(R.ListRunsRequest(), metadata=auth("bob"))).runs) == []
    denied = await error_of(gw.ListRuns(R.ListRunsRequest(owner="alice"), metadata=auth("bob")))
    assert (denied.code, denied.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_RUN_OWNER")


async def test_watchers_of_one_run_from_two_principals_never_share_a_stream(team: Stack) -> None:
    """The gateway shares one executor stream among a run's watchers: never across principals."""
    gw = team.gateway
    run = await waiting_run(team, "alice")  # stays open while both watch
    alice_watch = asyncio.create_task(watch_all_as(gw, "alice", run.run_id))
    await asyncio.sleep(0.2)  # alice's stream is open at the gateway
    with pytest.raises(grpc.aio.AioRpcError) as bobs:
        async for _ in gw.WatchRun(R.WatchRunRequest(run_id=run.run_id), metadata=auth("bob")):
            pass
    assert bobs.value.code() == grpc.StatusCode.NOT_FOUND
    await gw.CancelRun(R.CancelRunRequest(run_id=run.run_id), metadata=auth("alice"))
    events = await alice_watch
    assert events[-1].status_changed.status == R.RUN_STATUS_CANCELLED


async def watch_all_as(gw: run_pb2_grpc.RunServiceStub, who: str, run_id: str) -> list[run_pb2.RunEvent]:
    return [
        r.event async for r in gw.WatchRun(R.WatchRunRequest(run_id=run_id), metadata=auth(who), timeout=20)
    ]


async def test_approvers_decide_and_admins_manage_other_principals_runs(team: Stack) -> None:
    gw = team.gateway
    waiting = await waiting_run(team, "alice")
    step = next(s for s in waiting.steps if s.status == R.STEP_STATUS_AWAITING_APPROVAL)
    refused = await error_of(
        gw.ApproveStep(
            R.ApproveStepRequest(run_id=waiting.run_id, step_id=step.step_id), metadata=auth("bob")
        )
    )
    assert refused.code == grpc.StatusCode.NOT_FOUND
    # carol, an approver, sees the run and decides; she may not cancel it (hers to see, not to manage).
    seen = (await gw.GetRun(R.GetRunRequest(run_id=waiting.run_id), metadata=auth("carol"))).run
    assert seen.owner == "alice"
    denied = await error_of(gw.CancelRun(R.CancelRunRequest(run_id=waiting.run_id), metadata=auth("carol")))
    assert (denied.code, denied.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_RUN_OWNER")
    await gw.ApproveStep(
        R.ApproveStepRequest(run_id=waiting.run_id, step_id=step.step_id), metadata=auth("carol")
    )
    await drain(team, "alice", waiting.run_id)
    done = (await gw.GetRun(R.GetRunRequest(run_id=waiting.run_id), metadata=auth("alice"))).run
    assert done.status == R.RUN_STATUS_SUCCEEDED
    assert done.steps[0].approval.decided_by == "carol"

    bobs = await run_as(team, "bob", "what is 6*7")
    # root, an admin, lists across owners (all, or one) and manages anybody's run.
    every = (await gw.ListRuns(R.ListRunsRequest(owner="*"), metadata=auth("root"))).runs
    assert {r.owner for r in every} == {"alice", "bob"}
    only_bob = (await gw.ListRuns(R.ListRunsRequest(owner="bob"), metadata=auth("root"))).runs
    assert [r.run_id for r in only_bob] == [bobs.run_id]
    assert list((await gw.ListRuns(R.ListRunsRequest(), metadata=auth("root"))).runs) == []  # its own
    other = await waiting_run(team, "bob")
    cancelled = (await gw.CancelRun(R.CancelRunRequest(run_id=other.run_id), metadata=auth("root"))).run
    assert cancelled.status == R.RUN_STATUS_CANCELLED


async def test_todos_are_per_principal_end_to_end(team: Stack) -> None:
    added = await run_as(team, "alice", "add a todo to buy milk")
    assert added.answer == "Added 'buy milk' (#1)."
    listed = await run_as(team, "bob", "what's on my list")
    assert listed.answer == "Your todo list is empty."
    bobs = await run_as(team, "bob", "add a todo to call mom")
    assert bobs.answer == "Added 'call mom' (#1)."  # his own numbering: alice's list is invisible
    # bob cannot reach alice's todo by text or by number.
    assert (await run_as(team, "bob", "mark the buy milk todo as done")).status == R.RUN_STATUS_FAILED
    alice_list = await run_as(team, "alice", "what's on my list")
    assert alice_list.answer == "You have 1 todo: 1. buy milk."


async def test_idempotency_keys_are_per_principal(team: Stack) -> None:
    gw = team.gateway
    request = R.CreateRunRequest(prompt="what is 1+1", idempotency_key="same-key")
    a = (await gw.CreateRun(request, metadata=auth("alice"))).run
    b = (await gw.CreateRun(request, metadata=auth("bob"))).run
    assert a.run_id != b.run_id and (a.owner, b.owner) == ("alice", "bob")
    assert (await gw.CreateRun(request, metadata=auth("alice"))).run.run_id == a.run_id
    assert (await gw.CreateRun(request, metadata=auth("bob"))).run.run_id == b.run_id
    # A different request under alice's key is still refused, and names only her own run.
    other = R.CreateRunRequest(prompt="what is 2+2", idempotency_key="same-key")
    reused = await error_of(gw.CreateRun(other, metadata=auth("bob")))
    assert reused.code == grpc.StatusCode.ALREADY_EXISTS and a.run_id not in reused.message


async def test_rest_and_sse_answer_404_for_another_principals_run(team: Stack) -> None:
    run = await run_as(team, "alice", "what is 2+3")
    async with httpx.AsyncClient(base_url=team.http, timeout=20) as c:
        bob = {"Authorization": f"Bearer {KEYS['bob']}"}
        alice = {"Authorization": f"Bearer {KEYS['alice']}"}
        assert (await c.get(f"/v1/runs/{run.run_id}", headers=alice)).json()["run"]["owner"] == "alice"
        for response in (
            await c.get(f"/v1/runs/{run.run_id}", headers=bob),
            await c.get(f"/v1/runs/{run.run_id}/events", headers=bob),
            await c.get(f"/v1/runs/{run.run_id}/events", params={"access_token": KEYS["bob"]}),
            await c.post(f"/v1/runs/{run.run_id}:cancel", headers=bob),
            await c.post(f"/v1/runs/{run.run_id}:retry", headers=bob),
            await c.post(f"/v1/runs/{run.run_id}/steps/s1:approve", headers=bob, json={}),
        ):
            assert response.status_code == 404, response.text
        assert (await c.get("/v1/runs", headers=bob)).json().get("runs", []) == []
        forbidden = await c.get("/v1/runs", params={"owner": "alice"}, headers=bob)
        assert forbidden.status_code == 403
        mine = await c.post("/v1/runs", headers=bob, json={"prompt": "what is 3*3"})
        assert mine.json()["run"]["owner"] == "bob"


async def test_mcp_tools_see_only_the_callers_runs(team: Stack) -> None:
    run = await run_as(team, "alice", "what is 2+3")

    def client(who: str) -> Client:
        http = create_mcp_http_client(headers={"authorization": f"Bearer {KEYS[who]}"})
        return Client(streamable_http_client(f"{team.http}/mcp", http_client=http))

    async with client("bob") as mcp:
        for tool, arguments in (
            ("get_run", {"run_id": run.run_id}),
            ("cancel_run", {"run_id": run.run_id}),
            ("approve_step", {"run_id": run.run_id, "step_id": "s1"}),
        ):
            result = await mcp.call_tool(tool, arguments)
            assert result.is_error and "NOT_FOUND" in result.content[0].text  # type: ignore[union-attr]
        listed = (await mcp.call_tool("list_runs", {})).structured_content
        assert listed is not None and listed["runs"] == []
    async with client("alice") as mcp:
        got = (await mcp.call_tool("get_run", {"run_id": run.run_id})).structured_content
        assert got is not None and got["run_id"] == run.run_id


async def test_internal_ports_refuse_calls_without_the_internal_credential(team: Stack) -> None:
    forged = ((PRINCIPAL_HEADER, "root"), (ROLES_HEADER, "admin"))  # naming a caller proves nothing
    wrong = ((INTERNAL_HEADER, "not-the-credential"),)
    run = await run_as(team, "alice", "what is 2+3")
    channels = {
        name: aio_channel(f"127.0.0.1:{team.port(name)}") for name in ("executor", "planner", "tools")
    }
    try:
        executor = run_pb2_grpc.RunServiceStub(channels["executor"])
        planner = planner_service_pb2_grpc.PlannerServiceStub(channels["planner"])
        tools = tool_service_pb2_grpc.ToolServiceStub(channels["tools"])
        calls = [
            lambda md: executor.GetRun(R.GetRunRequest(run_id=run.run_id), metadata=md),
            lambda md: executor.ListRuns(R.ListRunsRequest(owner="*"), metadata=md),
            lambda md: executor.CreateRun(R.CreateRunRequest(prompt="what is 1+1"), metadata=md),
            lambda md: planner.CreatePlan(
                planner_service_pb2.CreatePlanRequest(prompt="what is 1+1"), metadata=md
            ),
            lambda md: tools.ListTools(tool_service_pb2.ListToolsRequest(), metadata=md),
            lambda md: tools.InvokeTool(
                tool_service_pb2.InvokeToolRequest(
                    tool="todo_store",
                    arguments=dict_to_struct({"action": "list"}),
                    context=tool_pb2.CallContext(principal="alice"),
                ),
                metadata=md,
            ),
        ]
        for call in calls:
            for metadata in ((), forged, wrong + forged):
                details = await error_of(call(metadata))
                assert (details.code, details.reason) == (
                    grpc.StatusCode.UNAUTHENTICATED,
                    "INTERNAL_CREDENTIAL_REQUIRED",
                )
        # Health stays open for probes.
        for channel in channels.values():
            health = health_pb2_grpc.HealthStub(channel)
            answer = await health.Check(health_pb2.HealthCheckRequest())
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
        # Registering tools needs a registration token once keys are configured, and none is set.
        closed = await error_of(
            tools.RegisterTool(
                tool_service_pb2.RegisterToolRequest(
                    spec=tool_pb2.ToolSpec(name="sneaky", version="1.0.0"), endpoint="127.0.0.1:1"
                )
            )
        )
        assert (closed.code, closed.reason) == (grpc.StatusCode.UNAUTHENTICATED, "REGISTRATION_CLOSED")
    finally:
        for channel in channels.values():
            await channel.close()
    # The same calls with the credential work (the stack's channels carry it), for the principal named.
    with_credential = run_pb2_grpc.RunServiceStub(team.channel("executor"))
    as_bob = ((PRINCIPAL_HEADER, "bob"), (ROLES_HEADER, "user"))
    missing = await error_of(with_credential.GetRun(R.GetRunRequest(run_id=run.run_id), metadata=as_bob))
    assert missing.code == grpc.StatusCode.NOT_FOUND
    as_alice = ((PRINCIPAL_HEADER, "alice"), (ROLES_HEADER, "user"))
    got = await with_credential.GetRun(R.GetRunRequest(run_id=run.run_id), metadata=as_alice)
    assert got.run.owner == "alice"
    catalog = await tool_service_pb2_grpc.ToolServiceStub(team.channel("tools")).ListTools(
        tool_service_pb2.ListToolsRequest()
    )
    plan = await planner_service_pb2_grpc.PlannerServiceStub(team.channel("planner")).CreatePlan(
        planner_service_pb2.CreatePlanRequest(prompt="what is 1+1", tools=catalog.tools)
    )
    assert [step.tool for step in plan.plan.steps] == ["calculator"]


async def test_no_error_reveals_whether_a_value_is_a_configured_key(team: Stack) -> None:
    """An error echoing input reads the same whether the input is a key or not: there is nothing
    to learn by sending guesses through prompts instead of through the throttled key check."""
    answers = {}
    # carol's real key, and a wrong guess of its shape. (Not bob's: the rule planner reads chat
    # spellings even inside a token, and would echo its "G3u8n8" as "G3you8and8".)
    wrong = "carol-" + key_for("a guess").removeprefix("a guess-")
    for guess in (KEYS["carol"], wrong):
        run = await run_as(team, "alice", f"book a flight with {guess}")
        assert run.status == R.RUN_STATUS_FAILED
        answers[guess] = run.error.message.replace(guess, "GUESS")
        missing = await error_of(team.gateway.GetRun(R.GetRunRequest(run_id=guess), metadata=auth("alice")))
        answers[guess + "/get"] = missing.message.replace(guess, "GUESS")
    assert answers[KEYS["carol"]] == answers[wrong]
    assert answers[KEYS["carol"] + "/get"] == answers[wrong + "/get"] == "run GUESS not found"
    # What looks like a credential is redacted whatever its value.
    shaped = await run_as(team, "alice", "book a flight with sk-abcdefghijklmnop1234567890")
    assert "sk-abcdefghijklmnop1234567890" not in shaped.error.message
    assert "[redacted]" in shaped.error.message


async def test_an_approver_decides_but_never_edits_what_runs_as_the_owner(team: Stack) -> None:
    waiting = await waiting_run(team, "alice")
    step = next(s for s in waiting.steps if s.status == R.STEP_STATUS_AWAITING_APPROVAL)
    edited = R.ApproveStepRequest(
        run_id=waiting.run_id, step_id=step.step_id, arguments=dict_to_struct({"action": "list"})
    )
    denied = await error_of(team.gateway.ApproveStep(edited, metadata=auth("carol")))
    assert (denied.code, denied.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_RUN_OWNER")
    still = (await team.gateway.GetRun(R.GetRunRequest(run_id=waiting.run_id), metadata=auth("alice"))).run
    assert still.status == R.RUN_STATUS_WAITING  # nothing decided
    await team.gateway.ApproveStep(edited, metadata=auth("root"))  # an admin may
    await drain(team, "alice", waiting.run_id)


async def test_a_service_without_the_credential_refuses_calls_that_name_a_principal(stack: Stack) -> None:
    """A gateway with keys in front of an executor started without the internal credential must
    fail loudly, not turn every key into `local` (who sees everything)."""
    named = ((PRINCIPAL_HEADER, "bob"), (ROLES_HEADER, "user"))
    for call in (
        stack.executor.ListRuns(R.ListRunsRequest(), metadata=named),
        stack.tools.ListTools(tool_service_pb2.ListToolsRequest(), metadata=named),
    ):
        details = await error_of(call)
        assert (details.code, details.reason) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "INTERNAL_CREDENTIAL_NOT_CONFIGURED",
        )
    assert list((await stack.executor.ListRuns(R.ListRunsRequest())).runs) == []  # unnamed: `local`


async def test_forwarded_addresses_are_believed_from_trusted_proxies_only(settings: Settings) -> None:
    keys = {"alice": SecretStr(KEYS["alice"])}
    base = {
        "api_keys": keys,
        "internal_token": INTERNAL_TOKEN,
        "auth_failure_burst": 2,
        "auth_failure_rps": 0.001,
    }
    for proxies in ([], ["127.0.0.1"]):
        built = await start_stack(settings.replace(**base, trusted_proxies=proxies))
        try:
            async with httpx.AsyncClient(base_url=built.http, timeout=20) as c:
                codes = [
                    (
                        await c.get(
                            "/v1/runs",
                            # Guesses starting apart: only the client address's budget counts them.
                            headers={
                                "Authorization": f"Bearer {n}-guess",
                                "X-Forwarded-For": f"198.51.100.{n}",
                            },
                        )
                    ).status_code
                    for n in range(4)
                ]
                if not proxies:  # a header any client can write changes nothing: throttled
                    assert codes == [401, 401, 429, 429]
                    continue
                assert codes == [401] * 4  # four clients behind the proxy, each with its own budget
                # The client wrote the first line, the proxy appended the real address: the last counts.
                forged = [("X-Forwarded-For", "203.0.113.1"), ("X-Forwarded-For", "198.51.100.0")]
                again = [
                    (
                        await c.get("/v1/runs", headers=[("Authorization", f"Bearer {n}-again"), *forged])
                    ).status_code
                    for n in range(2)
                ]
                assert again == [401, 429]  # 198.51.100.0's budget (one spent above), not 203.0.113.1's
        finally:
            await built.close()
