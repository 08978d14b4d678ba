"""Step references resolve the same on plain Python outputs and on the stored protobuf Values."""

from __future__ import annotations

from typing import Any

import pytest

from agentrt.core import refs
from agentrt.core.values import py_to_value

LISTING = {
    "todos": [{"id": 1, "text": "buy milk", "done": False}, {"id": 2, "text": "call mum", "done": True}],
    "count": 2,
    "summary": "2 todos: buy milk, call mum.",
}


@pytest.fixture(params=["python", "protobuf"])
def outputs(request: pytest.FixtureRequest) -> dict[str, Any]:
    value = LISTING if request.param == "python" else py_to_value(LISTING)
    return {"s1": value, "s0": {"value": 2.0} if request.param == "python" else py_to_value({"value": 2})}


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ({"$ref": "steps.s1.output.count"}, 2),
        ({"$ref": "steps.s1.output.todos.0.text"}, "buy milk"),
        ({"$ref": "steps.s1.output.todos.-1"}, {"id": 2, "text": "call mum", "done": True}),
        ({"$ref": "steps.s1.output"}, LISTING),
        ("{{steps.s1.output.summary}}", "2 todos: buy milk, call mum."),
        ("todo {{steps.s0.output.value}} of {{steps.s1.output.count}}", "todo 2 of 2"),
        ("{{steps.s1.output.todos.1}}", '{"done": true, "id": 2, "text": "call mum"}'),
        ({"keep": [{"$ref": "steps.s1.output.todos.1.done"}]}, {"keep": [True]}),
    ],
)
def test_references_resolve(outputs: dict[str, Any], argument: Any, expected: Any) -> None:
    assert refs.resolve(argument, outputs) == expected


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ({"$ref": "steps.s1.output.missing"}, "steps.s1.output has no 'missing'"),
        ({"$ref": "steps.s1.output.todos.2"}, "steps.s1.output.todos has no '2'"),
        ({"$ref": "steps.s1.output.todos.first"}, "steps.s1.output.todos has no 'first'"),
        ({"$ref": "steps.s1.output.count.x"}, "steps.s1.output.count has no 'x'"),
        ({"$ref": "steps.s9.output"}, "step s9 has no output"),
    ],
)
def test_a_reference_that_does_not_resolve_says_where(
    outputs: dict[str, Any], argument: Any, message: str
) -> None:
    with pytest.raises(refs.InvalidReference, match=message):
        refs.resolve(argument, outputs)


def test_walking_a_stored_output_leaves_it_unchanged() -> None:
    stored = py_to_value(LISTING)
    before = stored.SerializeToString()
    with pytest.raises(refs.InvalidReference):
        refs.resolve({"$ref": "steps.s1.output.absent"}, {"s1": stored})
    assert stored.SerializeToString() == before  # a failed lookup added no key


@pytest.mark.parametrize(
    ("arguments", "may"),
    [
        ({"expression": "2 + 2"}, False),
        ({"action": "add", "texts": ["milk", "eggs"], "n": 3, "deep": {"list": [{"x": None}]}}, False),
        ({"value": {"$ref": "steps.s1.output.value"}}, True),
        ({"text": "remember {{steps.s1.output.value}}"}, True),
        ({"deep": [{"nested": {"$ref": "steps.s2.output"}}]}, True),
        ({"text": "braces {{ but no reference"}, True),  # a closer look finds none: still right
    ],
)
def test_references_are_ruled_out_without_converting(arguments: dict[str, Any], may: bool) -> None:
    from agentrt.core.values import dict_to_struct  # noqa: PLC0415

    struct = dict_to_struct(arguments)
    assert refs.may_reference(struct) == may
    if not may:
        assert refs.referenced_steps(arguments) == set()  # never a missed reference
