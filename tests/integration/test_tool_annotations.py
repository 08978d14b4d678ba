"""Tool annotations (MCP's hints) in the catalog: the built-ins', a provider's from the SDK, and
their bounds at registration."""

from __future__ import annotations

import grpc
import pytest

from agentrt.core.annotations import effects, hints
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct
from agentrt.tools_sdk import ToolProvider, tool
from agentrt.v1 import tool_pb2, tool_service_pb2
from tests.conftest import Stack

T = tool_service_pb2


async def catalog(stack: Stack) -> dict[str, tool_pb2.Tool]:
    return {t.name: t for t in (await stack.tools.ListTools(T.ListToolsRequest())).tools}


async def test_the_built_ins_say_what_each_call_does(stack: Stack) -> None:
    tools = await catalog(stack)
    calculator, todo_store = tools["calculator"], tools["todo_store"]
    assert effects(calculator) == effects(calculator, {"expression": "1"})
    assert effects(calculator).read_only and not effects(calculator).open_world
    described = {a: effects(todo_store, {"action": a}).describe() for a in todo_store.action_annotations}
    assert described == {
        "list": "read-only",
        "count": "read-only",
        "add": "writes",
        "complete": "writes",
        "reopen": "writes",
        "delete": "destructive",
        "restore": "writes",
        "delete_all": "destructive",
        "find": "read-only",
    }
    assert effects(todo_store, {"action": "complete"}).idempotent
    assert not effects(todo_store, {"action": "add"}).idempotent
    # An action the tool did not annotate (or none): the tool's own, conservative hints.
    assert effects(todo_store, {"action": "purge"}).describe() == "destructive"


async def test_a_provider_registers_its_annotations_from_the_sdk(stack: Stack) -> None:
    @tool(read_only=False, destructive=False, open_world=True, title="Send a postcard")
    def send_postcard(to: str) -> dict[str, str]:
        return {"sent": to}

    @tool(actions={"get": {"read_only": True}, "erase": {"destructive": True, "idempotent": True}})
    def notes(action: str) -> dict[str, str]:
        return {"done": action}

    provider = ToolProvider([send_postcard, notes], tools_addr=f"127.0.0.1:{stack.port('tools')}")
    await provider.start()
    try:
        tools = await catalog(stack)
    finally:
        await provider.stop(0)
    postcard = tools["send_postcard"]
    assert postcard.annotations.title == "Send a postcard"
    assert effects(postcard).describe() == "writes" and effects(postcard).open_world
    assert {a: effects(tools["notes"], {"action": a}).describe() for a in ("get", "erase", "other")} == {
        "get": "read-only",
        "erase": "destructive",
        "other": "destructive",  # MCP's default for what the author did not say
    }
    assert effects(tools["notes"], {"action": "erase"}).idempotent


@pytest.mark.parametrize(
    ("actions", "problem"),
    [
        ({f"a{i}": hints(read_only=True) for i in range(33)}, "at most 32 actions"),
        ({"x" * 65: hints(read_only=True)}, "action names: 1 to 64 printable characters"),
        ({"get": hints(read_only=True, title="t" * 201)}, "at most 200 characters"),
    ],
)
async def test_annotations_are_bounded_at_registration(stack: Stack, actions: dict, problem: str) -> None:
    spec = tool_pb2.ToolSpec(
        name="bounded",
        version="1.0.0",
        description="d",
        input_schema=dict_to_struct({"type": "object"}),
        action_annotations=actions,
    )
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.tools.RegisterTool(T.RegisterToolRequest(spec=spec, endpoint="127.0.0.1:1"))
    details = ErrorDetails.from_rpc_error(info.value)
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert problem in details.message
