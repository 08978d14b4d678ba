"""The REST API's OpenAPI 3.1 document, derived from the protobuf contracts.

Every request and response schema is generated from the message descriptors using the proto3 JSON
mapping (camelCase json names, int64 as strings, enums by name, well-known types), with the
descriptions taken from the .proto comments, and the paths are the protos' google.api.http
options (routes.py), the same the REST adapter serves. So REST, its document and gRPC cannot
drift apart: change a .proto, regenerate, and the document follows.

What a request field accepts beyond its type is the protos' field rules (agentrt/core/fieldrules.py)
read with the gateway's settings: the rules the executor checks every request with, configured
limits included, so what the document calls valid is what the server accepts. The same builder
without the rules gives the JSON shape the REST adapter holds bodies to (`body_validator`): the
types this document states, so json_format's leniencies (null for any field, numbers written as
strings, enum numbers) are refused as the document says rather than let through.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import jsonschema_rs
from google.protobuf import descriptor, descriptor_pb2

from agentrt import __version__
from agentrt.config import GatewaySettings
from agentrt.core.fieldrules import TYPE_RANGE, Rules, digits_at_most, integer_bounds
from agentrt.v1 import run_pb2
from gateway.routes import ROUTES, HttpRoute, query_enum_values

OPENAPI_VERSION = "3.1.0"
FD = descriptor.FieldDescriptor


def _integer(kind: int, fmt: str) -> dict[str, Any]:
    low, high = TYPE_RANGE[kind]
    return {"type": "integer", "format": fmt, "minimum": low, "maximum": high}


def _integer64(kind: int, fmt: str) -> dict[str, Any]:
    # proto3 JSON writes 64-bit integers as decimal strings and reads numbers as well.
    low, high = TYPE_RANGE[kind]
    pattern = "^-?[0-9]+$" if low < 0 else "^[0-9]+$"
    return {"type": ["string", "integer"], "format": fmt, "pattern": pattern, "minimum": low, "maximum": high}


_SCALARS: dict[int, dict[str, Any]] = {
    FD.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FD.TYPE_FLOAT: {"type": "number", "format": "float"},
    **{t: _integer(t, "int32") for t in (FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32)},
    **{t: _integer(t, "uint32") for t in (FD.TYPE_UINT32, FD.TYPE_FIXED32)},
    **{t: _integer64(t, "int64") for t in (FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64)},
    **{t: _integer64(t, "uint64") for t in (FD.TYPE_UINT64, FD.TYPE_FIXED64)},
    FD.TYPE_BOOL: {"type": "boolean"},
    FD.TYPE_STRING: {"type": "string"},
    FD.TYPE_BYTES: {"type": "string", "format": "byte"},
}
_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Timestamp": {
        "type": "string",
        "format": "date-time",
        "examples": ["2026-11-22T22:00:15.464Z"],
    },
    "google.protobuf.Duration": {
        "type": "string",
        "pattern": r"^-?[0-9]+(\.[0-9]{1,9})?s$",
        "examples": ["1.5s"],
    },
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {"description": "Any JSON value."},  # null included
    "google.protobuf.ListValue": {"type": "array", "items": {}},
}
# A pattern this long (the printable characters' class) is stated once, as a component.
_SHARED_PATTERN_CHARS = 500


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
    """JSON Schemas of messages and fields, collected as components. With `rules`, request
    fields state their field rules; without, only their JSON shape. With `aliases`, each field
    may also be named as in the .proto (max_steps), as proto3 JSON parsers read them."""

    comments: dict[str, str]
    rules: Rules | None = None
    aliases: bool = False
    components: dict[str, Any] = field(default_factory=dict)
    _shared: dict[str, str] = field(default_factory=dict)  # a schema's JSON -> its component

    def ref(self, message: descriptor.Descriptor) -> dict[str, Any]:
        if message.full_name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[message.full_name])
        if message.full_name not in self.components:
            self.components[message.full_name] = {}  # placeholder: recursion-safe
            self.components[message.full_name] = self._message(message)
        return {"$ref": f"#/components/schemas/{message.full_name}"}

    def body(self, route: HttpRoute) -> dict[str, Any]:
        """The schema of `route`'s JSON body: its request message, less the fields its path and
        headers give (then as a component of its own, "<message>.Body")."""
        request = route.rpc.input_type
        whole = self.ref(request)  # the message itself, as gRPC takes it, is documented too
        if not route.bound_fields:
            return whole
        # The main route's body is "<message>.Body"; another binding's leaves out other fields.
        name = f"{request.full_name}.Body" if route.primary else f"{request.full_name}.{route.name}Body"
        if name not in self.components:
            self.components[name] = self._message(request, frozenset(route.bound_fields))
        return {"$ref": f"#/components/schemas/{name}"}

    def _message(
        self, message: descriptor.Descriptor, left_out: frozenset[str] = frozenset()
    ) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required = []
        for f in message.fields:
            if f.name in left_out:
                continue
            properties[f.json_name] = self.field(f)
            if self.aliases and f.name != f.json_name:
                properties[f.name] = properties[f.json_name]
            # A field whose rules refuse its default (an empty prompt) is one a request must give.
            if self.rules is not None and self.rules.refuses_default(f):
                required.append(f.json_name)
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            schema["required"] = required
        if doc := self.comments.get(message.full_name):
            schema["description"] = doc
        if left_out:
            bound = ", ".join(sorted(left_out))
            note = f"As a body: without {bound} (the path or a header gives it)."
            schema["description"] = f"{schema.get('description', '')} {note}".strip()
        return schema

    def field(self, f: descriptor.FieldDescriptor, describe: bool = True) -> dict[str, Any]:
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            value = f.message_type.fields_by_name["value"]
            schema: dict[str, Any] = {"type": "object", "additionalProperties": self._single(value)}
        elif f.is_repeated:
            schema = {"type": "array", "items": self._single(f)}
        else:
            schema = self._single(f)
        if self.rules is not None:
            keywords, _ = self.rules.schema(f)
            schema = self._share({**schema, **keywords}, f)  # a map's value rules replace its default
        if describe and (doc := self.describe(f)):
            # OpenAPI 3.1 is JSON Schema 2020-12: a $ref may carry a description beside it.
            schema = {**schema, "description": doc}
        return schema

    def describe(self, f: descriptor.FieldDescriptor) -> str:
        """The field's .proto comment, and the settings behind its limits."""
        note = self.rules.schema(f)[1] if self.rules is not None else ""
        return " ".join(part for part in (self.comments.get(f.full_name, ""), note) if part)

    def _single(self, f: descriptor.FieldDescriptor) -> dict[str, Any]:
        if f.type == FD.TYPE_MESSAGE:
            return self.ref(f.message_type)
        if f.type == FD.TYPE_ENUM:
            return {"type": "string", "enum": [v.name for v in f.enum_type.values]}
        return dict(_SCALARS[f.type])

    def _share(self, schema: dict[str, Any], f: descriptor.FieldDescriptor) -> dict[str, Any]:
        """`schema`, or a reference to it when its pattern is long: the printable characters'
        class is stated once per rule, not at every run_id."""
        if len(schema.get("pattern", "")) < _SHARED_PATTERN_CHARS:
            return schema
        key = json.dumps(schema, sort_keys=True)
        if key not in self._shared:
            rule = self.rules.rule(f) if self.rules is not None else None
            if rule is not None and rule.printable:
                low, high = rule.min_len, rule.max_len
                name = f"PrintableText.{low}-{high}"
                text = f"Printable characters (Python's str.isprintable), {low} to {high} of them."
                schema = {**schema, "description": text}
            else:
                name = f"{f.containing_type.full_name}.{f.name}"
            self._shared[key] = name
            self.components[name] = schema
        return {"$ref": f"#/components/schemas/{self._shared[key]}"}


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
# The `data:` of an `event: error` in a WatchRun stream: the stream ended on this error.
STREAM_ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"status": {"type": "string"}, "message": {"type": "string"}},
            "required": ["status", "message"],
        }
    },
    "required": ["error"],
}
_ERRORS = {
    "400": "Invalid request (malformed JSON, wrong types, unknown fields, invalid values).",
    "401": "Missing or invalid API key.",
    "403": "The key's principal may not do this (another principal's run, or its listing).",
    "404": "No such run.",
    "409": "Conflict with the run's state (FAILED_PRECONDITION) or a reused idempotency key "
    "(ALREADY_EXISTS).",
    "429": "Rate limit exceeded; see Retry-After.",
    "503": "A backend service is unavailable.",
    "504": "A backend deadline was exceeded.",
}
_BODY_ERRORS = {
    "413": "Request body too large (AGENTRT_MAX_REQUEST_BYTES).",
    "415": "The body is not JSON: send Content-Type: application/json.",
}
# Last-Event-ID: an event seq, a number up to 2^63-1 in at most 19 digits (rest.py reads it so).
LAST_EVENT_ID_PATTERN = digits_at_most(2**63 - 1)


