"""Conversions between protobuf Struct/Value and plain Python (JSON-shaped) values.

protobuf numbers are doubles, so 2 arrives as 2.0: integral floats are turned back into ints,
which is what tool authors and users expect ("todo 2", not "todo 2.0").
"""

from __future__ import annotations

import math
from typing import Any

from google.protobuf import duration_pb2, struct_pb2, timestamp_pb2

MAX_DEPTH = 100  # nesting accepted either way, as json_format's own limit


def normalize(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


# The conversions walk the messages directly: json_format's printer and parser take about twice
# as long (a 200-item todo list: 1.0 ms vs 0.5 ms each way, measured), and every step's
# arguments and output cross them. Their results are the same, numbers normalised as above.


def _to_py(value: struct_pb2.Value, depth: int) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        number = value.number_value
        if number.is_integer() and abs(number) < 2**53:
            return int(number)
        if not math.isfinite(number):  # JSON has no such number (json_format refuses it too)
            raise ValueError(f"{number} is not a JSON number")
        return number
    if kind == "bool_value":
        return value.bool_value
    if depth >= MAX_DEPTH:
        raise ValueError(f"value nested deeper than {MAX_DEPTH}")
    if kind == "struct_value":
        return {k: _to_py(v, depth + 1) for k, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return [_to_py(v, depth + 1) for v in value.list_value.values]
    return None  # null_value, or no kind at all


def _fill(target: struct_pb2.Value, data: Any, depth: int) -> None:
    if isinstance(data, str):
        target.string_value = data
    elif isinstance(data, bool):  # before int: bool is an int
        target.bool_value = data
    elif isinstance(data, int | float):
        target.number_value = data
    elif data is None:
        target.null_value = struct_pb2.NULL_VALUE
    elif depth >= MAX_DEPTH:
        raise ValueError(f"value nested deeper than {MAX_DEPTH}")
    elif isinstance(data, dict):
        target.struct_value.SetInParent()  # an empty object is still an object
        _fill_fields(target.struct_value, data, depth + 1)
    elif isinstance(data, list | tuple):
        values = target.list_value
        values.SetInParent()
        for item in data:
            _fill(values.values.add(), item, depth + 1)
    else:
        raise ValueError(f"{type(data).__name__} is not a JSON value")


def _fill_fields(target: struct_pb2.Struct, data: dict[Any, Any], depth: int) -> None:
    fields = target.fields
    for key, item in data.items():
        if not isinstance(key, str):
            raise ValueError(f"object keys must be strings, not {type(key).__name__}")
        _fill(fields[key], item, depth)


def struct_to_dict(message: struct_pb2.Struct) -> dict[str, Any]:
    return {k: _to_py(v, 1) for k, v in message.fields.items()}


def dict_to_struct(data: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    _fill_fields(message, data, 1)
    return message


def value_to_py(message: struct_pb2.Value) -> Any:
    return _to_py(message, 0)


def py_to_value(data: Any) -> struct_pb2.Value:
    message = struct_pb2.Value()
    _fill(message, data, 0)
    return message


def timestamp_of(seconds: float) -> timestamp_pb2.Timestamp:
    """A Timestamp for a Unix time in seconds."""
    ts = timestamp_pb2.Timestamp()
    ts.FromNanoseconds(round(seconds * 1e9))
    return ts


def duration_of(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(round(seconds * 1e9))
    return duration
