"""grpc.health.v1 probes, as `agentrt health`, `agentrt up` and the gateway's /healthz ask them."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

_REQUEST = health_pb2.HealthCheckRequest


def probe(channel: grpc.Channel, service: str = "", timeout: float = 1.0) -> str:
    """One Check: SERVING, NOT_SERVING, SERVICE_UNKNOWN, ..., or UNREACHABLE when nothing
    answers (nothing listens, or the deadline passed)."""
    try:
        response = health_pb2_grpc.HealthStub(channel).Check(_REQUEST(service=service), timeout=timeout)
    except grpc.RpcError as err:
        return _failed(err.code())  # type: ignore[attr-defined]
    return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)


async def probe_async(channel: grpc.aio.Channel, service: str = "", deadline_s: float = 1.0) -> str:
    """`probe` on an asyncio channel."""
    try:
        response = await health_pb2_grpc.HealthStub(channel).Check(
            _REQUEST(service=service), timeout=deadline_s
        )
    except grpc.aio.AioRpcError as err:
        return _failed(err.code())
    return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)


def _failed(code: grpc.StatusCode) -> str:
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        return "UNREACHABLE"
    return "SERVICE_UNKNOWN" if code == grpc.StatusCode.NOT_FOUND else code.name
