"""The gateway's one door: every public call, from gRPC (service.py) or REST (rest.py), goes
through `Edge`, which authenticates and rate-limits the caller, applies its deadline (or the
gateway's default), forwards the call to the executor (or tools_svc for ListTools), and passes
the answer or the error back unchanged: code, message and every google.rpc detail (`Relayed`).
The two adapters only translate their protocol into a request message and a `Caller`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import grpc
from google.protobuf import message

from agentrt.client.errors import Relayed
from agentrt.config import Settings
from agentrt.server.credentials import CALLER_HEADER
from agentrt.v1 import run_pb2, tool_service_pb2_grpc
from gateway.auth import Auth
from gateway.executors import Executors
from gateway.fanout import WatchFanout

Request = message.Message | Callable[[], Awaitable[message.Message]]
# Calls about one run: sent to the replica driving it where the gateway knows it (executors.py).
RUN_CALLS = frozenset({"GetRun", "CancelRun", "RetryRun", "ApproveStep", "RejectStep"})
# Calls after which the replica that served them drives the run (it created it, or took it over).
DRIVING_CALLS = frozenset({"CreateRun", "RetryRun", "ApproveStep", "RejectStep"})


@dataclass(frozen=True)
class Caller:
    """Who calls and how long they will wait, whichever protocol they came by."""

    api_key: str | None  # the bearer token presented, if any
    address: str  # the client's address: wrong keys are throttled per address
    timeout_s: float | None = None  # the caller's own deadline; None: the gateway's default


class Edge:
    def __init__(
        self,
        executors: Executors,
        tools: tool_service_pb2_grpc.ToolServiceStub,
        fanout: WatchFanout,
        auth: Auth,
        settings: Settings,
    ) -> None:
        self._auth = auth
        self._executors = executors
        self._tools = tools
        self._fanout = fanout
        self._default_timeout_s = settings.request_timeout_s

    @property
    def auth_enabled(self) -> bool:
        return self._auth.enabled

    def authenticate(self, caller: Caller) -> str | None:
        """Check `caller`'s key and rate limit without making a call (the MCP endpoint checks
        each HTTP request before the SDK reads it); the key's name, None when auth is off."""
        return self._auth.check(caller.api_key, caller.address)

    async def call(self, rpc: str, caller: Caller, request: Request) -> message.Message:
        """Unary `rpc` for `caller`. `request` may be a coroutine function making the message:
        REST passes its body parsing that way, so an unauthenticated caller's body is never read."""
        name = self._auth.check(caller.api_key, caller.address)
        if not isinstance(request, message.Message):
            request = await request()
        timeout = caller.timeout_s if caller.timeout_s is not None else self._default_timeout_s
        # Who is calling, for the executor to record (an approval's decided_by); never taken
        # from the client's own metadata.
        metadata = ((CALLER_HEADER, name),) if name else ()
        try:
            if rpc == "ListTools":
                return await self._tools.ListTools(request, timeout=timeout, metadata=metadata)
            if rpc == "CreateRun":
                replica = self._executors.for_create()
            elif rpc in RUN_CALLS:
                replica = self._executors.for_run(request.run_id)  # type: ignore[attr-defined]
            elif rpc == "ListRuns":
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
            raise Relayed(err) from None

    def watch(
        self, request: run_pb2.WatchRunRequest, caller: Caller, *, authorized: bool = False
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        """WatchRun for `caller`, checked here (at the call, not at the first event) unless the
        caller was just authorized by a call of the same request (REST's GetRun before SSE)."""
        if not authorized:
            self._auth.check(caller.api_key, caller.address)
        return self._relay(request, caller.timeout_s)

    async def _relay(
        self, request: run_pb2.WatchRunRequest, timeout_s: float | None
    ) -> AsyncIterator[run_pb2.WatchRunResponse]:
        # The gateway's watchers of one run share one executor stream (fanout.py).
        try:
            async for response in self._fanout.watch(request.run_id, request.after_seq, timeout_s):
                yield response
        except grpc.aio.AioRpcError as err:
            raise Relayed(err) from None
