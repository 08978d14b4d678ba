"""Follow-ups on a thread with the default agent (rule planner, real tools, real gRPC and REST):
"mark it as done", "add that as a todo", "now double it", recall, and the refusals that name
what a reference could mean."""

from __future__ import annotations

import httpx
import pytest

from agentrt.core.runstate import is_terminal_event
from agentrt.v1 import run_pb2, run_pb2_grpc
from tests.conftest import Stack, watch_all

R = run_pb2


async def say(stub: run_pb2_grpc.RunServiceStub, thread_id: str, prompt: str) -> run_pb2.Run:
    """Send `prompt` as the thread's next turn and wait for it to end."""
    run = (await stub.CreateRun(R.CreateRunRequest(prompt=prompt, thread_id=thread_id))).run
    events = await watch_all(stub, run.run_id)
    assert events and is_terminal_event(events[-1])
    return (await stub.GetRun(R.GetRunRequest(run_id=run.run_id))).run


def calls(run: run_pb2.Run) -> list[tuple[str, dict[str, object]]]:
    from agentrt.core.values import struct_to_dict  # noqa: PLC0415

    return [(s.tool, struct_to_dict(s.arguments)) for s in run.steps]


async def test_it_after_two_adds_is_refused_and_the_second_one_is_the_latest(stack: Stack) -> None:
    """Issue 58: two adds in two turns, then "mark it as done" completed the second; it is unclear
    (refused, naming both), and "the second one" counts in the two added, in order."""
    stub = stack.gateway
    thread_id = (await stub.CreateThread(R.CreateThreadRequest())).thread.thread_id
    await say(stub, thread_id, "add a todo to call the plumber")  # another todo, one turn earlier
    added = await say(stub, thread_id, "add buy milk to my todo list")
    assert added.status == R.RUN_STATUS_SUCCEEDED, added.error.message
    milk = int(added.steps[0].output.struct_value["todo"]["id"])

    unclear = await say(stub, thread_id, "mark it as done")
    assert unclear.status == R.RUN_STATUS_FAILED and unclear.error.reason == "UNPLANNABLE"
    assert "'call the plumber'" in unclear.error.message and "'buy milk'" in unclear.error.message
    assert not unclear.steps
    done = await say(stub, thread_id, "mark the second one as done")
    assert done.status == R.RUN_STATUS_SUCCEEDED, done.error.message
    assert calls(done) == [("todo_store", {"action": "complete", "id": milk})]
    assert done.answer == f"Reading 'the second one' as #{milk} 'buy milk': Marked 'buy milk' as done."
    listing = await say(stub, thread_id, "show my todos")
    todos = {t["text"]: t["done"] for t in listing.steps[0].output.struct_value["todos"]}
    assert todos == {"call the plumber": False, "buy milk": True}

    # After a listing of two, "it" could be either: refused, naming both; "the second one" is not.
    unclear = await say(stub, thread_id, "mark it as done")
    assert unclear.status == R.RUN_STATUS_FAILED and unclear.error.reason == "UNPLANNABLE"
    assert "'call the plumber'" in unclear.error.message and "'buy milk'" in unclear.error.message
    assert not unclear.steps
    second = await say(stub, thread_id, "I finished the first one")
    assert calls(second) == [("todo_store", {"action": "complete", "id": 1})]
    assert (
        second.answer
        == "Reading 'the first one' as #1 'call the plumber': Marked 'call the plumber' as done."
    )


async def test_that_is_the_last_result(stack: Stack) -> None:
    stub = stack.gateway
    thread_id = (await stub.CreateThread(R.CreateThreadRequest())).thread.thread_id
    product = await say(stub, thread_id, "what is 12 times 4")
    assert product.answer == "12 * 4 = 48"
    todo = await say(stub, thread_id, "add that as a todo")
    assert todo.status == R.RUN_STATUS_SUCCEEDED, todo.error.message
    assert calls(todo) == [("todo_store", {"action": "add", "text": "48"})]
    assert "48" in todo.answer
    # The todo turn computed nothing: "it" is still turn 1's result.
    doubled = await say(stub, thread_id, "now double it")
    assert (calls(doubled), doubled.answer) == (
        [("calculator", {"expression": "(48) * 2"})],
        "Double 48 is 96",
    )
    more = await say(stub, thread_id, "add 5 to that")
    assert more.answer == "5 + (96) = 101"
    recall = await say(stub, thread_id, "what was the answer?")
    # Answered from the history alone: a plan with no steps, only its answer.
    assert recall.status == R.RUN_STATUS_SUCCEEDED and not recall.steps and not recall.plan.steps
    assert recall.answer == f"The answer was 5 + (96) = 101 (turn {more.thread_turn})."
    added = await say(stub, thread_id, "what did I just add?")
    assert added.answer == "You added #1 '48' (turn 2)."


