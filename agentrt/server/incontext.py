"""Awaiting a coroutine in a context of its own without a task of its own.

asyncio gives a coroutine its own contextvars by running it in a task (create_task copies the
context). A task costs a creation, a scheduling and a wake-up, and where the caller only awaits
the coroutine anyway (a call between services of one process, localcalls.py; the one step of a
plan that can start, planrun.py) that buys nothing but the context. InContext keeps the context
and drops the task.
"""

from __future__ import annotations

import contextvars
from collections.abc import Generator
from typing import Any


class InContext:
    """Awaits a coroutine in the caller's task with each of its steps run in `context`: the
    callee's own contextvars (the principal it sets, its log context, its service's name) without
    a task of its own. A task per call cost a creation, a scheduling and a wake-up on every call
    between services; this is what asyncio's Task does with its context, minus the scheduling:
    a step's yielded future goes up to the caller's task, and what the task sends or throws back
    (a result, a cancellation, a deadline) goes down to the coroutine, in its context."""

    __slots__ = ("_context", "_coroutine")

    def __init__(self, coroutine: Any, context: contextvars.Context) -> None:
        self._coroutine, self._context = coroutine, context

    def __await__(self) -> Generator[Any, None, Any]:
        run, send, throw = self._context.run, self._coroutine.send, self._coroutine.throw
        sent: Any = None
        error: BaseException | None = None
        while True:
            try:
                yielded = run(send, sent) if error is None else run(throw, error)
            except StopIteration as stop:
                return stop.value
            sent, error = None, None
            try:
                sent = yield yielded
            except BaseException as exc:  # a cancellation or a deadline of the caller's task
                error = exc
