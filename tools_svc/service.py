"""ToolService servicer: catalog listing and validated, idempotent invocation."""

from __future__ import annotations

import grpc
import structlog

from agentrt.errors import InvalidArgument
from agentrt.v1 import tool_service_pb2, tool_service_pb2_grpc
from agentrt.values import py_to_value, struct_to_dict
from tools_svc.invocations import InvocationLog
from tools_svc.registry import ToolRegistry

log = structlog.get_logger("tools_svc")


class ToolServicer(tool_service_pb2_grpc.ToolServiceServicer):
    def __init__(self, registry: ToolRegistry, invocations: InvocationLog) -> None:
        self._registry = registry
        self._invocations = invocations

    async def ListTools(
        self, request: tool_service_pb2.ListToolsRequest, context: grpc.aio.ServicerContext
    ) -> tool_service_pb2.ListToolsResponse:
        return tool_service_pb2.ListToolsResponse(tools=self._registry.specs())

    async def InvokeTool(
        self, request: tool_service_pb2.InvokeToolRequest, context: grpc.aio.ServicerContext
    ) -> tool_service_pb2.InvokeToolResponse:
        if not request.tool:
            raise InvalidArgument("tool is required", violations=[("tool", "must not be empty")])
        tool = self._registry.get(request.tool)
        arguments = struct_to_dict(request.arguments)
        tool.validate(arguments)
        structlog.contextvars.bind_contextvars(tool=request.tool)

        async def call() -> object:
            return await tool.handler(arguments)

        if request.idempotency_key:
            output = await self._invocations.run_once(request.idempotency_key, request.tool, arguments, call)
        else:
            output = await call()
        return tool_service_pb2.InvokeToolResponse(output=py_to_value(output))
