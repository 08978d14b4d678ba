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
