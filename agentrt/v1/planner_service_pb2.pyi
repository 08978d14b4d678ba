from agentrt.v1 import agent_pb2 as _agent_pb2
from agentrt.v1 import plan_pb2 as _plan_pb2
from agentrt.v1 import run_pb2 as _run_pb2
from agentrt.v1 import tool_pb2 as _tool_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreatePlanRequest(_message.Message):
    __slots__ = ("prompt", "tools", "max_steps", "catalog_version", "replan", "rules_only", "history", "thread_turn")
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    CATALOG_VERSION_FIELD_NUMBER: _ClassVar[int]
    REPLAN_FIELD_NUMBER: _ClassVar[int]
    RULES_ONLY_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    THREAD_TURN_FIELD_NUMBER: _ClassVar[int]
    prompt: str
    tools: _containers.RepeatedCompositeFieldContainer[_tool_pb2.Tool]
    max_steps: int
    catalog_version: str
    replan: Replan
    rules_only: bool
    history: _containers.RepeatedCompositeFieldContainer[PriorTurn]
    thread_turn: int
    def __init__(self, prompt: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[_tool_pb2.Tool, _Mapping]]] = ..., max_steps: _Optional[int] = ..., catalog_version: _Optional[str] = ..., replan: _Optional[_Union[Replan, _Mapping]] = ..., rules_only: _Optional[bool] = ..., history: _Optional[_Iterable[_Union[PriorTurn, _Mapping]]] = ..., thread_turn: _Optional[int] = ...) -> None: ...

class PriorTurn(_message.Message):
    __slots__ = ("turn", "prompt", "answer", "status", "steps")
    TURN_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    turn: int
    prompt: str
    answer: str
    status: _run_pb2.RunStatus
    steps: _containers.RepeatedCompositeFieldContainer[_run_pb2.StepState]
    def __init__(self, turn: _Optional[int] = ..., prompt: _Optional[str] = ..., answer: _Optional[str] = ..., status: _Optional[_Union[_run_pb2.RunStatus, str]] = ..., steps: _Optional[_Iterable[_Union[_run_pb2.StepState, _Mapping]]] = ...) -> None: ...

class Replan(_message.Message):
    __slots__ = ("previous_plan", "steps", "failure")
    PREVIOUS_PLAN_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    previous_plan: _plan_pb2.Plan
    steps: _containers.RepeatedCompositeFieldContainer[_run_pb2.StepState]
    failure: _run_pb2.RunError
    def __init__(self, previous_plan: _Optional[_Union[_plan_pb2.Plan, _Mapping]] = ..., steps: _Optional[_Iterable[_Union[_run_pb2.StepState, _Mapping]]] = ..., failure: _Optional[_Union[_run_pb2.RunError, _Mapping]] = ...) -> None: ...

class CreatePlanResponse(_message.Message):
    __slots__ = ("plan",)
    PLAN_FIELD_NUMBER: _ClassVar[int]
    plan: _plan_pb2.Plan
    def __init__(self, plan: _Optional[_Union[_plan_pb2.Plan, _Mapping]] = ...) -> None: ...

class DecideRequest(_message.Message):
    __slots__ = ("prompt", "tools", "turns", "steps", "turn", "tool_calls_left", "tokens_left", "history")
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_LEFT_FIELD_NUMBER: _ClassVar[int]
    TOKENS_LEFT_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    prompt: str
    tools: _containers.RepeatedCompositeFieldContainer[_tool_pb2.Tool]
    turns: _containers.RepeatedCompositeFieldContainer[_agent_pb2.Turn]
    steps: _containers.RepeatedCompositeFieldContainer[_run_pb2.StepState]
    turn: int
    tool_calls_left: int
    tokens_left: int
    history: _containers.RepeatedCompositeFieldContainer[PriorTurn]
    def __init__(self, prompt: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[_tool_pb2.Tool, _Mapping]]] = ..., turns: _Optional[_Iterable[_Union[_agent_pb2.Turn, _Mapping]]] = ..., steps: _Optional[_Iterable[_Union[_run_pb2.StepState, _Mapping]]] = ..., turn: _Optional[int] = ..., tool_calls_left: _Optional[int] = ..., tokens_left: _Optional[int] = ..., history: _Optional[_Iterable[_Union[PriorTurn, _Mapping]]] = ...) -> None: ...

class DecideResponse(_message.Message):
    __slots__ = ("text_delta", "turn")
    TEXT_DELTA_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    text_delta: str
    turn: _agent_pb2.Turn
    def __init__(self, text_delta: _Optional[str] = ..., turn: _Optional[_Union[_agent_pb2.Turn, _Mapping]] = ...) -> None: ...

class CheckModelsRequest(_message.Message):
    __slots__ = ("fresh",)
    FRESH_FIELD_NUMBER: _ClassVar[int]
    fresh: bool
    def __init__(self, fresh: _Optional[bool] = ...) -> None: ...

class CheckModelsResponse(_message.Message):
    __slots__ = ("models",)
    MODELS_FIELD_NUMBER: _ClassVar[int]
    models: _containers.RepeatedCompositeFieldContainer[ModelHealth]
    def __init__(self, models: _Optional[_Iterable[_Union[ModelHealth, _Mapping]]] = ...) -> None: ...

class ModelHealth(_message.Message):
    __slots__ = ("model", "endpoint", "answers", "error", "seconds")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    model: str
    endpoint: str
    answers: bool
    error: _run_pb2.RunError
    seconds: float
    def __init__(self, model: _Optional[str] = ..., endpoint: _Optional[str] = ..., answers: _Optional[bool] = ..., error: _Optional[_Union[_run_pb2.RunError, _Mapping]] = ..., seconds: _Optional[float] = ...) -> None: ...
