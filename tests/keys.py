"""API keys for tests: one per name, strong enough for the settings to accept (keys estimated
below 128 bits are refused at start: agentrt/config/keystrength.py), and the same in every run,
so a failing test can be repeated. The name leads, so a key read in a test's output says whose
it is."""

from __future__ import annotations

import base64
import hashlib


def key_for(name: str) -> str:
    """`name`-<43 characters of a digest of it>: about 200 bits by the estimate."""
    digest = hashlib.sha256(f"agentrt test key: {name}".encode()).digest()
    return f"{name}-{base64.urlsafe_b64encode(digest).decode().rstrip('=')}"
