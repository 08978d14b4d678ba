"""Who is calling, and what they may do: principals and roles, and how the gateway tells the
internal services.

A principal is the name of the API key the gateway authenticated. Its roles:
- `user` (every key): its own runs (and threads), nothing else;
- `approver`: may also see other principals' runs and decide on their waiting steps;
- `admin`: sees and manages everything (ListRuns across owners).
With no keys configured there is one principal, `local`, with every role: the single-user
experience of the embedded default.

Only the gateway may say who the caller is. It sends the principal and its roles as metadata
with the internal credential; an internal service believes that metadata only from a caller
that presented the credential (`agentrt.server.internal`), and otherwise acts for `local`
exactly when no credential is configured.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

Role = Literal["user", "approver", "admin"]
ROLES: tuple[Role, ...] = ("user", "approver", "admin")

# Metadata the gateway adds to the calls it forwards (never copied from a client's own).
PRINCIPAL_HEADER = "agentrt-principal"
ROLES_HEADER = "agentrt-roles"
# The internal credential, on every call between agentrt's services when it is configured.
INTERNAL_HEADER = "agentrt-internal-token"

LOCAL_NAME = "local"
# ListRunsRequest.owner naming every owner.
ALL_OWNERS = "*"
MAX_NAME_CHARS = 64


@dataclass(frozen=True)
class Principal:
    name: str
    roles: frozenset[str]

    @property
    def is_admin(self) -> bool:
        return "admin" in self.roles

    @property
    def is_approver(self) -> bool:
        return "approver" in self.roles or self.is_admin

    def owns(self, owner: str) -> bool:
        return owner == self.name

    def can_see(self, owner: str) -> bool:
        """Whether a resource owned by `owner` exists for this principal at all."""
        return self.owns(owner) or self.is_approver

    def can_manage(self, owner: str) -> bool:
        """Cancel, retry (and later delete): the owner or an admin."""
        return self.owns(owner) or self.is_admin

    def can_decide(self, owner: str) -> bool:
        """Approve or reject a waiting step: the owner, an approver or an admin."""
        return self.owns(owner) or self.is_approver

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return ((PRINCIPAL_HEADER, self.name), (ROLES_HEADER, ",".join(sorted(self.roles))))


LOCAL = Principal(LOCAL_NAME, frozenset(ROLES))


def principal_of(metadata: Sequence[tuple[str, str | bytes]] | None) -> Principal:
    """The principal a trusted caller (the gateway) named in `metadata`; `local` when it named
    none (a caller holding the internal credential is trusted with everything anyway)."""
    name, roles = None, ""
    for key, value in metadata or ():
        if not isinstance(value, str):
            continue
        if key == PRINCIPAL_HEADER:
            name = value
        elif key == ROLES_HEADER:
            roles = value
    if not name or len(name) > MAX_NAME_CHARS or not name.isprintable():
        return LOCAL
    return Principal(name, parse_roles(roles.split(",")) if roles else frozenset({"user"}))


def parse_roles(roles: Iterable[str]) -> frozenset[str]:
    """Known roles only (an unknown one grants nothing); every principal is at least a user."""
    return frozenset({"user", *(r.strip() for r in roles if r.strip() in ROLES)})
