"""Calls from tools_svc to tool providers (ToolProviderService.Invoke)."""

from __future__ import annotations

from typing import Any

import grpc

from agentrt.channels import aio_channel
from agentrt.errors import ErrorDetails, Unavailable
from agentrt.v1 import tool_provider_service_pb2, tool_provider_service_pb2_grpc
from agentrt.values import dict_to_struct, value_to_py
from tools_svc.catalog import Catalog, ProviderTool


class ProviderClient:
    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self._channels: dict[str, grpc.aio.Channel] = {}

    def _stub(self, endpoint: str) -> tool_provider_service_pb2_grpc.ToolProviderServiceStub:
        channel = self._channels.get(endpoint)
        if channel is None:
            # No channel retries: the executor owns retries and records each attempt.
            channel = self._channels[endpoint] = aio_channel(endpoint, retry_unavailable=False)
        return tool_provider_service_pb2_grpc.ToolProviderServiceStub(channel)

    async def invoke(
        self, tool: ProviderTool, arguments: dict[str, Any], idempotency_key: str, deadline_s: float | None
    ) -> Any:
        request = tool_provider_service_pb2.InvokeRequest(
            tool=tool.name,
            version=tool.version,
            arguments=dict_to_struct(arguments),
            idempotency_key=idempotency_key,
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
            raise details.to_error() from None
        self._catalog.mark_reachable(tool, True)
        return value_to_py(response.output)

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
