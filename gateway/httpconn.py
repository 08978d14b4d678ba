"""One HTTP connection, as uvicorn's h11 protocol serves it, with two changes at the edge of what
the app ever sees:

- The request line and headers are bounded by AGENTRT_MAX_HEADER_BYTES: while they arrive (h11's
  incomplete-event limit) and once they have (`bounded_headers`, before any route); past it the
  answer is 431 with the gateway's JSON error envelope (uvicorn answers every protocol error with
  a plain 400).
- A refused connection is closed by lingering: the answer is written, our side shut for
  writing, and whatever the client still sends is read and dropped (within LINGER_BYTES and
  LINGER_S) before the socket closes. Closing a socket with unread data makes the kernel send a
  reset, which can reach the client before it has read the answer: 100 headers of 4 KB were
  answered with "connection reset" instead of a status.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from agentrt.core.errors import DOMAIN
from gateway.securityheaders import default_headers

# How long, and how much, a refused connection is read and dropped before it is closed.
LINGER_S = 2.0
LINGER_BYTES = 1024 * 1024


def _envelope(status: int, code: str, reason: str, message: str) -> bytes:
    info = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": reason,
        "domain": DOMAIN,
        "metadata": {"retryable": "false"},
    }
    error = {"code": status, "status": code, "message": message, "details": [info]}
    return json.dumps({"error": error}).encode()


class BoundedH11Protocol(H11Protocol):
    """uvicorn's H11Protocol with the header bound's 431 and a lingering close (module doc)."""

    max_header_bytes = 32 * 1024  # set per server by `bounded_protocol`

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lingering: asyncio.TimerHandle | None = None
        self._dropped = 0

    def data_received(self, data: bytes) -> None:
        if self._lingering is not None:  # refused: only read, and drop, what is still coming
            self._dropped += len(data)
            if self._dropped > LINGER_BYTES:
                self.transport.close()
            return
        super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        # uvicorn calls this for every request h11 cannot parse; h11 keeps what it had read.
        too_long = len(self.conn.trailing_data[0]) > self.max_header_bytes
        if too_long:
            status, reason = 431, "HEADERS_TOO_LARGE"
            text = _too_large(self.max_header_bytes)
        else:
            status, reason, text = 400, "INVALID_ARGUMENT", "the request is not valid HTTP/1.1"
        body = _envelope(status, "INVALID_ARGUMENT", reason, text)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
            *default_headers(),
        ]
        phrase = b"Request Header Fields Too Large" if too_long else b"Bad Request"
        self.transport.write(self.conn.send(h11.Response(status_code=status, headers=headers, reason=phrase)))
        self.transport.write(self.conn.send(h11.Data(data=body)))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self._linger()

    def _linger(self) -> None:
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self._lingering = self.loop.call_later(LINGER_S, self.transport.close)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._lingering is not None:
            self._lingering.cancel()
        super().connection_lost(exc)


def bounded_headers(app: ASGIApp, max_header_bytes: int) -> ASGIApp:
    """`app`, behind the header bound for requests whose headers arrived whole: h11 bounds only
    an incomplete request line and headers (a client still sending them); a block of 80 KB read
    in one go reaches the app parsed. Such a request gets the same 431 here, before any route."""

    async def bounded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            size = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
            size += sum(len(name) + len(value) + 4 for name, value in scope["headers"])
            if size > max_header_bytes:
                body = _envelope(431, "INVALID_ARGUMENT", "HEADERS_TOO_LARGE", _too_large(max_header_bytes))
                # No "connection: close": uvicorn then reads a body still coming and drops it
                # before the next request, instead of closing on unread bytes (a reset).
                headers = [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    *default_headers(),
                ]
                await send({"type": "http.response.start", "status": 431, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return bounded


def _too_large(max_header_bytes: int) -> str:
    return f"the request line and headers are larger than {max_header_bytes} bytes"


def bounded_protocol(max_header_bytes: int) -> type[BoundedH11Protocol]:
    """The protocol class for one server, with its header bound."""
    return type("BoundedH11Protocol", (BoundedH11Protocol,), {"max_header_bytes": max_header_bytes})
