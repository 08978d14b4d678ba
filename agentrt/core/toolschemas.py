"""Tools' input schemas as the planner and the executor check arguments against them: converted
from the catalog's Struct and compiled once per schema, when a tool enters the catalog they
hold, and looked up after that.

The catalog reaches them as Structs. Converting one to a dict, serializing that to JSON and
hashing it to find its compiled validator took longer than validating a plan's arguments, and
the planner did it for every tool and every plan (three times over: the answer's JSON Schema,
the prompt, the check). A SchemaBook does that work once per distinct schema and keeps the
result under the schema's own wire bytes: protobuf's deterministic serialization sorts map keys,
so one schema written in another key order is the same entry (the planner's prompt stays
byte-stable), and a lookup costs one serialization in C, no Python walk.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from agentrt.core.schemas import InvalidSchema, Schema, compile_schema
from agentrt.core.values import struct_to_dict
from agentrt.v1 import tool_pb2

BOOK_SIZE = 1024


def canonical(value: Any) -> Any:
    """`value` with every object's keys sorted: a schema read from a Struct (whose map order is
    not defined) becomes the same bytes every time."""
    if isinstance(value, dict):
        return {k: canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


@dataclass(frozen=True)
class CompiledSchema:
    """One input schema, converted and compiled. `validator` is None for a schema agentrt would
    not accept: tools_svc refuses those at registration, so a call of such a tool is left to it
    to report."""

    source: dict[str, Any]  # keys sorted (canonical)
    validator: Schema | None

    @property
    def shown(self) -> dict[str, Any]:
        """The schema as a model reads it: a tool without one takes any object."""
        return self.source or {"type": "object"}

    @cached_property
    def text(self) -> str:
        """`shown` as JSON, as the planner's prompt quotes it (made once per schema)."""
        return json.dumps(self.shown)

    def fresh(self) -> dict[str, Any]:
        """`shown` as a new dict, for a request that hands it to a library: litellm edits some
        schemas in place (it drops "additionalProperties": false for vLLM and Gemini), which
        must not reach the one this entry keeps."""
        return json.loads(self.text)  # type: ignore[no-any-return]


def compile_tool_schema(tool: tool_pb2.Tool) -> CompiledSchema:
    """`tool`'s input schema converted and compiled, with no cache: SchemaBook.of remembers."""
    source = canonical(struct_to_dict(tool.input_schema))
    try:
        validator: Schema | None = compile_schema(source)
    except InvalidSchema:
        validator = None
    return CompiledSchema(source, validator)


class SchemaBook:
    """Compiled input schemas by content, the `size` most recently used kept."""

    def __init__(self, size: int = BOOK_SIZE) -> None:
        self._size = size
        self._entries: OrderedDict[bytes, CompiledSchema] = OrderedDict()
        self._lock = threading.Lock()  # the planner's servicer may run in several threads

    def of(self, tool: tool_pb2.Tool) -> CompiledSchema:
        key = tool.input_schema.SerializeToString(deterministic=True)
        with self._lock:
            if (hit := self._entries.get(key)) is not None:
                self._entries.move_to_end(key)
                return hit
        compiled = compile_tool_schema(tool)
        with self._lock:
            self._entries[key] = compiled
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return compiled

    def catalog(self, tools: Iterable[tool_pb2.Tool]) -> dict[str, CompiledSchema]:
        """Tool name -> its compiled input schema, for one catalog."""
        return {tool.name: self.of(tool) for tool in tools}


def validators(compiled: dict[str, CompiledSchema]) -> dict[str, Schema | None]:
    """What plans.validate_arguments takes: tool name -> validator."""
    return {name: schema.validator for name, schema in compiled.items()}