async def test_a_reference_outside_a_thread_is_refused_saying_why(stack: Stack) -> None:
    stub = stack.gateway
    run = (await stub.CreateRun(R.CreateRunRequest(prompt="mark it as done"))).run
    await watch_all(stub, run.run_id)
    run = (await stub.GetRun(R.GetRunRequest(run_id=run.run_id))).run
    assert run.status == R.RUN_STATUS_FAILED and run.error.reason == "UNPLANNABLE"
    assert "not part of a thread" in run.error.message


async def test_a_reference_in_a_threads_first_turn_is_refused_as_its_first(stack: Stack) -> None:
    stub = stack.gateway
    thread_id = (await stub.CreateThread(R.CreateThreadRequest())).thread.thread_id
    run = await say(stub, thread_id, "mark it as done")
    assert run.status == R.RUN_STATUS_FAILED and run.error.reason == "UNPLANNABLE"
    assert "this is the thread's first turn" in run.error.message
    assert "not part of a thread" not in run.error.message  # it is: the executor says which turn
    assert (await say(stub, thread_id, "add buy milk to my todo list")).status == R.RUN_STATUS_SUCCEEDED


async def test_the_same_conversation_over_rest(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.http, timeout=20) as http:
        thread_id = (await http.post("/v1/threads", json={})).json()["thread"]["threadId"]

        async def say_rest(prompt: str) -> dict[str, object]:
            created = await http.post(f"/v1/threads/{thread_id}/runs", json={"prompt": prompt})
            assert created.status_code == 200, created.text
            run_id = created.json()["run"]["runId"]
            async with http.stream("GET", f"/v1/runs/{run_id}/events") as events:
                async for _ in events.aiter_lines():
                    pass  # the stream ends after the run's terminal event
            return (await http.get(f"/v1/runs/{run_id}")).json()["run"]

        first = await say_rest("add buy milk to my todo list")
        assert first["status"] == "RUN_STATUS_SUCCEEDED"
        done = await say_rest("mark it as done")
        assert (done["status"], done["answer"]) == (
            "RUN_STATUS_SUCCEEDED",
            "Reading 'it' as #1 'buy milk': Marked 'buy milk' as done.",
        )
        await say_rest("what is 12 times 4")
        todo = await say_rest("add that as a todo")
        assert todo["status"] == "RUN_STATUS_SUCCEEDED" and "48" in todo["answer"]


@pytest.mark.parametrize(
    ("first", "follow_up", "expected"),
    [
        ("add todos: eggs, flour and milk", "mark the second one as done", [2]),
        ("add todos: eggs and flour", "mark both as done", [1, 2]),
        ("add todos: eggs, flour and milk", "they are all done", [1, 2, 3]),
    ],
)
async def test_references_to_several_todos(
    stack: Stack, first: str, follow_up: str, expected: list[int]
) -> None:
    stub = stack.gateway
    thread_id = (await stub.CreateThread(R.CreateThreadRequest())).thread.thread_id
    await say(stub, thread_id, first)
    run = await say(stub, thread_id, follow_up)
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    assert calls(run) == [("todo_store", {"action": "complete", "id": n}) for n in expected]


async def test_undo_of_a_todo_changed_outside_the_thread_is_refused(stack: Stack) -> None:
    """Issue 58: "undo that" is refused when the list changed since; a change made in another run
    (no thread, another client) is seen by todo_store, which the undo tells how it left the todo."""
    stub = stack.gateway
    thread_id = (await stub.CreateThread(R.CreateThreadRequest())).thread.thread_id
    added = await say(stub, thread_id, "add a todo to renew the passport")
    assert added.status == R.RUN_STATUS_SUCCEEDED, added.error.message
    elsewhere = await say(stub, "", "mark renew the passport as done")
    assert elsewhere.status == R.RUN_STATUS_SUCCEEDED, elsewhere.error.message

    undo = await say(stub, thread_id, "undo that")
    assert undo.status == R.RUN_STATUS_FAILED and undo.error.reason == "TODO_CHANGED"
    assert "changed since: it is done now" in undo.error.message
    listing = await say(stub, "", "show my todos")
    assert [(t["text"], t["done"]) for t in listing.steps[0].output.struct_value["todos"]] == [
        ("renew the passport", True)
    ]
    # In the thread, undone the way it asks: reopened elsewhere first, the add undoes.
    reopened = await say(stub, "", 'use todo_store with {"action": "reopen", "id": 1}')
    assert reopened.status == R.RUN_STATUS_SUCCEEDED, reopened.error.message
    again = await say(stub, thread_id, "undo that")
    assert again.status == R.RUN_STATUS_SUCCEEDED, again.error.message
    assert calls(again)[0][1]["action"] == "delete"


