from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ToolSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_SOURCE_UNSPECIFIED: _ClassVar[ToolSource]
    TOOL_SOURCE_BUILTIN: _ClassVar[ToolSource]
    TOOL_SOURCE_PROVIDER: _ClassVar[ToolSource]
TOOL_SOURCE_UNSPECIFIED: ToolSource
TOOL_SOURCE_BUILTIN: ToolSource
TOOL_SOURCE_PROVIDER: ToolSource

class Tool(_message.Message):
    __slots__ = ("name", "description", "input_schema", "output_schema", "version", "source", "idempotent")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    input_schema: _struct_pb2.Struct
    output_schema: _struct_pb2.Struct
    version: str
    source: ToolSource
    idempotent: bool
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., input_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., output_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., version: _Optional[str] = ..., source: _Optional[_Union[ToolSource, str]] = ..., idempotent: _Optional[bool] = ...) -> None: ...
