"""The tool catalog: built-in tools plus tools that providers register under leases.

Registrations live in the tools database, so they survive a tools_svc restart and are shared by
replicas. `refresh()` re-reads them, keeps for each name its newest live version, and publishes
the differences to WatchTools subscribers; it runs after every local change and every
`registry_refresh_s`, which is also how lapsed leases drop out and how one replica sees another's
registrations. Lapsed registrations are kept for an hour so that calls to them fail UNAVAILABLE
(retryable: the provider may come back) rather than NOT_FOUND.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass

import sqlalchemy as sa
import structlog
from sqlalchemy.engine import Connection

from agentrt.config import ToolsSettings
from agentrt.core.annotations import check as check_annotations
from agentrt.core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound, Unavailable
from agentrt.core.schemas import MAX_SCHEMA_BYTES
from agentrt.core.values import duration_of, struct_to_dict, timestamp_of
from agentrt.server.db import Database, notify, serialize_on
from agentrt.server.periodic import run_every
from agentrt.v1 import tool_pb2, tool_service_pb2
from tools_svc.mcp.model import McpTool
from tools_svc.mcp.mounts import McpMounts
from tools_svc.published import PublishedCatalog
from tools_svc.registry import BuiltinTool, ToolEntry, ToolRegistry
from tools_svc.schema import tool_leases
from tools_svc.validation import (
    MAX_DESCRIPTION_CHARS,
    EndpointPolicy,
    check_name,
    check_schema,
    is_version,
    version_key,
)

log = structlog.get_logger("tools_svc.catalog")

# NOTIFYed on PostgreSQL when registrations change, so every replica refreshes at once.
CHANNEL = "agentrt_tools_changed"
LAPSED_HORIZON_S = 3600.0
# Two schemas at their limit, a description, and room for the rest.
MAX_SPEC_BYTES = 2 * MAX_SCHEMA_BYTES + 16 * 1024
C = tool_service_pb2
L = tool_leases.c


@dataclass(frozen=True)
class ProviderTool(ToolEntry):
    lease_id: str
    endpoint: str
    expires_at: float
    tool_spec: tool_pb2.ToolSpec

    @property
    def version(self) -> str:
        return self.spec.version

    @property
    def timeout_s(self) -> float | None:
        if not self.tool_spec.HasField("default_timeout"):
            return None
        return self.tool_spec.default_timeout.ToNanoseconds() / 1e9 or None


def _spec_bytes(spec: tool_pb2.ToolSpec) -> bytes:
    return spec.SerializeToString(deterministic=True)


class Catalog:
    def __init__(self, db: Database, builtins: ToolRegistry, settings: ToolsSettings) -> None:
        self._db = db
        self._builtins = builtins
        self._settings = settings
        self._endpoints = EndpointPolicy(settings.provider_allowed_hosts)
        self._providers: dict[str, ProviderTool] = {}  # name -> newest live version
        self._lapsed: set[str] = set()
        self._compiled: dict[str, ProviderTool] = {}  # lease_id -> entry, reused while unchanged
        self._unreachable: set[tuple[str, str]] = set()
        self.published = PublishedCatalog()  # what ListTools and WatchTools see
        self._refresh_lock = asyncio.Lock()
        self._refresh_soon = asyncio.Event()
        # MCP servers' tools join the catalog as "<server>__<tool>"; their sessions report
        # changes (connected, disconnected, list_changed) by publishing the catalog again.
        self.mcp = McpMounts(db, settings, self._publish, CHANNEL)

    # -- reading ---------------------------------------------------------------------------

    def tools(self) -> list[tool_pb2.Tool]:
        return self.published.tools()

    @property
    def version(self) -> str:
        return self.published.version

    async def resolve(self, name: str) -> BuiltinTool | ProviderTool | McpTool:
        builtin = self._builtins.get(name)
        if builtin is not None:
            return builtin
        mcp_tool = self.mcp.resolve(name)
        if mcp_tool is not None:
            return mcp_tool
        provider = self._providers.get(name)
        if provider is None or provider.expires_at <= time.time():
            await self.refresh()  # the lease may have been renewed through another replica
            provider = self._providers.get(name)
        if provider is not None:
            return provider
        if name in self._lapsed:
            raise Unavailable(
                f"tool '{name}' has no live provider: its lease lapsed (the provider stopped renewing)",
                reason="PROVIDER_LEASE_LAPSED",
                metadata={"tool": name},
            )
        known = ", ".join(t.name for t in self.published.tools()) or "none"
        raise NotFound(f"unknown tool '{name}' (available: {known})", reason="TOOL_NOT_FOUND")

    # -- registration ----------------------------------------------------------------------

    async def register(
        self, spec: tool_pb2.ToolSpec, endpoint: str, ttl_s: float | None
    ) -> tuple[tool_service_pb2.Lease, tool_pb2.Tool]:
        self._check_spec(spec)
        await self._endpoints.check(endpoint)
        settings = self._settings
        ttl = min(
            max(ttl_s or settings.lease_ttl_default_s, settings.lease_ttl_min_s), settings.lease_ttl_max_s
        )
        spec_bytes = _spec_bytes(spec)
        new_key = version_key(spec.version)

        def transaction(conn: Connection) -> tuple[str, float]:
            serialize_on(conn, f"tool:{spec.name}")  # replicas registering one name take turns
            now = time.time()
            rows = conn.execute(
                sa.select(L.lease_id, L.version, L.endpoint, L.spec, L.expires_at).where(L.name == spec.name)
            ).all()
            # A registration of a version the rules now refuse is not served (see refresh): it
            # holds no name either.
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
                if bytes(stored_spec) != spec_bytes:
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
                    spec=spec_bytes,
                    ttl_s=ttl,
                    expires_at=expires,
                    registered_at=now,
                )
            )
            return lease_id, expires

        lease_id, expires = await self._db.transaction(transaction)
        await self.refresh()
        log.info("tool.registered", tool=spec.name, version=spec.version, endpoint=endpoint, ttl_s=ttl)
        entry = self._compiled[lease_id]
        lease = tool_service_pb2.Lease(
            lease_id=lease_id,
            tool=spec.name,
            version=spec.version,
            ttl=duration_of(ttl),
            expire_time=timestamp_of(expires),
        )
        return lease, self._tool_of(entry)

    async def renew(self, lease_ids: list[str]) -> tuple[list[tool_service_pb2.Lease], list[str]]:
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
        await self.refresh()
        leases = [
            tool_service_pb2.Lease(
                lease_id=i, tool=n, version=v, ttl=duration_of(t), expire_time=timestamp_of(e)
            )
            for i, n, v, t, e in renewed
        ]
        return leases, lapsed

    async def deregister(self, lease_id: str) -> None:
        def delete(conn: Connection) -> int:
            deleted = conn.execute(tool_leases.delete().where(L.lease_id == lease_id)).rowcount
            notify(conn, CHANNEL, lease_id)
            return deleted

        deleted = await self._db.transaction(delete)
        if not deleted:
            raise NotFound(f"lease {lease_id} not found", reason="LEASE_NOT_FOUND")
        await self.refresh()

    def _check_spec(self, spec: tool_pb2.ToolSpec) -> None:
        # Before any conversion: a spec of megabytes is refused in time proportional to nothing.
        if spec.ByteSize() > MAX_SPEC_BYTES:
            raise InvalidArgument(
                f"the tool spec is {spec.ByteSize()} bytes, more than the limit of {MAX_SPEC_BYTES} "
                f"(each schema may be at most {MAX_SCHEMA_BYTES} bytes of JSON)",
                reason="SPEC_TOO_LARGE",
                violations=[("spec", f"at most {MAX_SPEC_BYTES} bytes")],
            )
        check_name(spec.name)
        if spec.name in self._builtins.names():
            raise AlreadyExists(
                f"'{spec.name}' is a built-in tool and cannot be registered", reason="TOOL_NAME_TAKEN"
            )
        if self.mcp.owns(spec.name):
            raise AlreadyExists(
                f"'{spec.name}' is in the namespace of a mounted MCP server and cannot be registered",
                reason="TOOL_NAME_TAKEN",
            )
        version_key(spec.version)
        if len(spec.description) > MAX_DESCRIPTION_CHARS:
            raise InvalidArgument(
                f"description is longer than {MAX_DESCRIPTION_CHARS} characters",
                violations=[("spec.description", "too long")],
            )
        if not spec.HasField("input_schema"):
            raise InvalidArgument(
                "spec.input_schema is required", violations=[("spec.input_schema", "missing")]
            )
        check_schema(struct_to_dict(spec.input_schema), "spec.input_schema", require_object=True)
        if spec.HasField("output_schema"):
            check_schema(struct_to_dict(spec.output_schema), "spec.output_schema", require_object=False)
        if spec.HasField("default_timeout") and spec.default_timeout.ToNanoseconds() < 0:
            raise InvalidArgument("spec.default_timeout must not be negative")
        if problems := check_annotations(spec.annotations, spec.action_annotations):
            raise InvalidArgument(
                "invalid annotations: " + "; ".join(f"{f} {d}" for f, d in problems), violations=problems
            )

    # -- health ----------------------------------------------------------------------------

    def mark_reachable(self, tool: ProviderTool, reachable: bool) -> None:
        key = (tool.name, tool.version)
        if reachable == (key not in self._unreachable):
            return
        if reachable:
            self._unreachable.discard(key)
        else:
            self._unreachable.add(key)
        self._publish()

    # -- refresh and watch -----------------------------------------------------------------

    async def refresh(self) -> None:
        async with self._refresh_lock:
            await self.mcp.refresh()
            rows = await self._db.read(
                lambda c: c.execute(
                    sa.select(L.lease_id, L.name, L.version, L.endpoint, L.spec, L.expires_at)
                ).all()
            )
            now = time.time()
            newest: dict[str, ProviderTool] = {}
            lapsed: set[str] = set()
            compiled: dict[str, ProviderTool] = {}
            stale: list[str] = []
            for lease_id, name, version, endpoint, spec_blob, expires_at in rows:
                if expires_at <= now - LAPSED_HORIZON_S:
                    stale.append(lease_id)
                    continue
                if not is_version(version):
                    # Registered under older, looser rules (1.0.0-01): leave it out rather than serve it.
                    log.warning("tool.version_refused", tool=name, version=version)
                    continue
                try:
                    entry = self._compile(lease_id, endpoint, bytes(spec_blob), expires_at)
                except InvalidArgument as exc:
                    # Registered under older, looser rules: leave it out rather than serve it.
                    log.warning("tool.schema_refused", tool=name, version=version, error=exc.message)
                    continue
                compiled[lease_id] = entry
                if expires_at <= now:
                    lapsed.add(name)
                elif name not in newest or version_key(version) > version_key(newest[name].version):
                    newest[name] = entry
            self._compiled = compiled
            self._providers = newest
            self._lapsed = lapsed - set(newest)
            if stale:
                await self._db.transaction(
                    lambda c: c.execute(
                        tool_leases.delete().where(
                            L.lease_id.in_(stale), L.expires_at <= now - LAPSED_HORIZON_S
                        )
                    )
                )
            self._publish()

    def _compile(self, lease_id: str, endpoint: str, spec_blob: bytes, expires_at: float) -> ProviderTool:
        cached = self._compiled.get(lease_id)
        if cached is not None and _spec_bytes(cached.tool_spec) == spec_blob and cached.endpoint == endpoint:
            if cached.expires_at == expires_at:
                return cached
            return ProviderTool(
                cached.spec,
                cached.validator,
                cached.output_validator,
                lease_id,
                endpoint,
                expires_at,
                cached.tool_spec,
            )
        spec = tool_pb2.ToolSpec.FromString(spec_blob)
        validator = check_schema(struct_to_dict(spec.input_schema), "input_schema", require_object=True)
        output_validator = (
            check_schema(struct_to_dict(spec.output_schema), "output_schema", require_object=False)
            if spec.HasField("output_schema")
            else None
        )
        tool = tool_pb2.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=spec.input_schema,
            version=spec.version,
            source=tool_pb2.TOOL_SOURCE_PROVIDER,
            idempotent=spec.idempotent,
            endpoint=endpoint,
            annotations=spec.annotations,
            action_annotations=spec.action_annotations,
        )
        if spec.HasField("output_schema"):
            tool.output_schema.CopyFrom(spec.output_schema)
        if spec.HasField("default_timeout"):
            tool.default_timeout.CopyFrom(spec.default_timeout)
        return ProviderTool(tool, validator, output_validator, lease_id, endpoint, expires_at, spec)

    def _tool_of(self, entry: ProviderTool) -> tool_pb2.Tool:
        tool = tool_pb2.Tool()
        tool.CopyFrom(entry.spec)
        unreachable = (entry.name, entry.version) in self._unreachable
        tool.health = tool_pb2.TOOL_HEALTH_UNREACHABLE if unreachable else tool_pb2.TOOL_HEALTH_HEALTHY
        tool.lease_expire_time.CopyFrom(timestamp_of(entry.expires_at))
        return tool

    def _publish(self) -> None:
        """Publish what the catalog holds now: built-ins, the newest live provider versions, and
        the mounted MCP servers' tools (each change goes to the WatchTools subscribers)."""
        current = {t.name: t for t in self._builtins.specs()}
        current.update({name: self._tool_of(entry) for name, entry in self._providers.items()})
        current.update({tool.name: tool for tool in self.mcp.tools()})
        self.published.publish(current)

    def refresh_soon(self) -> None:
        """Another replica changed the registrations (a database notification)."""
        self._refresh_soon.set()

    async def run_refresher(self) -> None:
        await run_every(
            self._settings.registry_refresh_s,
            self.refresh,
            "catalog.refresh_failed",
            wake=self._refresh_soon,
            first_now=False,  # build_server has just refreshed
        )
