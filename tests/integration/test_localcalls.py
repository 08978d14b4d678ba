"""Calls between services of one process (agentrt/server/localcalls.py): what a caller sees is
what it sees over gRPC, for answers, errors with their rich status, deadlines, cancellation and
streams, and the credential and principal reach the callee as they would over the network."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.core.principals import INTERNAL_HEADER
from agentrt.server import localcalls
from agentrt.server.grpcserver import BuiltServer
from agentrt.server.localcalls import LocalChannel
from agentrt.v1 import planner_service_pb2, planner_service_pb2_grpc, tool_pb2
from planner_svc import server as planner_server

CATALOG = [tool_pb2.Tool(name="calculator"), tool_pb2.Tool(name="todo_store")]


@pytest.fixture
async def planner(settings: Settings) -> AsyncIterator[BuiltServer]:
    built = await planner_server.build_server(settings.planner, 0)
    await built.start()
    localcalls.register("planner", built.handlers, settings.internal_secret())
    try:
        yield built
    finally:
        localcalls.unregister("planner")
        await built.stop(0)


async def _both(built: BuiltServer, call: Any) -> tuple[Any, Any]:
    """The same call over gRPC and in-process: each one's answer, or its error."""
    out = []
    for channel in (localcalls.channel(f"127.0.0.1:{built.port}"), localcalls.channel("local:planner")):
        stub = planner_service_pb2_grpc.PlannerServiceStub(channel)
        try:
            out.append(await call(stub))
        except grpc.aio.AioRpcError as err:
            out.append(err)
        finally:
            await channel.close()
    return out[0], out[1]


async def test_an_answer_is_the_same_as_over_grpc(planner: BuiltServer) -> None:
    request = planner_service_pb2.CreatePlanRequest(
        prompt="add a todo to buy milk, then list my todos", tools=CATALOG
    )
    remote, local = await _both(planner, lambda stub: stub.CreatePlan(request, timeout=10))
    assert local == remote
    assert [s.tool for s in local.plan.steps] == ["todo_store", "todo_store"]


async def test_an_error_carries_the_same_status_reason_and_violations(planner: BuiltServer) -> None:
    request = planner_service_pb2.CreatePlanRequest(prompt="calculate 1+1 and book a flight", tools=CATALOG)
    remote, local = await _both(planner, lambda stub: stub.CreatePlan(request, timeout=10))
    assert isinstance(local, grpc.aio.AioRpcError) and isinstance(remote, grpc.aio.AioRpcError)
    assert local.code() == remote.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert local.details() == remote.details()
    mine, theirs = ErrorDetails.from_rpc_error(local), ErrorDetails.from_rpc_error(remote)
    assert (
        (mine.reason, mine.violations)
        == (theirs.reason, theirs.violations)
        == (
            "UNPLANNABLE",
            [("prompt", "not understood: book a flight")],
        )
    )


async def test_the_internal_credential_is_presented_for_the_caller(settings: Settings) -> None:
    guarded = settings.replace(internal_token="local-calls-token-0123456789abcdef")
    built = await planner_server.build_server(guarded.planner, 0)
    await built.start()
    localcalls.register("planner", built.handlers, guarded.internal_secret())
    try:
        request = planner_service_pb2.CreatePlanRequest(prompt="what is 2+2", tools=CATALOG)
        remote, local = await _both(built, lambda stub: stub.CreatePlan(request, timeout=10))
        # Over the network a call without it is refused; this process's own call is admitted.
        assert isinstance(remote, grpc.aio.AioRpcError) and remote.code() == grpc.StatusCode.UNAUTHENTICATED
        assert local.plan.steps[0].tool == "calculator"
    finally:
        localcalls.unregister("planner")
        await built.stop(0)


async def test_no_server_of_that_name_is_unavailable_and_an_unknown_method_unimplemented(
    planner: BuiltServer,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await planner_service_pb2_grpc.PlannerServiceStub(LocalChannel("local:nobody")).CheckModels(
            planner_service_pb2.CheckModelsRequest()
        )
    assert missing.value.code() == grpc.StatusCode.UNAVAILABLE
    unknown = LocalChannel("local:planner").unary_unary("/agentrt.v1.PlannerService/Nothing")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await unknown(planner_service_pb2.CheckModelsRequest())
    assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED


# --- the mechanics, with handlers written here ------------------------------------------------

SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="caller's")


def _serve(**methods: grpc.RpcMethodHandler) -> None:
    localcalls.register("fake", {f"/fake.Fake/{name}": h for name, h in methods.items()}, "tok")


@pytest.fixture
def fake() -> Any:
    yield LocalChannel("local:fake")
    localcalls.unregister("fake")


