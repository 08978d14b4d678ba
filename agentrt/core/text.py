"""Bounding and redacting text that leaves the process: error messages, violation descriptions,
planner attempts, log lines.

Anything quoted from a request, a tool, a provider or a model may be megabytes long; gRPC carries
an error's message twice in metadata (grpc-message, and the google.rpc.Status details), which is
limited to 8 KiB, where an oversized one turns a clear error into "Stream removed". Every echo goes
through `clip`, and AgentrtError applies it to every error any agentrt server returns.

Secrets must never leave the process, even when an upstream service echoes them in its own error
text. Text bound for a client (`outgoing`: every error message) is redacted by *shape*: whatever
looks like a credential (a bearer token, a URL's password, `api_key=...`, a well-known key prefix
such as `sk-`) becomes [redacted], whatever its value. Never by value there: if a client could see
[redacted] exactly where it had typed a configured API key, every error that echoes input would
answer "is this a key?" without meeting the wrong-key throttle. Log lines, which only operators
read, are redacted by shape and by value: whatever holds a secret registers it
(`register_secrets`: the gateway's Auth, the LLM planner, tools_svc's registration check, MCP
mounts, the database URL), and `redact` replaces every configured secret too.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

MAX_MESSAGE_BYTES = 1000
REDACTED = "[redacted]"
# Shorter values (say "1" or "ok") would redact ordinary words; no real secret is that short.
MIN_SECRET_CHARS = 6

_secrets: list[str] = []  # replaced whole under the lock; readers iterate a snapshot
_lock = threading.Lock()

# Credential shapes. Each is a plain scan (character classes and fixed words, no nested
# repetition): linear in the text, whatever a hostile upstream writes.
_SHAPES = [
    # An Authorization header's whole value, whatever its scheme ("Token abc", "Bearer abc").
    (
        # (not a placeholder such as our own hint "Authorization: Bearer <key>")
        re.compile(
            r"(\b(?:proxy-)?authorization[\"']?\s{0,3}[:=]\s{0,3}[\"']?)(?!\s*[A-Za-z]{1,20}\s+<)[^\r\n\"',;&]{1,500}",
            re.I,
        ),
        r"\1" + REDACTED,
    ),
    # Authorization schemes anywhere: "Bearer <token>", "Basic <base64>".
    (re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{1,}", re.I), r"\1 " + REDACTED),
    # JSON Web Tokens (three base64url parts, the first a JSON header: "eyJ").
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), REDACTED),
    # A URL's password: scheme://user:password@host.
    (re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s/:@]{0,200}:)[^\s/@]{1,200}@"), r"\1" + REDACTED + "@"),
    # name=value and "name": "value" where the name says it is a secret.
    (
        re.compile(
            r"((?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd"
            r"|private[_-]?key|(?<=[?&])key)"
            r"[\"']?\s{0,3}[:=]\s{0,3}[\"']?)[^\s\"',;&]{6,}",
            re.I,
        ),
        r"\1" + REDACTED,
    ),
    # Well-known key formats: OpenAI/Anthropic (sk-), GitHub, Slack, AWS access keys, Google.
    (
        re.compile(
            r"\b(?:sk-[A-Za-z0-9_-]{16,}|[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}"
            r"|github_pat_[A-Za-z0-9_]{20,}"
            r"|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})"
        ),
        REDACTED,
    ),
]


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


def redact_shapes(text: str) -> str:
    """Credential-shaped parts of `text` replaced, whatever their value (see the module's doc)."""
    for pattern, replacement in _SHAPES:
        text = pattern.sub(replacement, text)
    return text


def redact(text: str) -> str:
    """For log lines: configured secrets (by value) and credential shapes removed."""
    for secret in tuple(_secrets):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return redact_shapes(text)


def outgoing(text: str, limit: int = MAX_MESSAGE_BYTES) -> str:
    """Text bound for a client: credential shapes removed (never by value), then clipped. Clipped
    first to a bound the shapes' scan is cheap on, and again after (a replacement may grow it)."""
    return clip(redact_shapes(clip(text, 4 * limit)), limit)
