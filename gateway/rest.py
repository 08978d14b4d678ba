"""The REST/SSE bridge: RunService over HTTP with proto3 JSON bodies.

Requests are parsed with google.protobuf.json_format into the same request messages the gRPC API
takes (unknown fields rejected), forwarded to the executor, and answered with the proto3 JSON of
the response message. So a run read over REST is byte-for-byte json_format of the gRPC Run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

import grpc
import structlog
from google.protobuf import json_format, message
from google.rpc import status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

from agentrt.client.errors import DOMAIN, AgentrtError, InvalidArgument, NotFound
from agentrt.client.text import clip
from agentrt.client.values import normalize
from agentrt.config import Settings
from agentrt.core.runstate import TERMINAL
from agentrt.v1 import run_pb2, run_pb2_grpc, tool_service_pb2, tool_service_pb2_grpc
from gateway.auth import Auth, bearer, retry_after_header
from gateway.fanout import WatchFanout
from gateway.openapi import build_openapi

log = structlog.get_logger("gateway.rest")

# One table from gRPC status to HTTP status, for every error the API returns.
HTTP_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}
_DETAILS_KEY = "grpc-status-details-bin"
UNARY_TIMEOUT_S = 30.0
SSE_KEEPALIVE_S = 15.0
STATIC = resources.files("gateway").joinpath("static")


def error_response(
    code: grpc.StatusCode,
    message_text: str,
    details: list[dict[str, Any]] | None = None,
    http: int | None = None,
    reason: str | None = None,
) -> JSONResponse:
    """The one error envelope. Errors raised by the bridge itself (413, 415, unknown routes) get
    the ErrorInfo every other error carries, with `reason` (default: the code's name)."""
    status = http or HTTP_STATUS.get(code, 500)
    if not details:
        details = [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": reason or code.name,
                "domain": DOMAIN,
                "metadata": {"retryable": "false"},
            }
        ]
    body = {"error": {"code": status, "status": code.name, "message": message_text, "details": details}}
    headers = {}
    for detail in details or []:
        if detail.get("@type", "").endswith("google.rpc.RetryInfo"):
            seconds = float(str(detail.get("retryDelay", "1s")).rstrip("s") or 1)
            headers["Retry-After"] = retry_after_header(seconds)
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(body, status_code=status, headers=headers)


def _details_of(trailing: Any) -> list[dict[str, Any]]:
    for key, value in trailing or ():
        if key == _DETAILS_KEY:
            return json_format.MessageToDict(status_pb2.Status.FromString(value)).get("details", [])
    return []


def from_agentrt_error(err: AgentrtError) -> JSONResponse:
    status = err.to_status()
    return error_response(err.code, err.message, _details_of(status.trailing_metadata))


def from_rpc_error(err: grpc.aio.AioRpcError) -> JSONResponse:
    return error_response(err.code(), err.details() or "", _details_of(err.trailing_metadata()))


def to_json(msg: message.Message) -> str:
    """proto3 JSON via json_format; integral Struct numbers print as integers (2, not 2.0)."""
    return json.dumps(normalize(json_format.MessageToDict(msg)), ensure_ascii=False)


def proto_json(msg: message.Message, status_code: int = 200) -> Response:
    return Response(to_json(msg), status_code=status_code, media_type="application/json")


