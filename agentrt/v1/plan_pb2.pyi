from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Plan(_message.Message):
    __slots__ = ("steps", "planner", "attempts", "usage", "cached", "answer_template")
    STEPS_FIELD_NUMBER: _ClassVar[int]
    PLANNER_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    CACHED_FIELD_NUMBER: _ClassVar[int]
    ANSWER_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    steps: _containers.RepeatedCompositeFieldContainer[PlanStep]
    planner: str
    attempts: _containers.RepeatedCompositeFieldContainer[PlannerAttempt]
    usage: Usage
    cached: bool
    answer_template: str
    def __init__(self, steps: _Optional[_Iterable[_Union[PlanStep, _Mapping]]] = ..., planner: _Optional[str] = ..., attempts: _Optional[_Iterable[_Union[PlannerAttempt, _Mapping]]] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ..., cached: _Optional[bool] = ..., answer_template: _Optional[str] = ...) -> None: ...

class PlanStep(_message.Message):
    __slots__ = ("id", "tool", "arguments", "depends_on", "reasoning", "confirm")
    ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    DEPENDS_ON_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_FIELD_NUMBER: _ClassVar[int]
    id: str
    tool: str
    arguments: _struct_pb2.Struct
    depends_on: _containers.RepeatedScalarFieldContainer[str]
    reasoning: str
    confirm: bool
    def __init__(self, id: _Optional[str] = ..., tool: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., depends_on: _Optional[_Iterable[str]] = ..., reasoning: _Optional[str] = ..., confirm: _Optional[bool] = ...) -> None: ...

class PlannerAttempt(_message.Message):
    __slots__ = ("planner", "error")
    PLANNER_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    planner: str
    error: str
    def __init__(self, planner: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("prompt_tokens", "completion_tokens", "cost_usd", "llm_calls")
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COST_USD_FIELD_NUMBER: _ClassVar[int]
    LLM_CALLS_FIELD_NUMBER: _ClassVar[int]
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    llm_calls: int
    def __init__(self, prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ..., cost_usd: _Optional[float] = ..., llm_calls: _Optional[int] = ...) -> None: ...
