"""Conversions between protobuf Struct/Value and plain Python (JSON-shaped) values.

protobuf numbers are doubles, so 2 arrives as 2.0: integral floats are turned back into ints,
which is what tool authors and users expect ("todo 2", not "todo 2.0").
"""

from __future__ import annotations

from typing import Any

from google.protobuf import duration_pb2, json_format, struct_pb2, timestamp_pb2


def normalize(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def struct_to_dict(message: struct_pb2.Struct) -> dict[str, Any]:
    return normalize(json_format.MessageToDict(message))


def dict_to_struct(data: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    json_format.ParseDict(data, message)
    return message


def value_to_py(message: struct_pb2.Value) -> Any:
    if message.WhichOneof("kind") is None:
        return None
    return normalize(json_format.MessageToDict(message))


def py_to_value(data: Any) -> struct_pb2.Value:
    message = struct_pb2.Value()
    json_format.ParseDict(data, message)
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
