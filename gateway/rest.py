"""The REST/SSE adapter: RunService over HTTP with proto3 JSON bodies.

Its routes are the `google.api.http` options of the protos (routes.py). Each request becomes the
same request message the gRPC API takes (path parameters, then the JSON body parsed by
google.protobuf.json_format with unknown fields rejected, or query parameters), and goes through
the Edge like a gRPC call: auth, deadline and errors are handled there once. The answer is the
proto3 JSON of the response message, so a run read over REST is json_format of the gRPC Run;
a streaming RPC (WatchRun) is served as Server-Sent Events (sse-starlette).

A request is held to what the OpenAPI document (openapi.py) states, no less: a body to the JSON
types the document gives (json_format alone would also take null for any field, numbers in
strings and enum numbers), a query parameter to one value of its type within its field's rules.
The field rules themselves are the executor's to check, with their messages.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

import grpc
import jsonschema_rs
import structlog
from google.protobuf import descriptor, json_format, message
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

from agentrt.config import GatewaySettings
from agentrt.core.errors import AgentrtError, InvalidArgument, NotFound
from agentrt.core.fieldrules import TYPE_RANGE, Rules, integer_bounds
from agentrt.core.health import probe_async
from agentrt.core.runstate import TERMINAL
from agentrt.core.text import clip
from agentrt.core.values import normalize
from agentrt.v1 import planner_service_pb2, planner_service_pb2_grpc, run_pb2
from gateway.edge import Caller, Edge
from gateway.httpedge import (
    BodyRefused,
    body_too_large,
    error_response,
    from_error,
    http_caller,
    json_body,
    refusal,
)
from gateway.openapi import LAST_EVENT_ID_PATTERN, body_validator, build_openapi
from gateway.routes import ROUTES, HttpRoute, query_enum_values
from gateway.securityheaders import SecuredStarlette, policy

log = structlog.get_logger("gateway.rest")

SSE_KEEPALIVE_S = 15.0
# A client that takes this long to accept one event is gone: its stream ends.
SSE_SEND_TIMEOUT_S = 30.0
# Lines end in LF (sse-starlette's default is CRLF): what clients that split on "\n\n" expect.
_SSE_SEP = "\n"
STATIC = resources.files("gateway").joinpath("static")
FD = descriptor.FieldDescriptor


def to_json(msg: message.Message) -> str:
    """proto3 JSON via json_format; integral Struct numbers print as integers (2, not 2.0)."""
    return json.dumps(normalize(json_format.MessageToDict(msg)), ensure_ascii=False)


def proto_json(msg: message.Message, status_code: int = 200) -> Response:
    return Response(to_json(msg), status_code=status_code, media_type="application/json")


class RestApi:
    def __init__(self, edge: Edge, health: dict[str, grpc.aio.Channel], settings: GatewaySettings) -> None:
        self._edge = edge
        self._health = health
        self._settings = settings
        # Made at its first request (the printable characters' class takes a scan of Unicode).
        self._openapi: dict[str, Any] | None = None
        rules = Rules(settings)
        self._queries = {r.name: _QueryParser(r, rules) for r in ROUTES if r.query_fields}
        self._shapes = {r.name: body_validator(r) for r in ROUTES if r.body}

    def app(self, extra: list[Route] | None = None) -> Starlette:
        """The routes of the protos, the pages, and `extra` (the MCP endpoint, gateway/mcp.py)."""
        # The one streaming RPC, WatchRun, is served as SSE (see _stream).
        assert all(r.rpc.name == "WatchRun" for r in ROUTES if r.streaming)
        # One route per path with all of its methods, so that a method it lacks is a 405 whose
        # Allow lists them all; paths ending in a custom verb (:cancel) first, so that their 405
        # is theirs and not that of /v1/runs/{run_id}, whose pattern also matches them.
        by_path: dict[str, list[HttpRoute]] = {}
        for r in ROUTES:
            by_path.setdefault(r.path, []).append(r)
        ordered = sorted(by_path, key=lambda path: ":" not in path.rpartition("/")[2])
        routes = [self._path_route(path, by_path[path]) for path in ordered]
        routes += extra or []
        routes += [
            # Custom methods the protos do not define (POST /v1/runs/<id>:frobnicate): a 404
            # that says which exist, rather than 405 from the GetRun route's path.
            Route("/v1/runs/{name}", self._unknown_action, methods=["POST"]),
            Route("/healthz", self.healthz, methods=["GET"]),
            Route("/readyz", self.readyz, methods=["GET"]),
            Route("/openapi.json", self.openapi, methods=["GET"]),
            Route("/docs", self.docs, methods=["GET"]),
            Route("/", self.page, methods=["GET"]),
            Route("/favicon.ico", self.favicon, methods=["GET"]),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
            Mount("/docs/assets", StaticFiles(directory=swagger_ui_path), name="docs-assets"),
        ]
        return SecuredStarlette(
            routes=routes,
            exception_handlers={HTTPException: self._http_exception, Exception: self._unexpected},
            # Security headers on every response (securityheaders.py); /docs with its own CSP.
            policies={"/docs": _DOCS_POLICY},
        )

    # -- RPC routes ------------------------------------------------------------------------

    def _path_route(self, path: str, served: list[HttpRoute]) -> Route:
        endpoints = {r.verb.upper(): self._endpoint(r) for r in served}

        async def endpoint(request: Request) -> Response:
            # Starlette answers HEAD with GET's endpoint and drops the body.
            return await endpoints["GET" if request.method == "HEAD" else request.method](request)

        return Route(path, endpoint, methods=list(endpoints), name="+".join(r.name for r in served))

    def _endpoint(self, route: HttpRoute) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                caller = self._caller(request, route)

                async def parse() -> message.Message:
                    return await self._request_message(route, request)

                if route.streaming:
                    return await self._stream(caller, parse)
                return proto_json(await self._edge.call(route.rpc.name, caller, parse))
            except AgentrtError as err:
                return from_error(err)
            except _BodyRefused as refused:
                return refused.response

        return endpoint

    @staticmethod
    def _caller(request: Request, route: HttpRoute) -> Caller:
        """`?access_token=` counts only on streams: a browser's EventSource cannot send a
        header; elsewhere a key in the URL would end up in logs and histories."""
        caller = http_caller(request)
        if caller.api_key is None and route.streaming:
            return dataclasses.replace(caller, api_key=request.query_params.get("access_token"))
        return caller

    async def _stream(self, caller: Caller, parse: Callable[[], Awaitable[message.Message]]) -> Response:
        """WatchRun as Server-Sent Events: `id:` is the event seq, so a reconnecting EventSource
        resumes after the last event it saw (Last-Event-ID)."""
        watch = run_pb2.WatchRunRequest()

        async def get_run() -> run_pb2.GetRunRequest:
            watch.CopyFrom(await parse())
            return run_pb2.GetRunRequest(run_id=watch.run_id)

        # Authenticated once, before the request is read; then GetRun: a missing run (or
        # another principal's) is a 404, and a run that ended before after_seq is a 204, which
        # also stops an EventSource from reconnecting.
        principal = self._edge.authenticate(caller, "WatchRun")
        got = await self._edge.call("GetRun", caller, get_run, principal)
        assert isinstance(got, run_pb2.GetRunResponse)
        if got.run.status in TERMINAL and watch.after_seq >= got.run.last_seq:
            return Response(status_code=204)
        return EventSourceResponse(
            _events(self._edge.watch(watch, caller, principal)),
            ping=SSE_KEEPALIVE_S,
            send_timeout=SSE_SEND_TIMEOUT_S,
            sep=_SSE_SEP,
            headers={"Cache-Control": "no-cache"},
        )

    async def _request_message(self, route: HttpRoute, request: Request) -> message.Message:
        into = route.request_class()
        if route.body:
            await self._parse_body(request, into, route, self._shapes[route.name])
            for name, header in route.header_fields.items():
                if (value := request.headers.get(header)) is not None:
                    setattr(into, name, value)
        else:
            if route.query_fields:
                self._queries[route.name].parse(request, into)
            if route.streaming and "after_seq" in route.rpc.input_type.fields_by_name:
                _last_event_id(request, into)
        for name in route.path_params:
            setattr(into, name, request.path_params[name])
        return into

    async def _parse_body(
        self, request: Request, into: message.Message, route: HttpRoute, shape: jsonschema_rs.Validator
    ) -> None:
        limit = self._settings.max_request_bytes
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise _BodyRefused.too_large(limit)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type not in _JSON_TYPES and not content_type.endswith("+json"):
            raise _BodyRefused.unsupported(content_type)
        try:
            raw = await json_body(request, limit, self._settings.max_json_depth)
        except BodyRefused as refused:
            raise _BodyRefused(refusal(refused)) from None
        # json_body held it to max_json_depth: neither parse below can recurse too deep.
        try:
            data = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError as exc:  # bad UTF-8, bad JSON, or an integer of thousands of digits
            raise InvalidArgument(f"request body is not valid JSON: {exc}", reason="INVALID_JSON") from None
        if not isinstance(data, dict):
            raise InvalidArgument(
                f"request body must be a JSON object, got {type(data).__name__}", reason="INVALID_JSON"
            )
        for name, json_name in route.bound_fields.items():
            if name in data or json_name in data:
                where = route.header_fields.get(name, "")
                where = f"the {where} header" if where else "the path"
                raise InvalidArgument(
                    f"{name} goes in {where}, not the body", violations=[(name, f"give it in {where}")]
                )
        try:
            json_format.ParseDict(data, into)
        except (json_format.ParseError, ValueError, TypeError) as exc:
            raise InvalidArgument(f"invalid request body: {exc}", reason="INVALID_JSON") from None
        # json_format parsed it; the document's types hold it to the forms they state.
        if not shape.is_valid(data):
            error = next(shape.iter_errors(data))
            where = ".".join(str(part) for part in error.instance_path) or "body"
            raise InvalidArgument(
                f"invalid request body: {where}: {clip(error.message, 200)}",
                violations=[(where, "not of the type the API document states")],
                reason="INVALID_JSON",
            )

    async def _unknown_action(self, request: Request) -> Response:
        name = request.path_params["name"]
        verbs = sorted({r.path.rpartition(":")[2] for r in ROUTES if ":" in r.path.rpartition("/")[2]})
        use = " or ".join(f":{v}" for v in verbs)
        return from_error(NotFound(f"no such action: POST /v1/runs/{name} (use /v1/runs/<run_id>{use})"))

    # -- errors ----------------------------------------------------------------------------

    async def _http_exception(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        code = {404: grpc.StatusCode.NOT_FOUND, 405: grpc.StatusCode.UNIMPLEMENTED}.get(
            exc.status_code, grpc.StatusCode.INVALID_ARGUMENT
        )
        response = error_response(code, str(exc.detail), http=exc.status_code)
        # A 405's Allow (RFC 9110: required) names the methods its route serves.
        response.headers.update(exc.headers or {})
        return response

    async def _unexpected(self, request: Request, exc: Exception) -> Response:
        log.error("rest.unhandled_exception", path=request.url.path, exc_info=exc)
        return error_response(grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}", http=500)

    # -- health, docs, page ----------------------------------------------------------------

    async def _statuses(self) -> dict[str, str]:
        names = list(self._health)
        results = await asyncio.gather(*(probe_async(self._health[n]) for n in names))
        return {"gateway": "SERVING", **dict(zip(names, results, strict=True))}

    async def healthz(self, request: Request) -> Response:
        services, models = await asyncio.gather(self._statuses(), self._models())
        healthy = all(s == "SERVING" for s in services.values())
        body: dict[str, Any] = {"status": "SERVING" if healthy else "DEGRADED", "services": services}
        if models:  # none configured: nothing to say
            # Reported, not judged: the rules work without the model, and a probe that restarted
            # the gateway because a model provider is down would help nobody.
            body["models"] = models
        return JSONResponse(body, 200 if healthy else 503)

    async def _models(self) -> list[dict[str, Any]] | None:
        """Whether each configured model answers (the planner's CheckModels, answers it keeps for
        a while); None when the planner does not say within MODELS_CHECK_S (it goes on checking,
        and a later /healthz has its answer) or is down (services says so). /healthz answers
        anyone, so it says which model and whether it answers, with the reason's code, but not
        where the model is nor the message naming it: `agentrt health` says that to the operator."""
        stub = planner_service_pb2_grpc.PlannerServiceStub(self._health["planner"])
        try:
            request = planner_service_pb2.CheckModelsRequest()
            response = await stub.CheckModels(request, timeout=MODELS_CHECK_S)
        except grpc.aio.AioRpcError:
            return None
        out: list[dict[str, Any]] = []
        for model in response.models:
            said: dict[str, Any] = {"model": model.model, "answers": model.answers, "seconds": model.seconds}
            if not model.answers:
                said["error"] = {"code": model.error.code, "reason": model.error.reason}
            out.append(said)
        return out

    async def readyz(self, request: Request) -> Response:
        executor = (await self._statuses())["executor"]
        ready = executor == "SERVING"
        return JSONResponse(
            {"status": "READY" if ready else "NOT_READY", "services": {"executor": executor}},
            200 if ready else 503,
        )

    async def openapi(self, request: Request) -> Response:
        if self._openapi is None:
            # The limits it states are these settings': the executor's too, in one deployment.
            self._openapi = build_openapi(self._edge.auth_enabled, self._settings)
        return JSONResponse(self._openapi)

    async def docs(self, request: Request) -> Response:
        return HTMLResponse(_DOCS_PAGE)

    async def page(self, request: Request) -> Response:
        return FileResponse(str(STATIC.joinpath("index.html")))

    async def favicon(self, request: Request) -> Response:
        # Browsers ask for /favicon.ico whatever the page says; an SVG answers both.
        return FileResponse(str(STATIC.joinpath("favicon.svg")), media_type="image/svg+xml")


# How long /healthz waits for the planner's word on the models (a probe's own timeout is often 1 s).
MODELS_CHECK_S = 0.8
_SEQ = re.compile(LAST_EVENT_ID_PATTERN)  # what the document states; anchored, 19 digits at most
_INT = re.compile(r"-?[0-9]{1,19}")
# JSON only; a request without a body (POST :cancel) may omit the header. `curl -d` without
# `-H 'Content-Type: application/json'` sends form encoding: 415 says what to send.
_JSON_TYPES = {"", "application/json"}


class _BodyRefused(Exception):
    """A body refused before it is parsed: too large (413) or not JSON (415)."""

    def __init__(self, response: JSONResponse) -> None:
        super().__init__()
        self.response = response

    @classmethod
    def too_large(cls, limit: int) -> _BodyRefused:
        return cls(body_too_large(limit))

    @classmethod
    def unsupported(cls, content_type: str) -> _BodyRefused:
        text = f"unsupported content type '{content_type}': send application/json"
        return cls(
            error_response(grpc.StatusCode.INVALID_ARGUMENT, text, http=415, reason="UNSUPPORTED_MEDIA_TYPE")
        )


def _last_event_id(request: Request, into: Any) -> None:
    """A reconnecting EventSource sends Last-Event-ID: its cursor wins over the URL's."""
    last_event_id = request.headers.get("last-event-id")
    if last_event_id is None:
        return
    # ASCII digits only (str.isdigit also accepts "²"), and within seq's int64 range.
    raw = last_event_id.strip()
    if not _SEQ.fullmatch(raw):
        raise InvalidArgument(
            "Last-Event-ID must be an event seq (a number up to 2^63-1)",
            violations=[("Last-Event-ID", "not an event seq")],
        )
    into.after_seq = int(raw)


