"""Bounding and redacting text that leaves the process: error messages, violation descriptions,
planner attempts, log lines.

Anything quoted from a request, a tool, a provider or a model may be megabytes long; gRPC carries
an error's message twice in metadata (grpc-message, and the google.rpc.Status details), which is
limited to 8 KiB, where an oversized one turns a clear error into "Stream removed". Every echo goes
through `clip`, and AgentrtError applies it to every error any agentrt server returns.

Configured secrets (API keys, the registration token, LLM provider keys, the database password)
must never leave the process, even when an upstream service echoes them in its own error text:
whatever holds a secret registers it (`register_secrets`: the gateway's Auth, the LLM planner,
tools_svc's registration check, the database URL), and `redact` replaces them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

MAX_MESSAGE_BYTES = 1000
REDACTED = "[redacted]"
# Shorter values (say "1" or "ok") would redact ordinary words; no real secret is that short.
MIN_SECRET_CHARS = 6

_secrets: list[str] = []  # replaced whole under the lock; readers iterate a snapshot
_lock = threading.Lock()


def clip(text: str, limit: int = MAX_MESSAGE_BYTES) -> str:
    """`text` itself when its UTF-8 encoding fits in `limit` bytes, else its head and how much
    was cut. Bytes, not characters: what overflows metadata is bytes."""
    if len(text) * 4 <= limit or len(text.encode()) <= limit:
        return text
    marker = f"… ({len(text)} characters in all)"
    head = text.encode()[: max(0, limit - len(marker.encode()))].decode(errors="ignore")
    return head + marker


def register_secrets(values: Iterable[str | None]) -> None:
    """Remember the secrets `redact` removes (longest first, so a key containing another goes whole)."""
    found = {v for v in values if v and len(v) >= MIN_SECRET_CHARS}
    with _lock:
        _secrets[:] = sorted(found | set(_secrets), key=len, reverse=True)


def redact(text: str) -> str:
    for secret in tuple(_secrets):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def outgoing(text: str, limit: int = MAX_MESSAGE_BYTES) -> str:
    """Text bound for a client: secrets removed, then clipped."""
    return clip(redact(text), limit)
