"""MCP's defaults and the per-action lookup of agentrt.core.annotations.effects."""

from __future__ import annotations

from agentrt.core.annotations import Effects, effects, hints
from agentrt.v1 import tool_pb2


def test_unannotated_tools_get_mcps_defaults() -> None:
    assert effects(tool_pb2.Tool(name="t")) == Effects(
        read_only=False, destructive=True, idempotent=False, open_world=True
    )
    assert effects(tool_pb2.Tool(name="t", idempotent=True)).idempotent  # the older field counts


def test_read_only_is_never_destructive_and_actions_override_field_by_field() -> None:
    tool = tool_pb2.Tool(
        name="t",
        annotations=hints(open_world=False, destructive=True),
        action_annotations={"get": hints(read_only=True), "put": hints(destructive=False)},
    )
    assert effects(tool, {"action": "get"}) == Effects(True, False, False, False)
    assert effects(tool, {"action": "put"}) == Effects(False, False, False, False)
    assert effects(tool, {"action": 7}) == effects(tool) == Effects(False, True, False, False)


def test_a_calls_struct_declares_what_its_plain_arguments_do() -> None:
    """The executor asks about a call's Struct as it is, reading only its "action"."""
    from agentrt.core.annotations import action_of  # noqa: PLC0415
    from agentrt.core.values import dict_to_struct  # noqa: PLC0415

    tool = tool_pb2.Tool(
        name="t",
        annotations=hints(read_only=False, destructive=False),
        action_annotations={"get": hints(read_only=True), "drop": hints(destructive=True)},
    )
    for arguments in ({"action": "get"}, {"action": "drop", "id": 1}, {"action": 3}, {"id": 1}, {}):
        struct = dict_to_struct(arguments)
        assert effects(tool, struct) == effects(tool, arguments)
        assert action_of(struct) == action_of(arguments)
    empty = dict_to_struct({})
    assert action_of(empty) is None and "action" not in empty.fields  # looking added nothing
