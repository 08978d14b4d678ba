"""RunService at the gateway: forwards every call to the executor unchanged.

Errors come back with their code, message and google.rpc details intact, and the client's
deadline and cancellation propagate to the executor call. WatchRun is relayed message by message
(never polled), with the gateway's watchers of one run sharing one executor stream (fanout.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc

from agentrt.client.errors import ErrorDetails
from agentrt.v1 import run_pb2, run_pb2_grpc
from gateway.fanout import WatchFanout

Resp = TypeVar("Resp")


class GatewayRunServicer(run_pb2_grpc.RunServiceServicer):
    def __init__(self, executor: run_pb2_grpc.RunServiceStub, fanout: WatchFanout) -> None:
        self._executor = executor
        self._fanout = fanout

    async def CreateRun(self, request: run_pb2.CreateRunRequest, context: grpc.aio.ServicerContext) -> Any:
        return await _forward(self._executor.CreateRun, request, context)

    async def GetRun(self, request: run_pb2.GetRunRequest, context: grpc.aio.ServicerContext) -> Any:
        return await _forward(self._executor.GetRun, request, context)

    async def ListRuns(self, request: run_pb2.ListRunsRequest, context: grpc.aio.ServicerContext) -> Any:
        return await _forward(self._executor.ListRuns, request, context)

    async def CancelRun(self, request: run_pb2.CancelRunRequest, context: grpc.aio.ServicerContext) -> Any:
        return await _forward(self._executor.CancelRun, request, context)

    async def RetryRun(self, request: run_pb2.RetryRunRequest, context: grpc.aio.ServicerContext) -> Any:
        return await _forward(self._executor.RetryRun, request, context)

    async def WatchRun(
        self, request: run_pb2.WatchRunRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        try:
            async for response in self._fanout.watch(
                request.run_id, request.after_seq, context.time_remaining()
            ):
                yield response
        except grpc.aio.AioRpcError as err:
            raise ErrorDetails.from_rpc_error(err).to_error() from None


async def _forward(
    method: Callable[..., Awaitable[Resp]], request: Any, context: grpc.aio.ServicerContext
) -> Resp:
    try:
        return await method(request, timeout=context.time_remaining())
    except grpc.aio.AioRpcError as err:
        raise ErrorDetails.from_rpc_error(err).to_error() from None
