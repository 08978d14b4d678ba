"""Which provider serves each tool name on this replica, and in what state.

From the registrations the refresh reads (registrations.py): for each name its newest live
version; the names whose every lease lapsed (their calls fail UNAVAILABLE, not NOT_FOUND); and,
from what calls found, the providers that could not be reached (shown as the tool's health).
Each registration's entry is built once, when its lease enters this replica's view (at
registration, or from the stored spec), and kept while the lease's row is unchanged.
"""

from __future__ import annotations

import dataclasses

import structlog

from agentrt.core.errors import InvalidArgument
from agentrt.core.values import timestamp_of
from agentrt.v1 import tool_pb2
from tools_svc import specs
from tools_svc.entries import ProviderTool
from tools_svc.registrations import LAPSED_HORIZON_S, Registration
from tools_svc.validation import is_version, version_key

log = structlog.get_logger("tools_svc.catalog")


class Providers:
    def __init__(self) -> None:
        self._newest: dict[str, ProviderTool] = {}  # name -> newest live version
        self._lapsed: set[str] = set()
        self._entries: dict[str, ProviderTool] = {}  # lease_id -> entry, kept while unchanged
        self._unreachable: set[tuple[str, str]] = set()

    # -- reading ---------------------------------------------------------------------------

    def get(self, name: str) -> ProviderTool | None:
        """The newest version of `name` that was live at the last load (it may have expired since)."""
        return self._newest.get(name)

    def lapsed(self, name: str) -> bool:
        """Whether `name` has registrations, all of them lapsed (within the horizon)."""
        return name in self._lapsed

    def entry(self, lease_id: str) -> ProviderTool:
        return self._entries[lease_id]

    def published(self) -> dict[str, tool_pb2.Tool]:
        """name -> tool as ListTools shows it, with its health and lease expiry."""
        return {name: self.tool_of(entry) for name, entry in self._newest.items()}

    def tool_of(self, entry: ProviderTool) -> tool_pb2.Tool:
        tool = tool_pb2.Tool()
        tool.CopyFrom(entry.spec)
        unreachable = (entry.name, entry.version) in self._unreachable
        tool.health = tool_pb2.TOOL_HEALTH_UNREACHABLE if unreachable else tool_pb2.TOOL_HEALTH_HEALTHY
        tool.lease_expire_time.CopyFrom(timestamp_of(entry.expires_at))
        return tool

    # -- changing --------------------------------------------------------------------------

    def adopt(self, entry: ProviderTool) -> None:
        """An entry built at registration (specs.entry): the next load keeps it for its lease
        instead of compiling the stored spec again."""
        self._entries[entry.lease_id] = entry

    def load(self, rows: list[Registration], now: float) -> list[str]:
        """Make `rows` (every stored registration) the view; return the lease ids lapsed past
        the horizon, for the caller to delete."""
        newest: dict[str, ProviderTool] = {}
        lapsed: set[str] = set()
        entries: dict[str, ProviderTool] = {}
        stale: list[str] = []
        for row in rows:
            if row.expires_at <= now - LAPSED_HORIZON_S:
                stale.append(row.lease_id)
                continue
            if not is_version(row.version):
                # Registered under older, looser rules (1.0.0-01): leave it out rather than serve it.
                log.warning("tool.version_refused", tool=row.name, version=row.version)
                continue
            try:
                entry = self._entry_of(row)
            except InvalidArgument as exc:
                # Registered under older, looser rules: leave it out rather than serve it.
                log.warning("tool.schema_refused", tool=row.name, version=row.version, error=exc.message)
                continue
            entries[row.lease_id] = entry
            if row.expires_at <= now:
                lapsed.add(row.name)
            elif row.name not in newest or version_key(row.version) > version_key(newest[row.name].version):
                newest[row.name] = entry
        self._entries = entries
        self._newest = newest
        self._lapsed = lapsed - set(newest)
        return stale

    def _entry_of(self, row: Registration) -> ProviderTool:
        kept = self._entries.get(row.lease_id)
        if kept is None or kept.blob != row.blob or kept.endpoint != row.endpoint:
            return specs.stored_entry(row.lease_id, row.endpoint, row.blob, row.expires_at)
        if kept.expires_at == row.expires_at:
            return kept
        return dataclasses.replace(kept, expires_at=row.expires_at)  # renewed: nothing to compile

    def mark_reachable(self, tool: ProviderTool, reachable: bool) -> bool:
        """Record what a call found; whether that changed the tool's health."""
        key = (tool.name, tool.version)
        if reachable == (key not in self._unreachable):
            return False
        if reachable:
            self._unreachable.discard(key)
        else:
            self._unreachable.add(key)
        return True
