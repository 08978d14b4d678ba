"""Catalog names of MCP tools: "<server>__<tool>", fitting agentrt's tool name rule.

An MCP tool may be called anything ("get-weather", "Search", 80 characters); ours must match
^[a-z][a-z0-9_]{0,63}$. A name that fits already is kept as it is, so people and models read
what the server's author wrote. Any other is lowercased, its other characters become "_", it is
cut to fit, and six hex digits of the original name's SHA-256 are appended, so "Search" and
"search" (both legal in MCP) never share a catalog name.
"""

from __future__ import annotations

import hashlib
import re

SEPARATOR = "__"
MAX_NAME_CHARS = 64
_FITS = re.compile(r"^[a-z0-9_]+$")
_OTHER = re.compile(r"[^a-z0-9_]")


def catalog_name(server: str, remote: str) -> str:
    prefix = server + SEPARATOR
    if _FITS.match(remote) and len(prefix) + len(remote) <= MAX_NAME_CHARS:
        return prefix + remote
    digest = hashlib.sha256(remote.encode()).hexdigest()[:6]
    room = MAX_NAME_CHARS - len(prefix) - len(digest) - 1
    base = _OTHER.sub("_", remote.lower())[:room].rstrip("_")
    return f"{prefix}{base}_{digest}" if base else f"{prefix}{digest}"


def server_of(name: str) -> str | None:
    """The server prefix of a catalog name, when it has one."""
    server, sep, _ = name.partition(SEPARATOR)
    return server if sep else None
