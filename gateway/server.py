"""gateway process: serves RunService on the public port, backed by the executor."""

from __future__ import annotations

import asyncio

from agentrt.channels import aio_channel
from agentrt.config import Settings
from agentrt.grpcserver import BuiltServer, new_server, serve_until_signalled
from agentrt.logs import configure_logging
from agentrt.v1 import run_pb2, run_pb2_grpc
from gateway.service import GatewayRunServicer

SERVICE_NAME = run_pb2.DESCRIPTOR.services_by_name["RunService"].full_name


async def build_server(settings: Settings, port: int | None = None) -> BuiltServer:
    channel = aio_channel(settings.executor_target)
    built = new_server(
        settings.host,
        settings.gateway_port if port is None else port,
        [
            (
                run_pb2_grpc.add_RunServiceServicer_to_server,
                GatewayRunServicer(run_pb2_grpc.RunServiceStub(channel)),
                SERVICE_NAME,
            )
        ],
    )
    built.cleanups.append(channel.close)
    return built


async def serve(settings: Settings) -> None:
    built = await build_server(settings)
    await serve_until_signalled(built, settings.shutdown_grace_s, "gateway")


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format, service="gateway")
    asyncio.run(serve(settings))
