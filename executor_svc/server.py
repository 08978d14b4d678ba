"""executor_svc process: run store, engine and RunService."""

from __future__ import annotations

import asyncio

from agentrt.channels import aio_channel
from agentrt.config import Settings
from agentrt.grpcserver import BuiltServer, new_server, serve_until_signalled
from agentrt.logs import configure_logging
from agentrt.metrics import serve_metrics
from agentrt.tracing import configure_tracing
from agentrt.v1 import planner_service_pb2_grpc, run_pb2, run_pb2_grpc, tool_service_pb2_grpc
from executor_svc.engine import Engine
from executor_svc.hub import EventHub
from executor_svc.service import RunServicer
from executor_svc.store import SqliteRunStore

SERVICE_NAME = run_pb2.DESCRIPTOR.services_by_name["RunService"].full_name


async def build_server(settings: Settings, port: int | None = None) -> BuiltServer:
    store = await SqliteRunStore.open(settings.data_dir / "executor.db")
    hub = EventHub()
    # The engine owns planner and tool retries (and records each attempt): no channel retries.
    planner_channel = aio_channel(settings.planner_target, retry_unavailable=False)
    tools_channel = aio_channel(settings.tools_target, retry_unavailable=False)
    engine = Engine(
        store,
        hub,
        planner_service_pb2_grpc.PlannerServiceStub(planner_channel),
        tool_service_pb2_grpc.ToolServiceStub(tools_channel),
        settings,
    )
    built = new_server(
        settings.host,
        settings.executor_port if port is None else port,
        [
            (
                run_pb2_grpc.add_RunServiceServicer_to_server,
                RunServicer(engine, store, hub, settings),
                SERVICE_NAME,
            )
        ],
    )
    # Cleanups run in reverse: stop driving runs, then close channels, then the store.
    built.cleanups += [store.close, tools_channel.close, planner_channel.close, engine.close]
    await engine.start()
    return built


async def serve(settings: Settings) -> None:
    built = await build_server(settings)
    serve_metrics(settings.host, settings.executor_metrics_port)
    await serve_until_signalled(built, settings.shutdown_grace_s, "executor")


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format, service="executor")
    configure_tracing(settings, "executor")
    asyncio.run(serve(settings))
