"""Who a tool call is for: the call context of the InvokeTool being served.

agentrt has many principals (one per API key) but one tools service: a tool that keeps state
must keep it per principal, or every user sees everybody's. The executor says whom each call
is for (`InvokeToolRequest.context`); tools_svc checks its strings once, here, and holds it in a
contextvar for the duration of the call, so a built-in reads it with `current_call()` (as it
reads `current_invocation()`) instead of every handler signature growing a parameter. Providers
and MCP servers are handed the same context in their own requests (`InvokeRequest.context`, the
call's `_meta`).

tools_svc trusts the context: with API keys configured only callers holding the internal
credential reach it. A call with no context acts for `local`, the one principal of a system
without API keys.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from agentrt.core.errors import InvalidArgument
from agentrt.core.principals import LOCAL_NAME, MAX_NAME_CHARS
from agentrt.core.text import clip
from agentrt.v1 import tool_pb2

MAX_ID_CHARS = 64  # run_id, step_id
MAX_KEY_CHARS = 256  # idempotency keys (InvokeToolRequest.idempotency_key too)

# The `_meta` keys an MCP server finds the context under (prefixed: `_meta` is shared by the
# protocol and its extensions, and unprefixed names are the protocol's).
MCP_META_PREFIX = "agentrt/"


@dataclass(frozen=True)
class CallContext:
    principal: str = LOCAL_NAME
    run_id: str = ""
    step_id: str = ""
    attempt: int = 0
    idempotency_key: str = ""

    def to_proto(self) -> tool_pb2.CallContext:
        return tool_pb2.CallContext(
            principal=self.principal,
            run_id=self.run_id,
            step_id=self.step_id,
            attempt=self.attempt,
            idempotency_key=self.idempotency_key,
        )

    def mcp_meta(self) -> dict[str, Any]:
        """The context as an MCP request's `_meta` entries ("agentrt/principal", ...): every key,
        always, so a server reads one shape whether or not the call comes from a run."""
        return {
            f"{MCP_META_PREFIX}principal": self.principal,
            f"{MCP_META_PREFIX}run_id": self.run_id,
            f"{MCP_META_PREFIX}step_id": self.step_id,
            f"{MCP_META_PREFIX}attempt": self.attempt,
            f"{MCP_META_PREFIX}idempotency_key": self.idempotency_key,
        }


LOCAL = CallContext()

_current: contextvars.ContextVar[CallContext] = contextvars.ContextVar("call_context", default=LOCAL)


def current_call() -> CallContext:
    """The context of the call being served (`local` outside any call)."""
    return _current.get()


@contextmanager
def serving(context: CallContext) -> Iterator[CallContext]:
    """Make `context` the current call's for the duration of the block."""
    token = _current.set(context)
    try:
        yield context
    finally:
        _current.reset(token)


# Where the call being served reports how its work goes (InvokeToolStream sets it; a plain
# InvokeTool has none, and a report then goes nowhere).
MAX_PROGRESS_CHARS = 500
_progress: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "progress", default=None
)


def report(message: str) -> None:
    """Say how the current call's work goes (clipped): its caller may show it on the step."""
    if (sink := _progress.get()) is not None and message:
        sink(clip(message, MAX_PROGRESS_CHARS))


@contextmanager
def reporting(sink: Callable[[str], None]) -> Iterator[None]:
    """Send the reports of calls started in the block (tasks copy the context) to `sink`."""
    token = _progress.set(sink)
    try:
        yield
    finally:
        _progress.reset(token)


def from_request(context: tool_pb2.CallContext, idempotency_key: str) -> CallContext:
    """The checked context of an InvokeTool: its strings bounded and printable (they reach logs,
    tables and other processes), an empty principal meaning `local`, and the request's
    idempotency key as the context's when the context names none."""
    violations = [
        (f"context.{name}", f"must be at most {limit} printable characters")
        for name, value, limit in (
            ("principal", context.principal, MAX_NAME_CHARS),
            ("run_id", context.run_id, MAX_ID_CHARS),
            ("step_id", context.step_id, MAX_ID_CHARS),
            ("idempotency_key", context.idempotency_key, MAX_KEY_CHARS),
        )
        if len(value) > limit or not value.isprintable()
    ]
    if context.attempt < 0:
        violations.append(("context.attempt", "must not be negative"))
    if context.idempotency_key and idempotency_key and context.idempotency_key != idempotency_key:
        # Two keys for one call: the tool would deduplicate by one, tools_svc by the other.
        violations.append(("context.idempotency_key", "must be empty or equal to idempotency_key"))
    if violations:
        raise InvalidArgument(
            "invalid call context: " + "; ".join(f"{field} {what}" for field, what in violations),
            violations=violations,
        )
    return CallContext(
        principal=context.principal or LOCAL_NAME,
        run_id=context.run_id,
        step_id=context.step_id,
        attempt=context.attempt,
        idempotency_key=context.idempotency_key or idempotency_key,
    )
