import datetime

from agentrt.v1 import field_rules_pb2 as _field_rules_pb2
from agentrt.v1 import plan_pb2 as _plan_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_MODE_UNSPECIFIED: _ClassVar[RunMode]
    RUN_MODE_AUTO: _ClassVar[RunMode]
    RUN_MODE_PLAN: _ClassVar[RunMode]
    RUN_MODE_AGENT: _ClassVar[RunMode]
RUN_MODE_UNSPECIFIED: RunMode
RUN_MODE_AUTO: RunMode
RUN_MODE_PLAN: RunMode
RUN_MODE_AGENT: RunMode

class Budgets(_message.Message):
    __slots__ = ("max_turns", "max_tool_calls", "max_tokens", "max_cost_usd")
    MAX_TURNS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_COST_USD_FIELD_NUMBER: _ClassVar[int]
    max_turns: int
    max_tool_calls: int
    max_tokens: int
    max_cost_usd: float
    def __init__(self, max_turns: _Optional[int] = ..., max_tool_calls: _Optional[int] = ..., max_tokens: _Optional[int] = ..., max_cost_usd: _Optional[float] = ...) -> None: ...

class ToolCall(_message.Message):
    __slots__ = ("step_id", "tool", "arguments")
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    step_id: str
    tool: str
    arguments: _struct_pb2.Struct
    def __init__(self, step_id: _Optional[str] = ..., tool: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("index", "calls", "answer", "refusal", "text", "usage", "time")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    index: int
    calls: _containers.RepeatedCompositeFieldContainer[ToolCall]
    answer: str
    refusal: str
    text: str
    usage: _plan_pb2.Usage
    time: _timestamp_pb2.Timestamp
    def __init__(self, index: _Optional[int] = ..., calls: _Optional[_Iterable[_Union[ToolCall, _Mapping]]] = ..., answer: _Optional[str] = ..., refusal: _Optional[str] = ..., text: _Optional[str] = ..., usage: _Optional[_Union[_plan_pb2.Usage, _Mapping]] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
