"""Sessions per principal with one MCP server, for a mount whose calls differ per principal (its
own credential, or its name signed: tools_svc/delegation.py).

The SDK fixes a session's HTTP headers when it connects, and a server may tie a session to
whoever opened it; so each principal's calls go over a session of that principal's, opened on
its first call and kept for the next ones. They are bounded, per server on each replica:
at most `max_principal_sessions` (a new principal's first call closes the least recently used
idle one; with none idle it is refused, UNAVAILABLE and retryable, MCP_SESSIONS_EXHAUSTED), and
one idle for `principal_session_idle_s` is closed (checked with every catalog refresh).

A principal the mount has no credential for is refused here, before a session is opened:
nothing reaches the server.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from agentrt.core.errors import Unavailable
from tools_svc.mcp.model import Limits, McpTool, Target

if TYPE_CHECKING:
    from tools_svc.callcontext import CallContext


class McpConnection(Protocol):
    """What a principal's session is to this module: connection.py's McpConnection (which
    holds this module's PrincipalSessions: named here by what it does, not imported back)."""

    def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def settled(self, timeout_s: float) -> None: ...

    async def call(
        self, tool: McpTool, arguments: dict[str, Any], deadline_s: float | None, context: CallContext
    ) -> Any: ...


log = structlog.get_logger("tools_svc.mcp")


@dataclass
class _Held:
    connection: McpConnection
    calls: int = 0  # in flight: a session with calls is never closed under them
    used: float = field(default_factory=time.monotonic)


class PrincipalSessions:
    def __init__(self, target: Target, limits: Limits, open_session: Callable[[str], McpConnection]) -> None:
        self._target = target
        self._what = f"MCP server '{target.name}'"
        self._limits = limits
        self._open = open_session
        self._held: OrderedDict[str, _Held] = OrderedDict()  # least recently used first
        self._closing: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._held)

    async def call(
        self, tool: McpTool, arguments: dict[str, Any], deadline_s: float | None, context: CallContext
    ) -> Any:
        """The call, over its principal's session (opened now if it is not held): the wait for
        a new session to connect comes out of the call's deadline."""
        principal = context.principal
        # Refused before a session is opened: no credential for this principal (or a name that
        # cannot be signed).
        self._target.credentials.headers_for(principal, self._what)
        self._target.credentials.signer(principal)
        held = self._hold(principal)
        held.calls += 1
        started = time.monotonic()
        try:
            wait = (
                self._limits.connect_timeout_s
                if deadline_s is None
                else min(deadline_s, self._limits.connect_timeout_s)
            )
            await held.connection.settled(wait)
            left = None if deadline_s is None else max(deadline_s - (time.monotonic() - started), 0.001)
            return await held.connection.call(tool, arguments, left, context)
        finally:
            held.calls -= 1
            held.used = time.monotonic()
            if self._held.get(principal) is held:
                self._held.move_to_end(principal)

    def _hold(self, principal: str) -> _Held:
        held = self._held.get(principal)
        if held is not None:
            self._held.move_to_end(principal)
            return held
        self.close_idle()
        if len(self._held) >= self._limits.max_principal_sessions:
            idle = next((p for p, h in self._held.items() if h.calls == 0), None)
            if idle is None:
                raise Unavailable(
                    f"{self._what} holds {len(self._held)} principals' sessions, each with a call in "
                    "flight (AGENTRT_MCP_MAX_PRINCIPAL_SESSIONS); retry later",
                    reason="MCP_SESSIONS_EXHAUSTED",
                    metadata={"mcp_server": self._target.name},
                )
            self._close(idle, "the least recently used, for another principal's")
        connection = self._open(principal)
        connection.start()
        held = self._held[principal] = _Held(connection)
        log.info("mcp.principal_session_opened", server=self._target.name, principal=principal)
        return held

    def close_idle(self) -> None:
        """Close every session idle for principal_session_idle_s."""
        cutoff = time.monotonic() - self._limits.principal_session_idle_s
        for principal in [p for p, h in self._held.items() if h.calls == 0 and h.used < cutoff]:
            self._close(principal, "idle")

    def _close(self, principal: str, why: str) -> None:
        held = self._held.pop(principal)
        log.info("mcp.principal_session_closed", server=self._target.name, principal=principal, why=why)
        # Stopped in the background: the call that needed the room does not wait for it.
        task = asyncio.create_task(held.connection.stop(), name=f"mcp-stop:{self._target.name}:{principal}")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        for principal in list(self._held):
            self._close(principal, "unmounted")
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
