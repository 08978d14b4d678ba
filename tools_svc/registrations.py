"""Provider registrations under leases, and their SQL (table tool_leases).

A registration is a row that lives while its provider renews the lease. The rules between the
registrations of one name are decided here, inside the registering transaction, so replicas
registering one name at once take turns: a provider may renew its own version (with the same
spec only: a change is a new version), and another provider may only register a newer version.
Every change NOTIFYs CHANNEL on PostgreSQL so every replica refreshes its catalog at once.
Lapsed registrations are kept for LAPSED_HORIZON_S, so that calls to them fail UNAVAILABLE
(retryable: the provider may come back) rather than NOT_FOUND; `prune` then deletes them.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

import sqlalchemy as sa
import structlog
from sqlalchemy.engine import Connection

from agentrt.config import ToolsSettings
from agentrt.core.errors import AlreadyExists, FailedPrecondition, NotFound
from agentrt.core.values import duration_of, timestamp_of
from agentrt.server.db import Database, notify, serialize_on
from agentrt.v1 import tool_pb2, tool_service_pb2
from tools_svc.schema import tool_leases
from tools_svc.validation import is_version, version_key

log = structlog.get_logger("tools_svc.catalog")

# NOTIFYed on PostgreSQL when registrations change, so every replica refreshes at once.
CHANNEL = "agentrt_tools_changed"
LAPSED_HORIZON_S = 3600.0
L = tool_leases.c


@dataclass(frozen=True)
class Registration:
    """One row of tool_leases, as the catalog's refresh reads it."""

    lease_id: str
    name: str
    version: str
    endpoint: str
    blob: bytes  # the ToolSpec, serialized deterministically
    expires_at: float


def lease_of(lease_id: str, tool: str, version: str, ttl: float, expires: float) -> tool_service_pb2.Lease:
    return tool_service_pb2.Lease(
        lease_id=lease_id, tool=tool, version=version, ttl=duration_of(ttl), expire_time=timestamp_of(expires)
    )


class Registrations:
    def __init__(self, db: Database, settings: ToolsSettings) -> None:
        self._db = db
        self._settings = settings

    def ttl(self, asked_s: float | None) -> float:
        """The lease's time to live: the provider's wish (or the default) within the bounds."""
        s = self._settings
        return min(max(asked_s or s.lease_ttl_default_s, s.lease_ttl_min_s), s.lease_ttl_max_s)

    async def register(
        self, spec: tool_pb2.ToolSpec, blob: bytes, endpoint: str, ttl_s: float | None
    ) -> tuple[tool_service_pb2.Lease, float]:
        """Store (or renew) the registration of `spec` (stored as `blob`) served at `endpoint`:
        its lease, and when that expires (seconds since the epoch, as stored)."""
        ttl = self.ttl(ttl_s)
        new_key = version_key(spec.version)

        def transaction(conn: Connection) -> tuple[str, float]:
            serialize_on(conn, f"tool:{spec.name}")  # replicas registering one name take turns
            now = time.time()
            rows = conn.execute(
                sa.select(L.lease_id, L.version, L.endpoint, L.spec, L.expires_at).where(L.name == spec.name)
            ).all()
            # A registration of a version the rules now refuse is not served (see the catalog's
            # refresh): it holds no name either.
            live = [r for r in rows if r[4] > now and is_version(r[1])]
            for lease_id, version, owner, stored_spec, _ in live:
                if version != spec.version:
                    continue
                if owner != endpoint:
                    raise AlreadyExists(
                        f"tool '{spec.name}' version {version} is already registered by another provider "
                        f"({owner}); register a newer version to take over the name",
                        reason="TOOL_VERSION_TAKEN",
                    )
                if bytes(stored_spec) != blob:
                    raise FailedPrecondition(
                        f"tool '{spec.name}' version {version} is already registered with a different spec; "
                        "publish the change as a new version",
                        reason="TOOL_SPEC_CHANGED",
                    )
                expires = now + ttl
                conn.execute(
                    tool_leases.update().where(L.lease_id == lease_id).values(expires_at=expires, ttl_s=ttl)
                )
                return lease_id, expires
            rivals = [r for r in live if r[2] != endpoint and version_key(r[1]) >= new_key]
            if rivals:
                _, version, owner, _, _ = max(rivals, key=lambda r: version_key(r[1]))
                raise AlreadyExists(
                    f"tool '{spec.name}' is provided by {owner} at version {version}; another provider may "
                    f"only register a newer version (got {spec.version})",
                    reason="TOOL_NAME_TAKEN",
                )
            lease_id = uuid.uuid4().hex
            expires = now + ttl
            conn.execute(tool_leases.delete().where(L.name == spec.name, L.version == spec.version))
            notify(conn, CHANNEL, spec.name)
            conn.execute(
                tool_leases.insert().values(
                    lease_id=lease_id,
                    name=spec.name,
                    version=spec.version,
                    endpoint=endpoint,
                    spec=blob,
                    ttl_s=ttl,
                    expires_at=expires,
                    registered_at=now,
                )
            )
            return lease_id, expires

        lease_id, expires = await self._db.transaction(transaction)
        log.info("tool.registered", tool=spec.name, version=spec.version, endpoint=endpoint, ttl_s=ttl)
        return lease_of(lease_id, spec.name, spec.version, ttl, expires), expires

    async def renew(self, lease_ids: list[str]) -> tuple[list[tool_service_pb2.Lease], list[str]]:
        """Renew each lease by its own ttl; the ids of those that had lapsed (or never were)."""

        def transaction(
            conn: Connection,
        ) -> tuple[list[tuple[str, str, str, float, float]], list[str]]:
            now, renewed, lapsed = time.time(), [], []
            for lease_id in lease_ids:
                row = conn.execute(
                    sa.select(L.name, L.version, L.ttl_s, L.expires_at).where(L.lease_id == lease_id)
                ).first()
                if row is None or row[3] <= now:
                    lapsed.append(lease_id)
                    continue
                expires = now + row[2]
                conn.execute(tool_leases.update().where(L.lease_id == lease_id).values(expires_at=expires))
                renewed.append((lease_id, row[0], row[1], row[2], expires))
            return renewed, lapsed

        renewed, lapsed = await self._db.transaction(transaction)
        return [lease_of(*r) for r in renewed], lapsed

    async def deregister(self, lease_id: str) -> None:
        def delete(conn: Connection) -> int:
            deleted = conn.execute(tool_leases.delete().where(L.lease_id == lease_id)).rowcount
            notify(conn, CHANNEL, lease_id)
            return deleted

        if not await self._db.transaction(delete):
            raise NotFound(f"lease {lease_id} not found", reason="LEASE_NOT_FOUND")

    async def read(self) -> list[Registration]:
        columns = (L.lease_id, L.name, L.version, L.endpoint, L.spec, L.expires_at)
        rows = await self._db.read(lambda c: c.execute(sa.select(*columns)).all())
        return [Registration(i, n, v, e, bytes(s), x) for i, n, v, e, s, x in rows]

    async def prune(self, lease_ids: list[str], now: float) -> None:
        """Delete these registrations if they are still lapsed past the horizon (a provider may
        have re-registered in the meantime)."""
        await self._db.transaction(
            lambda c: c.execute(
                tool_leases.delete().where(L.lease_id.in_(lease_ids), L.expires_at <= now - LAPSED_HORIZON_S)
            )
        )
