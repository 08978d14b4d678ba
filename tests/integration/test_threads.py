"""Threads over real gRPC: turns in order, each multitask strategy, a restart between and during
turns, retries and deletion, and another principal's thread that does not exist."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator

import grpc
import httpx
import pytest

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.v1 import plan_pb2, run_pb2, run_pb2_grpc
from tests.conftest import TEAM_KEYS, Stack, auth
from tests.harness import Harness, step

R = run_pb2


@pytest.fixture
async def harness(backend: Settings) -> AsyncIterator[Harness]:
    """A thread's store is the runs' store: each test on SQLite, then on PostgreSQL."""
    async with Harness(backend) as h:
        yield h


async def new_thread(stub: run_pb2_grpc.RunServiceStub, **metadata: str) -> str:
    return (await stub.CreateThread(R.CreateThreadRequest(metadata=metadata))).thread.thread_id


async def failure(call: object) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return ErrorDetails.from_rpc_error(caught.value)


async def test_turns_are_numbered_and_the_thread_shows_them_in_order(harness: Harness) -> None:
    thread_id = await new_thread(harness.runs, topic="groceries")
    first = await harness.create(step("s1", "echo", v=1), prompt="first", thread_id=thread_id)
    assert (first.thread_id, first.thread_turn, first.status) == (thread_id, 1, R.RUN_STATUS_PENDING)
    await harness.finish(first.run_id)
    second = await harness.create(step("s1", "echo", v=2), prompt="second", thread_id=thread_id)
    assert second.thread_turn == 2
    await harness.finish(second.run_id)
    thread = (await harness.runs.GetThread(R.GetThreadRequest(thread_id=thread_id))).thread
    assert thread.metadata == {"topic": "groceries"} and thread.turn_count == 2
    assert [(t.turn, t.prompt, t.status) for t in thread.turns] == [
        (1, "first", R.RUN_STATUS_SUCCEEDED),
        (2, "second", R.RUN_STATUS_SUCCEEDED),
    ]
    assert [t.run_id for t in thread.turns] == [first.run_id, second.run_id]
    assert not thread.active_run_id
    # A one-shot run is on no thread, and a thread's turns are not one-shot runs.
    alone = await harness.create(step("s1", "echo", v=3))
    assert (alone.thread_id, alone.thread_turn) == ("", 0)


async def test_a_second_message_while_a_turn_runs_is_rejected_by_default(harness: Harness) -> None:
    thread_id = await new_thread(harness.runs)
    busy = await harness.create(step("s1", "gate", label="a"), thread_id=thread_id)
    assert await harness.gate.next_started() == "a"
    for strategy in (R.MULTITASK_STRATEGY_UNSPECIFIED, R.MULTITASK_STRATEGY_REJECT):
        refused = await failure(
            harness.create(step("s1", "echo"), thread_id=thread_id, multitask_strategy=strategy)
        )
        assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "THREAD_BUSY")
        assert refused.metadata["run_id"] == busy.run_id and busy.run_id in refused.message
    harness.gate.release("a")
    await harness.finish(busy.run_id)
    thread = (await harness.runs.GetThread(R.GetThreadRequest(thread_id=thread_id))).thread
    assert thread.turn_count == 1  # a refused message takes no turn


async def test_enqueued_messages_run_after_the_turn_in_the_order_sent(harness: Harness) -> None:
    thread_id = await new_thread(harness.runs)
    first = await harness.create(step("s1", "gate", label="a"), thread_id=thread_id)
    assert await harness.gate.next_started() == "a"
    # Both queued turns call the gate "q" (a queued turn plans when it starts, with the scripted
    # planner's plan of that moment): released, each later call of it passes at once.
    queued = [
        await harness.create(
            step("s1", "gate", label="q"),
            thread_id=thread_id,
            multitask_strategy=R.MULTITASK_STRATEGY_ENQUEUE,
        )
        for _ in range(2)
    ]
    assert [q.status for q in queued] == [R.RUN_STATUS_QUEUED, R.RUN_STATUS_QUEUED]
    thread = (await harness.runs.GetThread(R.GetThreadRequest(thread_id=thread_id))).thread
    assert thread.active_run_id == first.run_id
    harness.gate.release("a")
    assert await harness.gate.next_started() == "q"  # turn 2 starts once turn 1 has finished
    await asyncio.sleep(0.2)
    assert harness.gate.started.empty() and harness.gate.max_active == 1
    third = (await harness.runs.GetRun(R.GetRunRequest(run_id=queued[1].run_id))).run
    assert third.status == R.RUN_STATUS_QUEUED  # turn 3 waits for turn 2
    harness.gate.release("q")
    finals = [(await harness.finish(r.run_id))[0] for r in (first, *queued)]
    assert [f.status for f in finals] == [R.RUN_STATUS_SUCCEEDED] * 3
    for earlier, later in itertools.pairwise(finals):
        assert earlier.end_time.ToNanoseconds() <= later.start_time.ToNanoseconds()
    events = await harness.events(queued[0].run_id)
    statuses = [e.status_changed.status for e in events if e.HasField("status_changed")]
    assert statuses[:2] == [R.RUN_STATUS_QUEUED, R.RUN_STATUS_PENDING]


async def test_interrupt_cancels_the_running_and_queued_turns_then_runs(harness: Harness) -> None:
    thread_id = await new_thread(harness.runs)
    running = await harness.create(step("s1", "gate", label="a"), thread_id=thread_id)
    assert await harness.gate.next_started() == "a"
    queued = await harness.create(
        step("s1", "echo"), thread_id=thread_id, multitask_strategy=R.MULTITASK_STRATEGY_ENQUEUE
    )
    urgent = await harness.create(
        step("s1", "echo", v="now"), thread_id=thread_id, multitask_strategy=R.MULTITASK_STRATEGY_INTERRUPT
    )
    final, _ = await harness.finish(urgent.run_id)
    assert final.status == R.RUN_STATUS_SUCCEEDED
    for run_id in (running.run_id, queued.run_id):
        assert (
            await harness.runs.GetRun(R.GetRunRequest(run_id=run_id))
        ).run.status == R.RUN_STATUS_CANCELLED
    assert harness.gate.cancelled == ["a"]


async def test_queued_turns_survive_an_executor_restart_and_keep_their_order(harness: Harness) -> None:
    thread_id = await new_thread(harness.runs)
    first = await harness.create(step("s1", "gate", label="a"), thread_id=thread_id)
    assert await harness.gate.next_started() == "a"
    second = await harness.create(
        step("s1", "echo", v=2), thread_id=thread_id, multitask_strategy=R.MULTITASK_STRATEGY_ENQUEUE
    )
    await harness.restart_executor()  # during turn 1, with turn 2 queued
    assert await harness.gate.next_started() == "a"  # turn 1 resumed (the same idempotency key)
    assert (
        await harness.runs.GetRun(R.GetRunRequest(run_id=second.run_id))
    ).run.status == R.RUN_STATUS_QUEUED
    harness.gate.release("a")
    one, _ = await harness.finish(first.run_id)
    two, _ = await harness.finish(second.run_id)
    assert (one.status, two.status) == (R.RUN_STATUS_SUCCEEDED, R.RUN_STATUS_SUCCEEDED)
    await harness.restart_executor()  # between turns
    third = await harness.create(step("s1", "echo", v=3), thread_id=thread_id)
    assert third.thread_turn == 3 and (await harness.finish(third.run_id))[0].status == R.RUN_STATUS_SUCCEEDED


async def test_only_the_last_turn_is_retried_and_a_deleted_thread_takes_its_runs(harness: Harness) -> None:
    thread_id = await new_thread(harness.runs)
    first = await harness.create(step("s1", "missing_tool"), thread_id=thread_id)
    assert (await harness.finish(first.run_id))[0].status == R.RUN_STATUS_FAILED
    second = await harness.create(step("s1", "missing_tool"), thread_id=thread_id)
    assert (await harness.finish(second.run_id))[0].status == R.RUN_STATUS_FAILED
    refused = await failure(harness.runs.RetryRun(R.RetryRunRequest(run_id=first.run_id)))
    assert refused.reason == "RUN_NOT_RETRYABLE" and "only its last turn" in refused.message
    retried = (await harness.runs.RetryRun(R.RetryRunRequest(run_id=second.run_id))).run
    assert retried.status in (R.RUN_STATUS_PENDING, R.RUN_STATUS_RUNNING)
    await harness.finish(second.run_id)
    await harness.runs.DeleteThread(R.DeleteThreadRequest(thread_id=thread_id))
    for call in (
        harness.runs.GetThread(R.GetThreadRequest(thread_id=thread_id)),
        harness.runs.DeleteThread(R.DeleteThreadRequest(thread_id=thread_id)),
        harness.create(step("s1", "echo"), thread_id=thread_id),
    ):
        gone = await failure(call)
        assert (gone.code, gone.reason) == (grpc.StatusCode.NOT_FOUND, "THREAD_NOT_FOUND")
    gone = await failure(harness.runs.GetRun(R.GetRunRequest(run_id=first.run_id)))
    assert gone.reason == "RUN_NOT_FOUND"


async def test_deleting_a_thread_cancels_its_unfinished_turns(harness: Harness) -> None:
    thread_id = await new_thread(harness.runs)
    await harness.create(step("s1", "gate", label="a"), thread_id=thread_id)
    assert await harness.gate.next_started() == "a"
    await harness.runs.DeleteThread(R.DeleteThreadRequest(thread_id=thread_id))
    assert harness.gate.cancelled == ["a"] or await _eventually(lambda: harness.gate.cancelled == ["a"])


async def test_thread_metadata_is_bounded(harness: Harness) -> None:
    too_many = {f"k{i}": "v" for i in range(17)}
    refused = await failure(harness.runs.CreateThread(R.CreateThreadRequest(metadata=too_many)))
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT
    assert any("at most 16" in d for _, d in refused.violations)
    refused = await failure(harness.runs.CreateThread(R.CreateThreadRequest(metadata={"k": "x" * 257})))
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT


async def _eventually(condition: object, tries: int = 100) -> bool:
    for _ in range(tries):
        if condition():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.05)
    return False


# -- owners, through the gateway --------------------------------------------------------------


async def test_another_principals_thread_does_not_exist(team: Stack) -> None:
    stub = run_pb2_grpc.RunServiceStub(team.channel("gateway"))
    mine = (await stub.CreateThread(R.CreateThreadRequest(), metadata=auth("alice"))).thread
    assert mine.owner == "alice"
    turn = (
        await stub.CreateRun(
            R.CreateRunRequest(prompt="what is 2 + 2", thread_id=mine.thread_id), metadata=auth("alice")
        )
    ).run
    for call in (
        stub.GetThread(R.GetThreadRequest(thread_id=mine.thread_id), metadata=auth("bob")),
        stub.DeleteThread(R.DeleteThreadRequest(thread_id=mine.thread_id), metadata=auth("bob")),
        stub.CreateRun(R.CreateRunRequest(prompt="2 + 2", thread_id=mine.thread_id), metadata=auth("bob")),
    ):
        hidden = await failure(call)
        assert (hidden.code, hidden.reason) == (grpc.StatusCode.NOT_FOUND, "THREAD_NOT_FOUND")
        assert hidden.message == f"thread {mine.thread_id} not found"
    assert (await failure(stub.GetRun(R.GetRunRequest(run_id=turn.run_id), metadata=auth("bob")))).reason == (
        "RUN_NOT_FOUND"
    )
    bobs = (await stub.ListThreads(R.ListThreadsRequest(), metadata=auth("bob"))).threads
    assert bobs == []
    alices = (await stub.ListThreads(R.ListThreadsRequest(), metadata=auth("alice"))).threads
    assert [t.thread_id for t in alices] == [mine.thread_id]
    # An admin sees it (and may delete it).
    seen = (await stub.GetThread(R.GetThreadRequest(thread_id=mine.thread_id), metadata=auth("root"))).thread
    assert seen.turn_count == 1


async def test_threads_are_listed_newest_first_a_page_at_a_time(harness: Harness) -> None:
    made = [await new_thread(harness.runs, n=str(i)) for i in range(5)]
    seen: list[str] = []
    token = ""
    while True:
        page = await harness.runs.ListThreads(R.ListThreadsRequest(page_size=2, page_token=token))
        seen += [t.thread_id for t in page.threads]
        assert all(not t.turns for t in page.threads)
        if not (token := page.next_page_token):
            break
    assert seen == made[::-1]


# -- two executors on PostgreSQL ------------------------------------------------------------


@pytest.fixture
async def replicas(pg_settings: Settings) -> AsyncIterator[tuple[Harness, run_pb2_grpc.RunServiceStub]]:
    from executor_svc import server as executor_server  # noqa: PLC0415

    harness = Harness(pg_settings.replace(run_lease_ttl_s=1.0))
    await harness.start()
    other = await executor_server.build_server(harness.settings.executor, 0)
    await other.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{other.port}")
    try:
        yield harness, run_pb2_grpc.RunServiceStub(channel)
    finally:
        await channel.close()
        await other.stop(0)
        await harness.close()


async def test_two_replicas_never_run_two_turns_of_a_thread_at_once(
    replicas: tuple[Harness, run_pb2_grpc.RunServiceStub],
) -> None:
    harness, b = replicas
    thread_id = await new_thread(harness.runs)
    harness.planner.plan = plan_pb2.Plan(steps=[step("s1", "gate", label="t")], planner="scripted")
    # Ten messages at once, half to each replica: REJECT admits exactly one.
    sends = [
        stub.CreateRun(R.CreateRunRequest(prompt=f"m{i}", thread_id=thread_id))
        for i, stub in enumerate([harness.runs, b] * 5)
    ]
    results = await asyncio.gather(*sends, return_exceptions=True)
    admitted = [r.run for r in results if not isinstance(r, BaseException)]
    refused = [ErrorDetails.from_rpc_error(r).reason for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(admitted) == 1 and refused == ["THREAD_BUSY"] * 9
    assert await harness.gate.next_started() == "t"
    # Ten more, ENQUEUE, to both replicas at once: all admitted, numbered without gaps.
    sends = [
        stub.CreateRun(
            R.CreateRunRequest(
                prompt=f"q{i}", thread_id=thread_id, multitask_strategy=R.MULTITASK_STRATEGY_ENQUEUE
            )
        )
        for i, stub in enumerate([harness.runs, b] * 5)
    ]
    queued = [r.run for r in await asyncio.gather(*sends)]
    assert sorted(q.thread_turn for q in queued) == list(range(2, 12))
    harness.gate.release("t")  # each turn passes the gate at once from here
    finals = []
    for run in sorted(queued, key=lambda r: r.thread_turn):
        finals.append((await harness.finish(run.run_id))[0])
    assert all(f.status == R.RUN_STATUS_SUCCEEDED for f in finals)
    assert harness.gate.max_active == 1
    for earlier, later in itertools.pairwise(finals):
        assert earlier.end_time.ToNanoseconds() <= later.start_time.ToNanoseconds()


async def test_threads_over_rest(team: Stack) -> None:
    headers = {"authorization": f"Bearer {TEAM_KEYS['alice']}"}
    async with httpx.AsyncClient(base_url=team.http, headers=headers, timeout=30) as http:
        created = await http.post("/v1/threads", json={"metadata": {"from": "rest"}})
        assert created.status_code == 200, created.text
        thread_id = created.json()["thread"]["threadId"]
        sent = await http.post(f"/v1/threads/{thread_id}/runs", json={"prompt": "what is 6 times 7"})
        assert sent.status_code == 200, sent.text
        run = sent.json()["run"]
        assert (run["threadId"], run["threadTurn"]) == (thread_id, 1)
        async with http.stream("GET", f"/v1/runs/{run['runId']}/events") as events:
            assert events.status_code == 200
            body = "".join([chunk async for chunk in events.aiter_text()])
        assert "RUN_STATUS_SUCCEEDED" in body
        # The thread in the path is the thread: a body naming another is refused, not obeyed.
        other = await http.post(f"/v1/threads/{thread_id}/runs", json={"prompt": "x", "threadId": "other"})
        assert other.status_code == 400, other.text
        got = (await http.get(f"/v1/threads/{thread_id}")).json()["thread"]
        assert "42" in got["turns"][0]["answer"], got
        listed = (await http.get("/v1/threads")).json()["threads"]
        assert [t["threadId"] for t in listed] == [thread_id]
        assert (await http.delete(f"/v1/threads/{thread_id}")).status_code == 200
        missing = await http.get(f"/v1/threads/{thread_id}")
        assert missing.status_code == 404 and "THREAD_NOT_FOUND" in missing.text, missing.text
        bob = {"authorization": f"Bearer {TEAM_KEYS['bob']}"}
        assert (
            await http.post(f"/v1/threads/{thread_id}/runs", json={"prompt": "x"}, headers=bob)
        ).status_code == 404


async def test_a_turn_is_planned_with_the_earlier_turns_of_its_thread(harness: Harness) -> None:
    thread_id = await new_thread(harness.runs)
    first = await harness.create(step("s1", "echo", v=48), prompt="what is 12 times 4", thread_id=thread_id)
    await harness.finish(first.run_id)
    second = await harness.create(step("s1", "echo", v=1), prompt="add that as a todo", thread_id=thread_id)
    await harness.finish(second.run_id)
    alone = await harness.create(step("s1", "echo", v=2), prompt="add that as a todo")
    await harness.finish(alone.run_id)
    first_asked, second_asked, alone_asked = harness.planner.requests[-3:]
    assert first_asked.prompt == "what is 12 times 4" and list(first_asked.history) == []
    (prior,) = second_asked.history
    assert (prior.turn, prior.prompt, prior.status) == (1, "what is 12 times 4", R.RUN_STATUS_SUCCEEDED)
    assert prior.steps[0].tool == "echo" and prior.steps[0].output.struct_value.fields["v"].number_value == 48
    # The one-shot run with the same words sees nothing of the thread.
    assert alone_asked.prompt == "add that as a todo" and list(alone_asked.history) == []


async def test_get_thread_pages_back_from_the_latest_turns(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    thread_id = await new_thread(harness.runs)
    for n in range(1, 6):
        run = await harness.create(step("s1", "echo", v=n), prompt=f"turn {n}", thread_id=thread_id)
        await harness.finish(run.run_id)

    async def page(**request: object) -> tuple[list[int], str]:
        got = await harness.runs.GetThread(R.GetThreadRequest(thread_id=thread_id, **request))  # type: ignore[arg-type]
        assert got.thread.turn_count == 5
        return [t.turn for t in got.thread.turns], got.next_page_token

    assert await page() == ([1, 2, 3, 4, 5], "")
    turns, token = await page(page_size=2)
    assert turns == [4, 5]
    turns, token = await page(page_size=2, page_token=token)
    assert turns == [2, 3]
    assert await page(page_size=2, page_token=token) == ([1], "")
    # However long its turns, a page stays far below a message's limit: it stops at a byte budget.
    from executor_svc import threads  # noqa: PLC0415

    monkeypatch.setattr(threads, "MAX_PAGE_BYTES", 1)
    assert await page() == ([5], "5")
    bad = await failure(harness.runs.GetThread(R.GetThreadRequest(thread_id=thread_id, page_token="x")))
    assert bad.code == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_message_that_wins_the_race_with_a_retry_runs_and_the_retry_is_refused(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RetryRun checks that the turn is the thread's last and the thread idle, then saves the
    restart: a message admitted in between makes that save break runs_one_active_turn. The
    retry is refused as THREAD_BUSY (not INTERNAL), and the message's turn runs."""
    from executor_svc.engine import Engine  # noqa: PLC0415

    thread_id = await new_thread(harness.runs)
    failed = await harness.create(step("s1", "missing_tool"), thread_id=thread_id)
    assert (await harness.finish(failed.run_id))[0].status == R.RUN_STATUS_FAILED
    checked = Engine._retryable_turn
    sent: list[run_pb2.Run] = []

    async def then_a_message(self: Engine, run: run_pb2.Run) -> None:
        await checked(self, run)
        sent.append(await harness.create(step("s1", "gate", label="new"), thread_id=thread_id))
        assert await harness.gate.next_started() == "new"  # still running when the retry saves

    monkeypatch.setattr(Engine, "_retryable_turn", then_a_message)
    refused = await failure(harness.runs.RetryRun(R.RetryRunRequest(run_id=failed.run_id)))
    assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "THREAD_BUSY")
    harness.gate.release("new")
    assert (await harness.finish(sent[0].run_id))[0].status == R.RUN_STATUS_SUCCEEDED
    still = (await harness.runs.GetRun(R.GetRunRequest(run_id=failed.run_id))).run
    assert still.status == R.RUN_STATUS_FAILED
