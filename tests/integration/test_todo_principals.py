"""One todo list per principal, over real gRPC on SQLite and PostgreSQL: the call context the
executor sends with InvokeTool decides whose list a call reads and changes; another
principal's todos do not exist for the caller; the context's strings are checked."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import value_to_py
from agentrt.v1 import tool_pb2, tool_service_pb2, tool_service_pb2_grpc
from tests.integration.test_tools_service import invoke
from tools_svc import server as tools_server

Call = Any


@pytest.fixture
async def stub(backend: Settings) -> AsyncIterator[tool_service_pb2_grpc.ToolServiceStub]:
    built = await tools_server.build_server(backend.tools, 0)
    await built.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{built.port}")
    try:
        yield tool_service_pb2_grpc.ToolServiceStub(channel)
    finally:
        await channel.close()
        await built.stop(0)


def request_for(
    principal: str | None, key: str = "", context: dict[str, Any] | None = None, **arguments: object
) -> tool_service_pb2.InvokeToolRequest:
    """A todo_store call for `principal` (None: no context at all, as before principals)."""
    request = invoke("todo_store", idempotency_key=key, **arguments)
    if principal is not None:
        fields: dict[str, Any] = {"principal": principal, "run_id": "run-1", "step_id": "s1", "attempt": 1}
        request.context.CopyFrom(tool_pb2.CallContext(**(fields | (context or {}))))
    return request


@pytest.fixture
def todo(stub: tool_service_pb2_grpc.ToolServiceStub) -> Call:
    async def call(principal: str | None, key: str = "", **arguments: object) -> dict[str, Any]:
        response = await stub.InvokeTool(request_for(principal, key, **arguments), timeout=10)
        return value_to_py(response.output)

    return call


async def refused(call: Any) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return ErrorDetails.from_rpc_error(info.value)


async def test_each_principal_has_a_list_of_its_own(todo: Call) -> None:
    assert (await todo("alice", action="add", texts=["buy milk", "walk dog"]))["todos"] == [
        {"id": 1, "text": "buy milk", "done": False},
        {"id": 2, "text": "walk dog", "done": False},
    ]
    assert await todo("bob", action="list") == {
        "todos": [],
        "count": 0,
        "summary": "Your todo list is empty.",
    }
    assert (await todo("bob", action="count"))["count"] == 0
    added = await todo("bob", action="add", text="pay rent")
    assert added == {
        "todo": {"id": 1, "text": "pay rent", "done": False},
        "summary": "Added 'pay rent' (#1).",
    }

    # Alice's todos do not exist for bob, by number or by text, whatever he tries.
    for arguments, message in (
        ({"action": "complete", "id": 2}, "todo 2 does not exist"),
        ({"action": "delete", "id": 2}, "todo 2 does not exist"),
        ({"action": "complete", "text": "walk dog"}, "no todo matches 'walk dog'"),
        ({"action": "delete", "text": "milk"}, "no todo matches 'milk'"),
    ):
        details = await refused(todo("bob", **arguments))
        assert details.reason == "TODO_NOT_FOUND" and details.message.startswith(message)
        # What would help names bob's own todos only.
        assert "#1 'pay rent'" in details.message
        assert "buy milk" not in details.message and "walk dog'" not in details.message.removeprefix(message)
    # Bob's #1 is his own: completing it leaves alice's #1 as it was.
    assert (await todo("bob", action="complete", id=1))["todo"] == {"id": 1, "text": "pay rent", "done": True}
    assert await todo("alice", action="list") == {
        "todos": [
            {"id": 1, "text": "buy milk", "done": False},
            {"id": 2, "text": "walk dog", "done": False},
        ],
        "count": 2,
        "summary": "You have 2 todos: 1. buy milk; 2. walk dog.",
    }
    assert (await todo("alice", action="count"))["summary"] == "You have 2 todos."
    assert (await todo("bob", action="count"))["summary"] == "You have 1 todo (0 open, 1 done)."

    # A number is never given again in one list, after a delete too; other lists go on counting.
    assert (await todo("bob", action="delete", text="rent"))["deleted"]["id"] == 1
    assert (await todo("bob", action="add", text="call mum"))["todo"]["id"] == 2
    assert (await todo("alice", action="add", text="read"))["todo"]["id"] == 3


async def test_a_call_without_context_is_for_local(todo: Call) -> None:
    await todo("alice", action="add", text="alice's")
    assert (await todo(None, action="add", text="mine"))["todo"]["id"] == 1
    assert [t["text"] for t in (await todo("local", action="list"))["todos"]] == ["mine"]
    # An empty principal is no principal: `local` too.
    assert [t["text"] for t in (await todo("", action="list"))["todos"]] == ["mine"]


async def test_concurrent_adds_by_one_principal_get_distinct_numbers(todo: Call) -> None:
    # On PostgreSQL these run in parallel transactions; the counter row makes them take turns.
    added = await asyncio.gather(*(todo("alice", action="add", text=f"t{i}") for i in range(20)))
    assert sorted(a["todo"]["id"] for a in added) == list(range(1, 21))
    assert (await todo("bob", action="add", text="b"))["todo"]["id"] == 1


async def test_an_idempotency_key_never_answers_another_principal(todo: Call) -> None:
    first = await todo("alice", key="run-1/s1", action="add", text="secret")
    assert await todo("alice", key="run-1/s1", action="add", text="secret") == first  # a retry
    details = await refused(todo("bob", key="run-1/s1", action="add", text="secret"))
    assert (details.code, details.reason) == (grpc.StatusCode.ALREADY_EXISTS, "IDEMPOTENCY_KEY_REUSED")
    assert (await todo("bob", action="count"))["count"] == 0


@pytest.mark.parametrize(
    ("context", "field"),
    [
        ({"principal": "p" * 65}, "context.principal"),
        ({"principal": "ali\nce"}, "context.principal"),
        ({"run_id": "r" * 65}, "context.run_id"),
        ({"step_id": "s\x00"}, "context.step_id"),
        ({"idempotency_key": "k" * 257}, "context.idempotency_key"),
        ({"attempt": -1}, "context.attempt"),
    ],
)
async def test_the_context_is_checked(
    stub: tool_service_pb2_grpc.ToolServiceStub, context: dict[str, Any], field: str
) -> None:
    request = request_for("alice", context=context, action="add", text="x")
    details = await refused(stub.InvokeTool(request, timeout=10))
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert field in [f for f, _ in details.violations]
    # At the limits is fine.
    ok = request_for("p" * 64, context={"run_id": "r" * 64, "idempotency_key": "k" * 256}, action="count")
    assert value_to_py((await stub.InvokeTool(ok, timeout=10)).output)["count"] == 0


async def test_the_context_and_the_request_name_one_idempotency_key(
    stub: tool_service_pb2_grpc.ToolServiceStub,
) -> None:
    request = request_for(
        "alice", "run-1/s1", context={"idempotency_key": "run-1/s2"}, action="add", text="x"
    )
    details = await refused(stub.InvokeTool(request, timeout=10))
    assert (details.code, details.violations[0][0]) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "context.idempotency_key",
    )
