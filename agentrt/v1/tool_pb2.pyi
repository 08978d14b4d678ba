import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ToolSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_SOURCE_UNSPECIFIED: _ClassVar[ToolSource]
    TOOL_SOURCE_BUILTIN: _ClassVar[ToolSource]
    TOOL_SOURCE_PROVIDER: _ClassVar[ToolSource]
    TOOL_SOURCE_MCP: _ClassVar[ToolSource]
    TOOL_SOURCE_A2A: _ClassVar[ToolSource]

class ToolHealth(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_HEALTH_UNSPECIFIED: _ClassVar[ToolHealth]
    TOOL_HEALTH_HEALTHY: _ClassVar[ToolHealth]
    TOOL_HEALTH_UNREACHABLE: _ClassVar[ToolHealth]
TOOL_SOURCE_UNSPECIFIED: ToolSource
TOOL_SOURCE_BUILTIN: ToolSource
TOOL_SOURCE_PROVIDER: ToolSource
TOOL_SOURCE_MCP: ToolSource
TOOL_SOURCE_A2A: ToolSource
TOOL_HEALTH_UNSPECIFIED: ToolHealth
TOOL_HEALTH_HEALTHY: ToolHealth
TOOL_HEALTH_UNREACHABLE: ToolHealth

class Tool(_message.Message):
    __slots__ = ("name", "description", "input_schema", "output_schema", "version", "source", "idempotent", "default_timeout", "endpoint", "health", "lease_expire_time", "annotations", "action_annotations", "mcp_server", "mcp_tool", "a2a_agent", "a2a_skill", "references")
    class ActionAnnotationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ToolAnnotations
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ToolAnnotations, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    HEALTH_FIELD_NUMBER: _ClassVar[int]
    LEASE_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    MCP_SERVER_FIELD_NUMBER: _ClassVar[int]
    MCP_TOOL_FIELD_NUMBER: _ClassVar[int]
    A2A_AGENT_FIELD_NUMBER: _ClassVar[int]
    A2A_SKILL_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    input_schema: _struct_pb2.Struct
    output_schema: _struct_pb2.Struct
    version: str
    source: ToolSource
    idempotent: bool
    default_timeout: _duration_pb2.Duration
    endpoint: str
    health: ToolHealth
    lease_expire_time: _timestamp_pb2.Timestamp
    annotations: ToolAnnotations
    action_annotations: _containers.MessageMap[str, ToolAnnotations]
    mcp_server: str
    mcp_tool: str
    a2a_agent: str
    a2a_skill: str
    references: ToolReferences
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., input_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., output_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., version: _Optional[str] = ..., source: _Optional[_Union[ToolSource, str]] = ..., idempotent: _Optional[bool] = ..., default_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., endpoint: _Optional[str] = ..., health: _Optional[_Union[ToolHealth, str]] = ..., lease_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., annotations: _Optional[_Union[ToolAnnotations, _Mapping]] = ..., action_annotations: _Optional[_Mapping[str, ToolAnnotations]] = ..., mcp_server: _Optional[str] = ..., mcp_tool: _Optional[str] = ..., a2a_agent: _Optional[str] = ..., a2a_skill: _Optional[str] = ..., references: _Optional[_Union[ToolReferences, _Mapping]] = ...) -> None: ...

class ToolReferences(_message.Message):
    __slots__ = ("entities", "result", "result_of", "actions")
    class ActionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: EntityEffect
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[EntityEffect, _Mapping]] = ...) -> None: ...
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    RESULT_OF_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    entities: _containers.RepeatedCompositeFieldContainer[EntityOutput]
    result: str
    result_of: str
    actions: _containers.MessageMap[str, EntityEffect]
    def __init__(self, entities: _Optional[_Iterable[_Union[EntityOutput, _Mapping]]] = ..., result: _Optional[str] = ..., result_of: _Optional[str] = ..., actions: _Optional[_Mapping[str, EntityEffect]] = ...) -> None: ...

