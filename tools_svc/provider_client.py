"""Calls from tools_svc to tool providers (ToolProviderService.Invoke), with the call's context
(whom the call is for) so a provider can keep state per principal."""

from __future__ import annotations

from typing import Any

import grpc

from agentrt.core.channels import aio_channel
from agentrt.core.errors import ErrorDetails, ToolError, Unavailable
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.v1 import tool_provider_service_pb2, tool_provider_service_pb2_grpc
from tools_svc.callcontext import CallContext
from tools_svc.catalog import Catalog
from tools_svc.entries import ProviderTool


class ProviderClient:
    def __init__(self, catalog: Catalog, max_output_bytes: int) -> None:
        self._catalog = catalog
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._max_output_bytes = max_output_bytes
        # gRPC refuses a larger answer before parsing it: a provider cannot make tools_svc read
        # megabytes. The margin covers the message around the output.
        self._max_receive = max_output_bytes + 16 * 1024

    def _stub(self, endpoint: str) -> tool_provider_service_pb2_grpc.ToolProviderServiceStub:
        channel = self._channels.get(endpoint)
        if channel is None:
            # No channel retries: the executor owns retries and records each attempt.
            channel = self._channels[endpoint] = aio_channel(
                endpoint, retry_unavailable=False, max_receive_bytes=self._max_receive
            )
        return tool_provider_service_pb2_grpc.ToolProviderServiceStub(channel)

    async def invoke(
        self, tool: ProviderTool, arguments: dict[str, Any], context: CallContext, deadline_s: float | None
    ) -> Any:
        request = tool_provider_service_pb2.InvokeRequest(
            tool=tool.name,
            version=tool.version,
            arguments=dict_to_struct(arguments),
            idempotency_key=context.idempotency_key,
            context=context.to_proto(),
        )
        try:
            response = await self._stub(tool.endpoint).Invoke(request, timeout=deadline_s)
        except grpc.aio.AioRpcError as err:
            details = ErrorDetails.from_rpc_error(err)
            if details.code == grpc.StatusCode.UNAVAILABLE and details.reason == "UNAVAILABLE":
                # No status details: the provider itself was not reached.
                self._catalog.mark_reachable(tool, False)
                raise Unavailable(
                    f"provider of tool '{tool.name}' at {tool.endpoint} is unreachable: {details.message}",
                    reason="PROVIDER_UNREACHABLE",
                    metadata={"tool": tool.name, "endpoint": tool.endpoint},
                ) from None
            self._catalog.mark_reachable(tool, True)
            if details.code == grpc.StatusCode.RESOURCE_EXHAUSTED and details.reason == "RESOURCE_EXHAUSTED":
                # No status details: our channel refused the answer's size, not the provider.
                raise ToolError(
                    f"provider of tool '{tool.name}' returned more than {self._max_output_bytes} bytes "
                    "of output (AGENTRT_MAX_TOOL_OUTPUT_BYTES)",
                    reason="TOOL_OUTPUT_TOO_LARGE",
                    metadata={"tool": tool.name},
                ) from None
            raise details.to_error() from None
        self._catalog.mark_reachable(tool, True)
        return value_to_py(response.output)

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
