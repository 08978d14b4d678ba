"""Bounding text that echoes input back: error messages, violation descriptions, log fields.

Anything quoted from a request, a tool, a provider or a model may be megabytes long; gRPC carries
an error's message in metadata (8 KiB by default), where an oversized one turns a clear error
into "Stream removed". Every echo goes through `clip`.
"""

from __future__ import annotations

MAX_MESSAGE_CHARS = 2000


def clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`text` itself when it fits in `limit` characters, else its head and how much was cut."""
    if len(text) <= limit:
        return text
    head = max(0, limit - 40)
    return f"{text[:head]}… ({len(text) - head} more characters)"
