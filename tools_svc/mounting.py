"""What an MCP server mount and an A2A agent mount share: the checks on a runtime mount's name,
URL and credentials (delegation.py), how it is stored, and the one namespace both live in. A
mount's name is the prefix of its tools' names ("<name>__<tool>"), so an MCP server and an A2A
agent may not share one: `claim` checks both kinds, in configuration and in the database,
inside the mount's transaction and serialized with every other mount's (two replicas mounting
the same name at once cannot both win).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.config import MCP_SERVER_NAME, MCP_SERVER_NAME_CHARS, ToolsSettings
from agentrt.core.errors import AlreadyExists, InvalidArgument, NotFound
from agentrt.core.text import clip
from agentrt.server.db import Database, notify, serialize_on
from tools_svc import delegation
from tools_svc.delegation import Credentials
from tools_svc.schema import a2a_mounts, mcp_mounts
from tools_svc.validation import EndpointPolicy

MAX_URL_CHARS = 2048
MAX_HEADERS = 32
MAX_HEADER_VALUE_CHARS = 8192
_NAME = re.compile(MCP_SERVER_NAME)
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$")
_LOCK = "tool-mounts"  # serialize_on key: every mount transaction of either kind


@dataclass(frozen=True)
class Kind:
    """One kind of mount: how it is named in messages, its failure reasons, where it is stored."""

    label: str  # "MCP server"
    setting: str  # where configured mounts come from: "AGENTRT_MCP_SERVERS"
    invalid_name: str
    invalid_url: str
    name_taken: str
    configured: str  # unmounting one the configuration mounts
    not_found: str
    table: sa.Table
    notice: str  # the NOTIFY payload's prefix: "mcp" -> "mcp:<name>"
    bare: bool  # a base URL only (see check_url)


MCP = Kind(
    "MCP server", "AGENTRT_MCP_SERVERS", "INVALID_MCP_SERVER_NAME", "INVALID_MCP_URL",
    "MCP_SERVER_NAME_TAKEN", "MCP_SERVER_CONFIGURED", "MCP_SERVER_NOT_FOUND", mcp_mounts, "mcp", False,
)  # fmt: skip
A2A = Kind(
    "A2A agent", "AGENTRT_A2A_AGENTS", "INVALID_A2A_AGENT_NAME", "INVALID_A2A_URL",
    "A2A_AGENT_NAME_TAKEN", "A2A_AGENT_CONFIGURED", "A2A_AGENT_NOT_FOUND", a2a_mounts, "a2a", True,
)  # fmt: skip


def check_name(name: str, kind: Kind) -> None:
    if len(name) > MCP_SERVER_NAME_CHARS or not _NAME.match(name):
        raise InvalidArgument(
            f"{kind.label} name '{clip(name, 100)}' is invalid: lowercase letters and digits, words joined "
            f"by single underscores, starting with a letter, at most {MCP_SERVER_NAME_CHARS} characters",
            reason=kind.invalid_name,
            violations=[("name", f"must match {MCP_SERVER_NAME}")],
        )


def check_url(url: str, kind: Kind, *, bare: bool = False) -> str:
    """host:port of an acceptable URL, for the allow-list. `bare`: no user info, query or
    fragment either (a base URL other paths are appended to; credentials go in headers, which
    are never shown)."""
    bad = InvalidArgument(
        f"url '{clip(url, 200)}' must be an http:// or https:// URL of at most {MAX_URL_CHARS} characters",
        reason=kind.invalid_url,
        violations=[("url", "must be an http(s) URL")],
    )
    if len(url) > MAX_URL_CHARS or not url.isprintable() or " " in url:
        raise bad
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise bad from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise bad
    if bare and ("@" in parts.netloc or parts.query or parts.fragment or url.endswith(("?", "#"))):
        raise InvalidArgument(
            f"url '{clip(shown(url), 200)}' must be a base URL: no user info, query or fragment "
            "(send a credential as a header)",
            reason=kind.invalid_url,
            violations=[("url", "must have no user info, query or fragment")],
        )
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def shown(url: str) -> str:
    """The URL as it may be shown or logged: without user info (a password) or query (a token)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(invalid URL)"
    return parts._replace(netloc=parts.netloc.rpartition("@")[2], query="", fragment="").geturl()


