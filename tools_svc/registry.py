"""The tool catalog: each tool's published spec, its argument validator and its handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import jsonschema

from agentrt.errors import InvalidArgument, NotFound
from agentrt.v1 import tool_pb2
from agentrt.values import dict_to_struct

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class RegisteredTool:
    spec: tool_pb2.Tool
    handler: Handler
    validator: jsonschema.protocols.Validator

    def validate(self, arguments: dict[str, Any]) -> None:
        """Raise INVALID_ARGUMENT listing every schema violation, before the tool runs."""
        errors = sorted(self.validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
        if not errors:
            return
        violations = [(_field(e), e.message) for e in errors]
        summary = "; ".join(f"{f}: {m}" for f, m in violations)
        raise InvalidArgument(
            f"invalid arguments for tool '{self.spec.name}': {summary}",
            reason="INVALID_TOOL_ARGUMENTS",
            violations=violations,
            metadata={"tool": self.spec.name},
        )


def _field(error: jsonschema.ValidationError) -> str:
    return ".".join(["arguments", *(str(p) for p in error.absolute_path)])


class ToolRegistry:
    def __init__(self) -> None:
        self._tools: dict[str, RegisteredTool] = {}

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
    ) -> None:
        validator_cls = jsonschema.validators.validator_for(
            input_schema, default=jsonschema.Draft202012Validator
        )
        validator_cls.check_schema(input_schema)
        spec = tool_pb2.Tool(
            name=name,
            description=description,
            input_schema=dict_to_struct(input_schema),
            version=version,
            source=tool_pb2.TOOL_SOURCE_BUILTIN,
            idempotent=idempotent,
        )
        if output_schema is not None:
            spec.output_schema.CopyFrom(dict_to_struct(output_schema))
        self._tools[name] = RegisteredTool(spec=spec, handler=handler, validator=validator_cls(input_schema))

    def get(self, name: str) -> RegisteredTool:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(sorted(self._tools)) or "none"
            raise NotFound(f"unknown tool '{name}' (available: {known})", reason="TOOL_NOT_FOUND")
        return tool

    def specs(self) -> list[tool_pb2.Tool]:
        return [self._tools[name].spec for name in sorted(self._tools)]