async def test_a_correction_to_a_name_that_fits_no_todo_changes_nothing(stack: Stack) -> None:
    """A correction is the undo and the corrected change, both or neither: "sorry I meant
    tomorrow's one" after a done, with no such todo, failed its second step after the first had
    reopened the todo done (issue 58, tuning zb24). The name is checked before the undo."""
    stub = stack.gateway
    thread_id = (await stub.CreateThread(R.CreateThreadRequest())).thread.thread_id
    for prompt in ("add pay rent", "add water plants", "done with pay rent"):
        run = await say(stub, thread_id, prompt)
        assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message

    corrected = await say(stub, thread_id, "sorry I meant tomorrow's one")
    assert corrected.status == R.RUN_STATUS_FAILED and corrected.error.reason == "TODO_NOT_FOUND"
    assert calls(corrected)[0] == ("todo_store", {"action": "find", "text": "tomorrow's"})
    assert all(s.status != R.STEP_STATUS_SUCCEEDED for s in corrected.steps)  # the undo never ran
    listing = await say(stub, "", "show my todos")
    assert [(t["text"], t["done"]) for t in listing.steps[0].output.struct_value["todos"]] == [
        ("pay rent", True),
        ("water plants", False),
    ]
    # ... and on a thread where the correction comes right after the change, one that fits a todo
    # moves the change to it, in one turn
    thread_id = (await stub.CreateThread(R.CreateThreadRequest())).thread.thread_id
    done = await say(stub, thread_id, "mark pay rent done")
    assert done.status == R.RUN_STATUS_SUCCEEDED, done.error.message
    moved = await say(stub, thread_id, "sorry I meant water plants")
    assert moved.status == R.RUN_STATUS_SUCCEEDED, moved.error.message
    listing = await say(stub, "", "show my todos")
    assert [(t["text"], t["done"]) for t in listing.steps[0].output.struct_value["todos"]] == [
        ("pay rent", False),
        ("water plants", True),
    ]


async def test_the_second_in_reply_picks_among_the_todos_the_tool_named(stack: Stack) -> None:
    """Batch ze of issue 58: a report that fits two todos is refused by todo_store, naming them;
    the step's error keeps their ids ("candidates", in the order named) and the next turn's
    "the second" picks among them, through every hop (tool, executor, thread, planner)."""
    stub = stack.gateway
    thread_id = (await stub.CreateThread(R.CreateThreadRequest())).thread.thread_id
    await say(stub, thread_id, "add call the bank about the card")
    await say(stub, thread_id, "add buy milk")
    await say(stub, thread_id, "add call the bank about the mortgage")
    unclear = await say(stub, thread_id, "I called the bank")
    assert unclear.status == R.RUN_STATUS_FAILED and unclear.error.reason == "AMBIGUOUS_TODO"
    assert dict(unclear.steps[0].error.metadata) == {"candidates": "1,3"}
    picked = await say(stub, thread_id, "the second")
    assert picked.status == R.RUN_STATUS_SUCCEEDED, picked.error.message
    assert calls(picked) == [("todo_store", {"action": "complete", "id": 3})]
    assert "'the second' read as #3 'call the bank about the mortgage'" in picked.answer


async def test_a_reply_picks_among_the_closest_a_name_that_fitted_none_was_offered(stack: Stack) -> None:
    """Batch zi of issue 58: a name that fits no todo is refused naming the closest ("Try again
    with one of these"); the next turn's "the second one" picks the second of those offered, and
    a word of one of them ("mario") picks that one. With one near todo, nothing is offered as a
    choice."""
    stub = stack.gateway
    thread_id = (await stub.CreateThread(R.CreateThreadRequest())).thread.thread_id
    await say(stub, thread_id, "add text Maria, buy stamps, text Mario")
    unclear = await say(stub, thread_id, "mark text mari done")
    assert unclear.status == R.RUN_STATUS_FAILED and unclear.error.reason == "TODO_NOT_FOUND"
    assert dict(unclear.steps[0].error.metadata) == {"candidates": "1,3"}
    picked = await say(stub, thread_id, "the second one")
    assert picked.status == R.RUN_STATUS_SUCCEEDED, picked.error.message
    assert calls(picked) == [("todo_store", {"action": "complete", "id": 3})]
    assert "read as #3 'text Mario'" in picked.answer
    again = await say(stub, thread_id, "delete text mari")
    assert again.status == R.RUN_STATUS_FAILED
    named = await say(stub, thread_id, "maria")
    assert calls(named) == [("todo_store", {"action": "delete", "id": 1})], named.error.message
    lone = await say(stub, thread_id, "mark post stamps done")
    assert lone.status == R.RUN_STATUS_FAILED and dict(lone.steps[0].error.metadata) == {}
