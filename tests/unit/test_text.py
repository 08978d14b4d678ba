"""Text bound for clients: credentials redacted by shape, never by configured value."""

from __future__ import annotations

import pytest

from agentrt.core.text import REDACTED, outgoing, redact, register_secrets


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("upstream said: Authorization: Token abc123xyz", "abc123xyz"),
        ("header authorization=Bearer ab", "ab"),
        ("Bearer eyJhbGciOi.x", "eyJhbGciOi.x"),
        ("GET /x?key=abcdefgh&y=1", "abcdefgh"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fw", "SflKxwRJSMeKKF2QT4fw"),
        ("card sk_live_abcdefghijkl1234", "sk_live_abcdefghijkl1234"),
        ("openai sk-abcdefghijklmnop1234567890", "sk-abcdefghijklmnop1234567890"),
        ('{"password": "hunter2hunter2"}', "hunter2hunter2"),
        ("connect postgresql://agentrt:s3cr3t@db:5432/x failed", "s3cr3t"),
        ("private_key=-----BEGIN", "-----BEGIN"),
    ],
)
def test_credential_shapes_are_redacted_whatever_their_value(text: str, secret: str) -> None:
    shown = outgoing(text)
    assert secret not in shown and REDACTED in shown


@pytest.mark.parametrize(
    "text",
    [
        "missing API key: send 'Authorization: Bearer <key>'",
        "the token budget (1000) was exceeded",
        "run 9438f8945f1746cabc58c30ae900c5c0 not found",
        "idempotency key 'k1' was already used",
        "no rule understands 'book me a flight'",
    ],
)
def test_ordinary_messages_are_left_alone(text: str) -> None:
    assert outgoing(text) == text


def test_configured_secrets_are_redacted_in_logs_but_never_by_value_for_clients() -> None:
    register_secrets(["plain-configured-value-42"])
    text = "book a flight with plain-configured-value-42"
    assert outgoing(text) == text  # the same as for any guess: no oracle
    assert "plain-configured-value-42" not in redact(text)  # logs drop it
