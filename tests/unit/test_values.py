"""Struct/Value <-> Python conversions: the same results as json_format's, refusals stated."""

from __future__ import annotations

import pytest
from google.protobuf import json_format, struct_pb2

from agentrt.core.values import (
    MAX_DEPTH,
    dict_to_struct,
    normalize,
    py_to_value,
    struct_to_dict,
    value_to_py,
)

SAMPLES = [
    None,
    True,
    0,
    -3,
    2.5,
    2**53 + 2,  # beyond a double's exact integers: stays a float, as json_format gives it
    "",
    "todo ✓",
    [],
    {},
    [1, "a", None, False, [], {}],
    {"todos": [{"id": i, "text": f"buy milk {i}", "done": i % 2 == 0} for i in range(50)], "count": 50},
    {"nested": {"deeper": {"list": [[1, 2], [3.25, {"k": None}]]}}},
]


def _reference(data: object) -> struct_pb2.Value:
    message = struct_pb2.Value()
    json_format.ParseDict(data, message)
    return message


@pytest.mark.parametrize("data", SAMPLES)
def test_same_messages_and_values_as_json_format(data: object) -> None:
    assert py_to_value(data) == _reference(data)
    assert value_to_py(_reference(data)) == normalize(json_format.MessageToDict(_reference(data)))


def test_structs_round_trip_and_integral_numbers_come_back_as_ints() -> None:
    data = {"n": 2.0, "items": [1.0, 1.5], "empty": {}, "none": None}
    struct = dict_to_struct(data)
    assert struct == _reference(data).struct_value
    back = struct_to_dict(struct)
    assert back == {"n": 2, "items": [1, 1.5], "empty": {}, "none": None}
    assert isinstance(back["n"], int)


def test_an_unset_value_is_none() -> None:
    assert value_to_py(struct_pb2.Value()) is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({1: "a"}, "keys must be strings"),
        ({"a": {1, 2}}, "set is not a JSON value"),
        ([object()], "object is not a JSON value"),
    ],
)
def test_what_json_cannot_hold_is_refused(data: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        py_to_value(data)


def test_nesting_is_bounded_both_ways() -> None:
    deep: list[object] = []
    inner = deep
    for _ in range(MAX_DEPTH + 5):
        inner.append([])
        inner = inner[0]  # type: ignore[assignment]
    with pytest.raises(ValueError, match="nested deeper"):
        py_to_value(deep)
    message = struct_pb2.Value()
    cursor = message
    for _ in range(MAX_DEPTH + 5):
        cursor = cursor.list_value.values.add()
    with pytest.raises(ValueError, match="nested deeper"):
        value_to_py(message)


def test_non_finite_numbers_are_not_json() -> None:
    with pytest.raises(ValueError, match="not a JSON number"):
        value_to_py(struct_pb2.Value(number_value=float("inf")))