def body_validator(route: HttpRoute) -> jsonschema_rs.Validator:
    """The JSON shape of `route`'s body as this document states it (types, enum names, known
    fields, none the path or a header gives), without the field rules, which the executor checks
    with its own messages; fields may be named as in the .proto too."""
    builder = SchemaBuilder({}, aliases=True)
    root = builder.body(route)
    return jsonschema_rs.Draft202012Validator({**root, "components": {"schemas": builder.components}})


def build_openapi(auth_enabled: bool, settings: GatewaySettings) -> dict[str, Any]:
    """The document, with `settings`' configured limits: build it with the settings the server
    validates with."""
    comments = _load_comments()
    rules = Rules(settings)
    builder = SchemaBuilder(comments, rules)
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        request = route.rpc.input_type
        parameters: list[dict[str, Any]] = []
        for name in route.path_params:
            f = request.fields_by_name[name]
            parameters.append(
                {
                    "name": name,
                    "in": "path",
                    "required": True,
                    "schema": builder.field(f, describe=False),
                    "description": comments.get(f.full_name, ""),
                }
            )
        for f in route.query_fields:
            if f.type == FD.TYPE_ENUM:  # rest.py reads these spellings
                schema = {"type": "string", "enum": list(query_enum_values(f.enum_type))}
            elif f.type in TYPE_RANGE:  # a plain number in a query string (rest.py)
                low, high = integer_bounds(f, rules.rule(f))
                schema = {
                    "type": "integer",
                    "format": _SCALARS[f.type]["format"],
                    "minimum": low,
                    "maximum": high,
                }
            else:
                schema = builder.field(f, describe=False)
            parameters.append(
                {
                    "name": f.name,
                    "in": "query",
                    "required": False,
                    "schema": schema,
                    "description": builder.describe(f),
                }
            )
        errors = {**_ERRORS, **(_BODY_ERRORS if route.body else {})}
        operation: dict[str, Any] = {
            "operationId": route.name,
            "summary": f"{route.rpc.containing_service.name}.{route.rpc.name}",
            "description": comments.get(route.rpc.full_name, ""),
            "parameters": parameters,
            "responses": {
                code: {
                    "description": text,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                }
                for code, text in sorted(errors.items())
            },
        }
        if route.body:
            # A body is required where a field of it must be given (CreateRun's prompt); where
            # every field is optional (CreateThread's metadata), no body is an empty one.
            bound = route.bound_fields
            needed = any(rules.refuses_default(f) for f in request.fields if f.name not in bound)
            operation["requestBody"] = {
                "required": needed,
                "content": {"application/json": {"schema": builder.body(route)}},
            }
        for name, header in route.header_fields.items():
            f = request.fields_by_name[name]
            parameters.append(
                {
                    "name": header,
                    "in": "header",
                    "required": rules.refuses_default(f),
                    "schema": builder.field(f, describe=False),
                    "description": f"The request's {name}, which the body does not carry. "
                    + builder.describe(f),
                }
            )
        if route.streaming:
            parameters.append(
                {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string", "pattern": LAST_EVENT_ID_PATTERN},
                    "description": "Resume after this event seq (an EventSource sends it on reconnect); "
                    "it wins over after_seq.",
                }
            )
            if auth_enabled:
                parameters.append(
                    {
                        "name": "access_token",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "string"},
                        "description": "The API key, for clients that cannot send a header (EventSource); "
                        "only when there is no Authorization header.",
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
                        "contentSchema": {
                            "anyOf": [
                                builder.ref(run_pb2.RunEvent.DESCRIPTOR),
                                {"$ref": "#/components/schemas/StreamError"},
                            ]
                        },
                    },
                },
            }
            operation["responses"]["200"] = {
                "description": "Server-Sent Events: `id:` is the event seq, `event:` the kind "
                "(status_changed, plan_created, step_updated, turn_decided, planner_retry; the "
                "transient text_delta, heartbeat and step_progress have no `id:`), `data:` the "
                "RunEvent as proto3 JSON "
                "(schema agentrt.v1.RunEvent), or `event: error` with the error that ended the "
                "stream. The stream ends after the terminal event.",
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
            "models": {
                "type": "array",
                "description": "/healthz: whether each configured model answers (model, answers, seconds, "
                "and error's code and reason; where it is and why: `agentrt health`); absent while the "
                "planner has not answered. Reported, not part of status.",
                "items": {"type": "object"},
            },
        },
    }
    for path, text in (
        ("/healthz", "Aggregated grpc.health.v1 status of all four services, and whether the models answer."),
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
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "agentrt REST API",
            "version": __version__,
            "description": "The agentrt.v1.RunService over HTTP. Bodies are the proto3 JSON of the same "
            "messages as gRPC, in the forms this document states (a field may also be named as in the "
            ".proto: max_steps for maxSteps). Generated from the .proto files; the limits named "
            "AGENTRT_* are this server's settings, with their configured values.",
        },
        "paths": paths,
        "components": {
            "schemas": {**builder.components, "Error": ERROR_SCHEMA, "StreamError": STREAM_ERROR_SCHEMA}
        },
    }
    if auth_enabled:
        document["components"]["securitySchemes"] = {"apiKey": {"type": "http", "scheme": "bearer"}}
        document["security"] = [{"apiKey": []}]
    return document
