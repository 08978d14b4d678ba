from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Plan(_message.Message):
    __slots__ = ("steps", "planner")
    STEPS_FIELD_NUMBER: _ClassVar[int]
    PLANNER_FIELD_NUMBER: _ClassVar[int]
    steps: _containers.RepeatedCompositeFieldContainer[PlanStep]
    planner: str
    def __init__(self, steps: _Optional[_Iterable[_Union[PlanStep, _Mapping]]] = ..., planner: _Optional[str] = ...) -> None: ...

class PlanStep(_message.Message):
    __slots__ = ("id", "tool", "arguments", "depends_on", "reasoning")
    ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    DEPENDS_ON_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    id: str
    tool: str
    arguments: _struct_pb2.Struct
    depends_on: _containers.RepeatedScalarFieldContainer[str]
    reasoning: str
    def __init__(self, id: _Optional[str] = ..., tool: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., depends_on: _Optional[_Iterable[str]] = ..., reasoning: _Optional[str] = ...) -> None: ...
