"""A provider's ToolSpec, from registration to catalog entry: the checks a spec must pass to be
registered, and the entry the catalog serves it as.

The schemas are compiled once: at the check, and the entry for the registration is built from
those same compiled schemas (`entry`), so the refresh that follows a registration compiles
nothing. A registration this replica did not see being made (another replica's, or one stored
before a restart) gets its entry from the stored spec (`stored_entry`), once per lease: the
provider view (providers.py) keeps it while the lease's row is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agentrt.core import toolrefs
from agentrt.core.annotations import check as check_annotations
from agentrt.core.errors import AlreadyExists, InvalidArgument
from agentrt.core.schemas import MAX_SCHEMA_BYTES, Schema
from agentrt.core.values import struct_to_dict
from agentrt.v1 import tool_pb2
from tools_svc.entries import ProviderTool
from tools_svc.validation import MAX_DESCRIPTION_CHARS, check_name, check_schema, version_key

# Two schemas at their limit, a description, and room for the rest.
MAX_SPEC_BYTES = 2 * MAX_SCHEMA_BYTES + 16 * 1024


@dataclass(frozen=True)
class CheckedSpec:
    """A spec that passed `check_spec`, with its schemas compiled and its stored form."""

    spec: tool_pb2.ToolSpec
    blob: bytes  # what tool_leases stores; deterministic, so one spec is always the same bytes
    validator: Schema
    output_validator: Schema | None


def spec_bytes(spec: tool_pb2.ToolSpec) -> bytes:
    return spec.SerializeToString(deterministic=True)


def check_spec(spec: tool_pb2.ToolSpec, name_taken: Callable[[str], str | None]) -> CheckedSpec:
    """The spec checked, or INVALID_ARGUMENT / ALREADY_EXISTS saying what is wrong with it.
    `name_taken(name)` says why a name is not a provider's to take (a built-in's, an MCP
    server's namespace), or None."""
    # Before any conversion: a spec of megabytes is refused in time proportional to nothing.
    if spec.ByteSize() > MAX_SPEC_BYTES:
        raise InvalidArgument(
            f"the tool spec is {spec.ByteSize()} bytes, more than the limit of {MAX_SPEC_BYTES} "
            f"(each schema may be at most {MAX_SCHEMA_BYTES} bytes of JSON)",
            reason="SPEC_TOO_LARGE",
            violations=[("spec", f"at most {MAX_SPEC_BYTES} bytes")],
        )
    check_name(spec.name)
    if (taken := name_taken(spec.name)) is not None:
        raise AlreadyExists(taken, reason="TOOL_NAME_TAKEN")
    version_key(spec.version)
    if len(spec.description) > MAX_DESCRIPTION_CHARS:
        raise InvalidArgument(
            f"description is longer than {MAX_DESCRIPTION_CHARS} characters",
            violations=[("spec.description", "too long")],
        )
    if not spec.HasField("input_schema"):
        raise InvalidArgument("spec.input_schema is required", violations=[("spec.input_schema", "missing")])
    validator = check_schema(struct_to_dict(spec.input_schema), "spec.input_schema", require_object=True)
    output_validator = None
    if spec.HasField("output_schema"):
        output_validator = check_schema(
            struct_to_dict(spec.output_schema), "spec.output_schema", require_object=False
        )
    if spec.HasField("default_timeout") and spec.default_timeout.ToNanoseconds() < 0:
        raise InvalidArgument("spec.default_timeout must not be negative")
    if problems := check_annotations(spec.annotations, spec.action_annotations):
        raise InvalidArgument(
            "invalid annotations: " + "; ".join(f"{f} {d}" for f, d in problems), violations=problems
        )
    if problems := toolrefs.check(spec.references):
        raise InvalidArgument(
            "invalid references: " + "; ".join(f"{f} {d}" for f, d in problems), violations=problems
        )
    return CheckedSpec(spec, spec_bytes(spec), validator, output_validator)


def entry(checked: CheckedSpec, lease_id: str, endpoint: str, expires_at: float) -> ProviderTool:
    """The catalog entry of a registration, from its checked spec (nothing compiled again)."""
    spec = checked.spec
    tool = tool_pb2.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        version=spec.version,
        source=tool_pb2.TOOL_SOURCE_PROVIDER,
        idempotent=spec.idempotent,
        endpoint=endpoint,
        annotations=spec.annotations,
        action_annotations=spec.action_annotations,
    )
    if spec.HasField("output_schema"):
        tool.output_schema.CopyFrom(spec.output_schema)
    if spec.HasField("references"):
        tool.references.CopyFrom(spec.references)
    if spec.HasField("default_timeout"):
        tool.default_timeout.CopyFrom(spec.default_timeout)
    return ProviderTool(
        tool, checked.validator, checked.output_validator, lease_id, endpoint, expires_at, spec, checked.blob
    )


def stored_entry(lease_id: str, endpoint: str, blob: bytes, expires_at: float) -> ProviderTool:
    """The catalog entry of a stored registration; INVALID_ARGUMENT when its schemas break
    today's rules (it was registered under older, looser ones: the caller leaves it out)."""
    spec = tool_pb2.ToolSpec.FromString(blob)
    validator = check_schema(struct_to_dict(spec.input_schema), "input_schema", require_object=True)
    output_validator = (
        check_schema(struct_to_dict(spec.output_schema), "output_schema", require_object=False)
        if spec.HasField("output_schema")
        else None
    )
    return entry(CheckedSpec(spec, blob, validator, output_validator), lease_id, endpoint, expires_at)
