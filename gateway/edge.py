"""The gateway's one door: every public call, from gRPC (service.py) or REST (rest.py), goes
through `Edge`, which authenticates and rate-limits the caller, applies its deadline (or the
gateway's default), forwards the call to the executor (or tools_svc for ListTools), and passes
the answer or the error back unchanged: code, message and every google.rpc detail (`Relayed`).
The adapters (gRPC, REST/SSE, /mcp) only translate their protocol into a request message and a
`Caller`. A stream held open (WatchRun, /mcp's GET) takes one of its principal's slots here
(streams.py). The principal the key maps to travels to the executor as metadata beside the
internal credential (agentrt/core/principals.py); the executor decides what that principal may
see. Every call leaves one audit line here, with its principal, whichever protocol it came by.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import grpc
import structlog
from google.protobuf import message

from agentrt.config import GatewaySettings
from agentrt.core.channels import unreachable_cause
from agentrt.core.errors import AgentrtError, ErrorDetails, Relayed, Unavailable
from agentrt.core.principals import Principal
from agentrt.v1 import run_pb2, tool_service_pb2, tool_service_pb2_grpc
from gateway.auth import Auth
from gateway.executors import Executors
from gateway.fanout import WatchFanout
from gateway.streams import Slot, StreamLimits

Request = message.Message | Callable[[], Awaitable[message.Message]]
# Calls about one run: sent to the replica driving it where the gateway knows it (executors.py).
RUN_CALLS = frozenset({"GetRun", "CancelRun", "RetryRun", "ApproveStep", "RejectStep"})
# Calls after which the replica that served them drives the run (it created it, or took it over).
DRIVING_CALLS = frozenset({"CreateRun", "RetryRun", "ApproveStep", "RejectStep"})
# Calls any replica answers as well as another (through the balanced channel).
BALANCED_CALLS = frozenset({"ListRuns", "CreateThread", "GetThread", "ListThreads", "DeleteThread"})
log = structlog.get_logger("gateway.audit")


@dataclass(frozen=True)
class Caller:
    """Who calls and how long they will wait, whichever protocol they came by."""

    api_key: str | None  # the bearer token presented, if any
    address: str  # the peer's address: wrong keys are throttled per client address
    timeout_s: float | None = None  # the caller's own deadline; None: the gateway's default
    protocol: str = "grpc"  # grpc, rest or mcp: for the audit line
    forwarded_for: str | None = None  # X-Forwarded-For, believed only from trusted proxies


class Edge:
    def __init__(
        self,
        executors: Executors,
        tools: tool_service_pb2_grpc.ToolServiceStub,
        fanout: WatchFanout,
        auth: Auth,
        settings: GatewaySettings,
    ) -> None:
        self._auth = auth
        self._executors = executors
        self._tools = tools
        self._fanout = fanout
        self._default_timeout_s = settings.request_timeout_s
        self.streams = StreamLimits(settings.max_streams_per_principal, settings.max_streams)
        # Where the services behind this door are, for an error that names the one not answering.
        self._addresses = {
            "executor": ("AGENTRT_EXECUTOR_ADDR", settings.executor_target),
            "tools": ("AGENTRT_TOOLS_ADDR", settings.tools_target),
        }

    @property
    def auth_enabled(self) -> bool:
        return self._auth.enabled

    def authenticate(self, caller: Caller, rpc: str) -> Principal:
        """Check `caller`'s key and rate limit for `rpc` (the MCP endpoint checks each HTTP
        request before the SDK reads it; SSE before GetRun and the stream); the caller's
        principal (`local` when auth is off). A refusal leaves its audit line here."""
        try:
            return self._auth.check(caller.api_key, caller.address, caller.forwarded_for)
        except AgentrtError as err:
            self._audit(rpc, caller, None, "", err.code.name)
            raise

    def _audit(
        self,
        rpc: str,
        caller: Caller,
        principal: Principal | None,
        run_id: str,
        code: str,
        *,
        thread_id: str = "",
    ) -> None:
        # One line per call, with who made it, for every protocol (an audit trail). A refused
        # key has no principal: its line names the client's address (through trusted proxies).
        who = (
            {"principal": principal.name}
            if principal is not None
            else {"address": self._auth.client_address(caller.address, caller.forwarded_for)}
        )
        if thread_id:
            who["thread_id"] = thread_id
        log.info("call", rpc=rpc, protocol=caller.protocol, run_id=run_id, code=code, **who)

    async def call(
        self, rpc: str, caller: Caller, request: Request, principal: Principal | None = None
    ) -> message.Message:
        """Unary `rpc` for `caller` (already authenticated as `principal`, when given).
        `request` may be a coroutine function making the message: REST passes its body parsing
        that way, so an unauthenticated caller's body is never read."""
        if principal is None:
            principal = self.authenticate(caller, rpc)
        run_id, thread_id, code = "", "", "OK"
        try:
            if not isinstance(request, message.Message):
                request = await request()
            run_id, thread_id = getattr(request, "run_id", ""), getattr(request, "thread_id", "")
            response = await self._forward(rpc, caller, request, principal)
            run_id = run_id or getattr(getattr(response, "run", None), "run_id", "")
            thread_id = thread_id or getattr(getattr(response, "thread", None), "thread_id", "")
            return response
        except AgentrtError as err:
            code = err.code.name
            raise
        except BaseException:
            code = "CANCELLED"
            raise
        finally:
            self._audit(rpc, caller, principal, run_id, code, thread_id=thread_id)

    async def _forward(
        self, rpc: str, caller: Caller, request: message.Message, principal: Principal
    ) -> message.Message:
        timeout = caller.timeout_s if caller.timeout_s is not None else self._default_timeout_s
        # Who is calling, for the executor to scope and record; never taken from the client's
        # own metadata (nothing but the gateway holds the internal credential).
        metadata = self._metadata(principal)
        try:
            if rpc == "ListTools":
                return await self._tools.ListTools(request, timeout=timeout, metadata=metadata)
            if rpc == "CreateRun":
                replica = self._executors.for_create()
            elif rpc in RUN_CALLS:
                replica = self._executors.for_run(request.run_id)  # type: ignore[attr-defined]
            elif rpc in BALANCED_CALLS:
                replica = None
            else:
                raise ValueError(f"no such call: {rpc}")
            started = time.monotonic()
            try:
                stub = replica.stub if replica is not None else self._executors.balanced
                response = await getattr(stub, rpc)(request, timeout=timeout, metadata=metadata)
            except grpc.aio.AioRpcError as err:
                if replica is None or err.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                # The replica went away since it was last seen ready: any other one can answer
                # (as the balanced channel's own retry of UNAVAILABLE would have sent it).
                replica, left = None, max(0.0, timeout - (time.monotonic() - started))
                response = await getattr(self._executors.balanced, rpc)(
                    request, timeout=left, metadata=metadata
                )
            if rpc in DRIVING_CALLS:  # the replica that served it drives the run now
                self._executors.drives(response.run.run_id, replica)
            return response
        except grpc.aio.AioRpcError as err:
            raise self._relayed(err, "tools" if rpc == "ListTools" else "executor") from None

    def _relayed(self, err: grpc.aio.AioRpcError, service: str) -> AgentrtError:
        """The service's error as it came; or, when the service never answered (gRPC's own
        UNAVAILABLE, with no google.rpc details), one that says which service, where, and what
        to check, rather than the transport's text."""
        details = ErrorDetails.from_rpc_error(err)
        if details.code != grpc.StatusCode.UNAVAILABLE or details.explained:
            return Relayed(err)
        variable, target = self._addresses[service]
        why = unreachable_cause(details.message)
        return Unavailable(
            f"the gateway cannot reach {service}_svc at {target} ({variable}): {why}; "
            f"is it running? (`agentrt up` starts all four services; its log says why one stopped)",
            reason="SERVICE_UNREACHABLE",
        )

    async def catalog(self) -> tool_service_pb2.ListToolsResponse:
        """The tool catalog, the same for every principal: what the public A2A agent card lists
        as skills (a2a_route.py). Not a caller's call: no key, no audit line."""
        try:
            return await self._tools.ListTools(
                tool_service_pb2.ListToolsRequest(), timeout=self._default_timeout_s
            )
        except grpc.aio.AioRpcError as err:
            raise self._relayed(err, "tools") from None

    def _metadata(self, principal: Principal) -> tuple[tuple[str, str], ...]:
        return principal.metadata() if self._auth.enabled else ()

    def watch(
        self, request: run_pb2.WatchRunRequest, caller: Caller, principal: Principal | None = None
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        """WatchRun for `caller`, checked here (at the call, not at the first event) unless the
        caller was just authenticated as `principal` (REST's GetRun before SSE)."""
        if principal is None:
            principal = self.authenticate(caller, "WatchRun")
        try:
            slot = self.streams.acquire(principal, "WatchRun")
        except AgentrtError as err:
            self._audit("WatchRun", caller, principal, request.run_id, err.code.name)
            raise
        stream = self._relay(request, caller, principal, slot)
        # The stream releases its slot when it ends; one never started (a client gone before
        # the first event was asked for) releases it when dropped.
        weakref.finalize(stream, slot.release)
        return stream

    async def _relay(
        self, request: run_pb2.WatchRunRequest, caller: Caller, principal: Principal, slot: Slot
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        # The gateway's watchers of one run share one executor stream per principal (fanout.py):
        # the executor checks each principal's right to watch once, on its stream.
        code = "OK"
        try:
            async for response in self._fanout.watch(
                request.run_id, request.after_seq, caller.timeout_s, principal, self._metadata(principal)
            ):
                yield response
        except grpc.aio.AioRpcError as err:
            code = err.code().name
            raise self._relayed(err, "executor") from None
        except BaseException:
            code = "CANCELLED"  # the watcher went away (or the gateway is stopping)
            raise
        finally:
            slot.release()
            self._audit("WatchRun", caller, principal, request.run_id, code)