def check_headers(headers: Mapping[str, str], field: str = "headers") -> None:
    if len(headers) > MAX_HEADERS:
        raise InvalidArgument(f"at most {MAX_HEADERS} headers", violations=[(field, "too many")])
    for key, value in headers.items():
        if not _HEADER_NAME.match(key):
            raise InvalidArgument(
                f"header name '{clip(key, 100)}' is not a valid HTTP header name",
                violations=[(field, "invalid name")],
            )
        if len(value) > MAX_HEADER_VALUE_CHARS or not value.isprintable():
            raise InvalidArgument(
                f"header '{key}' must be at most {MAX_HEADER_VALUE_CHARS} printable characters",
                violations=[(f"{field}.{key}", "too long or not printable")],
            )


def configured(name: str, kind: Kind, settings: ToolsSettings) -> None:
    """ALREADY_EXISTS when the configuration mounts something of this name (either kind)."""
    for holder, names in ((MCP, settings.mcp_servers), (A2A, settings.a2a_agents)):
        if name in {m.name for m in names}:
            raise AlreadyExists(
                f"{holder.label} '{name}' is mounted by the configuration ({holder.setting})",
                reason=kind.name_taken,
            )


def claim(conn: Connection, name: str, kind: Kind, replace: bool) -> None:
    """In the mount's transaction: ALREADY_EXISTS when a runtime mount of the other kind holds
    the name, or one of this kind does and `replace` is not set."""
    serialize_on(conn, _LOCK)
    for holder in (MCP, A2A):
        if conn.execute(sa.select(holder.table.c.name).where(holder.table.c.name == name)).first() is None:
            continue
        if holder is not kind:
            raise AlreadyExists(
                f"'{name}' is the name of a mounted {holder.label}; pick another", reason=kind.name_taken
            )
        if not replace:
            raise AlreadyExists(
                f"{kind.label} '{name}' is already mounted; unmount it first or mount with replace",
                reason=kind.name_taken,
            )


@dataclass(frozen=True)
class Request:
    """A runtime mount as MountMcpServer or MountA2aAgent asks for it."""

    name: str
    url: str
    headers: dict[str, str]
    principal_headers: dict[str, dict[str, str]]
    caller_signing_secret: str = ""


async def stored(db: Database, kind: Kind) -> list[tuple[str, str, Credentials]]:
    """The runtime mounts of a kind: (name, url, credentials), for a refresh."""
    t = kind.table
    columns = (t.c.name, t.c.url, t.c.headers, t.c.principal_headers, t.c.caller_signing_secret)
    rows = await db.read(lambda c: c.execute(sa.select(*columns)).all())
    return [(name, url, delegation.stored(*credentials)) for name, url, *credentials in rows]


async def store(
    db: Database,
    kind: Kind,
    *,
    settings: ToolsSettings,
    policy: EndpointPolicy,
    channel: str,
    mount: Request,
    replace: bool,
) -> None:
    """Check a runtime mount and store it, telling the other replicas."""
    name, url = mount.name, mount.url
    check_name(name, kind)
    host_port = check_url(url, kind, bare=kind.bare)
    check_headers(mount.headers)
    delegation.check(mount.principal_headers, mount.caller_signing_secret, check_headers)
    credentials = Credentials.of(mount.headers, mount.principal_headers, mount.caller_signing_secret)
    configured(name, kind, settings)
    await policy.check(host_port)
    table = kind.table

    def transaction(conn: Connection) -> None:
        claim(conn, name, kind, replace)
        conn.execute(table.delete().where(table.c.name == name))
        conn.execute(
            table.insert().values(
                name=name,
                url=url,
                headers=json.dumps(mount.headers, sort_keys=True),
                principal_headers=credentials.stored_principals(),
                caller_signing_secret=credentials.signing_secret,
                mounted_at=time.time(),
            )
        )
        notify(conn, channel, f"{kind.notice}:{name}")

    await db.transaction(transaction)


async def remove(db: Database, kind: Kind, settings: ToolsSettings, channel: str, name: str) -> None:
    """Remove a runtime mount, telling the other replicas; the configuration's stay."""
    if name in {m.name for m in (settings.mcp_servers if kind is MCP else settings.a2a_agents)}:
        raise InvalidArgument(
            f"{kind.label} '{name}' is mounted by the configuration; remove it from {kind.setting}",
            reason=kind.configured,
        )
    table = kind.table

    def delete(conn: Connection) -> int:
        deleted = conn.execute(table.delete().where(table.c.name == name)).rowcount
        notify(conn, channel, f"{kind.notice}:{name}")
        return int(deleted)

    if not await db.transaction(delete):
        raise NotFound(f"no {kind.label} named '{clip(name, 100)}' is mounted", reason=kind.not_found)
