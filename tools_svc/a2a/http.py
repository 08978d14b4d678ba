"""The HTTP client tools_svc calls A2A agents with: no redirects, bounded time, and a bound on
what one answer may weigh, counted as it arrives and cut off past the limit before anything
parses it (the SDK reads a card or a JSON-RPC answer whole, and an agent is hostile input)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx


class AnswerTooLarge(httpx.TransportError):
    """An answer larger than the limit: the connection is dropped mid-body."""


def bounded_client(
    headers: dict[str, str],
    limit: int,
    timeout_s: float,
    on_request: Callable[[httpx.Request], Awaitable[None]] | None = None,
) -> httpx.AsyncClient:
    """`on_request` sees each request before it is sent (it signs whom the call is for)."""
    return httpx.AsyncClient(
        headers=headers,
        timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
        follow_redirects=False,  # an agent never sends us on to an address nobody allowed
        transport=_BoundedTransport(limit),
        event_hooks={"request": [on_request]} if on_request else None,
    )


class _BoundedTransport(httpx.AsyncBaseTransport):
    def __init__(self, limit: int) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._limit = limit

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._limit:
            await response.aclose()
            raise AnswerTooLarge(
                f"the agent's answer is {declared} bytes, more than the limit of {self._limit}"
            )
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_Bounded(response.stream, self._limit),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Bounded(httpx.AsyncByteStream):
    def __init__(self, stream: httpx.AsyncByteStream, limit: int) -> None:
        self._stream = stream
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._stream:
            seen += len(chunk)
            if seen > self._limit:
                raise AnswerTooLarge(f"the agent's answer is more than the limit of {self._limit} bytes")
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()
