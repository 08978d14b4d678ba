"""Step references: arguments that use an earlier step's output, resolved just before a step runs.

Two forms, both naming a path that starts at `steps.<step_id>.output`:

- `{"$ref": "steps.s1.output.value"}` is replaced by the value at that path, whatever its type.
- `"{{steps.s1.output.value}}"` inside a string is replaced by the value's text (numbers
  without a trailing .0, objects and lists as JSON), e.g. `"remember {{steps.s1.output.value}}"`.

Path segments after `output` are object keys, or list indexes for lists: `steps.s2.output.todos.0.text`.
A referenced step must be one the referencing step depends on, directly or transitively; this
is checked when the plan is validated, so a reference can never race its producer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from google.protobuf import struct_pb2

from agentrt.core.values import value_to_py

REF_KEY = "$ref"
_PATH_RE = re.compile(r"^steps\.([A-Za-z0-9_\-]+)\.output((?:\.[^.{}\s]+)*)$")
_TEMPLATE_RE = re.compile(r"\{\{\s*(steps\.[A-Za-z0-9_\-]+\.output(?:\.[^.{}\s]+)*)\s*\}\}")


class InvalidReference(Exception):
    """A reference that is malformed or cannot be resolved."""


def may_reference(arguments: struct_pb2.Struct) -> bool:
    """Whether `arguments` may hold a reference, without converting them. A reference is a
    "$ref" key or "{{" in a string, and the wire form carries both as their UTF-8 bytes: arguments
    whose bytes have neither hold none, which is most of them. (Both bytes by chance elsewhere
    only mean a full look: referenced_steps on the converted arguments.)"""
    data = arguments.SerializeToString()
    return b"$ref" in data or b"{{" in data


def referenced_steps(value: Any) -> set[str]:
    """Step ids that `value` (plan step arguments) refers to; raises on malformed references."""
    found: set[str] = set()
    _walk(value, lambda path: found.add(_parse(path)[0]))
    return found


def resolve(value: Any, outputs: dict[str, Any]) -> Any:
    """Return `value` with every reference replaced by the referenced output."""
    if isinstance(value, dict):
        if REF_KEY in value:
            _check_ref_object(value)
            return _lookup(value[REF_KEY], outputs)
        return {k: resolve(v, outputs) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, outputs) for v in value]
    if isinstance(value, str) and "{{" in value:
        return _TEMPLATE_RE.sub(lambda m: as_text(_lookup(m.group(1), outputs)), value)
    return value


def _walk(value: Any, visit: Any) -> None:
    if isinstance(value, dict):
        if REF_KEY in value:
            _check_ref_object(value)
            visit(value[REF_KEY])
            return
        for v in value.values():
            _walk(v, visit)
    elif isinstance(value, list):
        for v in value:
            _walk(v, visit)
    elif isinstance(value, str) and "{{" in value:
        for match in _TEMPLATE_RE.finditer(value):
            visit(match.group(1))


def _check_ref_object(value: dict[str, Any]) -> None:
    if len(value) != 1 or not isinstance(value[REF_KEY], str):
        raise InvalidReference(
            f'a reference must be exactly {{"$ref": "steps.<id>.output..."}}, got {value!r}'
        )


def _parse(path: str) -> tuple[str, list[str]]:
    match = _PATH_RE.match(path)
    if not match:
        raise InvalidReference(f"malformed reference '{path}': expected steps.<step_id>.output[.key...]")
    return match.group(1), [p for p in match.group(2).split(".") if p]


def _lookup(path: str, outputs: dict[str, Any]) -> Any:
    """The value at `path`. An output may be plain Python or the stored protobuf Value: then the
    path is walked on the message and only what it names is converted (a step referencing one
    field of a long listing does not convert the listing)."""
    step_id, keys = _parse(path)
    if step_id not in outputs:
        raise InvalidReference(f"reference '{path}': step {step_id} has no output (it has not succeeded)")
    current = outputs[step_id]
    walked = f"steps.{step_id}.output"
    for key in keys:
        current = _child(current, key)
        if current is _MISSING:
            raise InvalidReference(f"reference '{path}': {walked} has no '{key}'")
        walked += f".{key}"
    return value_to_py(current) if isinstance(current, struct_pb2.Value) else current


_MISSING = object()


def _child(current: Any, key: str) -> Any:
    if isinstance(current, struct_pb2.Value):
        kind = current.WhichOneof("kind")
        if kind == "struct_value":
            fields = current.struct_value.fields
            return fields.get(key, _MISSING)  # get, not [key]: a lookup would add the key
        if kind == "list_value":
            current = current.list_value.values
        else:
            return _MISSING
    elif isinstance(current, dict):
        return current.get(key, _MISSING)
    elif not isinstance(current, list):
        return _MISSING
    if key.lstrip("-").isdigit() and -len(current) <= int(key) < len(current):
        return current[int(key)]
    return _MISSING


def as_text(value: Any) -> str:
    """A value as a template writes it: numbers without a trailing .0, objects and lists as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
