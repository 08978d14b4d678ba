"""RunService at the gateway: forwards every call to the executor unchanged.

Errors come back with their code, message and google.rpc details intact, and WatchRun is a
stream relayed message by message (never polled); the client's deadline and cancellation
propagate to the executor call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc

from agentrt.errors import ErrorDetails
from agentrt.v1 import run_pb2, run_pb2_grpc

Resp = TypeVar("Resp")


class GatewayRunServicer(run_pb2_grpc.RunServiceServicer):
    def __init__(self, executor: run_pb2_grpc.RunServiceStub) -> None:
        self._executor = executor

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
        call = self._executor.WatchRun(request, timeout=context.time_remaining())
        try:
            async for response in call:
                yield response
        except grpc.aio.AioRpcError as err:
            raise ErrorDetails.from_rpc_error(err).to_error() from None
        finally:
            call.cancel()


async def _forward(
    method: Callable[..., Awaitable[Resp]], request: Any, context: grpc.aio.ServicerContext
) -> Resp:
    try:
        return await method(request, timeout=context.time_remaining())
    except grpc.aio.AioRpcError as err:
        raise ErrorDetails.from_rpc_error(err).to_error() from None
