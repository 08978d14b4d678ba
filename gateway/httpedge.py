"""What the gateway's HTTP edges, REST (rest.py), MCP (mcp.py, mcp_route.py) and A2A (a2a_route.py),
share: who an HTTP request's caller is, a JSON body read within its bounds of size and depth
(one bound for every edge), and the one JSON error envelope with its gRPC -> HTTP status table.
Neither edge imports the other.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Message, Receive

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


class BodyRefused(Exception):
    """A body refused before anything parses it: too large (413) or nested too deep (400). Each
    edge answers it in its protocol's shape (`refusal` for REST, `jsonrpc_refusal` for A2A and
    /mcp)."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message


# A JSON string (quotes, and anything escaped, inside), in the unrolled form with possessive
# loops (nothing to backtrack into), ended by its closing quote or by the end of the body (a lone
# backslash before it included): a match can never fail once it starts, so the scan is one pass.
# (Requiring the closing quote made the engine rescan to the end from every quote: a 64 KiB body
# of `\"` took 14 s, one of `"\` 20 s.) Then the bytes that are not brackets, deleted before
# the brackets are counted.
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEPS = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")
# The most digits a number may have. No field agentrt reads needs more than 20 (int64), and past
# 4,300 Python's int() refuses a number with a ValueError that an SDK answers as an internal
# error (-32603).
MAX_NUMBER_DIGITS = 400
# Tried only where a run of digits starts: each run is read once, not once per digit in it.
_LONG_NUMBER = re.compile(rb"(?<![0-9])[0-9]{%d}" % (MAX_NUMBER_DIGITS + 1))


@dataclass(frozen=True)
class JsonShape:
    depth: int  # how deeply it nests
    long_number: bool  # whether a number has more than MAX_NUMBER_DIGITS digits


def json_shape(raw: bytes) -> JsonShape:
    """What `raw` is shaped like, found without parsing it: its strings removed, the brackets
    left counted as +1/-1 steps in C, and the rest searched for a long run of digits, each a single
    linear pass (a 64 KiB body takes milliseconds, whatever its bytes). Valid JSON reads the same
    to this as to a parser; invalid JSON may read deeper, and is refused either way."""
    skeleton = _STRING.sub(b"", raw)
    steps = skeleton.translate(_STEPS, _NOT_BRACKETS)
    depth = max(itertools.accumulate(memoryview(steps).cast("b")), default=0)
    return JsonShape(depth, _LONG_NUMBER.search(skeleton) is not None)


async def json_body(request: Request, limit: int, max_depth: int) -> bytes:
    """The body of a JSON request, read within `limit` bytes and checked before any parser or
    SDK sees it: UTF-8 (RFC 8259; a parser guessing UTF-16 from a body's first bytes failed
    with an internal error), nested no deeper than `max_depth`, no number longer than
    MAX_NUMBER_DIGITS. The one bound of every HTTP edge (REST, A2A, /mcp). Raises BodyRefused;
    ClientDisconnect passes through."""
    raw = await bounded_body(request, limit)
    if raw is None:
        raise BodyRefused(413, "REQUEST_TOO_LARGE", f"request body is larger than {limit} bytes")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyRefused(400, "INVALID_JSON", f"request body is not UTF-8 (byte {exc.start})") from None
    shape = json_shape(raw)
    if shape.depth > max_depth:
        raise BodyRefused(
            400,
            "JSON_TOO_DEEP",
            f"request body nests {shape.depth} levels deep; at most {max_depth} are accepted",
        )
    if shape.long_number:
        raise BodyRefused(
            400, "INVALID_JSON", f"request body has a number of more than {MAX_NUMBER_DIGITS} digits"
        )
    return raw


def replayed(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands an app the body already read, whole, then passes on what comes
    next (only a disconnect can)."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if delivered:
            return await receive()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def refusal(refused: BodyRefused) -> JSONResponse:
    """A refused body as the REST envelope."""
    return error_response(
        grpc.StatusCode.INVALID_ARGUMENT, refused.message, http=refused.status, reason=refused.reason
    )


def jsonrpc_refusal(refused: BodyRefused) -> JSONResponse:
    """A refused body as JSON-RPC's Invalid Request (-32600; the id is unknown, so null), with the
    HTTP status saying the same, and the reason as an ErrorInfo in `data` (as A2A's errors carry
    theirs)."""
    info = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": refused.reason,
        "domain": DOMAIN,
        "metadata": {"retryable": "false"},
    }
    error = {"code": -32600, "message": refused.message, "data": [info]}
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, status_code=refused.status)


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
