"""The REST routes, read from the `google.api.http` options in the .proto files.

The protos say which HTTP verb and path template serve each RPC and whether the request comes
as the body; rest.py serves these routes and openapi.py documents them. A new annotated RPC is
a new route in both, with no table to keep in step. What both must read alike about a route (the
spellings an enum takes in a query string) is worked out here, once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from google.api import annotations_pb2
from google.protobuf import descriptor, message, message_factory

from agentrt.v1 import run_pb2, tool_service_pb2

_PARAM = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
# Request fields that an HTTP header carries on a route with a body, by the HTTP convention for
# them, and not the body: one place each, so a request cannot give two values that disagree.
HEADER_FIELDS = {"idempotency_key": "Idempotency-Key"}


@dataclass(frozen=True)
class HttpRoute:
    """One annotated RPC; what each request needs is worked out here, once."""

    verb: str  # "get", "post", ...
    path: str  # a template: /v1/runs/{run_id}:cancel
    rpc: descriptor.MethodDescriptor
    body: bool  # the request message is the JSON body (body: "*")
    primary: bool = True  # False for an additional binding (another path to the same RPC)
    path_params: tuple[str, ...] = field(init=False)
    # Request fields given as query parameters: all but path and body ones (scalars).
    query_fields: tuple[descriptor.FieldDescriptor, ...] = field(init=False)
    request_class: type[message.Message] = field(init=False)
    # On a route with a body: request field -> the header that carries it (HEADER_FIELDS).
    header_fields: dict[str, str] = field(init=False, compare=False)
    # Request fields the path or a header gives, never the body: name -> its JSON name.
    bound_fields: dict[str, str] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        params = tuple(_PARAM.findall(self.path))
        queried = (
            ()
            if self.body
            else tuple(
                f
                for f in self.rpc.input_type.fields
                if f.name not in params and f.type != descriptor.FieldDescriptor.TYPE_MESSAGE
            )
        )
        object.__setattr__(self, "path_params", params)
        object.__setattr__(self, "query_fields", queried)
        object.__setattr__(self, "request_class", message_factory.GetMessageClass(self.rpc.input_type))
        fields = self.rpc.input_type.fields_by_name
        headers = {name: header for name, header in HEADER_FIELDS.items() if self.body and name in fields}
        object.__setattr__(self, "header_fields", headers)
        object.__setattr__(
            self, "bound_fields", {name: fields[name].json_name for name in (*params, *headers)}
        )

    @property
    def streaming(self) -> bool:
        return self.rpc.server_streaming

    @property
    def name(self) -> str:
        """Unique per route (the OpenAPI operationId): the RPC's name, and for an additional
        binding the path parameters it adds (CreateRunByThreadId)."""
        if self.primary:
            return self.rpc.name
        return self.rpc.name + "By" + "".join(w.title() for p in self.path_params for w in p.split("_"))


def query_enum_values(enum_type: descriptor.EnumDescriptor) -> dict[str, int]:
    """The spellings an enum takes as a query parameter, and their numbers: each value's name
    (RUN_STATUS_FAILED) and its short lower-case name (failed). The type's prefix is what its zero
    value's name has before UNSPECIFIED (buf's ENUM_ZERO_VALUE_SUFFIX rule makes it so)."""
    prefix = enum_type.values[0].name.removesuffix("UNSPECIFIED")
    values = {v.name: v.number for v in enum_type.values}
    values.update({v.name.removeprefix(prefix).lower(): v.number for v in enum_type.values})
    return values


def http_routes(service: descriptor.ServiceDescriptor) -> list[HttpRoute]:
    """The annotated RPCs of `service`, in declaration order."""
    routes = []
    for method in service.methods:
        options = method.GetOptions()
        if not options.HasExtension(annotations_pb2.http):
            continue
        top = options.Extensions[annotations_pb2.http]
        # An additional binding is another path to the same RPC (POST /v1/threads/{thread_id}/runs
        # is CreateRun with the thread from the path); one level only, as google.api.http says.
        for rule in (top, *top.additional_bindings):
            verb = rule.WhichOneof("pattern")
            if verb not in ("get", "post", "put", "patch", "delete"):
                raise ValueError(f"{method.full_name}: unsupported http rule {verb!r}")
            if rule.body not in ("", "*") or (rule is not top and rule.additional_bindings):
                raise ValueError(f"{method.full_name}: only body '*' or none, and no nested bindings")
            routes.append(HttpRoute(verb, getattr(rule, verb), method, rule.body == "*", rule is top))
    return routes


# What the gateway serves over REST: all of RunService, and the tool catalog from ToolService
# (its other RPCs are for the executor and for providers, not for the public edge).
RUN_SERVICE = run_pb2.DESCRIPTOR.services_by_name["RunService"]
TOOL_SERVICE = tool_service_pb2.DESCRIPTOR.services_by_name["ToolService"]
ROUTES = http_routes(RUN_SERVICE) + http_routes(TOOL_SERVICE)
