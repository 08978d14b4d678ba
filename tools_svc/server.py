"""tools_svc process: opens its SQLite store, builds the catalog, serves ToolService."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from agentrt.config import Settings
from agentrt.grpcserver import BuiltServer, new_server
from agentrt.service_main import run_service
from agentrt.sqlite import SqliteDB
from agentrt.v1 import tool_service_pb2, tool_service_pb2_grpc
from tools_svc import calculator, catalog, invocations, todos
from tools_svc.catalog import Catalog
from tools_svc.invocations import InvocationLog
from tools_svc.provider_client import ProviderClient
from tools_svc.registry import ToolRegistry
from tools_svc.service import ToolServicer

SERVICE_NAME = tool_service_pb2.DESCRIPTOR.services_by_name["ToolService"].full_name
# Append-only: each entry is applied once, in order, and recorded in PRAGMA user_version.
MIGRATIONS = [todos.MIGRATION, invocations.MIGRATION, catalog.MIGRATION]


def builtin_tools(db: SqliteDB) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_builtin(
        "calculator",
        calculator.DESCRIPTION,
        calculator.INPUT_SCHEMA,
        calculator.run,
        output_schema=calculator.OUTPUT_SCHEMA,
        idempotent=True,
    )
    registry.add_builtin("todo_store", todos.DESCRIPTION, todos.INPUT_SCHEMA, todos.TodoStore(db).run)
    return registry


async def build_server(
    settings: Settings,
    port: int | None = None,
    builtins: Callable[[SqliteDB], ToolRegistry] = builtin_tools,
) -> BuiltServer:
    """`builtins` builds the built-in tool registry (tests add fault-injection tools to it)."""
    db = await SqliteDB.open(settings.data_dir / "tools.db", MIGRATIONS)
    tool_catalog = Catalog(db, builtins(db), settings)
    await tool_catalog.refresh()
    providers = ProviderClient(tool_catalog)
    token = settings.registration_token.get_secret_value() if settings.registration_token else None
    servicer = ToolServicer(tool_catalog, InvocationLog(db), providers, token)
    built = new_server(
        settings.host,
        settings.tools_port if port is None else port,
        [(tool_service_pb2_grpc.add_ToolServiceServicer_to_server, servicer, SERVICE_NAME)],
    )
    refresher = asyncio.create_task(tool_catalog.run_refresher(), name="catalog-refresher")

    async def stop_refresher() -> None:
        refresher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await refresher

    # Cleanups run in reverse order.
    built.cleanups += [db.close, providers.close, stop_refresher]
    return built


def main() -> None:
    run_service("tools", build_server)
