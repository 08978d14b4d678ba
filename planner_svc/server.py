"""planner_svc process: serves PlannerService."""

from __future__ import annotations

from agentrt.config import PlannerSettings, require_internal_token
from agentrt.server.grpcserver import BuiltServer, new_server
from agentrt.server.internal import InternalAuth
from agentrt.server.service_main import run_service
from agentrt.v1 import planner_service_pb2, planner_service_pb2_grpc
from planner_svc import metrics
from planner_svc.service import PlannerServicer

SERVICE_NAME = planner_service_pb2.DESCRIPTOR.services_by_name["PlannerService"].full_name


async def build_server(settings: PlannerSettings, port: int | None = None) -> BuiltServer:
    require_internal_token(settings, "planner")
    servicer = PlannerServicer(settings)
    return new_server(
        settings.internal_host,
        settings.planner_port if port is None else port,
        [(planner_service_pb2_grpc.add_PlannerServiceServicer_to_server, servicer, SERVICE_NAME)],
        internal=InternalAuth(settings.internal_secret()),
    )


def main() -> None:
    run_service("planner", build_server, metrics.METRICS)