class _QueryParser:
    """A route's query parameters into its request message, as the document states them: each
    given once, an integer within its field's rules (0 or more for our counts and cursors), an
    enum by one of its spellings (status=failed, status=RUN_STATUS_FAILED)."""

    def __init__(self, route: HttpRoute, rules: Rules) -> None:
        self._fields = route.query_fields
        self._bounds = {
            f.name: integer_bounds(f, rules.rule(f)) for f in route.query_fields if f.type in TYPE_RANGE
        }
        self._enums = {
            f.name: query_enum_values(f.enum_type) for f in route.query_fields if f.type == FD.TYPE_ENUM
        }

    def parse(self, request: Request, into: message.Message) -> None:
        params = request.query_params
        for f in self._fields:
            # grpc-gateway's convention: a field by its .proto name or its JSON name.
            values = params.getlist(f.name) + (params.getlist(f.json_name) if f.json_name != f.name else [])
            if not values:
                continue
            if len(values) > 1:
                raise InvalidArgument(
                    f"{f.name} is given {len(values)} times: give it once",
                    violations=[(f.name, "given more than once")],
                )
            if values[0] == "" and f.type == FD.TYPE_STRING:
                continue  # the field's default
            setattr(into, f.name, self._value(f, values[0]))

    def _value(self, f: descriptor.FieldDescriptor, raw: str) -> Any:
        if f.name in self._bounds:
            if not _INT.fullmatch(raw):
                raise InvalidArgument(
                    f"{f.name} must be an integer, got {clip(raw, 40)!r}",
                    violations=[(f.name, "not an integer")],
                )
            value, (low, high) = int(raw), self._bounds[f.name]
            if not low <= value <= high:
                raise InvalidArgument(
                    f"{f.name} must be between {low} and {high}", violations=[(f.name, "out of range")]
                )
            return value
        if f.name in self._enums:
            spellings = self._enums[f.name]
            if raw not in spellings:
                shown = ", ".join(name for name in spellings if name.islower())
                raise InvalidArgument(
                    f"unknown {f.name} {clip(raw, 40)!r} (one of: {shown}, or the full names)",
                    violations=[(f.name, "unknown value")],
                )
            return spellings[raw]
        if f.type == FD.TYPE_BOOL:
            if raw not in ("true", "false"):
                raise InvalidArgument(
                    f"{f.name} must be true or false", violations=[(f.name, "not a boolean")]
                )
            return raw == "true"
        return raw


async def _events(responses: AsyncIterator[run_pb2.WatchRunResponse]) -> AsyncIterator[ServerSentEvent]:
    try:
        async for response in responses:
            event = response.event
            # A transient event has no id: a reconnecting EventSource resumes after stored ones.
            yield ServerSentEvent(
                data=to_json(event),
                event=event.WhichOneof("kind"),
                id=None if event.transient else str(event.seq),
                sep=_SSE_SEP,
            )
    except AgentrtError as err:
        status = err.rpc_status()
        body = {"error": {"status": err.code.name, "message": status.message}}
        yield ServerSentEvent(data=json.dumps(body), event="error", sep=_SSE_SEP)


# validatorUrl null: Swagger UI would otherwise send the document's URL to validator.swagger.io
# and show its badge, an image from elsewhere that the policy refuses.
_DOCS_SCRIPT = (
    'window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", validatorUrl: null});'
)
_DOCS_PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentrt API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>{_DOCS_SCRIPT}</script>
</body></html>"""
# The page's policy with its one inline script, by hash, and the data: URIs Swagger UI's
# stylesheet draws its icons with.
_DOCS_POLICY = policy(scripts=[_DOCS_SCRIPT], images=["data:"])
