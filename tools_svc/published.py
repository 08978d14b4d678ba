"""The published tool catalog: what ListTools answers, its version, and the WatchTools streams.

The catalog (catalog.py) decides what is in it; this module only publishes: it computes the
version (a digest of what calls depend on: names, versions, schemas, annotations, not lease
expiries or health), tells each change (ADDED, UPDATED, REMOVED) to every subscriber, and drops
a subscriber that falls WATCH_QUEUE changes behind rather than buffer without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from dataclasses import dataclass, field

import structlog

from agentrt.v1 import tool_pb2, tool_service_pb2

log = structlog.get_logger("tools_svc.catalog")
C = tool_service_pb2
WATCH_QUEUE = 1000


@dataclass(eq=False)  # identity semantics: watchers live in a set
class Watcher:
    queue: asyncio.Queue[tool_service_pb2.WatchToolsResponse] = field(
        default_factory=lambda: asyncio.Queue(WATCH_QUEUE)
    )
    overflowed: bool = False


class PublishedCatalog:
    def __init__(self) -> None:
        self._tools: dict[str, tool_pb2.Tool] = {}
        self._seen: dict[str, tuple[bytes, int]] = {}  # name -> _identity at the last publish
        self._watchers: set[Watcher] = set()
        self.version = ""

    def tools(self) -> list[tool_pb2.Tool]:
        return [self._tools[name] for name in sorted(self._tools)]

    def publish(self, current: dict[str, tool_pb2.Tool]) -> None:
        """Make `current` (name -> tool) the catalog, and tell the subscribers what changed.

        It runs at every refresh (every registry_refresh_s): each tool is serialized once, and
        what the last publish found is kept to compare with (`_seen`)."""
        seen = {name: _identity(tool) for name, tool in current.items()}
        digest = hashlib.sha256()
        for name in sorted(seen):
            digest.update(seen[name][0])
        self.version = digest.hexdigest()[:16]
        changes: list[tuple[int, tool_pb2.Tool]] = []
        for name, tool in current.items():
            before = self._seen.get(name)
            if before is None:
                changes.append((C.TOOL_CHANGE_TYPE_ADDED, tool))
            elif before != seen[name]:
                changes.append((C.TOOL_CHANGE_TYPE_UPDATED, tool))
        changes += [(C.TOOL_CHANGE_TYPE_REMOVED, t) for n, t in self._tools.items() if n not in current]
        self._tools, self._seen = current, seen
        for change, tool in changes:
            log.info(
                "catalog.changed", change=C.ToolChangeType.Name(change), tool=tool.name, version=tool.version
            )
            self._broadcast(C.WatchToolsResponse(change=change, tools=[tool], catalog_version=self.version))  # type: ignore[arg-type]

    def _broadcast(self, message: tool_service_pb2.WatchToolsResponse) -> None:
        for watcher in list(self._watchers):
            try:
                watcher.queue.put_nowait(message)
            except asyncio.QueueFull:
                # A watcher this far behind is dropped rather than buffered without bound.
                watcher.overflowed = True
                self._watchers.discard(watcher)
                with contextlib.suppress(asyncio.QueueEmpty):
                    watcher.queue.get_nowait()
                watcher.queue.put_nowait(C.WatchToolsResponse())

    def subscribe(self) -> tuple[Watcher, tool_service_pb2.WatchToolsResponse]:
        watcher = Watcher()
        self._watchers.add(watcher)
        snapshot = C.WatchToolsResponse(
            change=C.TOOL_CHANGE_TYPE_SNAPSHOT, tools=self.tools(), catalog_version=self.version
        )
        return watcher, snapshot

    def unsubscribe(self, watcher: Watcher) -> None:
        self._watchers.discard(watcher)


def _identity(tool: tool_pb2.Tool) -> tuple[bytes, int]:
    """What calls depend on (the version's digest: everything but the lease's expiry, which
    renewals move, and health), and health: a change of either is an UPDATED."""
    copy = tool_pb2.Tool()
    copy.CopyFrom(tool)
    copy.ClearField("lease_expire_time")  # renewals are not catalog changes
    copy.ClearField("health")
    return copy.SerializeToString(deterministic=True), tool.health
