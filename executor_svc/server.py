"""executor_svc process: run store, engine and RunService."""

from __future__ import annotations

from agentrt.channels import aio_channel
from agentrt.config import Settings
from agentrt.grpcserver import BuiltServer, new_server
from agentrt.service_main import run_service
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


def main() -> None:
    run_service("executor", build_server)
