"""What tools' outputs mean to a conversation (ToolReferences) in the catalog: the built-ins
declare theirs, a provider's come from the SDK, and registrations are bounded (issue 58: the
planner reads any tool's outputs through them, not a built-in tool's by name)."""

from __future__ import annotations

import grpc
import pytest

from agentrt.core import toolrefs
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct
from agentrt.tools_sdk import ToolProvider, tool
from agentrt.v1 import tool_pb2, tool_service_pb2
from tests.conftest import Stack

T = tool_service_pb2


async def catalog(stack: Stack) -> dict[str, tool_pb2.Tool]:
    return {t.name: t for t in (await stack.tools.ListTools(T.ListToolsRequest())).tools}


async def test_the_built_ins_declare_what_their_outputs_name(stack: Stack) -> None:
    tools = await catalog(stack)
    todo = tools["todo_store"]
    added = toolrefs.read_step(todo, {"action": "add", "text": "x"}, {"todo": {"id": 3, "text": "buy milk"}})
    assert added.effect == toolrefs.ADDED and added.inverse_action == "delete"
    assert added.entities == (toolrefs.Entity("todo", 3, "buy milk"),)
    listed = toolrefs.read_step(
        todo, {"action": "list"}, {"todos": [{"id": 1, "text": "a"}, {"id": 2, "text": "b"}], "count": 2}
    )
    assert listed.effect == toolrefs.SHOWN and [e.id for e in listed.entities] == [1, 2]
    gone = toolrefs.read_step(todo, {"action": "delete_all"}, {"deleted": [{"id": 1, "text": "a"}]})
    assert (gone.effect, gone.inverse_action) == (toolrefs.REMOVED, "restore")
    # find only checks names: it makes nothing salient
    assert toolrefs.read_step(todo, {"action": "find"}, {"todos": [{"id": 1, "text": "a"}]}).entities == ()
    calc = toolrefs.read_step(tools["calculator"], {"expression": "6*8"}, {"expression": "6*8", "value": 48})
    assert (calc.result, calc.result_of, calc.entities) == ("48", "6*8", ())


async def test_a_provider_declares_its_references_through_the_sdk(stack: Stack) -> None:
    refs = toolrefs.references(
        entities=[("contact", "/contact", "handle", "name")],
        actions={"create": (toolrefs.ADDED, "remove"), "remove": (toolrefs.REMOVED, "")},
    )

    @tool(references=refs)
    def contacts(action: str, name: str = "") -> dict[str, object]:
        return {"contact": {"handle": "c-1", "name": name}}

    provider = ToolProvider([contacts], tools_addr=f"127.0.0.1:{stack.port('tools')}")
    await provider.start()
    try:
        published = (await catalog(stack))["contacts"]
    finally:
        await provider.stop(0)
    assert published.references == refs
    meaning = toolrefs.read_step(
        published, {"action": "create"}, {"contact": {"handle": "c-1", "name": "Ann"}}
    )
    assert (
        meaning.entities == (toolrefs.Entity("contact", "c-1", "Ann"),) and meaning.inverse_action == "remove"
    )


@pytest.mark.parametrize(
    ("refs", "problem"),
    [
        (toolrefs.references(entities=[("Todo!", "/x", "id", "t")]), "entities[0].kind"),
        (toolrefs.references(entities=[("todo", "x", "id", "t")]), "entities[0].pointer"),
        (toolrefs.references(entities=[("todo", "/x", "", "t")]), "entities[0].id_field"),
        (toolrefs.references(entities=[("todo", "/x", "id", "t")] * 9), "at most 8"),
        (toolrefs.references(result="value"), "spec.references.result"),
        (toolrefs.references(actions={f"a{i}": (toolrefs.ADDED, "") for i in range(33)}), "at most 32"),
        (toolrefs.references(actions={"add": (toolrefs.ADDED, "x" * 65)}), "inverse_action"),
    ],
)
async def test_references_are_bounded_at_registration(
    stack: Stack, refs: tool_pb2.ToolReferences, problem: str
) -> None:
    spec = tool_pb2.ToolSpec(
        name="bounded_refs",
        version="1.0.0",
        description="d",
        input_schema=dict_to_struct({"type": "object"}),
        references=refs,
    )
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.tools.RegisterTool(T.RegisterToolRequest(spec=spec, endpoint="127.0.0.1:1"))
    details = ErrorDetails.from_rpc_error(info.value)
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert problem in details.message
