"""The tools built into tools_svc (the calculator, the todo list, and those tests add): each
described once at start, its schemas compiled then."""

from __future__ import annotations

from typing import Any

from agentrt.core.values import dict_to_struct
from agentrt.v1 import tool_pb2
from tools_svc.entries import BuiltinTool, Handler
from tools_svc.validation import check_schema


class ToolRegistry:
    """The tools built into tools_svc."""

    def __init__(self) -> None:
        self._tools: dict[str, BuiltinTool] = {}

    def add_builtin(
        self,
        name: str,
        description: str,
        input_schema: dict[str, Any],
        handler: Handler,
        *,
        output_schema: dict[str, Any] | None = None,
        idempotent: bool = False,
        version: str = "1",
        annotations: tool_pb2.ToolAnnotations | None = None,
        action_annotations: dict[str, tool_pb2.ToolAnnotations] | None = None,
        references: tool_pb2.ToolReferences | None = None,
        looks_up_itself: bool = False,
    ) -> None:
        spec = tool_pb2.Tool(
            name=name,
            description=description,
            input_schema=dict_to_struct(input_schema),
            version=version,
            source=tool_pb2.TOOL_SOURCE_BUILTIN,
            idempotent=idempotent,
            health=tool_pb2.TOOL_HEALTH_HEALTHY,
            annotations=annotations,
            action_annotations=action_annotations,
            references=references,
        )
        output_validator = None
        if output_schema is not None:
            spec.output_schema.CopyFrom(dict_to_struct(output_schema))
            output_validator = check_schema(output_schema, "output_schema", require_object=False)
        validator = check_schema(input_schema, "input_schema", require_object=True)
        self._tools[name] = BuiltinTool(spec, validator, output_validator, handler, looks_up_itself)

    def get(self, name: str) -> BuiltinTool | None:
        return self._tools.get(name)

    def names(self) -> set[str]:
        return set(self._tools)

    def specs(self) -> list[tool_pb2.Tool]:
        return [self._tools[name].spec for name in sorted(self._tools)]
