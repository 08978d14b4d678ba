"""todo_store's inverse operations, which undo calls (issue 58): reopen (done -> open) and restore
(a deleted todo back as it was, with its id), owner-scoped and idempotent, over real gRPC on
SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import value_to_py
from agentrt.v1 import tool_service_pb2_grpc
from tests.integration.test_todo_principals import request_for
from tools_svc import server as tools_server
from tools_svc.todos import spec

Call = Any


@pytest.fixture
async def as_user(backend: Settings) -> AsyncIterator[Call]:
    """as_user(principal, **arguments): one todo_store call made for `principal`."""
    built = await tools_server.build_server(backend.tools, 0)
    await built.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{built.port}")
    stub = tool_service_pb2_grpc.ToolServiceStub(channel)

    async def call(principal: str, key: str = "", **arguments: object) -> dict[str, Any]:
        reply = await stub.InvokeTool(request_for(principal, key, **arguments), timeout=10)
        return value_to_py(reply.output)

    try:
        yield call
    finally:
        await channel.close()
        await built.stop(0)


async def refused(call: Call, *args: object, **arguments: object) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call(*args, **arguments)
    return ErrorDetails.from_rpc_error(info.value)


async def texts(call: Call, who: str, **narrow: object) -> list[tuple[int, str, bool]]:
    listed = await call(who, action="list", **narrow)
    return [(t["id"], t["text"], t["done"]) for t in listed["todos"]]


async def test_reopen_marks_a_done_todo_open_again_and_twice_is_once(as_user: Call) -> None:
    await as_user("alice", action="add", texts=["buy milk", "pay rent"])
    await as_user("alice", action="complete", id=1)
    reopened = await as_user("alice", action="reopen", id=1)
    assert reopened == {
        "todo": {"id": 1, "text": "buy milk", "done": False},
        "summary": "Marked 'buy milk' as not done.",
    }
    assert await as_user("alice", action="reopen", id=1) == reopened  # idempotent
    assert (await as_user("alice", action="count"))["done"] == 0
    # Completed again, it is done again (a reopened todo is any open todo).
    assert (await as_user("alice", action="complete", id=1))["todo"]["done"] is True


async def test_reopen_by_text_names_the_done_one(as_user: Call) -> None:
    await as_user("alice", action="add", text="buy milk")
    await as_user("alice", action="complete", id=1)
    await as_user("alice", action="add", text="buy milk")  # an open one of the same text: #2
    assert (await as_user("alice", action="reopen", text="buy milk"))["todo"]["id"] == 1
    several = await as_user("alice", action="reopen", ids=[1, 2])
    assert several["summary"] == "Marked 2 todos as not done: 'buy milk', 'buy milk'."


async def test_restore_brings_a_deleted_todo_back_with_its_id_and_state(as_user: Call) -> None:
    await as_user("alice", action="add", texts=["buy milk", "pay rent", "call mom"])
    await as_user("alice", action="complete", id=2)
    deleted = await as_user("alice", action="delete", id=2)
    assert deleted["deleted"] == {"id": 2, "text": "pay rent", "done": True}
    # Deleted: no todo to list, count, find or a text.
    assert await texts(as_user, "alice") == [(1, "buy milk", False), (3, "call mom", False)]
    assert (await as_user("alice", action="count"))["count"] == 2
    assert (await refused(as_user, "alice", action="find", text="pay rent")).reason == "TODO_NOT_FOUND"
    assert (await refused(as_user, "alice", action="complete", id=2)).reason == "TODO_NOT_FOUND"
    restored = await as_user("alice", action="restore", id=2)
    assert restored == {
        "todo": {"id": 2, "text": "pay rent", "done": True},
        "summary": "Restored 'pay rent' (#2).",
    }
    assert await as_user("alice", action="restore", id=2) == restored  # twice is once
    assert await texts(as_user, "alice") == [
        (1, "buy milk", False),
        (2, "pay rent", True),
        (3, "call mom", False),
    ]
    # Numbering goes on after the restored one: a number is never given twice.
    assert (await as_user("alice", action="add", text="water plants"))["todo"]["id"] == 4


async def test_restore_after_delete_all_by_the_ids_it_returned(as_user: Call) -> None:
    await as_user("alice", action="add", texts=["a1", "a2", "a3"])
    await as_user("alice", action="complete", id=3)
    cleared = await as_user("alice", action="delete_all", state="open")
    assert [t["id"] for t in cleared["deleted"]] == [1, 2]
    assert await texts(as_user, "alice") == [(3, "a3", True)]
    back = await as_user("alice", action="restore", ids=[t["id"] for t in cleared["deleted"]])
    assert back["summary"] == "Restored 2 todos: 'a1', 'a2'."
    assert [t for t, _, _ in await texts(as_user, "alice")] == [1, 2, 3]


async def test_restore_is_all_or_none_and_names_only_real_todos(as_user: Call) -> None:
    await as_user("alice", action="add", texts=["a1", "a2"])
    await as_user("alice", action="delete", id=1)
    missing = await refused(as_user, "alice", action="restore", ids=[1, 7])
    assert missing.reason == "TODO_NOT_FOUND" and "7" in missing.message
    assert await texts(as_user, "alice") == [(2, "a2", False)]  # #1 not restored: all or none
    # By id only: a deleted todo's text may be on the list again, so a text could name either.
    bad = await refused(as_user, "alice", action="restore", text="a1")
    assert bad.reason == "INVALID_TOOL_ARGUMENTS"


async def test_another_principals_deleted_todo_does_not_exist(as_user: Call) -> None:
    await as_user("alice", action="add", texts=["alice's secret", "alice's done one"])
    await as_user("alice", action="complete", id=2)
    await as_user("alice", action="delete", id=1)
    for action, number in (("restore", 1), ("reopen", 2)):
        error = await refused(as_user, "bob", action=action, id=number)
        assert error.reason == "TODO_NOT_FOUND"
        assert "alice" not in error.message
    assert await texts(as_user, "bob") == []
    assert await texts(as_user, "alice") == [(2, "alice's done one", True)]
    assert (await as_user("alice", action="restore", id=1))["todo"]["text"] == "alice's secret"


async def test_a_deleted_todo_is_gone_for_good_after_its_time(
    as_user: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    await as_user("alice", action="add", texts=["old one", "new one"])
    await as_user("alice", action="delete", id=1)
    # The next delete sweeps what was deleted longer ago than RESTORABLE_S (a time set to now).
    monkeypatch.setattr(spec, "RESTORABLE_S", -1.0)
    monkeypatch.setattr("tools_svc.todos.changes.RESTORABLE_S", -1.0)
    await as_user("alice", action="delete", id=2)
    assert (await refused(as_user, "alice", action="restore", id=1)).reason == "TODO_NOT_FOUND"


async def test_a_retried_restore_is_answered_from_its_record(as_user: Call) -> None:
    await as_user("alice", action="add", text="buy milk")
    await as_user("alice", action="delete", id=1)
    first = await as_user("alice", key="undo-1", action="restore", id=1)
    await as_user("alice", action="delete", id=1)
    # The same step again (its answer lost): the recorded answer, and nothing restored again.
    assert await as_user("alice", key="undo-1", action="restore", id=1) == first
    assert await texts(as_user, "alice") == []


async def test_an_undo_of_a_todo_changed_since_is_refused_and_changes_nothing(as_user: Call) -> None:
    added = (await as_user("alice", action="add", texts=["buy milk", "pay rent"]))["todos"]
    as_left = [{"id": t["id"], "text": t["text"], "done": t["done"]} for t in added]
    # Elsewhere (another thread, another client), #1 is marked done: undoing its add would delete
    # a todo someone has done something with since.
    await as_user("alice", action="complete", id=1)
    changed = await refused(as_user, "alice", action="delete", ids=[1, 2], unchanged=as_left)
    assert (
        changed.reason == "TODO_CHANGED"
        and "'buy milk' (#1) changed since: it is done now" in changed.message
    )
    assert await texts(as_user, "alice") == [(1, "buy milk", True), (2, "pay rent", False)]  # all or none
    # Unchanged, the undo goes through; already as it leaves them is no change to refuse.
    assert (await as_user("alice", action="delete", id=2, unchanged=as_left[1:]))["deleted"]["id"] == 2
    done = {"id": 1, "text": "buy milk", "done": True}
    assert (await as_user("alice", action="reopen", id=1, unchanged=[done]))["todo"]["done"] is False
    assert (await as_user("alice", action="reopen", id=1, unchanged=[done]))["todo"]["done"] is False
    # Another principal's todo does not exist, guard or not.
    assert (await refused(as_user, "bob", action="delete", id=1, unchanged=[done])).reason == "TODO_NOT_FOUND"
    # Only with a change by id: a guard on an add or a text is refused as the call's shape.
    for wrong in ({"action": "add", "text": "x"}, {"action": "delete", "text": "buy milk"}):
        bad = await refused(as_user, "alice", unchanged=[done], **wrong)
        assert bad.reason == "INVALID_TOOL_ARGUMENTS"
