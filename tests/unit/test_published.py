"""The published catalog (tools_svc/published.py), which every refresh republishes: renewals
and health are not new versions, health is an UPDATED, and each tool is serialized once per
publish (it was three times: the version's digest and both sides of each comparison)."""

from __future__ import annotations

from typing import Any

import pytest

from agentrt.core.values import dict_to_struct, timestamp_of
from agentrt.v1 import tool_pb2, tool_service_pb2
from tools_svc import published
from tools_svc.published import PublishedCatalog

C = tool_service_pb2


def tool(
    name: str, expires: float = 100.0, health: int = tool_pb2.TOOL_HEALTH_HEALTHY, **kw: Any
) -> tool_pb2.Tool:
    t = tool_pb2.Tool(
        name=name, version="1.0.0", input_schema=dict_to_struct({"type": "object"}), health=health, **kw
    )
    t.lease_expire_time.CopyFrom(timestamp_of(expires))
    return t


def test_what_changes_and_what_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    identities: list[str] = []
    real = published._identity
    monkeypatch.setattr(published, "_identity", lambda t: identities.append(t.name) or real(t))
    catalog = PublishedCatalog()
    watcher, _ = catalog.subscribe()
    catalog.publish({"a": tool("a"), "b": tool("b")})
    version = catalog.version
    assert identities == ["a", "b"]
    catalog.publish({"a": tool("a", expires=200.0), "b": tool("b", expires=300.0)})  # renewals
    assert catalog.version == version and len(identities) == 4
    catalog.publish({"a": tool("a", health=tool_pb2.TOOL_HEALTH_UNREACHABLE), "b": tool("b")})
    assert catalog.version == version  # health is not what calls depend on
    catalog.publish({"a": tool("a", description="new"), "c": tool("c")})
    assert catalog.version != version
    messages = []
    while not watcher.queue.empty():
        messages.append(watcher.queue.get_nowait())
    assert [(C.ToolChangeType.Name(m.change), m.tools[0].name) for m in messages] == [
        ("TOOL_CHANGE_TYPE_ADDED", "a"),
        ("TOOL_CHANGE_TYPE_ADDED", "b"),
        ("TOOL_CHANGE_TYPE_UPDATED", "a"),  # unreachable
        ("TOOL_CHANGE_TYPE_UPDATED", "a"),  # healthy again, and a new description
        ("TOOL_CHANGE_TYPE_ADDED", "c"),
        ("TOOL_CHANGE_TYPE_REMOVED", "b"),
    ]
    assert all(m.catalog_version for m in messages)
