"""MCP tools and results as catalog entries and outputs: names, schemas, hints, results."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from pydantic import ValidationError

from agentrt.config import McpServerConfig
from agentrt.core.errors import InvalidArgument, ToolError
from agentrt.v1 import tool_pb2
from tools_svc.mcp.names import catalog_name, server_of
from tools_svc.mcp.translate import annotations_of, catalog_tool, output_of
from tools_svc.validation import NAME_RE

OBJECT = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def tool(name: str = "search", schema: dict[str, Any] | None = None, **fields: Any) -> types.Tool:
    return types.Tool(name=name, input_schema=schema or OBJECT, **fields)


def test_names_that_fit_are_kept_and_others_are_made_to_fit_without_collisions() -> None:
    assert catalog_name("docs", "search") == "docs__search"
    upper, lower = catalog_name("docs", "Search"), catalog_name("docs", "search")
    assert upper != lower and upper.startswith("docs__search_")
    assert catalog_name("t", "Fail-Loudly").startswith("t__fail_loudly_")
    long = catalog_name("a_server", "x" * 80)
    assert len(long) == 64 and long.startswith("a_server__xxx")
    assert catalog_name("s", "x" * 80) != catalog_name("s", "x" * 81)
    assert catalog_name("s", "!!!").startswith("s__") and len(catalog_name("s", "!!!")) == 9
    for name in (upper, long, catalog_name("s", "!!!"), catalog_name("s", "émoji 🙂 tool")):
        assert NAME_RE.match(name), name
    assert server_of("docs__search") == "docs" and server_of("calculator") is None


def test_a_tool_becomes_a_catalog_entry_with_its_schemas_and_hints() -> None:
    entry = catalog_tool(
        "docs",
        tool(
            description="Search the docs",
            output_schema={"type": "object"},
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
            title="Doc search",
        ),
        "1.2.0",
        None,  # type: ignore[arg-type]
    )
    spec = entry.spec
    assert (spec.name, spec.mcp_server, spec.mcp_tool, spec.version) == (
        "docs__search",
        "docs",
        "search",
        "1.2.0",
    )
    assert spec.source == tool_pb2.TOOL_SOURCE_MCP and spec.HasField("output_schema")
    assert spec.annotations.read_only_hint and not spec.annotations.open_world_hint
    assert not spec.annotations.HasField("destructive_hint")  # unset: MCP's default applies
    assert spec.annotations.title == "Doc search"
    entry.validate({"q": "x"})
    with pytest.raises(InvalidArgument):
        entry.validate({})


def test_hints_the_server_leaves_out_stay_unset() -> None:
    assert annotations_of(tool()) == tool_pb2.ToolAnnotations()
    partial = annotations_of(tool(annotations=types.ToolAnnotations(destructive_hint=False)))
    assert partial.HasField("destructive_hint") and not partial.destructive_hint
    assert not partial.HasField("read_only_hint")


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string"},  # arguments are an object
        {
            "type": "object",
            "properties": {"a": {"$ref": "https://example.com/schema.json"}},
        },  # no remote refs
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "(a+)+\\1"}}},  # backreference
    ],
)
def test_a_hostile_or_unusable_schema_is_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        catalog_tool("s", tool(schema=schema), "", None)  # type: ignore[arg-type]


def test_descriptions_are_bounded() -> None:
    entry = catalog_tool("s", tool(description="x" * 100_000), "", None)  # type: ignore[arg-type]
    assert len(entry.spec.description.encode()) <= 4000


def _entry() -> Any:
    return catalog_tool("s", tool(), "", None)  # type: ignore[arg-type]


def test_structured_content_is_the_output_else_the_text() -> None:
    text = types.TextContent(type="text", text="hello")
    structured = types.CallToolResult(content=[text], structured_content={"n": 1})
    assert output_of(_entry(), structured) == {"n": 1}
    image = types.ImageContent(type="image", data="aGk=", mime_type="image/png")
    mixed = types.CallToolResult(content=[text, image, types.TextContent(type="text", text="world")])
    assert output_of(_entry(), mixed) == "hello\n[image: image/png, not shown]\nworld"


def test_an_is_error_result_is_a_tool_error() -> None:
    failed = types.CallToolResult(
        content=[types.TextContent(type="text", text="no such city")], is_error=True
    )
    with pytest.raises(ToolError) as info:
        output_of(_entry(), failed)
    assert info.value.reason == "TOOL_ERROR" and "no such city" in info.value.message
    assert not info.value.retryable
    with pytest.raises(ToolError, match="without a message"):
        output_of(_entry(), types.CallToolResult(content=[], is_error=True))


def test_a_server_is_a_command_or_a_url() -> None:
    assert McpServerConfig(name="time", command="mcp-server-time").command == "mcp-server-time"
    assert McpServerConfig(name="docs", url="http://127.0.0.1:8000/mcp", headers={"a": "b"}).url
    for bad in (
        {"name": "x"},
        {"name": "x", "command": "c", "url": "http://h/mcp"},
        {"name": "x", "command": "c", "headers": {"a": "b"}},
        {"name": "x", "url": "http://h/mcp", "args": ["-v"]},
        {"name": "x", "url": "ftp://h/mcp"},
        {"name": "a__b", "command": "c"},
        {"name": "Upper", "command": "c"},
        {"name": "x" * 25, "command": "c"},
    ):
        with pytest.raises(ValidationError):
            McpServerConfig(**bad)
