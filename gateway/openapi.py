"""The REST API's OpenAPI 3.0 document, derived from the protobuf contracts.

Every request and response schema is generated from the message descriptors using the proto3 JSON
mapping (camelCase json names, int64 as strings, enums by name, well-known types), with the
descriptions taken from the .proto comments, and the paths are the protos' google.api.http
options (routes.py), the same the REST adapter serves. So REST, its document and gRPC cannot
drift apart: change a .proto, regenerate, and the document follows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from google.protobuf import descriptor, descriptor_pb2

from agentrt import __version__
from agentrt.v1 import run_pb2
from gateway.routes import ROUTES

FD = descriptor.FieldDescriptor
_SCALARS: dict[int, dict[str, Any]] = {
    FD.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FD.TYPE_FLOAT: {"type": "number", "format": "float"},
    FD.TYPE_INT32: {"type": "integer", "format": "int32"},
    FD.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FD.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FD.TYPE_UINT32: {"type": "integer", "format": "int32", "minimum": 0},
    FD.TYPE_FIXED32: {"type": "integer", "format": "int32", "minimum": 0},
    # proto3 JSON writes 64-bit integers as decimal strings.
    FD.TYPE_INT64: {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"},
    FD.TYPE_SINT64: {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"},
    FD.TYPE_SFIXED64: {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"},
    FD.TYPE_UINT64: {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"},
    FD.TYPE_FIXED64: {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"},
    FD.TYPE_BOOL: {"type": "boolean"},
    FD.TYPE_STRING: {"type": "string"},
    FD.TYPE_BYTES: {"type": "string", "format": "byte"},
}
_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Timestamp": {
        "type": "string",
        "format": "date-time",
        "example": "2026-11-22T22:00:15.464Z",
    },
    "google.protobuf.Duration": {
        "type": "string",
        "pattern": r"^-?[0-9]+(\.[0-9]{1,9})?s$",
        "example": "1.5s",
    },
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {"nullable": True, "description": "Any JSON value."},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
}


def _load_comments() -> dict[str, str]:
    """Full name (message, field, enum, service, method) -> its leading .proto comment."""
    data = resources.files("agentrt.v1").joinpath("descriptors.binpb").read_bytes()
    files = descriptor_pb2.FileDescriptorSet.FromString(data).file
    comments: dict[str, str] = {}

    def message(m: descriptor_pb2.DescriptorProto, name: str, path: tuple[int, ...], locs: dict) -> None:
        comments[name] = locs.get(path, "")
        for i, f in enumerate(m.field):
            comments[f"{name}.{f.name}"] = locs.get((*path, 2, i), "")
        for i, nested in enumerate(m.nested_type):
            message(nested, f"{name}.{nested.name}", (*path, 3, i), locs)

    for file in files:
        locs = {
            tuple(loc.path): " ".join(loc.leading_comments.split()) for loc in file.source_code_info.location
        }
        for i, m in enumerate(file.message_type):
            message(m, f"{file.package}.{m.name}", (4, i), locs)
        for i, e in enumerate(file.enum_type):
            comments[f"{file.package}.{e.name}"] = locs.get((5, i), "")
        for i, s in enumerate(file.service):
            for j, method in enumerate(s.method):
                comments[f"{file.package}.{s.name}.{method.name}"] = locs.get((6, i, 2, j), "")
    return comments


@dataclass
class SchemaBuilder:
    comments: dict[str, str]
    components: dict[str, Any] = field(default_factory=dict)

    def ref(self, message: descriptor.Descriptor) -> dict[str, Any]:
        if message.full_name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[message.full_name])
        if message.full_name not in self.components:
            self.components[message.full_name] = {}  # placeholder: recursion-safe
            self.components[message.full_name] = self._message(message)
        return {"$ref": f"#/components/schemas/{message.full_name}"}

    def _message(self, message: descriptor.Descriptor) -> dict[str, Any]:
        properties = {f.json_name: self.field(f) for f in message.fields}
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if doc := self.comments.get(message.full_name):
            schema["description"] = doc
        return schema

    def field(self, f: descriptor.FieldDescriptor) -> dict[str, Any]:
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            value = f.message_type.fields_by_name["value"]
            schema: dict[str, Any] = {"type": "object", "additionalProperties": self._single(value)}
        elif f.is_repeated:
            schema = {"type": "array", "items": self._single(f)}
        else:
            schema = self._single(f)
        if doc := self.comments.get(f.full_name):
            # A $ref cannot carry siblings in OpenAPI 3.0: wrap it to keep the description.
            schema = (
                {"allOf": [schema], "description": doc}
                if "$ref" in schema
                else {**schema, "description": doc}
            )
        return schema

    def _single(self, f: descriptor.FieldDescriptor) -> dict[str, Any]:
        if f.type == FD.TYPE_MESSAGE:
            return self.ref(f.message_type)
        if f.type == FD.TYPE_ENUM:
            return {"type": "string", "enum": [v.name for v in f.enum_type.values]}
        return dict(_SCALARS[f.type])


_EVENT_KINDS = [f.name for f in run_pb2.RunEvent.DESCRIPTOR.oneofs_by_name["kind"].fields]

ERROR_SCHEMA = {
    "type": "object",
    "description": "Every error: the gRPC status behind it, mapped to the HTTP status of the response.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "integer", "description": "HTTP status code."},
                "status": {"type": "string", "description": "gRPC status code name, e.g. INVALID_ARGUMENT."},
                "message": {"type": "string"},
                "details": {
                    "type": "array",
                    "description": "google.rpc details (ErrorInfo, BadRequest, RetryInfo) in proto3 JSON.",
                    "items": {"type": "object", "additionalProperties": True},
                },
            },
            "required": ["code", "status", "message"],
        }
    },
    "required": ["error"],
}
_ERRORS = {
    "400": "Invalid request (malformed JSON, wrong types, unknown fields, invalid values).",
    "401": "Missing or invalid API key.",
    "404": "No such run.",
    "409": "Conflict with the run's state (FAILED_PRECONDITION) or a reused idempotency key "
    "(ALREADY_EXISTS).",
    "413": "Request body too large.",
    "429": "Rate limit exceeded; see Retry-After.",
    "503": "A backend service is unavailable.",
    "504": "A backend deadline was exceeded.",
}


def build_openapi(auth_enabled: bool) -> dict[str, Any]:
    comments = _load_comments()
    builder = SchemaBuilder(comments)
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        request = route.rpc.input_type
        parameters: list[dict[str, Any]] = []
        for name in route.path_params:
            parameters.append(
                {
                    "name": name,
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string"},
                    "description": comments.get(f"{request.full_name}.{name}", ""),
                }
            )
        for f in route.query_fields:
            schema = builder.field(f)
            schema.pop("description", None)
            if f.type in (FD.TYPE_INT32, FD.TYPE_INT64):  # plain numbers, 0 or more (rest.py)
                schema = {"type": "integer", "format": _SCALARS[f.type]["format"], "minimum": 0}
            parameters.append(
                {
                    "name": f.name,
                    "in": "query",
                    "required": False,
                    "schema": schema,
                    "description": comments.get(f.full_name, ""),
                }
            )
        operation: dict[str, Any] = {
            "operationId": route.rpc.name,
            "summary": f"{route.rpc.containing_service.name}.{route.rpc.name}",
            "description": comments.get(route.rpc.full_name, ""),
            "parameters": parameters,
            "responses": {
                code: {
                    "description": text,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                }
                for code, text in _ERRORS.items()
            },
        }
        if route.body:
            operation["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": builder.ref(request)}},
            }
        if route.body and "idempotency_key" in request.fields_by_name:
            parameters.append(
                {
                    "name": "Idempotency-Key",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string"},
                    "description": "Same as idempotency_key in the body (both, if given, must agree).",
                }
            )
        if route.streaming:
            parameters.append(
                {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string", "pattern": "^[0-9]+$"},
                    "description": "Resume after this event seq (an EventSource sends it on reconnect).",
                }
            )
            event_schema = {
                "type": "object",
                "description": "One Server-Sent Event.",
                "required": ["event", "data"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The event's seq."},
                    "event": {"type": "string", "enum": [*_EVENT_KINDS, "error"]},
                    "data": {
                        "type": "string",
                        "contentMediaType": "application/json",
                        "contentSchema": builder.ref(run_pb2.RunEvent.DESCRIPTOR),
                    },
                },
            }
            operation["responses"]["200"] = {
                "description": "Server-Sent Events: `id:` is the event seq, `event:` the kind "
                "(status_changed, plan_created, step_updated), `data:` the RunEvent as proto3 JSON "
                "(schema agentrt.v1.RunEvent). The stream ends after the terminal event.",
                "content": {"text/event-stream": {"schema": event_schema}},
            }
            operation["responses"]["204"] = {
                "description": "The run already ended before after_seq: nothing to send."
            }
        else:
            operation["responses"]["200"] = {
                "description": "OK",
                "content": {"application/json": {"schema": builder.ref(route.rpc.output_type)}},
            }
        paths.setdefault(route.path, {})[route.verb] = operation

    health = {
        "type": "object",
        "properties": {
            "status": {"type": "string"},
            "services": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    for path, text in (
        ("/healthz", "Aggregated grpc.health.v1 status of all four services."),
        ("/readyz", "Ready when the gateway can accept runs (the executor is serving)."),
    ):
        paths[path] = {
            "get": {
                "operationId": path.strip("/"),
                "summary": text,
                "security": [],
                "responses": {
                    "200": {"description": "Serving", "content": {"application/json": {"schema": health}}},
                    "503": {
                        "description": "Not serving",
                        "content": {"application/json": {"schema": health}},
                    },
                },
            }
        }
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {
            "title": "agentrt REST API",
            "version": __version__,
            "description": "The agentrt.v1.RunService over HTTP. Bodies are the proto3 JSON of the same "
            "messages as gRPC. Generated from the .proto files.",
        },
        "paths": paths,
        "components": {"schemas": {**builder.components, "Error": ERROR_SCHEMA}},
    }
    if auth_enabled:
        document["components"]["securitySchemes"] = {"apiKey": {"type": "http", "scheme": "bearer"}}
        document["security"] = [{"apiKey": []}]
    return document
