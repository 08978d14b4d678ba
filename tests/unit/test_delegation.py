"""Whom a mount's calls act as (tools_svc/delegation.py) and the signed caller identity
(agentrt/core/callerid.py): the signature checked the way the README tells a remote to check it,
with nothing but the standard library."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agentrt.config import A2aAgentConfig, McpServerConfig
from agentrt.core import callerid
from agentrt.core.errors import InvalidArgument, PermissionDenied
from tools_svc import mounting
from tools_svc.delegation import Credentials, check

SECRET = "a-caller-signing-secret-of-some-length"


def readme_caller() -> Callable[[bytes, Mapping[str, str]], str]:
    """The `caller` function README.md gives a remote to check a signed caller with."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = re.search(r"```python\n(import base64, hashlib, hmac, time\n.*?)```", text, re.DOTALL)
    assert block, "README.md no longer shows how a remote checks a signed caller"
    scope: dict[str, Any] = {}
    exec(block.group(1), scope)  # our own README's example
    return scope["caller"]


def remote_verifies(secret: str, headers: Mapping[str, str]) -> bool:
    """Whether a remote doing what the README says accepts the headers (as their principal)."""
    try:
        return readme_caller()(secret.encode(), headers) == headers["agentrt-caller"]
    except PermissionError:
        return False


def test_a_signature_verifies_and_names_its_principal() -> None:
    key = callerid.key_of(SECRET)
    alice = callerid.sign(key, "alice", now=1_767_225_600, message_id="m1")
    assert alice["agentrt-caller"] == "alice" and alice["agentrt-caller-timestamp"] == "1767225600"
    assert callerid.verify(SECRET, alice, now=1_767_225_600 + 299) == "alice"
    assert not remote_verifies(SECRET, alice)  # a remote's clock says it is stale
    now = callerid.sign(key, "alice")
    assert remote_verifies(SECRET, now) and callerid.verify(SECRET, now) == "alice"
    assert not remote_verifies(SECRET, now | {"agentrt-caller": "bob"})
    assert not remote_verifies("another-secret-of-some-length", now)
    # Another principal, with everything else the same, is another signature.
    bob = callerid.sign(key, "bob", now=1_767_225_600, message_id="m1")
    assert bob["agentrt-caller-signature"] != alice["agentrt-caller-signature"]
    # A fresh id each time unless one is given.
    assert (
        callerid.sign(key, "alice")["agentrt-caller-id"] != callerid.sign(key, "alice")["agentrt-caller-id"]
    )


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"agentrt-caller": "bob"}, "does not match"),  # alice's signature, bob's name
        ({"agentrt-caller-id": "m2"}, "does not match"),
        ({"agentrt-caller-timestamp": "1767225601"}, "does not match"),
        ({"agentrt-caller-timestamp": "1767225000"}, "off"),  # ten minutes old
        ({"agentrt-caller-timestamp": "soon"}, "Unix seconds"),
        ({"agentrt-caller-signature": "v1,AAAA"}, "does not match"),
    ],
)
def test_a_tampered_or_stale_identity_is_refused(change: dict[str, str], why: str) -> None:
    headers = callerid.sign(callerid.key_of(SECRET), "alice", now=1_767_225_600, message_id="m1") | change
    with pytest.raises(ValueError, match=why):
        callerid.verify(SECRET, headers, now=1_767_225_600)
    with pytest.raises(ValueError, match="does not match"):  # another secret
        callerid.verify(SECRET + "x", callerid.sign(callerid.key_of(SECRET), "alice"))


def test_a_standard_webhooks_secret_keys_with_the_bytes_it_stands_for() -> None:
    raw = bytes(range(24))
    secret = "whsec_" + base64.b64encode(raw).decode()
    assert callerid.key_of(secret) == raw
    assert callerid.verify(secret, callerid.sign(raw, "alice")) == "alice"
    for weak in ("short", "whsec_!!!", "whsec_" + base64.b64encode(b"x" * 8).decode()):
        with pytest.raises(ValueError):
            callerid.key_of(weak)


def test_credentials_per_principal_never_fall_back() -> None:
    shared = Credentials.of({"Authorization": "Bearer shared"})
    assert shared.headers_for("anyone", "A2A agent 'x'") == {"Authorization": "Bearer shared"}
    assert not shared.for_each_principal and shared.principals == []
    own = Credentials.of(
        {"Authorization": "Bearer shared"},
        {"alice": {"Authorization": "Bearer a"}, "bob": {"X-Key": "b"}},
    )
    assert own.principals == ["alice", "bob"] and own.for_each_principal
    assert own.headers_for("alice", "x") == {"Authorization": "Bearer a"}
    assert own.headers_for("bob", "x") == {"X-Key": "b"}  # nothing of the shared headers
    with pytest.raises(PermissionDenied) as refused:
        own.headers_for("carol", "A2A agent 'x'")
    assert refused.value.reason == "NO_PRINCIPAL_CREDENTIAL" and "'carol'" in refused.value.message
    assert "Bearer" not in refused.value.message
    assert set(own.secrets()) == {"Bearer shared", "Bearer a", "b"}
    # A signing secret alone: the shared credential, and each principal's name signed.
    signed = Credentials.of({"Authorization": "Bearer shared"}, {}, SECRET)
    assert signed.for_each_principal and signed.headers_for("carol", "x") == {
        "Authorization": "Bearer shared"
    }
    assert SECRET in signed.secrets()
    with pytest.raises(InvalidArgument):
        signed.signer("zoë")  # an HTTP header cannot carry it


def test_runtime_credentials_are_checked() -> None:
    check({"alice": {"Authorization": "Bearer a"}}, SECRET, mounting.check_headers)
    for principal_headers, secret in (
        ({"": {"A": "b"}}, ""),
        ({"x" * 65: {"A": "b"}}, ""),
        ({"alice": {}}, ""),
        ({"alice": {"bad header": "b"}}, ""),
        ({}, "short"),
    ):
        with pytest.raises(InvalidArgument):
            check(principal_headers, secret, mounting.check_headers)


def test_a_stdio_server_cannot_take_credentials_per_principal() -> None:
    for extra in ({"principal_headers": {"alice": {"X-Key": "a"}}}, {"caller_signing_secret": SECRET}):
        with pytest.raises(ValidationError, match="shared by every principal"):
            McpServerConfig(name="t", command="mcp-server-time", **extra)
    McpServerConfig(  # over HTTP, each principal's calls get a session of their own
        name="t",
        url="http://127.0.0.1:1/mcp",
        principal_headers={"alice": {"X-Key": "a"}},
        caller_signing_secret=SECRET,
    )
    with pytest.raises(ValidationError, match="has no headers"):
        A2aAgentConfig(name="h", url="http://127.0.0.1:1", principal_headers={"alice": {}})
    with pytest.raises(ValidationError, match="caller_signing_secret"):
        A2aAgentConfig(name="h", url="http://127.0.0.1:1", caller_signing_secret="short")
    config = A2aAgentConfig(
        name="h", url="http://127.0.0.1:1", principal_headers={"alice": {"Authorization": "Bearer a"}}
    )
    assert "Bearer a" not in repr(config)  # a SecretStr
