"""JSON Schemas that come from outside (tool providers, and through the catalog the planner):
compiled once, with bounded cost, and never allowed to reach outside their own document.

A schema is data. jsonschema's reference resolution would otherwise fetch any `$ref` URL
(http://, file://, with no timeout, on the event loop), and a `pattern` runs in a backtracking
regex engine where `^(a+)+$` takes seconds. So every schema goes through `compile_schema`:

- size: at most MAX_SCHEMA_BYTES of JSON and MAX_SCHEMA_DEPTH levels of nesting;
- reach: `$ref` only as "#" or a JSON pointer into the same document ("#/$defs/Item"), which
  must exist; no `$dynamicRef`/`$recursiveRef`, no `$id` below the root (it would rebase "#"),
  and the validator runs with retrieval switched off, so nothing is ever fetched;
- work: references expanded must stay under MAX_EXPANDED_NODES subschemas (twenty `$defs` that
  each reference the next twice are a million checks per value), and `pattern` /
  `patternProperties` run in a linear-time regex engine (jsonschema-rs's RegexOptions: no
  backtracking, no lookaround or backreferences; a pattern it cannot run is refused).

Validation uses jsonschema-rs (compiled Rust, all errors with their paths). Violations are
reported as at most MAX_VIOLATIONS (path, message) pairs with messages cut to a bounded length.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from agentrt.core.text import clip

MAX_SCHEMA_BYTES = 64 * 1024
MAX_SCHEMA_DEPTH = 32
MAX_EXPANDED_NODES = 20_000
MAX_VIOLATIONS = 8
MAX_VIOLATION_CHARS = 160
_ECHO_CHARS = 60  # of an offending value quoted in a violation
_CLOSERS = ('"', "]", "}")
_CACHE_SIZE = 256

# A pattern may compile to at most this much; the default (10 MB) lets one schema use a lot.
_REGEX = jsonschema_rs.RegexOptions(size_limit=1 << 20, dfa_size_limit=1 << 20)
# Keywords whose values are data, not schemas; keywords whose values map names to schemas.
_DATA_KEYS = frozenset({"const", "enum", "default", "examples"})
_DEFINITIONS = frozenset({"$defs", "definitions"})
_NAME_MAPS = _DEFINITIONS | {"properties", "patternProperties", "dependentSchemas", "dependencies"}
_FORBIDDEN_KEYS = {
    "$dynamicRef": "dynamic references are not supported",
    "$recursiveRef": "recursive references are not supported",
}


class InvalidSchema(ValueError):
    """The schema breaks a rule above; `path` says where, as a JSON pointer."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path or "(root)"


@dataclass(frozen=True)
class Schema:
    """A compiled schema: validate values against it, cheaply and with bounded output."""

    source: dict[str, Any]
    _validator: Any

    def is_valid(self, value: Any) -> bool:
        return bool(self._validator.is_valid(value))

    def violations(self, value: Any, root: str) -> list[tuple[str, str]]:
        """Every violation of `value` as (dotted path from `root`, message), in path order, at
        most MAX_VIOLATIONS of them. Valid values (the common case) cost one quick check."""
        if self._validator.is_valid(value):
            return []
        found = []
        for error in self._validator.iter_errors(value):
            path = ".".join([root, *(str(p) for p in error.instance_path)])
            message = clip(_shorten_echo(error.message, error.instance), MAX_VIOLATION_CHARS)
            found.append((list(error.instance_path), path, message))
        found.sort(key=lambda e: [str(p) for p in e[0]])
        return [(path, message) for _, path, message in found[:MAX_VIOLATIONS]]


def _shorten_echo(message: str, instance: Any) -> str:
    """Messages start with the offending value ('"xxxx…" is longer than 1000 characters'): cut
    the value, not the words after it that say what is wrong."""
    try:
        echo = json.dumps(instance, ensure_ascii=False)
    except (TypeError, ValueError):
        return message
    if len(echo) <= _ECHO_CHARS or not message.startswith(echo):
        return message
    closing = echo[-1] if echo[-1] in _CLOSERS else ""
    return f"{echo[:_ECHO_CHARS]}…{closing}{message[len(echo) :]}"


