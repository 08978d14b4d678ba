"""A scripted OpenAI-compatible server for the agent loop's tests: real HTTP, real litellm on the
other side, deterministic answers.

Each request to /v1/chat/completions gets the next scripted reply (or `script(request)` decides):
text, or tool calls, streamed as Server-Sent Events when the request asks for a stream, as
OpenAI does (content pieces, tool call deltas, a usage chunk, [DONE]). Every request is kept, so a
test can count what the model was asked; `hold` makes replies wait (an LLM call in flight), and
a client that goes away while one waits is counted in `disconnected`.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from gateway.http import HttpServer

PROMPT_TOKENS = 100
COMPLETION_TOKENS = 20


@dataclass
class Reply:
    """One answer of the model: text, and/or tool calls as (name, arguments)."""

    content: str = ""
    calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    status: int = 200  # another status: the provider's error, as OpenAI's JSON error body


def error(status: int, message: str = "scripted error") -> Reply:
    return Reply(status=status, content=message)


def call(name: str, **arguments: Any) -> Reply:
    return Reply(calls=[(name, arguments)])


def answer(text: str) -> Reply:
    return Reply(content=text)


class ScriptedLLM:
    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies = list(replies or [])
        self.script: Callable[[dict[str, Any]], Reply] | None = None
        self.requests: list[dict[str, Any]] = []
        self.hold: asyncio.Event | None = None  # set: answer; unset: wait (in the server's loop)
        self.hold_if: Callable[[dict[str, Any]], bool] | None = None  # which requests wait
        self.word_delay = 0.0  # seconds between streamed words (a slow model, for watchers)
        self.disconnected = 0
        self.model_lists = 0  # GET /v1/models: health checks
        self.server = HttpServer(
            Starlette(
                routes=[
                    Route("/v1/chat/completions", self._complete, methods=["POST"]),
                    # What CheckModels asks an OpenAI-compatible server: no scripted reply used up.
                    Route("/v1/models", self._models, methods=["GET"]),
                ]
            ),
            "127.0.0.1",
            0,
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/v1"

    def model(self, **extra: Any) -> dict[str, Any]:
        """An AGENTRT_LLM_MODELS entry for this server."""
        return {"model": "openai/scripted", "api_base": self.api_base, "tool_calling": "tools", **extra}

    async def start(self) -> None:
        await self.server.start()

    async def stop(self) -> None:
        if self.hold is not None:
            self.hold.set()
        await self.server.stop()

    def release(self) -> None:
        """Let held replies go (from any thread)."""
        if self.hold is None:
            return
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.hold.set)
        else:
            self.hold.set()

    def hold_replies(self) -> None:
        """Make replies wait until release() (from any thread)."""
        if self._loop is not None:
            ready = threading.Event()

            def make() -> None:
                self.hold = asyncio.Event()
                ready.set()

            self._loop.call_soon_threadsafe(make)
            ready.wait(5)
        else:
            self.hold = asyncio.Event()

    def start_in_thread(self) -> None:
        """Serve from a thread of its own (for tests whose agentrt runs in other processes)."""
        ready = threading.Event()

        def serve() -> None:
            self._loop = asyncio.new_event_loop()
            self._loop.run_until_complete(self.start())
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(10)

    def stop_thread(self) -> None:
        if self._loop is None or self._thread is None:
            return
        asyncio.run_coroutine_threadsafe(self.stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _models(self, request: Request) -> Response:
        self.model_lists += 1
        return JSONResponse({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    async def _complete(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        held = self.hold is not None and (self.hold_if is None or self.hold_if(body))
        if held and self.hold is not None and not self.hold.is_set():
            waiting = asyncio.create_task(self.hold.wait())
            while not waiting.done():
                if await request.is_disconnected():
                    self.disconnected += 1
                    waiting.cancel()
                    return Response(status_code=499)
                await asyncio.wait([waiting], timeout=0.05)
        if self.script is not None:
            reply = self.script(body)
        elif self.replies:
            reply = self.replies.pop(0)
        else:
            reply = answer("(the script has no more replies)")
        if reply.status != 200:
            kind = {401: "invalid_request_error", 404: "not_found_error"}.get(reply.status, "server_error")
            body_error = {"error": {"message": reply.content, "type": kind, "code": str(reply.status)}}
            return JSONResponse(body_error, status_code=reply.status)
        model = str(body.get("model", "scripted"))  # as providers do: litellm prices by it
        if body.get("stream"):
            return StreamingResponse(self._chunks(reply, model), media_type="text/event-stream")
        return JSONResponse(_completion(reply, model))

    async def _chunks(self, reply: Reply, model: str) -> AsyncIterator[bytes]:
        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
            data = {
                "id": "scripted",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **extra,
            }
            return f"data: {json.dumps(data)}\n\n".encode()

        yield chunk({"role": "assistant", "content": ""})
        words = reply.content.split(" ") if reply.content else []
        for n, word in enumerate(words):
            yield chunk({"content": word if n == 0 else " " + word})
            await asyncio.sleep(self.word_delay)
        for n, (name, arguments) in enumerate(reply.calls):
            raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": n,
                            "id": f"call_{n}",
                            "type": "function",
                            "function": {"name": name, "arguments": raw},
                        }
                    ]
                }
            )
        yield chunk({}, "tool_calls" if reply.calls else "stop")
        usage = {
            "prompt_tokens": PROMPT_TOKENS,
            "completion_tokens": COMPLETION_TOKENS,
            "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
        }
        data = {"id": "scripted", "object": "chat.completion.chunk", "created": 0, "model": model}
        yield f"data: {json.dumps({**data, 'choices': [], 'usage': usage})}\n\n".encode()
        yield b"data: [DONE]\n\n"


def _completion(reply: Reply, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": name, "arguments": a if isinstance(a, str) else json.dumps(a)},
            }
            for n, (name, a) in enumerate(reply.calls)
        ]
    return {
        "id": "scripted",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if reply.calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": PROMPT_TOKENS,
            "completion_tokens": COMPLETION_TOKENS,
            "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
        },
    }
