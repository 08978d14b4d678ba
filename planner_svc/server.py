"""planner_svc process: serves PlannerService."""

from __future__ import annotations

import asyncio

from agentrt.config import Settings
from agentrt.grpcserver import BuiltServer, new_server, serve_until_signalled
from agentrt.logs import configure_logging
from agentrt.metrics import serve_metrics
from agentrt.tracing import configure_tracing
from agentrt.v1 import planner_service_pb2, planner_service_pb2_grpc
from planner_svc.service import PlannerServicer

SERVICE_NAME = planner_service_pb2.DESCRIPTOR.services_by_name["PlannerService"].full_name


async def build_server(settings: Settings, port: int | None = None) -> BuiltServer:
    servicer = PlannerServicer(settings)
    return new_server(
        settings.host,
        settings.planner_port if port is None else port,
        [(planner_service_pb2_grpc.add_PlannerServiceServicer_to_server, servicer, SERVICE_NAME)],
    )


async def serve(settings: Settings) -> None:
    built = await build_server(settings)
    serve_metrics(settings.host, settings.planner_metrics_port)
    await serve_until_signalled(built, settings.shutdown_grace_s, "planner")


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format, service="planner")
    configure_tracing(settings, "planner")
    asyncio.run(serve(settings))
