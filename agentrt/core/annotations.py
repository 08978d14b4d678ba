"""What a tool call does to the world, from the tool's annotations (MCP's hints).

A tool declares `annotations` and, if it takes an "action" argument, `action_annotations` per
action (todo_store's `list` is read-only, its `delete` destructive). `effects(tool, arguments)`
is what one call declares, with MCP's defaults for what is unset: not read-only, destructive,
not idempotent, open world. Used to decide which calls a person approves; bounded where tools
register (`check`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf import struct_pb2

from agentrt.v1 import tool_pb2

MAX_ACTIONS = 32
MAX_ACTION_CHARS = 64
MAX_TITLE_CHARS = 200


@dataclass(frozen=True)
class Effects:
    read_only: bool
    destructive: bool  # never true for a read-only call
    idempotent: bool
    open_world: bool

    @property
    def writes(self) -> bool:
        return not self.read_only

    def describe(self) -> str:
        """In a few words, for people: "read-only", "writes", "destructive"."""
        if self.read_only:
            return "read-only"
        return "destructive" if self.destructive else "writes"


def hints(
    *,
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
    title: str = "",
) -> tool_pb2.ToolAnnotations:
    """A ToolAnnotations with only the hints given set (the rest take MCP's defaults)."""
    out = tool_pb2.ToolAnnotations(title=title)
    for field, value in (
        ("read_only_hint", read_only),
        ("destructive_hint", destructive),
        ("idempotent_hint", idempotent),
        ("open_world_hint", open_world),
    ):
        if value is not None:
            setattr(out, field, value)
    return out


def action_of(arguments: dict[str, Any] | struct_pb2.Struct | None) -> str | None:
    """The call's "action" argument, if it is a string. A Struct is read where it is: the one
    field, not the whole arguments converted."""
    if isinstance(arguments, struct_pb2.Struct):
        value = arguments.fields.get("action")  # get, not [key]: a lookup would add the key
        return value.string_value if value is not None and value.HasField("string_value") else None
    action = (arguments or {}).get("action")
    return action if isinstance(action, str) else None


def effects(tool: tool_pb2.Tool, arguments: dict[str, Any] | struct_pb2.Struct | None = None) -> Effects:
    """What a call of `tool` with `arguments` (plain values, or the call's Struct) declares: the
    action's hints where it has them, else the tool's, else MCP's defaults. `Tool.idempotent`
    counts as the idempotent hint."""
    base = tool.annotations
    action = action_of(arguments)
    specific = tool.action_annotations.get(action) if action is not None else None

    def hint(field: str, default: bool) -> bool:
        for source in (specific, base):
            if source is not None and source.HasField(field):
                return bool(getattr(source, field))
        return default

    read_only = hint("read_only_hint", False)
    return Effects(
        read_only=read_only,
        destructive=hint("destructive_hint", True) and not read_only,
        idempotent=hint("idempotent_hint", tool.idempotent),
        open_world=hint("open_world_hint", True),
    )


def check(given: tool_pb2.ToolAnnotations, actions: Any) -> list[tuple[str, str]]:
    """Violations of a registration's annotations (sizes only: hints are the author's word)."""
    problems = []
    if len(given.title) > MAX_TITLE_CHARS:
        problems.append(("spec.annotations.title", f"at most {MAX_TITLE_CHARS} characters"))
    if len(actions) > MAX_ACTIONS:
        problems.append(("spec.action_annotations", f"at most {MAX_ACTIONS} actions"))
    for name, value in actions.items():
        if not name or len(name) > MAX_ACTION_CHARS or not name.isprintable():
            problems.append(
                ("spec.action_annotations", f"action names: 1 to {MAX_ACTION_CHARS} printable characters")
            )
            break
        if len(value.title) > MAX_TITLE_CHARS:
            problems.append(
                (f"spec.action_annotations.{name}.title", f"at most {MAX_TITLE_CHARS} characters")
            )
    return problems
