"""ToolService servicer: the catalog, provider registration, and validated, idempotent invocation."""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import AsyncIterator
from typing import Any

import grpc
import structlog

from agentrt.core.annotations import effects
from agentrt.core.errors import AgentrtError, InvalidArgument, ResourceExhausted, ToolError, Unauthenticated
from agentrt.core.values import py_to_value, struct_to_dict
from agentrt.server.credentials import metadata_bearer
from agentrt.server.metrics import series
from agentrt.v1 import tool_service_pb2, tool_service_pb2_grpc
from tools_svc import callcontext, metrics, mounting
from tools_svc.a2a.agents import A2aTool
from tools_svc.catalog import Catalog
from tools_svc.entries import BuiltinTool, ToolEntry
from tools_svc.invocations import InvocationLog, current_invocation, encode
from tools_svc.mcp.model import McpTool
from tools_svc.provider_client import ProviderClient

log = structlog.get_logger("tools_svc")
C = tool_service_pb2
MAX_KEY_CHARS = callcontext.MAX_KEY_CHARS
MAX_QUEUED_REPORTS = 64  # progress reports a slow InvokeToolStream reader may fall behind by


class ToolServicer(tool_service_pb2_grpc.ToolServiceServicer):
    def __init__(
        self,
        catalog: Catalog,
        invocations: InvocationLog,
        providers: ProviderClient,
        registration_token: str | None = None,
        *,
        max_output_bytes: int = 256 * 1024,
        registration_required: bool = False,
    ) -> None:
        self._max_output_bytes = max_output_bytes
        self._catalog = catalog
        self._invocations = invocations
        self._providers = providers
        self._token = registration_token
        self._required = registration_required

    async def ListTools(
        self, request: C.ListToolsRequest, context: grpc.aio.ServicerContext
    ) -> C.ListToolsResponse:
        return C.ListToolsResponse(tools=self._catalog.tools(), catalog_version=self._catalog.version)

    async def InvokeTool(
        self, request: C.InvokeToolRequest, context: grpc.aio.ServicerContext
    ) -> C.InvokeToolResponse:
        return C.InvokeToolResponse(output=py_to_value(await self._invoke(request, context)))

    async def InvokeToolStream(
        self, request: C.InvokeToolStreamRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[C.InvokeToolStreamResponse]:
        """InvokeTool, sending what the tool reports (callcontext.report) as it comes, then the
        result. A reader slower than the reports loses some of them, never the result."""
        reports: asyncio.Queue[str] = asyncio.Queue(maxsize=MAX_QUEUED_REPORTS)

        def sink(message: str) -> None:
            if not reports.full():
                reports.put_nowait(message)

        with callcontext.reporting(sink):  # the task below copies the context, and the sink with it
            call = asyncio.ensure_future(self._invoke(request.invocation, context))
        try:
            while not call.done():
                report = asyncio.ensure_future(reports.get())
                await asyncio.wait({call, report}, return_when=asyncio.FIRST_COMPLETED)
                if not report.done():
                    report.cancel()
                    break
                yield C.InvokeToolStreamResponse(progress=C.ToolProgress(message=report.result()))
            output = await call  # its error, if it failed, is this RPC's
            yield C.InvokeToolStreamResponse(result=C.InvokeToolResponse(output=py_to_value(output)))
        finally:
            call.cancel()  # the caller went away mid-call: as InvokeTool's cancellation

    async def _invoke(self, request: C.InvokeToolRequest, context: grpc.aio.ServicerContext) -> object:
        if not request.tool:
            raise InvalidArgument("tool is required", violations=[("tool", "must not be empty")])
        if len(request.idempotency_key) > MAX_KEY_CHARS or not request.idempotency_key.isprintable():
            raise InvalidArgument(
                f"idempotency_key must be at most {MAX_KEY_CHARS} printable characters",
                violations=[("idempotency_key", "too long or not printable")],
            )
        caller = callcontext.from_request(request.context, request.idempotency_key)
        tool = await self._catalog.resolve(request.tool)
        arguments = struct_to_dict(request.arguments)
        tool.validate(arguments)  # before any implementation, built-in or provider, sees them
        structlog.contextvars.bind_contextvars(tool=request.tool)

        async def call() -> object:
            if isinstance(tool, BuiltinTool):
                output = await tool.handler(arguments)  # it reads the caller: current_call()
            elif isinstance(tool, A2aTool):
                # One message to the agent, waited on until its task ends or the step's deadline.
                output = await tool.agent.call(tool, arguments, context.time_remaining(), caller)
            elif isinstance(tool, McpTool):
                # The step's deadline reaches the server as the call's timeout; the executor
                # cancelling the step cancels this await, and the SDK tells the server.
                output = await tool.connection.call(tool, arguments, context.time_remaining(), caller)
            else:
                deadline = context.time_remaining()
                limits = [t for t in (deadline, tool.timeout_s) if t is not None]
                output = await self._providers.invoke(
                    tool, arguments, caller, min(limits) if limits else None
                )
            tool.validate_output(output)
            self._check_output_size(request.tool, output)
            return output

        try:
            with callcontext.serving(caller):
                if request.idempotency_key and not _repeats_harmlessly(tool, arguments):
                    output = await self._invocations.run_once(
                        request.idempotency_key,
                        request.tool,
                        arguments,
                        call,
                        caller.principal,
                        looks_up_itself=isinstance(tool, BuiltinTool) and tool.looks_up_itself,
                    )
                else:
                    output = await call()
        except AgentrtError as exc:
            series(metrics.TOOL_INVOCATIONS, request.tool, exc.code.name).inc()
            raise
        series(metrics.TOOL_INVOCATIONS, request.tool, "OK").inc()
        return output

    async def RegisterTool(
        self, request: C.RegisterToolRequest, context: grpc.aio.ServicerContext
    ) -> C.RegisterToolResponse:
        self._authorize(context)
        if not request.HasField("spec"):
            raise InvalidArgument("spec is required", violations=[("spec", "missing")])
        ttl = request.ttl.ToNanoseconds() / 1e9 if request.HasField("ttl") else None
        if ttl is not None and ttl <= 0:
            raise InvalidArgument("ttl must be positive", violations=[("ttl", "must be positive")])
        lease, tool = await self._catalog.register(request.spec, request.endpoint, ttl)
        return C.RegisterToolResponse(lease=lease, tool=tool)

    async def RenewLeases(
        self, request: C.RenewLeasesRequest, context: grpc.aio.ServicerContext
    ) -> C.RenewLeasesResponse:
        self._authorize(context)
        leases, lapsed = await self._catalog.renew(list(request.lease_ids))
        return C.RenewLeasesResponse(leases=leases, expired_lease_ids=lapsed)

    async def DeregisterTool(
        self, request: C.DeregisterToolRequest, context: grpc.aio.ServicerContext
    ) -> C.DeregisterToolResponse:
        self._authorize(context)
        await self._catalog.deregister(request.lease_id)
        return C.DeregisterToolResponse()

    async def CancelInvocations(
        self, request: C.CancelInvocationsRequest, context: grpc.aio.ServicerContext
    ) -> C.CancelInvocationsResponse:
        caller = callcontext.from_request(request.context, "")
        if not caller.run_id:
            raise InvalidArgument(
                "context.run_id is required", violations=[("context.run_id", "must not be empty")]
            )
        cancelled = await self._catalog.a2a.cancel_run(caller.principal, caller.run_id)
        return C.CancelInvocationsResponse(cancelled=cancelled)

    async def MountMcpServer(
        self, request: C.MountMcpServerRequest, context: grpc.aio.ServicerContext
    ) -> C.MountMcpServerResponse:
        self._authorize(context)
        server = await self._catalog.mcp.mount(_mount_request(request), request.replace)
        return C.MountMcpServerResponse(server=server)

    async def UnmountMcpServer(
        self, request: C.UnmountMcpServerRequest, context: grpc.aio.ServicerContext
    ) -> C.UnmountMcpServerResponse:
        self._authorize(context)
        await self._catalog.mcp.unmount(request.name)
        return C.UnmountMcpServerResponse()

    async def ListMcpServers(
        self, request: C.ListMcpServersRequest, context: grpc.aio.ServicerContext
    ) -> C.ListMcpServersResponse:
        return C.ListMcpServersResponse(servers=self._catalog.mcp.servers())

    async def MountA2aAgent(
        self, request: C.MountA2aAgentRequest, context: grpc.aio.ServicerContext
    ) -> C.MountA2aAgentResponse:
        self._authorize(context)
        agent = await self._catalog.a2a.mount(_mount_request(request), request.replace)
        return C.MountA2aAgentResponse(agent=agent)

    async def UnmountA2aAgent(
        self, request: C.UnmountA2aAgentRequest, context: grpc.aio.ServicerContext
    ) -> C.UnmountA2aAgentResponse:
        self._authorize(context)
        await self._catalog.a2a.unmount(request.name)
        return C.UnmountA2aAgentResponse()

    async def ListA2aAgents(
        self, request: C.ListA2aAgentsRequest, context: grpc.aio.ServicerContext
    ) -> C.ListA2aAgentsResponse:
        return C.ListA2aAgentsResponse(agents=self._catalog.a2a.agents())

    async def WatchTools(
        self, request: C.WatchToolsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[C.WatchToolsResponse]:
        watcher, snapshot = self._catalog.published.subscribe()
        try:
            yield snapshot
            while True:
                message = await watcher.queue.get()
                if watcher.overflowed and message.change == C.TOOL_CHANGE_TYPE_UNSPECIFIED:
                    raise ResourceExhausted(
                        "this watcher fell too far behind; reconnect to get a fresh snapshot"
                    )
                yield message
        finally:
            self._catalog.published.unsubscribe(watcher)

    def _check_output_size(self, tool: str, output: object) -> None:
        # Checked before the output is recorded or returned: a run stores every step's output,
        # and one of megabytes would make the run unreadable for every client. A keyed call's
        # record stores the same JSON, encoded once for both (Invocation.encode).
        invocation = current_invocation()
        text = invocation.encode(output) if invocation is not None else encode(output)
        size = len(text.encode())
        if size > self._max_output_bytes:
            raise ToolError(
                f"tool '{tool}' returned {size} bytes of output, more than the limit of "
                f"{self._max_output_bytes} (AGENTRT_MAX_TOOL_OUTPUT_BYTES)",
                reason="TOOL_OUTPUT_TOO_LARGE",
                metadata={"tool": tool},
            )

    def _authorize(self, context: grpc.aio.ServicerContext) -> None:
        if not self._token:
            if self._required:
                raise Unauthenticated(
                    "registering tools is closed: API keys are configured, so registration needs "
                    "AGENTRT_REGISTRATION_TOKEN set on tools_svc and presented by the provider",
                    reason="REGISTRATION_CLOSED",
                )
            return
        presented = metadata_bearer(context) or ""
        # compare_digest: the time taken must not reveal how much of the token matched.
        if not hmac.compare_digest(presented.encode(), self._token.encode()):
            raise Unauthenticated(
                "registering tools needs a valid registration token "
                "(metadata 'authorization: Bearer <token>')",
                reason="INVALID_REGISTRATION_TOKEN",
            )


def _mount_request(request: C.MountMcpServerRequest | C.MountA2aAgentRequest) -> mounting.Request:
    return mounting.Request(
        name=request.name,
        url=request.url,
        headers=dict(request.headers),
        principal_headers={p: dict(h.headers) for p, h in request.principal_headers.items()},
        caller_signing_secret=request.caller_signing_secret,
    )


def _repeats_harmlessly(tool: ToolEntry, arguments: dict[str, Any]) -> bool:
    """A call that needs no idempotency record: its tool is declared idempotent (the pure
    calculator), or it is a built-in call that only reads (todo_store's list and count), by our
    own declarations. Another tool's read-only hint is its author's word, not enough to repeat
    its calls; a listing recorded would also store its whole output once more per step."""
    if tool.spec.idempotent:
        return True
    return isinstance(tool, BuiltinTool) and effects(tool.spec, arguments).read_only
