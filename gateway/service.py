"""RunService over gRPC at the gateway: each call becomes a `Caller` (its bearer key, address
and deadline) and goes through the Edge, like REST. Errors reach the client as the executor sent
them (Relayed), and the client's cancellation propagates to the executor call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from agentrt.server.credentials import metadata_bearer
from agentrt.v1 import run_pb2, run_pb2_grpc
from gateway.auth import peer_address
from gateway.edge import Caller, Edge


def caller_of(context: grpc.aio.ServicerContext) -> Caller:
    # Every x-forwarded-for entry, in order: a proxy may add its own after the client's.
    hops = [
        v for k, v in context.invocation_metadata() or () if k == "x-forwarded-for" and isinstance(v, str)
    ]
    forwarded = ",".join(hops) or None
    return Caller(
        api_key=metadata_bearer(context),
        address=peer_address(context.peer()),
        timeout_s=context.time_remaining(),
        forwarded_for=forwarded,
    )


class GatewayRunServicer(run_pb2_grpc.RunServiceServicer):
    def __init__(self, edge: Edge) -> None:
        self._edge = edge

    async def CreateRun(self, request: run_pb2.CreateRunRequest, context: grpc.aio.ServicerContext) -> Any:
        return await self._edge.call("CreateRun", caller_of(context), request)

    async def GetRun(self, request: run_pb2.GetRunRequest, context: grpc.aio.ServicerContext) -> Any:
        return await self._edge.call("GetRun", caller_of(context), request)

    async def ListRuns(self, request: run_pb2.ListRunsRequest, context: grpc.aio.ServicerContext) -> Any:
        return await self._edge.call("ListRuns", caller_of(context), request)

    async def CancelRun(self, request: run_pb2.CancelRunRequest, context: grpc.aio.ServicerContext) -> Any:
        return await self._edge.call("CancelRun", caller_of(context), request)

    async def RetryRun(self, request: run_pb2.RetryRunRequest, context: grpc.aio.ServicerContext) -> Any:
        return await self._edge.call("RetryRun", caller_of(context), request)

    async def ApproveStep(
        self, request: run_pb2.ApproveStepRequest, context: grpc.aio.ServicerContext
    ) -> Any:
        return await self._edge.call("ApproveStep", caller_of(context), request)

    async def RejectStep(self, request: run_pb2.RejectStepRequest, context: grpc.aio.ServicerContext) -> Any:
        return await self._edge.call("RejectStep", caller_of(context), request)

    async def CreateThread(
        self, request: run_pb2.CreateThreadRequest, context: grpc.aio.ServicerContext
    ) -> Any:
        return await self._edge.call("CreateThread", caller_of(context), request)

    async def GetThread(self, request: run_pb2.GetThreadRequest, context: grpc.aio.ServicerContext) -> Any:
        return await self._edge.call("GetThread", caller_of(context), request)

    async def ListThreads(
        self, request: run_pb2.ListThreadsRequest, context: grpc.aio.ServicerContext
    ) -> Any:
        return await self._edge.call("ListThreads", caller_of(context), request)

    async def DeleteThread(
        self, request: run_pb2.DeleteThreadRequest, context: grpc.aio.ServicerContext
    ) -> Any:
        return await self._edge.call("DeleteThread", caller_of(context), request)

    async def WatchRun(
        self, request: run_pb2.WatchRunRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        async for response in self._edge.watch(request, caller_of(context)):
            yield response
