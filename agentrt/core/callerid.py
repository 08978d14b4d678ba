"""A signed caller identity: whom a call to a mounted A2A agent or MCP server is for, said so
the remote side can check it.

A mount with a caller signing secret sends, with every HTTP request made for a principal, four
headers in the Standard Webhooks signing style (https://www.standardwebhooks.com):

    agentrt-caller: alice
    agentrt-caller-id: 3f0c...             (fresh for each request)
    agentrt-caller-timestamp: 1767225600   (Unix seconds)
    agentrt-caller-signature: v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<principal>")>

The key is the secret's UTF-8 bytes, or, for a secret written "whsec_<base64>" as Standard
Webhooks libraries make them, the bytes the base64 stands for. A remote verifies by computing
the same HMAC (compared in constant time), refusing a timestamp more than a few minutes off its
clock, and, to refuse a replayed request, an id it has seen within that window. `verify` does
all but the last; a remote in Python can call it (it is in the client install). The signature
does not cover the request body: TLS protects that; it says who the call is for, from whom
holding the secret.

The remote's own credential (the mount's headers) still says that the caller is agentrt; the
signature says on whose behalf.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
import uuid
from collections.abc import Mapping

CALLER = "agentrt-caller"
CALLER_ID = "agentrt-caller-id"
CALLER_TIMESTAMP = "agentrt-caller-timestamp"
CALLER_SIGNATURE = "agentrt-caller-signature"
HEADERS = (CALLER, CALLER_ID, CALLER_TIMESTAMP, CALLER_SIGNATURE)
TOLERANCE_S = 300  # Standard Webhooks' five minutes
SECRET_PREFIX = "whsec_"
MIN_KEY_BYTES = 16  # below this a secret is a password, not a key
MAX_SECRET_CHARS = 512


def key_of(secret: str) -> bytes:
    """The HMAC key a secret stands for; ValueError when it is no usable key."""
    if secret.startswith(SECRET_PREFIX):
        try:
            key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
        except binascii.Error:
            raise ValueError(f"a secret starting {SECRET_PREFIX!r} must be base64 after it") from None
    else:
        key = secret.encode()
    if len(key) < MIN_KEY_BYTES or len(secret) > MAX_SECRET_CHARS or not secret.isprintable():
        raise ValueError(
            f"a caller signing secret must be {MIN_KEY_BYTES} to {MAX_SECRET_CHARS} printable characters "
            f"(of key: {SECRET_PREFIX}<base64> counts the bytes it stands for)"
        )
    return key


def signature(key: bytes, message_id: str, timestamp: int, principal: str) -> str:
    """ "v1,<base64 HMAC-SHA256>" of "<id>.<timestamp>.<principal>"."""
    content = f"{message_id}.{timestamp}.{principal}".encode()
    return "v1," + base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()


def sign(key: bytes, principal: str, *, now: float | None = None, message_id: str = "") -> dict[str, str]:
    """The four headers naming `principal`, signed now with a fresh id (unless given)."""
    message_id = message_id or uuid.uuid4().hex
    timestamp = int(time.time() if now is None else now)
    return {
        CALLER: principal,
        CALLER_ID: message_id,
        CALLER_TIMESTAMP: str(timestamp),
        CALLER_SIGNATURE: signature(key, message_id, timestamp, principal),
    }


def verify(
    secret: str, headers: Mapping[str, str], *, now: float | None = None, tolerance_s: float = TOLERANCE_S
) -> str:
    """The principal a request's headers name, once their signature checks out and their
    timestamp is within `tolerance_s` of now; ValueError saying what is wrong otherwise.
    `headers` is looked up by the lowercase names (as HTTP servers give them). Refusing an id
    seen before is the caller's part."""
    key = key_of(secret)
    try:
        principal, message_id, stamp, signed = (headers[name] for name in HEADERS)
    except KeyError as missing:
        raise ValueError(f"no {missing.args[0]} header") from None
    if not stamp.isascii() or not stamp.isdigit():
        raise ValueError(f"{CALLER_TIMESTAMP} is not Unix seconds")
    if abs((time.time() if now is None else now) - int(stamp)) > tolerance_s:
        raise ValueError(f"{CALLER_TIMESTAMP} is more than {tolerance_s:g}s off")
    expected = signature(key, message_id, int(stamp), principal)
    # Several signatures, space-separated, while a secret is rotated: any one of them will do.
    if not any(hmac.compare_digest(expected.encode(), given.encode()) for given in signed.split()):
        raise ValueError(f"{CALLER_SIGNATURE} does not match")
    return principal
