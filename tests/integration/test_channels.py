"""Channels between services, over real gRPC servers on this machine."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from agentrt.core.channels import aio_channel


async def _serve(port: int) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
    try:
        bound = server.add_insecure_port(f"127.0.0.1:{port}")
    except RuntimeError:
        bound = 0
    await server.start()
    return server, bound


async def _check(channel: grpc.aio.Channel) -> str:
    try:
        await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        return "ok"
    except grpc.aio.AioRpcError as exc:
        return f"{exc.code().name}: {exc.details()}"


async def test_a_new_channel_reaches_a_peer_that_restarted_on_the_address_of_one_that_went_away() -> None:
    # gRPC shares a connection between channels to one address unless told not to: the new
    # channel then inherited the old one's reconnect backoff and failed with "connection
    # refused" although the new peer listened (a test stack on a reused port 0 saw it).
    first, port = await _serve(0)
    old = aio_channel(f"127.0.0.1:{port}")
    try:
        assert await _check(old) == "ok"
        await first.stop(0)
        for _ in range(4):  # the old connection fails, and backs off longer each time
            assert (await _check(old)).startswith("UNAVAILABLE")
            await asyncio.sleep(0.3)
        second, bound = await _serve(port)
        if bound != port:
            await second.stop(0)
            pytest.skip(f"port {port} was taken by something else in between")
        new = aio_channel(f"127.0.0.1:{port}")
        try:
            assert await _check(new) == "ok"
        finally:
            await new.close()
            await second.stop(0)
    finally:
        await old.close()
