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

class McpServerState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MCP_SERVER_STATE_UNSPECIFIED: _ClassVar[McpServerState]
    MCP_SERVER_STATE_CONNECTING: _ClassVar[McpServerState]
    MCP_SERVER_STATE_CONNECTED: _ClassVar[McpServerState]
    MCP_SERVER_STATE_DISCONNECTED: _ClassVar[McpServerState]

class A2aAgentState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    A2A_AGENT_STATE_UNSPECIFIED: _ClassVar[A2aAgentState]
    A2A_AGENT_STATE_READING: _ClassVar[A2aAgentState]
    A2A_AGENT_STATE_READY: _ClassVar[A2aAgentState]
    A2A_AGENT_STATE_UNREACHABLE: _ClassVar[A2aAgentState]
TOOL_CHANGE_TYPE_UNSPECIFIED: ToolChangeType
TOOL_CHANGE_TYPE_SNAPSHOT: ToolChangeType
TOOL_CHANGE_TYPE_ADDED: ToolChangeType
TOOL_CHANGE_TYPE_UPDATED: ToolChangeType
TOOL_CHANGE_TYPE_REMOVED: ToolChangeType
MCP_SERVER_STATE_UNSPECIFIED: McpServerState
MCP_SERVER_STATE_CONNECTING: McpServerState
MCP_SERVER_STATE_CONNECTED: McpServerState
MCP_SERVER_STATE_DISCONNECTED: McpServerState
A2A_AGENT_STATE_UNSPECIFIED: A2aAgentState
A2A_AGENT_STATE_READING: A2aAgentState
A2A_AGENT_STATE_READY: A2aAgentState
A2A_AGENT_STATE_UNREACHABLE: A2aAgentState

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
    __slots__ = ("tool", "arguments", "idempotency_key", "context")
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    tool: str
    arguments: _struct_pb2.Struct
    idempotency_key: str
    context: _tool_pb2.CallContext
    def __init__(self, tool: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., context: _Optional[_Union[_tool_pb2.CallContext, _Mapping]] = ...) -> None: ...

