"""One mounted MCP server: its session, its tools, and reconnection.

Each server gets one long-lived task that connects (a subprocess over stdio, or Streamable
HTTP), lists the tools, then keeps the session: it re-lists on `list_changed` (the
`subscriptions/listen` stream on 2026-07-28 servers, the notification on older ones) and pings
to notice a server that died quietly. When the session fails, the task reconnects with doubling
backoff; meanwhile the server's last known tools stay in the catalog as unreachable and calls
fail UNAVAILABLE (retryable: the executor's retry policy waits for the server to come back).

The SDK's transports are anyio task groups that must be entered and left by one task, so
everything but `call` happens in `_run`'s task; `call` only sends requests through the session.
Each call carries its context (whom it is for, which run and step) in the request's `_meta`.

A server whose calls differ per principal (credentials per principal, or the caller signed:
tools_svc/delegation.py) is held by one such connection for the catalog (listing its tools with
the shared headers) and one more per principal that calls it, opened on its first call
(sessions.py): the SDK fixes a session's headers when it connects, and a server may tie a
session to whoever opened it, so one principal's call never goes over another's session.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import grpc
import mcp_types as types
import pydantic
import structlog
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ListenNotSupportedError
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED, REQUEST_TIMEOUT
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

import agentrt
from agentrt.core.backoff import Backoff
from agentrt.core.errors import AgentrtError, InvalidArgument, ToolError, Unavailable
from agentrt.core.text import clip
from agentrt.v1 import tool_pb2, tool_service_pb2
from tools_svc.callcontext import CallContext
from tools_svc.mcp.http import bounded_client
from tools_svc.mcp.model import Limits, McpTool, Target
from tools_svc.mcp.sessions import PrincipalSessions
from tools_svc.mcp.translate import catalog_tool, output_of

log = structlog.get_logger("tools_svc.mcp")
S = tool_service_pb2
FIRST_BACKOFF_S = 0.5
# Each delay is cut by up to a fifth of itself, so replicas that lost the same server spread out
# while the doubling still shows.
BACKOFF_JITTER = 0.2
MAX_LIST_PAGES = 50
MAX_ERROR_CHARS = 1000
STOP_TIMEOUT_S = 10.0


@dataclass
class _Session:
    client: Client
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    broken: asyncio.Event = field(default_factory=asyncio.Event)


class McpConnection:
    def __init__(
        self, target: Target, limits: Limits, on_change: Callable[[], None], principal: str | None = None
    ) -> None:
        self.target = target
        self._limits = limits
        self._on_change = on_change
        # None: the server's own connection (the catalog's, and every call's unless they differ
        # per principal); a name: that principal's session, for its calls only.
        self.principal = principal
        self._log = log.bind(server=target.name, **({"principal": principal} if principal else {}))
        # What a failure says the session is: the server's, or one principal's with it.
        self._label = f"MCP server '{target.name}'" + (
            f" (the session for '{principal}')" if principal else ""
        )
        self._attempted = asyncio.Event()  # a connection attempt ended, connected or not
        self.sessions = (
            PrincipalSessions(target, limits, self._session_for)
            if principal is None and target.credentials.for_each_principal
            else None
        )
        self.state = S.MCP_SERVER_STATE_CONNECTING
        self.last_error = ""
        self.protocol_version = ""
        self.server_info = ""
        self.tools: dict[str, McpTool] = {}  # catalog name -> entry; kept while disconnected
        self.skipped: list[str] = []
        self._session: _Session | None = None
        self._refused: list[str] = []
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return self.target.name

    @property
    def connected(self) -> bool:
        return self.state == S.MCP_SERVER_STATE_CONNECTED

    def start(self) -> None:
        suffix = f":{self.principal}" if self.principal else ""
        self._task = asyncio.create_task(self._run(), name=f"mcp:{self.name}{suffix}")

    def _session_for(self, principal: str) -> McpConnection:
        return McpConnection(self.target, self._limits, _nothing, principal)

    def close_idle_sessions(self) -> None:
        if self.sessions is not None:
            self.sessions.close_idle()

    async def settled(self, timeout_s: float) -> None:
        """Wait, at most timeout_s, until a connection attempt has ended (connected or failed):
        a principal's session, opened for the call that waits."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._attempted.wait()

    async def stop(self) -> None:
        self._stopping = True
        if self.sessions is not None:
            await self.sessions.close()
        if self._task is None:
            return
        self._task.cancel()
        # The SDK closes its transport when cancelled (a subprocess is stopped, an HTTP session
        # ended); bounded, so a server that will not let go cannot hold up a shutdown.
        done, _ = await asyncio.wait({self._task}, timeout=STOP_TIMEOUT_S)
        if not done:
            self._log.warning("mcp.stop_timed_out", timeout_s=STOP_TIMEOUT_S)

    def describe(self) -> tool_service_pb2.McpServer:
        return S.McpServer(
            name=self.name,
            transport=self.target.transport,
            target=self.target.shown,
            origin=self.target.origin,
            state=self.state,  # type: ignore[arg-type]
            last_error=self.last_error,
            tools=sorted(self.tools),
            protocol_version=self.protocol_version,
            server_info=self.server_info,
            skipped_tools=self.skipped,
            credential_principals=self.target.credentials.principals,
            signs_caller=bool(self.target.credentials.signing_secret),
            principal_sessions=len(self.sessions) if self.sessions is not None else 0,
        )

    # -- the session task ------------------------------------------------------------------

    async def _run(self) -> None:
        backoff = Backoff(FIRST_BACKOFF_S, self._limits.reconnect_max_s, jitter=BACKOFF_JITTER)
        while not self._stopping:
            try:
                await self._hold_session()
                error = "the server ended the session"
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                error = _describe(exc)
            task = asyncio.current_task()
            if self._stopping or (task is not None and task.cancelling()):
                # Cancelled while the SDK was closing a session: it may have turned the
                # cancellation into a transport error, which must not become a reconnection.
                raise asyncio.CancelledError
            if self.connected:
                backoff.reset()  # it worked for a while: start the backoff afresh
            self._session = None
            self.last_error = error
            self._set_state(S.MCP_SERVER_STATE_DISCONNECTED)
            wait = backoff.next_delay()
            self._log.warning("mcp.disconnected", error=error, retry_in_s=round(wait, 2))
            await asyncio.sleep(wait)

    async def _hold_session(self) -> None:
        async with asyncio.timeout(self._limits.connect_timeout_s) as connecting, AsyncExitStack() as stack:
            transport = await self._transport(stack)
            session: _Session | None = None

            async def on_message(message: Any) -> None:
                # 2025-era servers announce changes as notifications on the session.
                if isinstance(message, types.ToolListChangedNotification) and session is not None:
                    session.changed.set()

            client = Client(
                transport,
                message_handler=on_message,
                client_info=types.Implementation(name="agentrt", version=agentrt.__version__),
                read_timeout_seconds=self._limits.list_timeout_s,
                cache=None,  # the catalog is the cache, refreshed on list_changed
                mode="legacy" if self.target.legacy else "auto",
            )
            await stack.enter_async_context(client)
            session = _Session(client)
            self.protocol_version = client.protocol_version or ""
            info = client.server_info
            self.server_info = clip(f"{info.name} {info.version}".strip(), 200) if info else ""
            await self._list_tools(client)
            connecting.reschedule(None)  # connected: the deadline was for getting here
            self._session = session
            self.last_error = ""
            self._set_state(S.MCP_SERVER_STATE_CONNECTED)
            self._log.info("mcp.connected", protocol=self.protocol_version, tools=len(self.tools))
            listener = None
            if self._listens(client):
                listener = asyncio.create_task(self._listen(session))
                stack.push_async_callback(_cancel, listener)
            await self._keep(session, listener)

    async def _transport(self, stack: AsyncExitStack) -> Any:
        target = self.target
        if target.command:
            params = StdioServerParameters(
                command=target.command, args=list(target.args), env=dict(target.env) or None, cwd=target.cwd
            )
            return stdio_client(params)
        assert target.url is not None
        refused: list[str] = []  # why answers were cut off, for the call that is told "closed"
        self._refused = refused
        credentials = target.credentials
        if self.principal is None:  # for nobody: the shared headers, no caller signed
            headers, sign = dict(credentials.shared), None
        else:
            headers = credentials.headers_for(self.principal, f"MCP server '{self.name}'")
            sign = credentials.signer(self.principal)
        http = await stack.enter_async_context(
            bounded_client(headers, self._limits.answer_bytes, refused.append, sign)
        )
        return streamable_http_client(
            target.url, http_client=http, max_sse_event_size=self._limits.answer_bytes
        )

    def _listens(self, client: Client) -> bool:
        tools = client.server_capabilities.tools
        return bool(tools and tools.list_changed) and client.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def _listen(self, session: _Session) -> None:
        try:
            async with session.client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    session.changed.set()
        except ListenNotSupportedError:
            return
        except Exception as exc:
            self._log.warning("mcp.listen_lost", error=_describe(exc))
        session.broken.set()  # the stream ended: the server went away or restarted

    async def _keep(self, session: _Session, listener: asyncio.Task[None] | None) -> None:
        """Until the session fails: re-list on changes, ping when idle."""
        while True:
            waits = [asyncio.create_task(session.changed.wait()), asyncio.create_task(session.broken.wait())]
            try:
                await asyncio.wait(waits, timeout=self._limits.ping_interval_s, return_when="FIRST_COMPLETED")
            finally:
                for task in waits:
                    task.cancel()
            if session.broken.is_set():
                raise ConnectionError("the connection to the server was lost")
            if session.changed.is_set():
                session.changed.clear()
                await self._list_tools(session.client)
                self._log.info("mcp.tools_changed", tools=len(self.tools))
                self._on_change()
            elif await self._probe(session.client):
                self._on_change()

    async def _probe(self, client: Client) -> bool:
        """Is the server still there (and did its tools change)? 2026-07-28 servers have no ping:
        listing the tools is the cheapest request they answer, and it also catches changes of a
        server that cannot announce them. Older servers are pinged."""
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            before = {name: tool.spec for name, tool in self.tools.items()}
            await self._list_tools(client)
            return before != {name: tool.spec for name, tool in self.tools.items()}
        with anyio.fail_after(self._limits.list_timeout_s):
            # The session's ping: Client.send_ping is marked deprecated for every connection,
            # and we ping only 2025-era sessions, where it is the protocol's liveness check.
            await client.session.send_ping()
        return False

    async def _list_tools(self, client: Client) -> None:
        listed: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            with anyio.fail_after(self._limits.list_timeout_s):
                page = await client.list_tools(cursor=cursor)
            listed += page.tools
            cursor = page.next_cursor
            if not cursor or len(listed) > self._limits.max_tools:
                break
        version = self.server_info.rpartition(" ")[2] if " " in self.server_info else ""
        tools: dict[str, McpTool] = {}
        skipped: list[str] = []
        for tool in listed:
            if len(tools) >= self._limits.max_tools:
                skipped.append(f"{clip(tool.name, 100)}: more than {self._limits.max_tools} tools")
                continue
            try:
                entry = catalog_tool(self.name, tool, version, self)
            except InvalidArgument as exc:
                skipped.append(f"{clip(tool.name, 100)}: {exc.message}")
                continue
            if entry.name in tools:
                skipped.append(f"{clip(tool.name, 100)}: its catalog name {entry.name} is taken")
                continue
            tools[entry.name] = entry
        for reason in skipped:
            self._log.warning("mcp.tool_skipped", reason=reason)
        self.tools, self.skipped = tools, skipped[:50]

    def _set_state(self, state: int) -> None:
        if state != S.MCP_SERVER_STATE_CONNECTING:
            self._attempted.set()
        if state != self.state:
            self.state = state
            self._on_change()

    # -- calls -----------------------------------------------------------------------------

    async def call(
        self, tool: McpTool, arguments: dict[str, Any], deadline_s: float | None, context: CallContext
    ) -> Any:
        if self.sessions is not None:  # over the calling principal's own session, whatever this one's state
            return await self.sessions.call(tool, arguments, deadline_s, context)
        session = self._session
        if session is None or not self.connected:
            raise self._unavailable(f"{self._label} is not connected")
        try:
            # Cancelling this await (the executor cancelled the step, or its deadline passed)
            # makes the SDK send notifications/cancelled for the request. Whom the call is for
            # goes in the request's `_meta` ("agentrt/principal", ...): the SDK adds its own
            # entries beside ours.
            result = await session.client.call_tool(
                tool.remote, arguments, read_timeout_seconds=deadline_s, meta=context.mcp_meta()
            )
        except MCPError as exc:
            if exc.error.code == REQUEST_TIMEOUT:  # the SDK's read timeout: the step's deadline
                raise self._timeout(tool) from None
            if exc.error.code == CONNECTION_CLOSED:
                session.broken.set()
                if self._refused:
                    # Cut off by tools_svc (http.py): the same call would be cut off again.
                    raise self._tool_error(
                        tool,
                        "TOOL_OUTPUT_TOO_LARGE",
                        f"answered with more than tools_svc reads ({self._refused[-1]})",
                    ) from None
                closed = f"the connection to {self._label} closed during the call"
                raise self._unavailable(closed) from None
            # A JSON-RPC error: the server refused the request (unknown tool, bad arguments).
            refusal = f"refused it: {clip(exc.error.message, MAX_ERROR_CHARS)} (code {exc.error.code})"
            raise self._tool_error(tool, "MCP_ERROR", refusal) from None
        except pydantic.ValidationError:
            raise self._tool_error(tool, "MCP_MALFORMED_RESULT", "answered with a malformed result") from None
        except TimeoutError:
            raise self._timeout(tool) from None
        except AgentrtError:
            raise
        except Exception as exc:
            # The transport failed under the call: the session is gone; reconnect now.
            session.broken.set()
            raise self._unavailable(f"{self._label} failed during the call: {_describe(exc)}") from None
        return output_of(tool, result)

    def _timeout(self, tool: McpTool) -> AgentrtError:
        return AgentrtError(
            f"MCP server '{self.name}' did not answer the call to '{tool.remote}' within the step's "
            "deadline (the server was sent a cancellation)",
            reason="TOOL_TIMEOUT",
            code=grpc.StatusCode.DEADLINE_EXCEEDED,
            retryable=True,
            metadata={"tool": tool.name, "mcp_server": self.name},
        )

    def _tool_error(self, tool: McpTool, reason: str, what: str) -> ToolError:
        return ToolError(
            f"MCP server '{self.name}', called with '{tool.remote}', {what}",
            reason=reason,
            metadata={"tool": tool.name, "mcp_server": self.name},
        )

    def _unavailable(self, message: str) -> Unavailable:
        why = f" ({self.last_error})" if self.last_error else ""
        return Unavailable(
            message + why + "; retry later",
            reason="MCP_SERVER_UNAVAILABLE",
            metadata={"mcp_server": self.name},
        )

    def published(self) -> list[tool_pb2.Tool]:
        health = tool_pb2.TOOL_HEALTH_HEALTHY if self.connected else tool_pb2.TOOL_HEALTH_UNREACHABLE
        out = []
        for name in sorted(self.tools):
            tool = tool_pb2.Tool()
            tool.CopyFrom(self.tools[name].spec)
            tool.health = health
            out.append(tool)
        return out


def _nothing() -> None:
    """A principal's session changes nothing in the catalog: the server's own connection lists it."""


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions[:3])
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, FileNotFoundError | PermissionError) and exc.filename:
        # A stdio server's command: say so, and what to do, rather than Python's words.
        problem = "not found" if isinstance(exc, FileNotFoundError) else "not executable by this user"
        return clip(
            f"command {exc.filename!r} {problem} where tools_svc runs: install it there (on its PATH) "
            "or give its full path in AGENTRT_MCP_SERVERS",
            MAX_ERROR_CHARS,
        )
    text = str(exc) or type(exc).__name__
    return clip(f"{type(exc).__name__}: {text}", MAX_ERROR_CHARS)
