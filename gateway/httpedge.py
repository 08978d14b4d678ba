"""What the gateway's HTTP edges, REST (rest.py), MCP (mcp.py, mcp_route.py) and A2A (a2a_route.py),
share: who an HTTP request's caller is, a body read within its bound, and the one JSON error
envelope with its gRPC -> HTTP status table.
Neither edge imports the other.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import json_format
from starlette.requests import Request
from starlette.responses import JSONResponse

from agentrt.core.errors import DOMAIN, AgentrtError
from agentrt.server.credentials import bearer
from gateway.auth import retry_after_header
from gateway.edge import Caller

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
    for detail in details:
        if detail.get("@type", "").endswith("google.rpc.RetryInfo"):
            seconds = float(str(detail.get("retryDelay", "1s")).rstrip("s") or 1)
            headers["Retry-After"] = retry_after_header(seconds)
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(body, status_code=status, headers=headers)


def body_too_large(limit: int) -> JSONResponse:
    text = f"request body is larger than {limit} bytes"
    return error_response(grpc.StatusCode.INVALID_ARGUMENT, text, http=413, reason="REQUEST_TOO_LARGE")


async def bounded_body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None when it is larger than `limit` bytes: by its Content-Length,
    or counted as it arrives (no more than `limit` and one chunk is ever held)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            return None
    return bytes(raw)


def from_error(err: AgentrtError) -> JSONResponse:
    """An error as the envelope, with every google.rpc detail it carries (a relayed executor
    error keeps its ErrorInfo, BadRequest and RetryInfo exactly)."""
    status = err.rpc_status()
    details = json_format.MessageToDict(status).get("details", [])
    return error_response(err.code, status.message, details)


def http_caller(request: Request, protocol: str = "rest") -> Caller:
    """The caller of an HTTP request: its bearer key and its address (REST and /mcp alike)."""
    return Caller(
        bearer(request.headers.get("authorization")),
        request.client.host if request.client else "unknown",
        protocol=protocol,
        # Every X-Forwarded-For line, in order: a proxy may add its own line after the client's.
        forwarded_for=",".join(request.headers.getlist("x-forwarded-for")) or None,
    )