class RestApi:
    def __init__(
        self,
        runs: run_pb2_grpc.RunServiceStub,
        tools: tool_service_pb2_grpc.ToolServiceStub,
        health: dict[str, grpc.aio.Channel],
        auth: Auth,
        settings: Settings,
        *,
        fanout: WatchFanout,
    ) -> None:
        self._runs = runs
        self._fanout = fanout
        self._tools = tools
        self._health = health
        self._auth = auth
        self._settings = settings
        self._openapi = build_openapi(auth.enabled)

    def app(self) -> Starlette:
        api = self._api
        routes = [
            Route("/v1/runs", api(self.runs), methods=["GET", "POST"]),
            Route("/v1/runs/{name}", api(self.run), methods=["GET", "POST"]),
            Route("/v1/runs/{run_id}/events", api(self.events, token_in_query=True), methods=["GET"]),
            Route("/v1/tools", api(self.tools), methods=["GET"]),
            Route("/healthz", self.healthz, methods=["GET"]),
            Route("/readyz", self.readyz, methods=["GET"]),
            Route("/openapi.json", self.openapi, methods=["GET"]),
            Route("/docs", self.docs, methods=["GET"]),
            Route("/", self.page, methods=["GET"]),
            Route("/favicon.ico", self.favicon, methods=["GET"]),
            Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
            Mount("/docs/assets", StaticFiles(directory=swagger_ui_path), name="docs-assets"),
        ]
        return Starlette(
            routes=routes,
            exception_handlers={HTTPException: self._http_exception, Exception: self._unexpected},
        )

    # -- plumbing --------------------------------------------------------------------------

    def _api(
        self, handler: Callable[[Request], Awaitable[Response]], *, token_in_query: bool = False
    ) -> Callable[[Request], Awaitable[Response]]:
        """Authenticate, rate-limit, and turn every error into the JSON error envelope.
        `token_in_query`: also accept ?access_token=, only where a browser cannot send a header
        (EventSource); elsewhere a key in the URL would end up in logs and histories."""

        async def endpoint(request: Request) -> Response:
            try:
                presented = bearer(request.headers.get("authorization"))
                if presented is None and token_in_query:
                    presented = request.query_params.get("access_token")
                self._auth.check(presented, _client_address(request))
                return await handler(request)
            except AgentrtError as err:
                return from_agentrt_error(err)
            except grpc.aio.AioRpcError as err:
                return from_rpc_error(err)

        return endpoint

    async def _http_exception(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        code = {404: grpc.StatusCode.NOT_FOUND, 405: grpc.StatusCode.UNIMPLEMENTED}.get(
            exc.status_code, grpc.StatusCode.INVALID_ARGUMENT
        )
        return error_response(code, str(exc.detail), http=exc.status_code)

    async def _unexpected(self, request: Request, exc: Exception) -> Response:
        log.error("rest.unhandled_exception", path=request.url.path, exc_info=exc)
        return error_response(grpc.StatusCode.INTERNAL, f"internal error: {type(exc).__name__}", http=500)

    async def _body(self, request: Request, into: message.Message) -> message.Message:
        limit = self._settings.max_request_bytes
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise _TooLarge(limit)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type not in _JSON_TYPES and not content_type.endswith("+json"):
            raise _UnsupportedMedia(content_type)
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > limit:
                raise _TooLarge(limit)
        try:
            data = json.loads(raw.decode("utf-8")) if raw else {}
        except RecursionError:
            raise InvalidArgument("request body is nested too deeply", reason="INVALID_JSON") from None
        except ValueError as exc:  # bad UTF-8, bad JSON, or an integer of thousands of digits
            raise InvalidArgument(f"request body is not valid JSON: {exc}", reason="INVALID_JSON") from None
        if not isinstance(data, dict):
            raise InvalidArgument(
                f"request body must be a JSON object, got {type(data).__name__}", reason="INVALID_JSON"
            )
        try:
            json_format.ParseDict(data, into)
        except RecursionError:
            raise InvalidArgument("request body is nested too deeply", reason="INVALID_JSON") from None
        except (json_format.ParseError, ValueError, TypeError) as exc:
            raise InvalidArgument(f"invalid request body: {exc}", reason="INVALID_JSON") from None
        return into

    # -- RunService ------------------------------------------------------------------------

    async def runs(self, request: Request) -> Response:
        if request.method == "POST":
            try:
                create = await self._body(request, run_pb2.CreateRunRequest())
            except _TooLarge as exc:
                return error_response(
                    grpc.StatusCode.INVALID_ARGUMENT, str(exc), http=413, reason="REQUEST_TOO_LARGE"
                )
            except _UnsupportedMedia as exc:
                return error_response(
                    grpc.StatusCode.INVALID_ARGUMENT, str(exc), http=415, reason="UNSUPPORTED_MEDIA_TYPE"
                )
            assert isinstance(create, run_pb2.CreateRunRequest)
            header_key = request.headers.get("idempotency-key", "")
            if header_key:
                if create.idempotency_key and create.idempotency_key != header_key:
                    raise InvalidArgument(
                        "the Idempotency-Key header and idempotency_key in the body differ",
                        violations=[("idempotency_key", "must match the Idempotency-Key header")],
                    )
                create.idempotency_key = header_key
            if len(create.prompt) > self._settings.max_prompt_chars:
                raise InvalidArgument(
                    f"prompt is too long ({len(create.prompt)} > {self._settings.max_prompt_chars} chars)",
                    violations=[("prompt", f"must be at most {self._settings.max_prompt_chars} characters")],
                )
            return proto_json(await self._runs.CreateRun(create, timeout=UNARY_TIMEOUT_S))
        query = request.query_params
        listing = run_pb2.ListRunsRequest(page_token=query.get("page_token", ""))
        listing.page_size = _int_param(query, "page_size", minimum=0, maximum=2**31 - 1)
        if status := query.get("status"):
            listing.status = _run_status(status)
        return proto_json(await self._runs.ListRuns(listing, timeout=UNARY_TIMEOUT_S))

    async def run(self, request: Request) -> Response:
        name = request.path_params["name"]
        if request.method == "GET":
            return proto_json(
                await self._runs.GetRun(run_pb2.GetRunRequest(run_id=name), timeout=UNARY_TIMEOUT_S)
            )
        run_id, _, verb = name.rpartition(":")
        if verb == "cancel" and run_id:
            cancel = run_pb2.CancelRunRequest(run_id=run_id)
            return proto_json(await self._runs.CancelRun(cancel, timeout=UNARY_TIMEOUT_S))
        if verb == "retry" and run_id:
            retry = run_pb2.RetryRunRequest(run_id=run_id)
            return proto_json(await self._runs.RetryRun(retry, timeout=UNARY_TIMEOUT_S))
        raise NotFound(f"no such action: POST /v1/runs/{name} (use /v1/runs/<run_id>:cancel or :retry)")

    async def events(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        last_event_id = request.headers.get("last-event-id")
        if last_event_id is not None:  # a reconnecting EventSource: its cursor wins over the URL's
            # ASCII digits only (str.isdigit also accepts "²"), and within seq's int64 range.
            raw = last_event_id.strip()
            if not _SEQ.fullmatch(raw) or int(raw) > _MAX_SEQ:
                raise InvalidArgument(
                    "Last-Event-ID must be an event seq (a number up to 2^63-1)",
                    violations=[("Last-Event-ID", "not an event seq")],
                )
            after_seq = int(raw)
        else:
            after_seq = _int_param(request.query_params, "after_seq", minimum=0, maximum=_MAX_SEQ)
        run = (await self._runs.GetRun(run_pb2.GetRunRequest(run_id=run_id), timeout=UNARY_TIMEOUT_S)).run
        if run.status in TERMINAL and after_seq >= run.last_seq:
            return Response(status_code=204)  # nothing more will come; 204 also stops EventSource retries
        return StreamingResponse(
            _sse(self._fanout.watch(run_id, after_seq)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def tools(self, request: Request) -> Response:
        return proto_json(
            await self._tools.ListTools(tool_service_pb2.ListToolsRequest(), timeout=UNARY_TIMEOUT_S)
        )

    # -- health, docs, page ----------------------------------------------------------------

    async def _statuses(self) -> dict[str, str]:
        async def check(channel: grpc.aio.Channel) -> str:
            try:
                response = await health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(), timeout=1.0
                )
            except grpc.aio.AioRpcError as err:
                return "UNREACHABLE" if err.code() == grpc.StatusCode.UNAVAILABLE else err.code().name
            return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)

        names = list(self._health)
        results = await asyncio.gather(*(check(self._health[n]) for n in names))
        return {"gateway": "SERVING", **dict(zip(names, results, strict=True))}

    async def healthz(self, request: Request) -> Response:
        services = await self._statuses()
        healthy = all(s == "SERVING" for s in services.values())
        return JSONResponse(
            {"status": "SERVING" if healthy else "DEGRADED", "services": services}, 200 if healthy else 503
        )

    async def readyz(self, request: Request) -> Response:
        executor = (await self._statuses())["executor"]
        ready = executor == "SERVING"
        return JSONResponse(
            {"status": "READY" if ready else "NOT_READY", "services": {"executor": executor}},
            200 if ready else 503,
        )

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(self._openapi)

    async def docs(self, request: Request) -> Response:
        return HTMLResponse(_DOCS_PAGE)

    async def page(self, request: Request) -> Response:
        return FileResponse(str(STATIC.joinpath("index.html")))

    async def favicon(self, request: Request) -> Response:
        # Browsers ask for /favicon.ico whatever the page says; an SVG answers both.
        return FileResponse(str(STATIC.joinpath("favicon.svg")), media_type="image/svg+xml")


_SEQ = re.compile(r"[0-9]{1,19}")
_INT = re.compile(r"-?[0-9]{1,19}")
_MAX_SEQ = 2**63 - 1


def _client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


# JSON only; a request without a body (POST :cancel) may omit the header. `curl -d` without
# `-H 'Content-Type: application/json'` sends form encoding: 415 says what to send.
_JSON_TYPES = {"", "application/json"}


class _TooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"request body is larger than {limit} bytes")


class _UnsupportedMedia(Exception):
    def __init__(self, content_type: str) -> None:
        super().__init__(f"unsupported content type '{content_type}': send application/json")


def _int_param(query: Any, name: str, minimum: int, maximum: int) -> int:
    raw = query.get(name)
    if raw is None or raw == "":
        return 0
    if not _INT.fullmatch(raw):
        raise InvalidArgument(
            f"{name} must be an integer, got {clip(raw, 40)!r}", violations=[(name, "not an integer")]
        )
    value = int(raw)
    if not minimum <= value <= maximum:
        raise InvalidArgument(
            f"{name} must be between {minimum} and {maximum}", violations=[(name, "out of range")]
        )
    return value


def _run_status(raw: str) -> int:
    name = raw.strip().upper()
    name = name if name.startswith("RUN_STATUS_") else f"RUN_STATUS_{name}"
    if name not in run_pb2.RunStatus.keys():  # noqa: SIM118 - an EnumTypeWrapper, not a dict
        allowed = ", ".join(k.removeprefix("RUN_STATUS_").lower() for k in run_pb2.RunStatus.keys()[1:])
        raise InvalidArgument(
            f"unknown status {raw!r} (one of: {allowed})", violations=[("status", "unknown value")]
        )
    return run_pb2.RunStatus.Value(name)


async def _sse(responses: AsyncIterator[run_pb2.WatchRunResponse]) -> AsyncIterator[bytes]:
    """Relay WatchRun as Server-Sent Events, with keep-alive comments while the run is quiet."""
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=64)  # bounded: a slow client stalls only its own call
    done = object()

    async def pump() -> None:
        try:
            async for response in responses:
                await queue.put(response.event)
            await queue.put(done)
        except grpc.aio.AioRpcError as err:
            await queue.put(err)

    reader = asyncio.create_task(pump())
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), SSE_KEEPALIVE_S)
            except TimeoutError:
                yield b": keep-alive\n\n"
                continue
            if item is done:
                return
            if isinstance(item, grpc.aio.AioRpcError):
                body = {"error": {"status": item.code().name, "message": item.details()}}
                yield f"event: error\ndata: {json.dumps(body)}\n\n".encode()
                return
            data = to_json(item)
            yield f"id: {item.seq}\nevent: {item.WhichOneof('kind')}\ndata: {data}\n\n".encode()
    finally:
        reader.cancel()  # which ends the watch, leaving its shared stream or its own call
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await reader


_DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentrt API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui"});</script>
</body></html>"""