class InvokeToolResponse(_message.Message):
    __slots__ = ("output",)
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    output: _struct_pb2.Value
    def __init__(self, output: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class InvokeToolStreamRequest(_message.Message):
    __slots__ = ("invocation",)
    INVOCATION_FIELD_NUMBER: _ClassVar[int]
    invocation: InvokeToolRequest
    def __init__(self, invocation: _Optional[_Union[InvokeToolRequest, _Mapping]] = ...) -> None: ...

class InvokeToolStreamResponse(_message.Message):
    __slots__ = ("progress", "result")
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    progress: ToolProgress
    result: InvokeToolResponse
    def __init__(self, progress: _Optional[_Union[ToolProgress, _Mapping]] = ..., result: _Optional[_Union[InvokeToolResponse, _Mapping]] = ...) -> None: ...

class ToolProgress(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class CancelInvocationsRequest(_message.Message):
    __slots__ = ("context",)
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    context: _tool_pb2.CallContext
    def __init__(self, context: _Optional[_Union[_tool_pb2.CallContext, _Mapping]] = ...) -> None: ...

class CancelInvocationsResponse(_message.Message):
    __slots__ = ("cancelled",)
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    cancelled: int
    def __init__(self, cancelled: _Optional[int] = ...) -> None: ...

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

class MountMcpServerRequest(_message.Message):
    __slots__ = ("name", "url", "headers", "replace", "principal_headers", "caller_signing_secret")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class PrincipalHeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: PrincipalHeaders
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[PrincipalHeaders, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    REPLACE_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_HEADERS_FIELD_NUMBER: _ClassVar[int]
    CALLER_SIGNING_SECRET_FIELD_NUMBER: _ClassVar[int]
    name: str
    url: str
    headers: _containers.ScalarMap[str, str]
    replace: bool
    principal_headers: _containers.MessageMap[str, PrincipalHeaders]
    caller_signing_secret: str
    def __init__(self, name: _Optional[str] = ..., url: _Optional[str] = ..., headers: _Optional[_Mapping[str, str]] = ..., replace: _Optional[bool] = ..., principal_headers: _Optional[_Mapping[str, PrincipalHeaders]] = ..., caller_signing_secret: _Optional[str] = ...) -> None: ...

class PrincipalHeaders(_message.Message):
    __slots__ = ("headers",)
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    headers: _containers.ScalarMap[str, str]
    def __init__(self, headers: _Optional[_Mapping[str, str]] = ...) -> None: ...

class MountMcpServerResponse(_message.Message):
    __slots__ = ("server",)
    SERVER_FIELD_NUMBER: _ClassVar[int]
    server: McpServer
    def __init__(self, server: _Optional[_Union[McpServer, _Mapping]] = ...) -> None: ...

class UnmountMcpServerRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class UnmountMcpServerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListMcpServersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListMcpServersResponse(_message.Message):
    __slots__ = ("servers",)
    SERVERS_FIELD_NUMBER: _ClassVar[int]
    servers: _containers.RepeatedCompositeFieldContainer[McpServer]
    def __init__(self, servers: _Optional[_Iterable[_Union[McpServer, _Mapping]]] = ...) -> None: ...

class McpServer(_message.Message):
    __slots__ = ("name", "transport", "target", "origin", "state", "last_error", "tools", "protocol_version", "server_info", "skipped_tools", "credential_principals", "signs_caller", "principal_sessions")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TRANSPORT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    SERVER_INFO_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_TOOLS_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_PRINCIPALS_FIELD_NUMBER: _ClassVar[int]
    SIGNS_CALLER_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_SESSIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    transport: str
    target: str
    origin: str
    state: McpServerState
    last_error: str
    tools: _containers.RepeatedScalarFieldContainer[str]
    protocol_version: str
    server_info: str
    skipped_tools: _containers.RepeatedScalarFieldContainer[str]
    credential_principals: _containers.RepeatedScalarFieldContainer[str]
    signs_caller: bool
    principal_sessions: int
    def __init__(self, name: _Optional[str] = ..., transport: _Optional[str] = ..., target: _Optional[str] = ..., origin: _Optional[str] = ..., state: _Optional[_Union[McpServerState, str]] = ..., last_error: _Optional[str] = ..., tools: _Optional[_Iterable[str]] = ..., protocol_version: _Optional[str] = ..., server_info: _Optional[str] = ..., skipped_tools: _Optional[_Iterable[str]] = ..., credential_principals: _Optional[_Iterable[str]] = ..., signs_caller: _Optional[bool] = ..., principal_sessions: _Optional[int] = ...) -> None: ...

class MountA2aAgentRequest(_message.Message):
    __slots__ = ("name", "url", "headers", "replace", "principal_headers", "caller_signing_secret")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class PrincipalHeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: PrincipalHeaders
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[PrincipalHeaders, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    REPLACE_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_HEADERS_FIELD_NUMBER: _ClassVar[int]
    CALLER_SIGNING_SECRET_FIELD_NUMBER: _ClassVar[int]
    name: str
    url: str
    headers: _containers.ScalarMap[str, str]
    replace: bool
    principal_headers: _containers.MessageMap[str, PrincipalHeaders]
    caller_signing_secret: str
    def __init__(self, name: _Optional[str] = ..., url: _Optional[str] = ..., headers: _Optional[_Mapping[str, str]] = ..., replace: _Optional[bool] = ..., principal_headers: _Optional[_Mapping[str, PrincipalHeaders]] = ..., caller_signing_secret: _Optional[str] = ...) -> None: ...

class MountA2aAgentResponse(_message.Message):
    __slots__ = ("agent",)
    AGENT_FIELD_NUMBER: _ClassVar[int]
    agent: A2aAgentInfo
    def __init__(self, agent: _Optional[_Union[A2aAgentInfo, _Mapping]] = ...) -> None: ...

class UnmountA2aAgentRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class UnmountA2aAgentResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListA2aAgentsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListA2aAgentsResponse(_message.Message):
    __slots__ = ("agents",)
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    agents: _containers.RepeatedCompositeFieldContainer[A2aAgentInfo]
    def __init__(self, agents: _Optional[_Iterable[_Union[A2aAgentInfo, _Mapping]]] = ...) -> None: ...

class A2aAgentInfo(_message.Message):
    __slots__ = ("name", "url", "origin", "state", "last_error", "tools", "card_info", "credential_principals", "signs_caller")
    NAME_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    CARD_INFO_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_PRINCIPALS_FIELD_NUMBER: _ClassVar[int]
    SIGNS_CALLER_FIELD_NUMBER: _ClassVar[int]
    name: str
    url: str
    origin: str
    state: A2aAgentState
    last_error: str
    tools: _containers.RepeatedScalarFieldContainer[str]
    card_info: str
    credential_principals: _containers.RepeatedScalarFieldContainer[str]
    signs_caller: bool
    def __init__(self, name: _Optional[str] = ..., url: _Optional[str] = ..., origin: _Optional[str] = ..., state: _Optional[_Union[A2aAgentState, str]] = ..., last_error: _Optional[str] = ..., tools: _Optional[_Iterable[str]] = ..., card_info: _Optional[str] = ..., credential_principals: _Optional[_Iterable[str]] = ..., signs_caller: _Optional[bool] = ...) -> None: ...
