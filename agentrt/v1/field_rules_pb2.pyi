from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
RULES_FIELD_NUMBER: _ClassVar[int]
rules: _descriptor.FieldDescriptor

class FieldRules(_message.Message):
    __slots__ = ("min_len", "max_len", "printable", "no_nul", "not_blank", "gte", "gt", "lte", "max_setting", "defined_only", "pattern", "max_entries", "keys", "values")
    MIN_LEN_FIELD_NUMBER: _ClassVar[int]
    MAX_LEN_FIELD_NUMBER: _ClassVar[int]
    PRINTABLE_FIELD_NUMBER: _ClassVar[int]
    NO_NUL_FIELD_NUMBER: _ClassVar[int]
    NOT_BLANK_FIELD_NUMBER: _ClassVar[int]
    GTE_FIELD_NUMBER: _ClassVar[int]
    GT_FIELD_NUMBER: _ClassVar[int]
    LTE_FIELD_NUMBER: _ClassVar[int]
    MAX_SETTING_FIELD_NUMBER: _ClassVar[int]
    DEFINED_ONLY_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    KEYS_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    min_len: int
    max_len: int
    printable: bool
    no_nul: bool
    not_blank: bool
    gte: float
    gt: float
    lte: float
    max_setting: str
    defined_only: bool
    pattern: str
    max_entries: int
    keys: FieldRules
    values: FieldRules
    def __init__(self, min_len: _Optional[int] = ..., max_len: _Optional[int] = ..., printable: _Optional[bool] = ..., no_nul: _Optional[bool] = ..., not_blank: _Optional[bool] = ..., gte: _Optional[float] = ..., gt: _Optional[float] = ..., lte: _Optional[float] = ..., max_setting: _Optional[str] = ..., defined_only: _Optional[bool] = ..., pattern: _Optional[str] = ..., max_entries: _Optional[int] = ..., keys: _Optional[_Union[FieldRules, _Mapping]] = ..., values: _Optional[_Union[FieldRules, _Mapping]] = ...) -> None: ...
