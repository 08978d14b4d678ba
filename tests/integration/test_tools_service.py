"""ToolService over real gRPC: catalog, validation, tool errors, persistence, idempotency."""

import sqlite3

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct, struct_to_dict, value_to_py
from agentrt.v1 import tool_pb2, tool_service_pb2, tool_service_pb2_grpc
from tests.conftest import Stack
from tools_svc import server as tools_server


def invoke(tool: str, idempotency_key: str = "", **arguments: object) -> tool_service_pb2.InvokeToolRequest:
    return tool_service_pb2.InvokeToolRequest(
        tool=tool, arguments=dict_to_struct(arguments), idempotency_key=idempotency_key
    )


async def test_list_tools_publishes_builtin_schemas(stack: Stack) -> None:
    tools = (await stack.tools.ListTools(tool_service_pb2.ListToolsRequest())).tools
    assert [t.name for t in tools] == ["calculator", "todo_store"]
    assert all(t.source == tool_pb2.TOOL_SOURCE_BUILTIN for t in tools)
    schema = struct_to_dict(tools[0].input_schema)
    assert schema["required"] == ["expression"]
    assert struct_to_dict(tools[1].input_schema)["properties"]["action"]["enum"] == [
        "add",
        "list",
        "count",
        "complete",
        "reopen",
        "delete",
        "restore",
        "delete_all",
        "find",
    ]


async def test_calculator_over_grpc(stack: Stack) -> None:
    response = await stack.tools.InvokeTool(invoke("calculator", expression="(10 + 5) * 2"))
    assert value_to_py(response.output) == {"expression": "(10 + 5) * 2", "value": 30}


async def test_tool_error_is_a_clear_non_retryable_status(stack: Stack) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.tools.InvokeTool(invoke("calculator", expression="1/0"))
    details = ErrorDetails.from_rpc_error(info.value)
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert details.reason == "TOOL_ERROR"
    assert details.retryable is False
    assert "division by zero" in details.message


@pytest.mark.parametrize(
    ("arguments", "field", "text"),
    [
        ({}, "arguments", '"expression" is a required property'),
        ({"expression": 5}, "arguments.expression", '5 is not of type "string"'),
        ({"expression": "1", "extra": 1}, "arguments", "Additional properties are not allowed"),
    ],
)
async def test_schema_violations_are_invalid_argument_with_the_violation(
    stack: Stack, arguments: dict, field: str, text: str
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.tools.InvokeTool(invoke("calculator", **arguments))
    details = ErrorDetails.from_rpc_error(info.value)
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert details.reason == "INVALID_TOOL_ARGUMENTS"
    assert (field, next(d for f, d in details.violations if f == field)) in details.violations
    assert any(text in d for _, d in details.violations)


async def test_todo_add_requires_text_and_complete_requires_id(stack: Stack) -> None:
    for arguments, missing in (({"action": "add"}, '"text"'), ({"action": "complete"}, '"id"')):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stack.tools.InvokeTool(invoke("todo_store", **arguments))
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert missing in info.value.details()


async def test_unknown_tool_is_not_found(stack: Stack) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.tools.InvokeTool(invoke("weather", city="Paris"))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    assert "available: calculator, todo_store" in info.value.details()


async def test_todos_lifecycle_and_persistence_across_restart(settings: Settings) -> None:
    built = await tools_server.build_server(settings.tools, 0)
    await built.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{built.port}") as channel:
        stub = tool_service_pb2_grpc.ToolServiceStub(channel)
        added = value_to_py(
            (await stub.InvokeTool(invoke("todo_store", action="add", text="buy milk"))).output
        )
        assert added["todo"] == {"id": 1, "text": "buy milk", "done": False}
        await stub.InvokeTool(invoke("todo_store", action="add", text="walk dog"))
        done = value_to_py((await stub.InvokeTool(invoke("todo_store", action="complete", id=1))).output)
        assert done["todo"]["done"] is True
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.InvokeTool(invoke("todo_store", action="delete", id=99))
        assert "todo 99 does not exist" in info.value.details()
    await built.stop(0)

    built = await tools_server.build_server(settings.tools, 0)
    await built.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{built.port}") as channel:
        stub = tool_service_pb2_grpc.ToolServiceStub(channel)
        listed = value_to_py((await stub.InvokeTool(invoke("todo_store", action="list"))).output)
        assert listed == {
            "todos": [
                {"id": 1, "text": "buy milk", "done": True},
                {"id": 2, "text": "walk dog", "done": False},
            ],
            "count": 2,
            "summary": "You have 2 todos: 1. buy milk (done); 2. walk dog.",
        }
        health = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="agentrt.v1.ToolService")
        )
        assert health.status == health_pb2.HealthCheckResponse.SERVING
    await built.stop(0)


async def test_only_calls_that_change_something_are_recorded(stack: Stack) -> None:
    """Keyed calls that only read (todo_store list/count, the calculator) repeat harmlessly and
    are not recorded: a listing would be stored once more per step for nothing."""
    await stack.tools.InvokeTool(invoke("todo_store", idempotency_key="r/s1", action="add", text="a"))
    await stack.tools.InvokeTool(invoke("todo_store", idempotency_key="r/s2", action="list"))
    await stack.tools.InvokeTool(invoke("todo_store", idempotency_key="r/s3", action="count"))
    await stack.tools.InvokeTool(invoke("calculator", idempotency_key="r/s4", expression="1+1"))
    await stack.tools.InvokeTool(invoke("todo_store", idempotency_key="r/s5", action="complete", id=1))
    with sqlite3.connect(stack.settings.data_dir / "tools.db") as conn:
        recorded = [key for (key,) in conn.execute("SELECT idempotency_key FROM tool_invocations")]
    assert sorted(recorded) == ["r/s1", "r/s5"]


async def test_idempotency_key_returns_recorded_result_without_repeating(stack: Stack) -> None:
    request = invoke("todo_store", idempotency_key="run-1/s1", action="add", text="once")
    first, second = await stack.tools.InvokeTool(request), await stack.tools.InvokeTool(request)
    assert first.output == second.output
    listed = value_to_py((await stack.tools.InvokeTool(invoke("todo_store", action="list"))).output)
    assert [t["text"] for t in listed["todos"]] == ["once"]

    reused = invoke("todo_store", idempotency_key="run-1/s1", action="add", text="different")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.tools.InvokeTool(reused)
    assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS  # as for a reused CreateRun key
