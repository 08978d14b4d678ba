"""agentrt.core.schemas: schemas from outside are bounded in size, reach and work."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from agentrt.core.schemas import (
    MAX_EXPANDED_NODES,
    MAX_SCHEMA_BYTES,
    MAX_VIOLATION_CHARS,
    MAX_VIOLATIONS,
    InvalidSchema,
    cached_schema,
    compile_schema,
)


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


@pytest.mark.parametrize(
    "ref",
    [
        "file:///etc/passwd",
        "http://127.0.0.1:9/schema.json",
        "https://example.com/s.json#/defs/a",
        "other.json",
        "//host/x",
        "#anchor-name",
    ],
)
def test_references_outside_the_document_are_refused(ref: str) -> None:
    with pytest.raises(InvalidSchema, match="leaves the schema") as info:
        compile_schema(obj(x={"$ref": ref}))
    assert info.value.path == "/properties/x/$ref"


def test_a_nested_id_cannot_rebase_references() -> None:
    with pytest.raises(InvalidSchema, match=r"\$id is allowed only at the root"):
        compile_schema(obj(x={"$id": "http://evil.example/", "$ref": "#"}))
    # At the root an $id is just a name: "#/..." still points into this document.
    root = compile_schema(
        {**obj(x={"$ref": "#/$defs/n"}), "$id": "https://x.example/s", "$defs": {"n": {"type": "integer"}}}
    )
    assert root.violations({"x": "a"}, "arguments") == [("arguments.x", '"a" is not of type "integer"')]


@pytest.mark.parametrize("keyword", ["$dynamicRef", "$recursiveRef"])
def test_dynamic_references_are_refused(keyword: str) -> None:
    with pytest.raises(InvalidSchema, match="not supported"):
        compile_schema(obj(x={keyword: "#"}))


def test_a_missing_local_pointer_is_refused_when_compiled() -> None:
    with pytest.raises(InvalidSchema, match="points to nothing"):
        compile_schema(obj(x={"$ref": "#/$defs/missing"}))


def test_local_references_and_recursion_work() -> None:
    tree = {
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"child": {"$ref": "#/$defs/node"}, "v": {"type": "integer"}},
            }
        },
        "properties": {"root": {"$ref": "#/$defs/node"}},
    }
    schema = compile_schema(tree)
    assert schema.violations({"root": {"child": {"child": {"v": 1}}}}, "a") == []
    assert schema.violations({"root": {"child": {"v": "x"}}}, "a") == [
        ("a.root.child.v", '"x" is not of type "integer"')
    ]


def test_data_keywords_and_property_names_are_not_mistaken_for_schema_keywords() -> None:
    schema = compile_schema(
        {
            "type": "object",
            "properties": {"$ref": {"type": "string"}, "default": {"$ref": "#/$defs/n"}},
            "default": {"$ref": "http://not-a-reference.example/"},
            "$defs": {"n": {"type": "integer"}},
        }
    )
    assert schema.violations({"$ref": "x", "default": "y"}, "a") == [
        ("a.default", '"y" is not of type "integer"')
    ]


def test_reference_bombs_are_refused() -> None:
    # Each definition references the next twice: 2**30 checks per value if it were accepted.
    defs = {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(30)}
    defs["d30"] = {"type": "string"}
    bomb = {**obj(x={"$ref": "#/$defs/d0"}), "$defs": defs}
    with pytest.raises(InvalidSchema, match=f"more than {MAX_EXPANDED_NODES} subschemas"):
        compile_schema(bomb)


def test_size_and_depth_are_bounded() -> None:
    big = obj(**{f"p{i}": {"type": "string", "description": "x" * 100} for i in range(1000)})
    assert len(json.dumps(big)) > MAX_SCHEMA_BYTES
    with pytest.raises(InvalidSchema, match="bytes of JSON"):
        compile_schema(big)
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(40):
        deep = obj(a=deep)
    with pytest.raises(InvalidSchema, match="nested more than"):
        compile_schema(deep)


def test_patterns_run_in_linear_time_and_backtracking_features_are_refused() -> None:
    schema = compile_schema(obj(x={"type": "string", "pattern": "^(a+)+$"}))
    # Seconds in a backtracking engine; the linear engine answers at once. Compared with a
    # trivially failing value rather than timed in absolute terms.
    hostile, plain = {"x": "a" * 5000 + "!"}, {"x": "!"}
    started = time.perf_counter()
    for _ in range(20):
        assert not schema.is_valid(plain)
    baseline = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(20):
        assert not schema.is_valid(hostile)
    assert time.perf_counter() - started < max(baseline * 2000, 0.5)
    for pattern in ("(?=a)b", "(a)\\1", "a{1000}{1000}"):
        with pytest.raises(InvalidSchema, match="linear-time regex engine"):
            compile_schema(obj(x={"type": "string", "pattern": pattern}))
    with pytest.raises(InvalidSchema, match="linear-time regex engine"):
        compile_schema({"type": "object", "patternProperties": {"(?<=a)b": {}}})


def test_invalid_schemas_say_where() -> None:
    with pytest.raises(InvalidSchema) as info:
        compile_schema(obj(a={"type": "strin"}))
    assert info.value.path == "/properties/a/type"


def test_violations_are_bounded_in_number_and_length() -> None:
    schema = compile_schema(obj(**{f"p{i}": {"type": "integer"} for i in range(50)}))
    found = schema.violations({f"p{i}": "x" * 10_000 for i in range(50)}, "arguments")
    assert len(found) == MAX_VIOLATIONS
    assert all(len(message) <= MAX_VIOLATION_CHARS for _, message in found)
    assert found[0][1].endswith('…" is not of type "integer"')  # the value cut, not the verdict


def test_cached_schema_compiles_once_per_content() -> None:
    a = cached_schema(obj(x={"type": "integer"}))
    assert cached_schema(obj(x={"type": "integer"})) is a
    assert cached_schema(obj(x={"type": "string"})) is not a
