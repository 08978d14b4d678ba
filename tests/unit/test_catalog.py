"""tools_svc's catalog, its parts wired as the server wires them (SQLite): a registration's
schemas are compiled at the check and nowhere else; a registration another replica made is
compiled once, when it first enters this replica's view; refreshes and renewals compile nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agentrt.config import ToolsSettings
from agentrt.core import schemas
from agentrt.core.values import dict_to_struct
from agentrt.server.db import open_database
from agentrt.v1 import tool_pb2
from tools_svc import server as tools_server
from tools_svc import validation
from tools_svc.catalog import Catalog
from tools_svc.registry import ToolRegistry

INPUT = {"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}
OUTPUT = {"type": "object", "properties": {"greeting": {"type": "string"}}}


def spec(name: str = "greet", version: str = "1.0.0") -> tool_pb2.ToolSpec:
    return tool_pb2.ToolSpec(
        name=name,
        description="greets",
        version=version,
        input_schema=dict_to_struct(INPUT),
        output_schema=dict_to_struct(OUTPUT),
    )


class Counted:
    """Counts the schemas tools_svc converts and hashes (validation.check_schema's cache key)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = validation.cached_schema

        def counted(schema: dict[str, Any]) -> schemas.Schema:
            self.calls += 1
            return real(schema)

        monkeypatch.setattr(validation, "cached_schema", counted)


@pytest.fixture
async def catalogs(tmp_path: Path) -> AsyncIterator[tuple[Catalog, Catalog]]:
    """Two replicas' catalogs over one database."""
    settings = ToolsSettings(data_dir=tmp_path, database_url=None)
    db = await open_database(settings, "tools", tools_server.MIGRATIONS)
    first, second = Catalog(db, ToolRegistry(), settings), Catalog(db, ToolRegistry(), settings)
    await first.refresh()
    await second.refresh()
    try:
        yield first, second
    finally:
        await first.mcp.close()
        await second.mcp.close()
        await db.close()


async def test_a_registration_compiles_each_schema_once(
    catalogs: tuple[Catalog, Catalog], monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog, _ = catalogs
    counted = Counted(monkeypatch)
    lease, tool = await catalog.register(spec(), "127.0.0.1:9", 30)
    assert counted.calls == 2  # input and output, at the check; the refresh reused them
    assert tool.name == "greet" and tool.lease_expire_time.seconds > 0
    for _ in range(3):
        await catalog.refresh()
    await catalog.renew([lease.lease_id])
    # The same version again from the same provider renews it: its spec is checked again.
    await catalog.register(spec(), "127.0.0.1:9", 30)
    assert counted.calls == 4
    entry = await catalog.resolve("greet")
    entry.validate({"who": "ada"})
    assert [t.name for t in catalog.tools()] == ["greet"]


async def test_another_replicas_registration_is_compiled_once_when_it_arrives(
    catalogs: tuple[Catalog, Catalog], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = catalogs
    await first.register(spec(), "127.0.0.1:9", 30)
    counted = Counted(monkeypatch)
    await second.refresh()
    assert counted.calls == 2  # the stored spec's two schemas
    for _ in range(3):
        await second.refresh()
    assert counted.calls == 2
    assert second.version == first.version
    assert (await second.resolve("greet")).endpoint == "127.0.0.1:9"  # type: ignore[union-attr]


async def test_a_deregistered_tool_leaves_the_catalog(catalogs: tuple[Catalog, Catalog]) -> None:
    catalog, _ = catalogs
    lease, _ = await catalog.register(spec(), "127.0.0.1:9", 30)
    before = catalog.version
    await catalog.deregister(lease.lease_id)
    assert catalog.tools() == [] and catalog.version != before
