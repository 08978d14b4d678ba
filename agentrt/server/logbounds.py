"""What a log line may hold: every value bounded before it is rendered, every rendered line
bounded after, and tracebacks without their frames' local variables.

A log line is written on the event loop that serves every call in the process. Whatever it
holds may come from an attacker: a library logs its parse failure with the hostile body in a
local variable of the failing frame, or with the body quoted in the exception's text. Rendering
that whole once held the one process for 21 s and wrote a line of 78 MB (a 3.8 KB A2A request
nested 600 deep). So the rule is: a value's cost is bounded before it is looked at in full.

- Tracebacks keep file, line, function and the exception's (clipped) text; never frame locals.
- Values: strings clipped to MAX_VALUE_CHARS, and all of a line's text to MAX_LINE_CHARS (the
  configured secrets and credential shapes are redacted first, over a window a secret cut in half
  cannot escape), containers walked to MAX_DEPTH levels and MAX_ITEMS entries each (a line's
  walk to 32 x MAX_ITEMS), anything else shown as its type and a clipped repr. So the worst line
  costs milliseconds: `python bench/logline.py` measures it.
- The rendered line: at most MAX_LINE_CHARS; a longer one is replaced by a line saying so, with
  the original's event, level, logger, service and timestamp, and its head (still valid JSON).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from agentrt.core.text import redact

MAX_LINE_CHARS = 16 * 1024
MAX_VALUE_CHARS = 4096
MAX_DEPTH = 6
MAX_ITEMS = 64
# How many more characters than kept are searched for secrets: a secret straddling the cut is
# redacted whole before the cut, not left half visible after it.
_REDACT_MARGIN = 512
_KEPT_FIELDS = ("event", "level", "logger", "service", "timestamp", "run_id", "trace_id")
_SCALARS = (bool, int, float, type(None))

# structlog's dict tracebacks, without locals (its default shows them, each frame's whole).
tracebacks = structlog.processors.ExceptionRenderer(
    structlog.tracebacks.ExceptionDictTransformer(show_locals=False, max_frames=40)
)


@dataclass
class _Budget:
    """What one line may still spend: entries walked, and characters of text kept (each one
    redacted: the scan for credential shapes is the costliest step, ~0.25 us a character)."""

    items: int = MAX_ITEMS * 32  # a chained traceback (3 x 40 frames of 5 entries) fits
    chars: int = MAX_LINE_CHARS


def bound_values(_logger: object, _name: str, event: dict) -> dict:
    """Every value of `event` bounded and redacted (new containers: a logged list or dict may be
    the caller's own). The event's own name is read first, so it is never what the budget cut."""
    budget = _Budget()
    first = [key for key in _KEPT_FIELDS if key in event]
    for key in [*first, *(key for key in event if key not in _KEPT_FIELDS)]:
        event[key] = _bounded(event[key], 0, budget)
    return event


def _bounded(value: Any, depth: int, budget: _Budget) -> Any:
    if isinstance(value, str):
        return _text(value, budget)
    if isinstance(value, _SCALARS):
        # An int of a million digits renders slowly (and past 4,300 digits not at all).
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4096:
            return f"<int of {value.bit_length()} bits>"
        return value
    if isinstance(value, Mapping | list | tuple | set | frozenset):
        if depth >= MAX_DEPTH:
            return f"<{type(value).__name__} of {len(value)} items, nested too deep to log>"
        if budget.items <= 0:
            return f"<{type(value).__name__} of {len(value)} items, past the line's bound>"
        if isinstance(value, Mapping):
            out: dict[str, Any] = {}
            for i, (k, v) in enumerate(value.items()):
                if i >= MAX_ITEMS or budget.items <= 0:
                    out["…"] = f"{len(value) - i} more items"
                    break
                budget.items -= 1
                name = _text(k if isinstance(k, str) else repr(k)[:200], budget)
                out[name] = _bounded(v, depth + 1, budget)
            return out
        items: list[Any] = []
        for i, v in enumerate(value):
            if i >= MAX_ITEMS or budget.items <= 0:
                items.append(f"… {len(value) - i} more items")
                break
            budget.items -= 1
            items.append(_bounded(v, depth + 1, budget))
        return items
    # Anything else is rendered by repr; a hostile object's repr is clipped like any text.
    try:
        shown = repr(value)
    except Exception as exc:  # a repr that raises must not lose the line
        shown = f"<{type(value).__name__}: repr failed: {type(exc).__name__}>"
    return _text(shown, budget)


def _text(text: str, budget: _Budget) -> str:
    keep = min(MAX_VALUE_CHARS, max(budget.chars, 0))
    if len(text) <= keep:
        budget.chars -= len(text)
        return redact(text)
    if keep < 64:
        return f"<{len(text)} characters, past the line's bound>"
    budget.chars -= keep
    kept = redact(text[: keep + _REDACT_MARGIN])[:keep]
    return f"{kept}… [cut: {len(text)} characters in all]"


class BoundedRenderer:
    """Renders with `renderer`, then holds the line to MAX_LINE_CHARS: past it the line says it
    was cut (as JSON when the renderer writes JSON), with the event's identifying fields and the
    rendered line's head."""

    def __init__(self, renderer: structlog.types.Processor, as_json: bool) -> None:
        self._renderer = renderer
        self._as_json = as_json

    def __call__(self, logger: Any, name: str, event: dict) -> str | bytes:
        kept = {k: event[k] for k in _KEPT_FIELDS if isinstance(event.get(k), str | int | float)}
        line = self._renderer(logger, name, event)
        if len(line) <= MAX_LINE_CHARS:
            return line
        text = line.decode(errors="replace") if isinstance(line, bytes) else str(line)
        if not self._as_json:
            return text[: MAX_LINE_CHARS - 64] + f"… [line cut: {len(text)} characters in all]"
        kept = {k: v[:200] if isinstance(v, str) else v for k, v in kept.items()}
        kept["log_line_cut"] = len(text)
        room = MAX_LINE_CHARS - len(json.dumps(kept)) - 32
        kept["head"] = text[: max(0, room)]
        out = json.dumps(kept)
        # json.dumps escapes the head's quotes and non-ASCII: cut again by what it grew.
        while len(out) > MAX_LINE_CHARS and kept["head"]:
            kept["head"] = kept["head"][: max(0, len(kept["head"]) - (len(out) - MAX_LINE_CHARS) - 16)]
            out = json.dumps(kept)
        return out
