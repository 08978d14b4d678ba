import datetime

from agentrt.v1 import tool_pb2 as _tool_pb2
from google.api import annotations_pb2 as _annotations_pb2
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

class ToolChangeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_CHANGE_TYPE_UNSPECIFIED: _ClassVar[ToolChangeType]
    TOOL_CHANGE_TYPE_SNAPSHOT: _ClassVar[ToolChangeType]
    TOOL_CHANGE_TYPE_ADDED: _ClassVar[ToolChangeType]
    TOOL_CHANGE_TYPE_UPDATED: _ClassVar[ToolChangeType]
    TOOL_CHANGE_TYPE_REMOVED: _ClassVar[ToolChangeType]
TOOL_CHANGE_TYPE_UNSPECIFIED: ToolChangeType
TOOL_CHANGE_TYPE_SNAPSHOT: ToolChangeType
TOOL_CHANGE_TYPE_ADDED: ToolChangeType
TOOL_CHANGE_TYPE_UPDATED: ToolChangeType
TOOL_CHANGE_TYPE_REMOVED: ToolChangeType

class ListToolsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListToolsResponse(_message.Message):
    __slots__ = ("tools", "catalog_version")
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    CATALOG_VERSION_FIELD_NUMBER: _ClassVar[int]
    tools: _containers.RepeatedCompositeFieldContainer[_tool_pb2.Tool]
    catalog_version: str
    def __init__(self, tools: _Optional[_Iterable[_Union[_tool_pb2.Tool, _Mapping]]] = ..., catalog_version: _Optional[str] = ...) -> None: ...

class InvokeToolRequest(_message.Message):
    __slots__ = ("tool", "arguments", "idempotency_key")
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    tool: str
    arguments: _struct_pb2.Struct
    idempotency_key: str
    def __init__(self, tool: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class InvokeToolResponse(_message.Message):
    __slots__ = ("output",)
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    output: _struct_pb2.Value
    def __init__(self, output: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class RegisterToolRequest(_message.Message):
    __slots__ = ("spec", "endpoint", "ttl")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    spec: _tool_pb2.ToolSpec
    endpoint: str
    ttl: _duration_pb2.Duration
    def __init__(self, spec: _Optional[_Union[_tool_pb2.ToolSpec, _Mapping]] = ..., endpoint: _Optional[str] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class Lease(_message.Message):
    __slots__ = ("lease_id", "tool", "version", "ttl", "expire_time")
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    tool: str
    version: str
    ttl: _duration_pb2.Duration
    expire_time: _timestamp_pb2.Timestamp
    def __init__(self, lease_id: _Optional[str] = ..., tool: _Optional[str] = ..., version: _Optional[str] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RegisterToolResponse(_message.Message):
    __slots__ = ("lease", "tool")
    LEASE_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    lease: Lease
    tool: _tool_pb2.Tool
    def __init__(self, lease: _Optional[_Union[Lease, _Mapping]] = ..., tool: _Optional[_Union[_tool_pb2.Tool, _Mapping]] = ...) -> None: ...

class RenewLeasesRequest(_message.Message):
    __slots__ = ("lease_ids",)
    LEASE_IDS_FIELD_NUMBER: _ClassVar[int]
    lease_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, lease_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class RenewLeasesResponse(_message.Message):
    __slots__ = ("leases", "expired_lease_ids")
    LEASES_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_LEASE_IDS_FIELD_NUMBER: _ClassVar[int]
    leases: _containers.RepeatedCompositeFieldContainer[Lease]
    expired_lease_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, leases: _Optional[_Iterable[_Union[Lease, _Mapping]]] = ..., expired_lease_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class DeregisterToolRequest(_message.Message):
    __slots__ = ("lease_id",)
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    def __init__(self, lease_id: _Optional[str] = ...) -> None: ...

class DeregisterToolResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WatchToolsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WatchToolsResponse(_message.Message):
    __slots__ = ("change", "tools", "catalog_version")
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    CATALOG_VERSION_FIELD_NUMBER: _ClassVar[int]
    change: ToolChangeType
    tools: _containers.RepeatedCompositeFieldContainer[_tool_pb2.Tool]
    catalog_version: str
    def __init__(self, change: _Optional[_Union[ToolChangeType, str]] = ..., tools: _Optional[_Iterable[_Union[_tool_pb2.Tool, _Mapping]]] = ..., catalog_version: _Optional[str] = ...) -> None: ...
