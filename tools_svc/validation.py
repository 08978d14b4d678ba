"""Checks for provider registrations: names, versions, JSON Schemas and endpoints."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from typing import Any

import semver

from agentrt.core.errors import InvalidArgument, PermissionDenied
from agentrt.core.schemas import InvalidSchema, Schema, cached_schema
from agentrt.core.text import clip

NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
MAX_DESCRIPTION_CHARS = 4000
_ENDPOINT = re.compile(r"^(?:\[([0-9a-fA-F:.]{2,45})\]|([A-Za-z0-9._-]{1,253})):(\d{1,5})$")


def version_key(version: str) -> semver.Version:
    """Sort key of a semantic version, by SemVer 2.0.0's precedence: a pre-release sorts before
    its release, numeric identifiers compare as numbers (beta.10 after beta.9), build metadata
    is ignored. What the specification forbids (1.0.0-01, 1.0.0-a..b) is refused."""
    try:
        return semver.Version.parse(version)
    except ValueError:
        raise InvalidArgument(
            f"version '{clip(version, 100)}' is not a semantic version like 1.2.0",
            reason="INVALID_VERSION",
        ) from None


def is_version(version: str) -> bool:
    """Whether `version` is one version_key accepts; a stored registration may have been made
    under older, looser rules (1.0.0-01 once passed)."""
    return semver.Version.is_valid(version)


def check_name(name: str) -> None:
    if not NAME_RE.match(name):
        raise InvalidArgument(
            f"tool name '{name}' is invalid: use lowercase letters, digits and underscores, "
            "starting with a letter, at most 64 characters",
            reason="INVALID_TOOL_NAME",
            violations=[("spec.name", "must match ^[a-z][a-z0-9_]{0,63}$")],
        )


def check_schema(schema: dict[str, Any], field: str, *, require_object: bool) -> Schema:
    """Compile a provider's JSON Schema under agentrt.core.schemas' rules (size, depth, no reference
    outside the document, linear-time patterns); INVALID_ARGUMENT says why not. Cached by
    content: registration checks a spec and the catalog refresh that follows compiles the same
    schemas again."""
    try:
        compiled = cached_schema(schema)
    except InvalidSchema as exc:
        raise InvalidArgument(
            f"{field} is not an acceptable JSON Schema: {exc.message} (at {exc.path})",
            reason="INVALID_SCHEMA",
            violations=[(field, exc.message)],
        ) from None
    if require_object and schema.get("type") != "object":
        raise InvalidArgument(
            f'{field} must describe an object ("type": "object"): arguments are a JSON object',
            reason="INVALID_SCHEMA",
            violations=[(field, 'needs "type": "object"')],
        )
    return compiled


def split_endpoint(endpoint: str) -> tuple[str, int]:
    # A host is a DNS name (at most 253 characters of letters, digits, '.', '-', '_') or an
    # address: anything else would only fail later, deep in the resolver.
    match = _ENDPOINT.match(endpoint) if len(endpoint) <= 300 else None
    if not match or not 0 < int(match.group(3)) < 65536:
        raise InvalidArgument(
            f"endpoint {clip(endpoint, 100)!r} must be host:port (IPv6 as [addr]:port), "
            "the host a DNS name or an address",
            reason="INVALID_ENDPOINT",
            violations=[("endpoint", "must be host:port")],
        )
    return (match.group(1) or match.group(2)).lower(), int(match.group(3))


class EndpointPolicy:
    """The hosts and networks providers may be reached at, so tools_svc cannot be aimed at
    arbitrary addresses. Entries are CIDR networks ("10.0.0.0/8") or host names ("tools-a")."""

    def __init__(self, allowed: list[str]) -> None:
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.names: set[str] = set()
        for entry in allowed:
            try:
                self.networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                self.names.add(entry.lower())

    async def check(self, endpoint: str) -> None:
        host, port = split_endpoint(endpoint)
        if host in self.names:
            return
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (OSError, UnicodeError):
                raise self._denied(endpoint, f"host '{host}' does not resolve") from None
            addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
        outside = [str(a) for a in addresses if not any(a in net for net in self.networks)]
        if outside:
            raise self._denied(endpoint, f"{', '.join(outside)} is outside the allowed provider networks")

    def _denied(self, endpoint: str, why: str) -> PermissionDenied:
        allowed = ", ".join([*map(str, self.networks), *sorted(self.names)]) or "none"
        return PermissionDenied(
            f"provider endpoint '{endpoint}' is not allowed: {why} (allowed: {allowed})",
            reason="ENDPOINT_NOT_ALLOWED",
        )
