"""A real MCP server for the tests, written with the SDK and served over Streamable HTTP.

Run as a separate process (`python -m tests.mcp_server --port N`) so a test can SIGKILL it and
start it again on the same port. Besides its tools (`whoami` answers with the call context
agentrt sent in the request's `_meta`) it serves two control routes the tests use:
POST /control/grow adds the tool `shout` and announces the change (tools list_changed), and
GET /control/state reports the calls it saw and the ones that were cancelled, the credentials
each `whoami` call came with (`callers`), and those of every request to /mcp (`requests`).
"""

from __future__ import annotations

import argparse
from typing import Annotated, Any

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.subscriptions import ToolsListChanged
from mcp.types import ToolAnnotations
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field
from starlette.requests import Request
from starlette.responses import JSONResponse

bus = InMemorySubscriptionBus()
server = MCPServer("agentrt-test-server", version="1.0.0", subscriptions=bus)
calls: list[str] = []
cancelled: list[str] = []
# The credential headers of whoami's calls, and of every request to /mcp (sessions opened,
# listings, pings): a test of credentials per principal reads whose reached the server.
callers: list[dict[str, str]] = []
requests: list[dict[str, str]] = []
# Sessions of 2025-era clients (the initialize handshake): told of changes by a notification.
legacy_sessions: list[Any] = []
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


@server.tool(annotations=READ_ONLY)
def echo(text: Annotated[str, Field(max_length=1000)], ctx: Context) -> str:
    """Return the text as it was given."""
    calls.append(f"echo:{text}")
    session = ctx.request_context.session
    if (
        ctx.request_context.protocol_version not in MODERN_PROTOCOL_VERSIONS
        and session not in legacy_sessions
    ):
        legacy_sessions.append(session)
    return text


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def add_note(note: str) -> dict[str, str]:
    """Keep a note (a write that destroys nothing)."""
    calls.append(f"add_note:{note}")
    return {"kept": note}


@server.tool(name="Fail-Loudly", annotations=READ_ONLY)
def fail_loudly(reason: str) -> str:
    """Always fails, with the reason given (an isError result)."""
    calls.append(f"fail:{reason}")
    raise ToolError(f"refused on purpose: {reason}")


@server.tool(annotations=READ_ONLY)
async def slow(seconds: float, tag: str) -> str:
    """Wait, then answer; a cancelled wait is recorded under its tag."""
    calls.append(f"slow:{tag}")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        cancelled.append(tag)
        raise
    return f"slept {seconds}"


@server.tool(annotations=READ_ONLY)
def big(kilobytes: int) -> str:
    """Answer with this many kilobytes of text (outputs past the limits)."""
    calls.append(f"big:{kilobytes}")
    return "x" * (kilobytes * 1024)


@server.tool(annotations=READ_ONLY)
def whoami(ctx: Context) -> dict[str, Any]:
    """The agentrt call context this call came with: its request's `_meta` entries "agentrt/..."."""
    calls.append("whoami")
    request = ctx.request_context.request
    callers.append(_credentials(dict(request.headers) if request is not None else {}))
    meta = ctx.request_context.meta or {}
    return {key: value for key, value in meta.items() if key.startswith("agentrt/")}


def shout(text: str) -> str:
    """Return the text in capitals."""
    calls.append(f"shout:{text}")
    return text.upper()


@server.custom_route("/control/grow", methods=["POST"])
async def grow(request: Request) -> JSONResponse:
    if "shout" not in [t.name for t in await server.list_tools()]:
        server.add_tool(shout, annotations=READ_ONLY)
    await bus.publish(ToolsListChanged())
    for session in legacy_sessions:
        await session.send_tool_list_changed()
    return JSONResponse({"tools": [t.name for t in await server.list_tools()]})


@server.custom_route("/control/state", methods=["GET"])
async def state(request: Request) -> JSONResponse:
    return JSONResponse({"calls": calls, "cancelled": cancelled, "callers": callers, "requests": requests})


def _credentials(headers: dict[str, str]) -> dict[str, str]:
    """The headers that say who is calling: a credential, or agentrt's signed caller."""
    kept = ("authorization", "x-api-key", "x-test")
    return {k: v for k, v in headers.items() if k in kept or k.startswith("agentrt-caller")}


def _recording(app: Any) -> Any:
    """The app, recording the credentials of every request to /mcp before it is served."""

    async def recorded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/mcp"):
            requests.append(_credentials({k.decode().lower(): v.decode() for k, v in scope["headers"]}))
        await app(scope, receive, send)

    return recorded


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    app = _recording(server.streamable_http_app())
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
