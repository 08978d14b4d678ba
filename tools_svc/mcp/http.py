"""The HTTP client tools_svc speaks Streamable HTTP with: a bound on what one answer may weigh.

The SDK bounds each Server-Sent Event (`max_sse_event_size`) but reads a plain JSON answer
whole; a hostile or broken server could make tools_svc hold any amount. Here every non-SSE
response body is counted as it arrives and cut off past the limit, before anything parses it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx2

# Connect/write/pool quickly; read slowly, as the SDK's own client does (a stream may idle).
TIMEOUT = httpx2.Timeout(30.0, read=300.0)


class ResponseTooLarge(httpx2.TransportError):
    """An answer larger than the limit: the connection is dropped mid-body."""


def bounded_client(
    headers: dict[str, str],
    limit: int,
    on_refused: Callable[[str], None],
    on_request: Callable[[httpx2.Request], Awaitable[None]] | None = None,
) -> httpx2.AsyncClient:
    """`on_refused` hears why an answer was cut off: the SDK then only reports that the
    connection closed, and the caller deserves to know it was the answer's size. `on_request`
    sees each request before it is sent (it signs whom the session's calls are for)."""
    transport = _BoundedTransport(limit, on_refused)
    hooks = {"request": [on_request]} if on_request else None
    return httpx2.AsyncClient(headers=headers, timeout=TIMEOUT, transport=transport, event_hooks=hooks)


class _BoundedTransport(httpx2.AsyncBaseTransport):
    def __init__(self, limit: int, on_refused: Callable[[str], None]) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._limit = limit
        self._on_refused = on_refused

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return response  # each event is bounded by the SDK (max_sse_event_size)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._limit:
            await response.aclose()
            raise self._refuse(
                f"the server's answer is {declared} bytes, more than the limit of {self._limit}"
            )
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_Bounded(response.stream, self._limit, self._refuse),
            extensions=response.extensions,
            request=request,
        )

    def _refuse(self, why: str) -> ResponseTooLarge:
        self._on_refused(why)
        return ResponseTooLarge(why)

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Bounded(httpx2.AsyncByteStream):
    def __init__(
        self, stream: httpx2.AsyncByteStream, limit: int, refuse: Callable[[str], ResponseTooLarge]
    ) -> None:
        self._stream = stream
        self._limit = limit
        self._refuse = refuse

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._stream:
            seen += len(chunk)
            if seen > self._limit:
                raise self._refuse(f"the server's answer is more than the limit of {self._limit} bytes")
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()