def compile_schema(schema: Any) -> Schema:
    """Check `schema` against the rules above and compile it; InvalidSchema says what is wrong."""
    if not isinstance(schema, dict):
        raise InvalidSchema(f"a schema must be a JSON object, got {type(schema).__name__}")
    size = len(json.dumps(schema, separators=(",", ":")))
    if size > MAX_SCHEMA_BYTES:
        raise InvalidSchema(f"the schema is {size} bytes of JSON, more than the limit of {MAX_SCHEMA_BYTES}")
    _check_structure(schema)
    _check_expansion(schema)
    try:
        validator = jsonschema_rs.validator_for(
            schema, offline=True, pattern_options=_REGEX, validate_formats=False
        )
    except jsonschema_rs.ValidationError as exc:
        # The schema itself failed its meta-schema (or a pattern the linear engine cannot run).
        path = "/" + "/".join(str(p) for p in exc.instance_path) if exc.instance_path else ""
        message = exc.message
        suffix = ' is not a "regex"'
        if message.endswith(suffix):
            message = (
                f"{message.removesuffix(suffix)} is not a pattern the linear-time regex engine can run "
                "(lookaround, backreferences and huge repetitions are not supported)"
            )
        raise InvalidSchema(clip(message, MAX_VIOLATION_CHARS), clip(path, 200)) from None
    except (jsonschema_rs.ReferencingError, ValueError) as exc:
        raise InvalidSchema(clip(str(exc).splitlines()[0], MAX_VIOLATION_CHARS)) from None
    return Schema(schema, validator)


_cache: OrderedDict[str, Schema] = OrderedDict()
_cache_lock = threading.Lock()


def cached_schema(schema: dict[str, Any]) -> Schema:
    """compile_schema, remembering the most recent schemas by content (the planner checks every
    plan against the same few catalog schemas)."""
    key = hashlib.sha256(json.dumps(schema, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    with _cache_lock:
        if (hit := _cache.get(key)) is not None:
            _cache.move_to_end(key)
            return hit
    compiled = compile_schema(schema)
    with _cache_lock:
        _cache[key] = compiled
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return compiled


def _children(node: Any, names: bool) -> list[tuple[str, Any, bool]]:
    """(key, value, value_is_a_name_map) for the parts of `node` that are schemas. In a name map
    (the value of "properties", "$defs", ...) every key is a name and every value a schema; in a
    schema, the values of data keywords ("const", "enum", ...) are data, not schemas."""
    if isinstance(node, list):
        return [(str(i), item, False) for i, item in enumerate(node)]
    if not isinstance(node, dict):
        return []
    if names:
        return [(key, value, False) for key, value in node.items()]
    return [(k, v, k in _NAME_MAPS) for k, v in node.items() if k not in _DATA_KEYS]


def _check_structure(schema: dict[str, Any]) -> None:
    """Depth, and the keywords that would reach outside the document."""
    stack: list[tuple[Any, str, int, bool]] = [(schema, "", 0, False)]
    while stack:
        node, path, depth, names = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            raise InvalidSchema(
                f"the schema is nested more than {MAX_SCHEMA_DEPTH} levels deep", clip(path, 200)
            )
        if isinstance(node, dict) and not names:
            for key, reason in _FORBIDDEN_KEYS.items():
                if isinstance(node.get(key), str):
                    raise InvalidSchema(f"{key}: {reason}", f"{path}/{_escape(key)}")
            if path and isinstance(node.get("$id"), str):
                raise InvalidSchema("$id is allowed only at the root of the schema", f"{path}/$id")
            if isinstance(ref := node.get("$ref"), str):
                _pointer_target(schema, ref, f"{path}/$ref")
        for key, value, child_names in _children(node, names):
            stack.append((value, f"{path}/{_escape(key)}", depth + 1, child_names))


def _pointer_target(schema: dict[str, Any], ref: str, where: str) -> Any:
    """What a local `$ref` points at; InvalidSchema if it leaves the document or points nowhere."""
    if ref != "#" and not ref.startswith("#/"):
        raise InvalidSchema(
            f"$ref {clip(ref, 80)!r} leaves the schema: only references into the same document "
            '("#" or "#/$defs/Name") are allowed, nothing is fetched',
            where,
        )
    node: Any = schema
    for raw in ref[2:].split("/") if ref != "#" else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise InvalidSchema(f"$ref {clip(ref, 80)!r} points to nothing in the schema", where)
    return node


def _check_expansion(schema: dict[str, Any]) -> None:
    """Count the subschemas validation may visit for one value, following references. A
    reference already being expanded on the current path is recursion, which only goes deeper
    into the value (bounded by the value's own size), so it counts once."""
    budget = MAX_EXPANDED_NODES
    stack: list[tuple[Any, bool, frozenset[str]]] = [(schema, False, frozenset())]
    while stack:
        node, names, active = stack.pop()
        budget -= 1
        if budget < 0:
            raise InvalidSchema(
                f"the schema expands to more than {MAX_EXPANDED_NODES} subschemas once its $refs are "
                "followed; simplify it or share fewer references"
            )
        if isinstance(node, dict) and not names:
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in active:
                stack.append((_pointer_target(schema, ref, ""), False, active | {ref}))
        for key, value, child_names in _children(node, names):
            if not names and key in _DEFINITIONS:
                continue  # reached through $ref, counted there
            stack.append((value, child_names, active))


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
