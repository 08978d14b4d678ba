"""MCP tools and call results, as agentrt's catalog entries and tool outputs.

Everything here comes from an MCP server, which is hostile until bounded: descriptions are
clipped, schemas go through the same checks as a provider's (size, depth, local `$ref` only,
linear-time patterns), and a result is reduced to one JSON value whose size tools_svc checks
before anyone stores it.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from agentrt.core.errors import ToolError
from agentrt.core.text import clip
from agentrt.core.values import dict_to_struct
from agentrt.v1 import tool_pb2
from tools_svc.mcp.model import McpTool, ToolCaller
from tools_svc.mcp.names import catalog_name
from tools_svc.validation import MAX_DESCRIPTION_CHARS, check_schema

MAX_TITLE_CHARS = 200
MAX_VERSION_CHARS = 64
MAX_ERROR_CHARS = 4000


def catalog_tool(server: str, tool: types.Tool, version: str, connection: ToolCaller) -> McpTool:
    """The catalog entry for one of a server's tools; INVALID_ARGUMENT when its schemas are not
    acceptable (the caller leaves the tool out and says why)."""
    input_schema = dict(tool.input_schema)
    validator = check_schema(input_schema, "inputSchema", require_object=True)
    output_validator = None
    spec = tool_pb2.Tool(
        name=catalog_name(server, tool.name),
        description=clip(tool.description or tool.title or tool.name, MAX_DESCRIPTION_CHARS),
        input_schema=dict_to_struct(input_schema),
        version=clip(version, MAX_VERSION_CHARS),
        source=tool_pb2.TOOL_SOURCE_MCP,
        mcp_server=server,
        mcp_tool=clip(tool.name, 256),
        health=tool_pb2.TOOL_HEALTH_HEALTHY,
        annotations=annotations_of(tool),
    )
    if tool.output_schema is not None:
        output_schema = dict(tool.output_schema)
        output_validator = check_schema(output_schema, "outputSchema", require_object=False)
        spec.output_schema.CopyFrom(dict_to_struct(output_schema))
    return McpTool(spec, validator, output_validator, connection, tool.name)


def annotations_of(tool: types.Tool) -> tool_pb2.ToolAnnotations:
    """MCP's hints map one to one onto ours; a hint the server leaves out stays unset, so it
    takes MCP's default (not read-only, destructive, not idempotent, open world)."""
    out = tool_pb2.ToolAnnotations()
    hints = tool.annotations
    title = tool.title or (hints.title if hints else None)
    if title:
        out.title = clip(title, MAX_TITLE_CHARS)
    if hints is None:
        return out
    for ours, theirs in (
        ("read_only_hint", hints.read_only_hint),
        ("destructive_hint", hints.destructive_hint),
        ("idempotent_hint", hints.idempotent_hint),
        ("open_world_hint", hints.open_world_hint),
    ):
        if theirs is not None:
            setattr(out, ours, bool(theirs))
    return out


def output_of(tool: McpTool, result: types.CallToolResult) -> Any:
    """The step's output: `structuredContent` when the server sent it, else the text content
    (one string; other content named, not inlined). An `isError` result is the tool's own
    failure: a TOOL_ERROR the agent loop shows the model, not something to retry."""
    if result.is_error:
        message = _text(result.content) or "the tool reported an error without a message"
        raise ToolError(
            f"tool '{tool.name}' failed: {clip(message, MAX_ERROR_CHARS)}",
            metadata={"tool": tool.name, "mcp_server": tool.spec.mcp_server},
        )
    if result.structured_content is not None:
        return result.structured_content
    return _text(result.content)


def _text(content: list[types.ContentBlock]) -> str:
    parts: list[str] = []
    for block in content:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
        elif isinstance(block, types.ImageContent | types.AudioContent):
            parts.append(f"[{block.type}: {block.mime_type}, not shown]")
        elif isinstance(block, types.ResourceLink):
            parts.append(f"[resource: {block.uri}]")
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            text = getattr(resource, "text", None)
            parts.append(text if isinstance(text, str) else f"[resource: {resource.uri}, not shown]")
        else:
            parts.append(f"[{getattr(block, 'type', 'content')}, not shown]")
    return "\n".join(parts)
