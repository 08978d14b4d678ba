"""tools_svc process: opens its database, builds the catalog, serves ToolService."""

from __future__ import annotations

import time
from collections.abc import Callable

import structlog

from agentrt.config import ToolsSettings, require_internal_token
from agentrt.core.annotations import hints
from agentrt.core.text import register_secrets
from agentrt.server.db import Database, PostgresDatabase, open_database
from agentrt.server.grpcserver import BuiltServer, new_server
from agentrt.server.internal import InternalAuth
from agentrt.server.periodic import run_every
from agentrt.server.service_main import run_service
from agentrt.v1 import tool_service_pb2, tool_service_pb2_grpc
from tools_svc import calculator, catalog, metrics, todos
from tools_svc.catalog import Catalog
from tools_svc.invocations import InvocationLog
from tools_svc.provider_client import ProviderClient
from tools_svc.registry import ToolRegistry
from tools_svc.service import ToolServicer

SERVICE_NAME = tool_service_pb2.DESCRIPTOR.services_by_name["ToolService"].full_name
MIGRATIONS = "tools_svc:migrations"
log = structlog.get_logger("tools_svc.server")


def builtin_tools(db: Database) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_builtin(
        "calculator",
        calculator.DESCRIPTION,
        calculator.INPUT_SCHEMA,
        calculator.run,
        output_schema=calculator.OUTPUT_SCHEMA,
        references=calculator.REFERENCES,
        idempotent=True,
        annotations=hints(read_only=True, idempotent=True, open_world=False, title="Calculator"),
    )
    registry.add_builtin(
        "todo_store",
        todos.DESCRIPTION,
        todos.INPUT_SCHEMA,
        todos.TodoStore(db).run,
        annotations=todos.ANNOTATIONS,
        action_annotations=todos.ACTION_ANNOTATIONS,
        references=todos.REFERENCES,
        looks_up_itself=True,  # TodoStore._write reads the call's record with its change
    )
    return registry


# Called by tool providers and `agentrt tools mount`/`mount-agent`, which hold the registration
# token, not the internal credential: they check the token themselves (ToolServicer._authorize).
REGISTRATION_METHODS = frozenset(
    {
        "RegisterTool", "RenewLeases", "DeregisterTool",
        "MountMcpServer", "UnmountMcpServer", "MountA2aAgent", "UnmountA2aAgent",
    }
)  # fmt: skip


async def build_server(
    settings: ToolsSettings,
    port: int | None = None,
    builtins: Callable[[Database], ToolRegistry] = builtin_tools,
) -> BuiltServer:
    """`builtins` builds the built-in tool registry (tests add fault-injection tools to it)."""
    require_internal_token(settings, "tools service")
    db = await open_database(settings, "tools", MIGRATIONS)
    tool_catalog = Catalog(db, builtins(db), settings)
    await tool_catalog.refresh()
    providers = ProviderClient(tool_catalog, settings.max_tool_output_bytes)
    token = settings.registration_token.get_secret_value() if settings.registration_token else None
    register_secrets([token])
    invocation_log = InvocationLog(db)
    servicer = ToolServicer(
        tool_catalog,
        invocation_log,
        providers,
        token,
        max_output_bytes=settings.max_tool_output_bytes,
        # In a deployment with keys (an internal credential), registering needs a token: without
        # one configured, nobody may register.
        registration_required=bool(settings.api_keys or settings.internal_secret()),
    )
    built = new_server(
        settings.internal_host,
        settings.tools_port if port is None else port,
        [(tool_service_pb2_grpc.add_ToolServiceServicer_to_server, servicer, SERVICE_NAME)],
        internal=InternalAuth(settings.internal_secret()),
        open_methods=REGISTRATION_METHODS,
    )
    # Cleanups run in reverse order: background work and the listener stop before the database.
    built.cleanups += [db.close, providers.close, tool_catalog.mcp.close, tool_catalog.a2a.close]
    if isinstance(db, PostgresDatabase):
        # Imported here: asyncpg costs ~14 MB of resident memory that SQLite never needs.
        from agentrt.server.pgnotify import Listener  # noqa: PLC0415

        listener = Listener(
            db.asyncpg_dsn(),
            {catalog.CHANNEL: lambda _: tool_catalog.refresh_soon()},
            tool_catalog.refresh_soon,
        )
        listener.start()
        built.cleanups.append(listener.close)
    built.background(tool_catalog.run_refresher(), "catalog-refresher")
    if settings.retention_days:
        retention = run_every(
            settings.retention_interval_s, lambda: prune_once(invocation_log, settings), "retention.failed"
        )
        built.background(retention, "retention")
    return built


async def prune_once(invocation_log: InvocationLog, settings: ToolsSettings) -> None:
    """Retention: invocation records live as long as the runs that could retry them."""
    deleted = await invocation_log.prune(time.time() - settings.retention_days * 86400)
    if deleted:
        log.info("retention.pruned", invocations=deleted)


def main() -> None:
    run_service("tools", build_server, metrics.METRICS)
