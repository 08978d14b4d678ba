"""tools_svc process: opens its SQLite store, registers built-in tools, serves ToolService."""

from __future__ import annotations

import asyncio

from agentrt.config import Settings
from agentrt.grpcserver import BuiltServer, new_server, serve_until_signalled
from agentrt.logs import configure_logging
from agentrt.sqlite import SqliteDB
from agentrt.v1 import tool_service_pb2, tool_service_pb2_grpc
from tools_svc import calculator, invocations, todos
from tools_svc.invocations import InvocationLog
from tools_svc.registry import ToolRegistry
from tools_svc.service import ToolServicer

SERVICE_NAME = tool_service_pb2.DESCRIPTOR.services_by_name["ToolService"].full_name
# Append-only: each entry is applied once, in order, and recorded in PRAGMA user_version.
MIGRATIONS = [todos.MIGRATION, invocations.MIGRATION]


async def build_server(settings: Settings, port: int | None = None) -> BuiltServer:
    db = await SqliteDB.open(settings.data_dir / "tools.db", MIGRATIONS)
    todo_store = todos.TodoStore(db)
    invocation_log = InvocationLog(db)

    registry = ToolRegistry()
    registry.add_builtin(
        "calculator",
        calculator.DESCRIPTION,
        calculator.INPUT_SCHEMA,
        calculator.run,
        output_schema=calculator.OUTPUT_SCHEMA,
        idempotent=True,
    )
    registry.add_builtin("todo_store", todos.DESCRIPTION, todos.INPUT_SCHEMA, todo_store.run)

    built = new_server(
        settings.host,
        settings.tools_port if port is None else port,
        [
            (
                tool_service_pb2_grpc.add_ToolServiceServicer_to_server,
                ToolServicer(registry, invocation_log),
                SERVICE_NAME,
            )
        ],
    )
    built.cleanups.append(db.close)
    return built


async def serve(settings: Settings) -> None:
    built = await build_server(settings)
    await serve_until_signalled(built, settings.shutdown_grace_s, "tools")


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format, service="tools")
    asyncio.run(serve(settings))
