"""What the catalog holds: one entry per tool, its published spec and its input and output
schemas, compiled when the tool entered the catalog (a built-in at start, a provider's
registration, an MCP server's listing). Every call validates against those compiled schemas:
no call converts, hashes or compiles a schema again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agentrt.core.errors import AgentrtError, InvalidArgument
from agentrt.core.schemas import Schema
from agentrt.v1 import tool_pb2

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class ToolEntry:
    """A catalog entry: the published spec and validators for its input and output."""

    spec: tool_pb2.Tool
    validator: Schema
    output_validator: Schema | None

    @property
    def name(self) -> str:
        return self.spec.name

    def validate(self, arguments: dict[str, Any]) -> None:
        """Raise INVALID_ARGUMENT listing every schema violation, before the tool runs."""
        violations = self.validator.violations(arguments, "arguments")
        if violations:
            summary = "; ".join(f"{f}: {m}" for f, m in violations)
            raise InvalidArgument(
                f"invalid arguments for tool '{self.name}': {summary}",
                reason="INVALID_TOOL_ARGUMENTS",
                violations=violations,
                metadata={"tool": self.name},
            )

    def validate_output(self, output: Any) -> None:
        if self.output_validator is None:
            return
        violations = self.output_validator.violations(output, "output")
        if violations:
            summary = "; ".join(f"{f}: {m}" for f, m in violations)
            raise AgentrtError(
                f"tool '{self.name}' returned output that violates its output schema: {summary}",
                reason="INVALID_TOOL_OUTPUT",
                metadata={"tool": self.name},
            )


@dataclass(frozen=True)
class BuiltinTool(ToolEntry):
    """A tool built into tools_svc (registry.py): called in-process."""

    handler: Handler
    # Its calls read their idempotency record in the transaction of their change (todo_store):
    # tools_svc then does not read it first (InvocationLog.run_once's looks_up_itself).
    looks_up_itself: bool = False


@dataclass(frozen=True)
class ProviderTool(ToolEntry):
    """A tool a provider registered under a lease (registrations.py), called at `endpoint`.
    `blob` is the spec as stored: a refresh compares it with the row it reads to know the entry
    is unchanged, without serializing the spec again."""

    lease_id: str
    endpoint: str
    expires_at: float
    tool_spec: tool_pb2.ToolSpec
    blob: bytes

    @property
    def version(self) -> str:
        return self.spec.version

    @property
    def timeout_s(self) -> float | None:
        if not self.tool_spec.HasField("default_timeout"):
            return None
        return self.tool_spec.default_timeout.ToNanoseconds() / 1e9 or None