class EntityOutput(_message.Message):
    __slots__ = ("kind", "pointer", "id_field", "text_field")
    KIND_FIELD_NUMBER: _ClassVar[int]
    POINTER_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_FIELD_NUMBER: _ClassVar[int]
    kind: str
    pointer: str
    id_field: str
    text_field: str
    def __init__(self, kind: _Optional[str] = ..., pointer: _Optional[str] = ..., id_field: _Optional[str] = ..., text_field: _Optional[str] = ...) -> None: ...

class EntityEffect(_message.Message):
    __slots__ = ("effect", "inverse_action", "guard_argument")
    class Effect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        EFFECT_UNSPECIFIED: _ClassVar[EntityEffect.Effect]
        EFFECT_SHOWN: _ClassVar[EntityEffect.Effect]
        EFFECT_ADDED: _ClassVar[EntityEffect.Effect]
        EFFECT_CHANGED: _ClassVar[EntityEffect.Effect]
        EFFECT_REMOVED: _ClassVar[EntityEffect.Effect]
    EFFECT_UNSPECIFIED: EntityEffect.Effect
    EFFECT_SHOWN: EntityEffect.Effect
    EFFECT_ADDED: EntityEffect.Effect
    EFFECT_CHANGED: EntityEffect.Effect
    EFFECT_REMOVED: EntityEffect.Effect
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    INVERSE_ACTION_FIELD_NUMBER: _ClassVar[int]
    GUARD_ARGUMENT_FIELD_NUMBER: _ClassVar[int]
    effect: EntityEffect.Effect
    inverse_action: str
    guard_argument: str
    def __init__(self, effect: _Optional[_Union[EntityEffect.Effect, str]] = ..., inverse_action: _Optional[str] = ..., guard_argument: _Optional[str] = ...) -> None: ...

class ToolAnnotations(_message.Message):
    __slots__ = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint", "title")
    READ_ONLY_HINT_FIELD_NUMBER: _ClassVar[int]
    DESTRUCTIVE_HINT_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENT_HINT_FIELD_NUMBER: _ClassVar[int]
    OPEN_WORLD_HINT_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    read_only_hint: bool
    destructive_hint: bool
    idempotent_hint: bool
    open_world_hint: bool
    title: str
    def __init__(self, read_only_hint: _Optional[bool] = ..., destructive_hint: _Optional[bool] = ..., idempotent_hint: _Optional[bool] = ..., open_world_hint: _Optional[bool] = ..., title: _Optional[str] = ...) -> None: ...

class ToolSpec(_message.Message):
    __slots__ = ("name", "version", "description", "input_schema", "output_schema", "idempotent", "default_timeout", "annotations", "action_annotations", "references")
    class ActionAnnotationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ToolAnnotations
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ToolAnnotations, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    description: str
    input_schema: _struct_pb2.Struct
    output_schema: _struct_pb2.Struct
    idempotent: bool
    default_timeout: _duration_pb2.Duration
    annotations: ToolAnnotations
    action_annotations: _containers.MessageMap[str, ToolAnnotations]
    references: ToolReferences
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., description: _Optional[str] = ..., input_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., output_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., idempotent: _Optional[bool] = ..., default_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., annotations: _Optional[_Union[ToolAnnotations, _Mapping]] = ..., action_annotations: _Optional[_Mapping[str, ToolAnnotations]] = ..., references: _Optional[_Union[ToolReferences, _Mapping]] = ...) -> None: ...

class CallContext(_message.Message):
    __slots__ = ("principal", "run_id", "step_id", "attempt", "idempotency_key")
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    principal: str
    run_id: str
    step_id: str
    attempt: int
    idempotency_key: str
    def __init__(self, principal: _Optional[str] = ..., run_id: _Optional[str] = ..., step_id: _Optional[str] = ..., attempt: _Optional[int] = ..., idempotency_key: _Optional[str] = ...) -> None: ...
