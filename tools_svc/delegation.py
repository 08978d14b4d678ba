"""Whom a mount's calls act as at the remote side (an A2A agent, an MCP server over HTTP).

Three ways, one mount's choice:

- one shared credential (`headers`): every principal's calls carry it, so whatever it can see
  there, every principal's runs can see (and the remote sees one caller, whoever asked);
- a credential per principal (`principal_headers`): a call made for alice carries alice's
  headers and nothing of the shared ones (those then serve only requests made for nobody: an
  A2A agent's card, an MCP server's catalog session). A principal without an entry is refused
  (PERMISSION_DENIED, NO_PRINCIPAL_CREDENTIAL) before anything is sent: never another
  principal's credential, never the shared one;
- a signed caller identity (`caller_signing_secret`, with either of the above): every request
  made for a principal also names it, signed (agentrt/core/callerid.py), so a remote that trusts
  agentrt's credential can still tell whose call it is.

Everything here is a secret but the principals' names: it is registered with the redaction
(never logged), stored with the mount, and never returned by a List* RPC.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agentrt.core import callerid
from agentrt.core.errors import InvalidArgument, PermissionDenied
from agentrt.core.principals import MAX_NAME_CHARS
from agentrt.core.text import clip, register_secrets

Headers = tuple[tuple[str, str], ...]  # sorted pairs: frozen, comparable
MAX_PRINCIPALS = 1000


def headers_of(mapping: Mapping[str, Any]) -> Headers:
    """Sorted pairs of a header map whose values are strings or SecretStr."""
    return tuple(
        sorted((k, v.get_secret_value() if hasattr(v, "get_secret_value") else v) for k, v in mapping.items())
    )


@dataclass(frozen=True)
class Credentials:
    """What a mount's requests carry. Frozen and comparable: a mount whose credentials change is
    a different mount, and is connected again."""

    shared: Headers = ()
    per_principal: tuple[tuple[str, Headers], ...] = ()
    signing_secret: str = ""

    @classmethod
    def of(
        cls,
        headers: Mapping[str, Any],
        principal_headers: Mapping[str, Mapping[str, Any]] | None = None,
        signing_secret: str = "",
    ) -> Credentials:
        per_principal = tuple(sorted((p, headers_of(h)) for p, h in (principal_headers or {}).items()))
        return cls(headers_of(headers), per_principal, signing_secret)

    @property
    def principals(self) -> list[str]:
        """The principals with a credential of their own (empty: one shared credential)."""
        return [principal for principal, _ in self.per_principal]

    @property
    def for_each_principal(self) -> bool:
        """Whether a principal's requests differ from another's (its own credential, or its name
        signed): what an MCP server then needs is a session per principal."""
        return bool(self.per_principal or self.signing_secret)

    def secrets(self) -> list[str]:
        values = [v for _, v in self.shared] + [v for _, pairs in self.per_principal for _, v in pairs]
        return values + ([self.signing_secret] if self.signing_secret else [])

    def register(self) -> None:
        register_secrets(self.secrets())  # never logged, never in an error's text

    def headers_for(self, principal: str, what: str) -> dict[str, str]:
        """The headers a request made for `principal` carries (its signature aside); `what` names
        the mount ("A2A agent 'helper'"). PERMISSION_DENIED, before anything is sent, when the
        mount has credentials per principal and none for this one."""
        if not self.per_principal:
            return dict(self.shared)
        for name, pairs in self.per_principal:
            if name == principal:
                return dict(pairs)
        raise PermissionDenied(
            f"{what} takes a credential per principal and has none for '{clip(principal, MAX_NAME_CHARS)}': "
            "nothing was sent (an operator adds one to the mount's principal_headers)",
            reason="NO_PRINCIPAL_CREDENTIAL",
            metadata={"principal": principal},
        )

    def signer(self, principal: str) -> Callable[[Any], Awaitable[None]] | None:
        """An HTTP client's request hook that signs each request for `principal` (a fresh id and
        timestamp each: a call's polls may go on for minutes); None without a signing secret."""
        if not self.signing_secret:
            return None
        if not principal.isascii():  # an API key's name always is; an HTTP header must be
            raise InvalidArgument(
                f"principal '{clip(principal, MAX_NAME_CHARS)}' cannot be signed: not ASCII",
                violations=[("context.principal", "must be ASCII to be signed")],
            )
        key = callerid.key_of(self.signing_secret)

        async def sign(request: Any) -> None:
            request.headers.update(callerid.sign(key, principal))

        return sign

    # -- stored with a runtime mount -------------------------------------------------------

    def stored_principals(self) -> str:
        return json.dumps({p: dict(pairs) for p, pairs in self.per_principal}, sort_keys=True)


def stored(headers: str, principal_headers: str, signing_secret: str) -> Credentials:
    """A runtime mount's credentials as its row holds them (JSON maps, the secret as text)."""
    return Credentials.of(json.loads(headers), json.loads(principal_headers or "{}"), signing_secret or "")


def check(
    principal_headers: Mapping[str, Mapping[str, str]],
    signing_secret: str,
    check_headers: Callable[[Mapping[str, str], str], None],
) -> None:
    """A runtime mount's credentials per principal and signing secret, bounded and well formed
    (`check_headers(headers, field)` checks one header map)."""
    if len(principal_headers) > MAX_PRINCIPALS:
        raise InvalidArgument(
            f"at most {MAX_PRINCIPALS} principals", violations=[("principal_headers", "too many")]
        )
    for principal, headers in principal_headers.items():
        if (
            not principal
            or len(principal) > MAX_NAME_CHARS
            or not (principal.isascii() and principal.isprintable())
        ):
            raise InvalidArgument(
                f"principal '{clip(principal, 100)}' must be 1 to {MAX_NAME_CHARS} printable ASCII "
                "characters (an API key's name)",
                violations=[("principal_headers", "invalid principal")],
            )
        if not headers:
            raise InvalidArgument(
                f"principal '{principal}' has no headers: leave it out to refuse its calls",
                violations=[(f"principal_headers.{principal}", "must not be empty")],
            )
        check_headers(headers, f"principal_headers.{principal}")
    if signing_secret:
        try:
            callerid.key_of(signing_secret)
        except ValueError as exc:
            raise InvalidArgument(
                str(exc), violations=[("caller_signing_secret", "not a usable key")]
            ) from None