async def test_metadata_deadline_and_the_callees_own_context(fake: LocalChannel) -> None:
    async def echo(request: bytes, context: Any) -> bytes:
        SEEN.set("callee's")  # the callee's task: never the caller's variable
        metadata = dict(context.invocation_metadata())
        assert metadata[INTERNAL_HEADER] == "tok"
        assert 0 < context.time_remaining() <= 5
        return request + metadata["who"].encode()

    _serve(Echo=grpc.unary_unary_rpc_method_handler(echo))
    assert await fake.unary_unary("/fake.Fake/Echo")(b"hi ", timeout=5, metadata=(("who", "al"),)) == b"hi al"
    assert SEEN.get() == "caller's"


def _slow(started: asyncio.Event, cancelled: asyncio.Event) -> grpc.RpcMethodHandler:
    """A handler that waits until it is cancelled, saying when it started and when it was."""

    async def slow(_request: bytes, _context: Any) -> bytes:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return b""

    return grpc.unary_unary_rpc_method_handler(slow)


async def test_a_deadline_cancels_the_handler_and_the_caller_sees_deadline_exceeded(
    fake: LocalChannel,
) -> None:
    cancelled = asyncio.Event()
    _serve(Slow=_slow(asyncio.Event(), cancelled))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await fake.unary_unary("/fake.Fake/Slow")(b"", timeout=0.05)
    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    await asyncio.wait_for(cancelled.wait(), 5)


async def test_a_cancelled_caller_cancels_the_handler(fake: LocalChannel) -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()
    _serve(Slow=_slow(started, cancelled))
    caller = asyncio.ensure_future(fake.unary_unary("/fake.Fake/Slow")(b""))
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await asyncio.wait_for(cancelled.wait(), 5)


async def test_a_status_set_without_abort_is_the_callers_error(fake: LocalChannel) -> None:
    async def quiet(_request: bytes, context: Any) -> bytes:
        context.set_code(grpc.StatusCode.NOT_FOUND)
        context.set_details("no such thing")
        return b""

    _serve(Quiet=grpc.unary_unary_rpc_method_handler(quiet))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await fake.unary_unary("/fake.Fake/Quiet")(b"")
    assert (info.value.code(), info.value.details()) == (grpc.StatusCode.NOT_FOUND, "no such thing")


async def test_a_stream_hands_over_each_response_then_its_error(fake: LocalChannel) -> None:
    async def count(request: bytes, context: Any) -> AsyncIterator[bytes]:
        for n in range(int(request)):
            yield str(n).encode()
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "that is all", (("why", "enough"),))

    _serve(Count=grpc.unary_stream_rpc_method_handler(count))
    got = []
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for response in fake.unary_stream("/fake.Fake/Count")(b"3"):
            got.append(response)
    assert got == [b"0", b"1", b"2"]
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert ("why", "enough") in tuple(info.value.trailing_metadata())


async def test_cancelling_a_stream_stops_its_handler_and_its_reader(fake: LocalChannel) -> None:
    stopped = asyncio.Event()

    async def forever(_request: bytes, _context: Any) -> AsyncIterator[bytes]:
        try:
            yield b"first"
            await asyncio.sleep(60)
            yield b"never"
        finally:
            stopped.set()

    _serve(Forever=grpc.unary_stream_rpc_method_handler(forever))
    call = fake.unary_stream("/fake.Fake/Forever")(b"")
    got: list[bytes] = []
    first = asyncio.Event()

    async def read() -> None:
        async for response in call:
            got.append(response)
            first.set()

    reader = asyncio.ensure_future(read())
    await asyncio.wait_for(first.wait(), 5)
    call.cancel()  # from another task than the reader's, as fanout.py does
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(reader, 5)
    await asyncio.wait_for(stopped.wait(), 5)
    assert got == [b"first"]


async def test_a_stream_handler_keeps_its_own_context_though_read_in_the_readers_task(
    fake: LocalChannel,
) -> None:
    async def tell(_request: bytes, _context: Any) -> AsyncIterator[bytes]:
        SEEN.set("callee's")
        yield SEEN.get().encode()
        await asyncio.sleep(0)  # a step after the reader ran again: still the callee's own
        yield SEEN.get().encode()

    _serve(Tell=grpc.unary_stream_rpc_method_handler(tell))
    got = []
    async for response in fake.unary_stream("/fake.Fake/Tell")(b""):
        got.append(response)
        assert SEEN.get() == "caller's"
    assert got == [b"callee's", b"callee's"]


async def test_cancelling_a_stream_between_reads_closes_its_handler(fake: LocalChannel) -> None:
    stopped = asyncio.Event()

    async def two(_request: bytes, _context: Any) -> AsyncIterator[bytes]:
        try:
            yield b"first"
            yield b"second"
        finally:
            stopped.set()

    _serve(Two=grpc.unary_stream_rpc_method_handler(two))
    call = fake.unary_stream("/fake.Fake/Two")(b"")
    responses = call.__aiter__()
    assert await responses.__anext__() == b"first"
    call.cancel()  # the reader is not waiting: the next read is cancelled, as grpc.aio's is
    with pytest.raises(asyncio.CancelledError):
        await responses.__anext__()
    await asyncio.wait_for(stopped.wait(), 5)
