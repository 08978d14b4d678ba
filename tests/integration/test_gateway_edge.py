"""The gateway's one door (gateway/edge.py): what the executor answers reaches gRPC and REST
callers unchanged, both get the same deadline rule, and the REST routes are the protos' own
google.api.http options. The executor here is a real gRPC server whose answers the test scripts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from openapi_spec_validator import OpenAPIV31SpecValidator, validate

from agentrt.config import Settings
from agentrt.core.errors import FailedPrecondition, ResourceExhausted, status_of
from agentrt.server.grpcserver import BuiltServer, new_server
from agentrt.v1 import plan_pb2, run_pb2, run_pb2_grpc
from gateway import server as gateway_server
from gateway.routes import ROUTES, RUN_SERVICE
from tests.conftest import start_stack
from tests.e2e.procs import free_ports
from tests.harness import Harness, step


@dataclass
class ScriptedExecutor(run_pb2_grpc.RunServiceServicer):
    """Raises `error` from every call, or sleeps `delay_s` first; records each call's deadline."""

    error: Exception | None = None
    delay_s: float = 0.0
    deadlines: list[float | None] = field(default_factory=list)

    async def _answer(self, context: grpc.aio.ServicerContext) -> run_pb2.Run:
        self.deadlines.append(context.time_remaining())
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.error is not None:
            raise self.error
        return run_pb2.Run(run_id="r1", status=run_pb2.RUN_STATUS_RUNNING)

    async def GetRun(self, request, context):  # type: ignore[no-untyped-def]
        return run_pb2.GetRunResponse(run=await self._answer(context))

    async def CancelRun(self, request, context):  # type: ignore[no-untyped-def]
        return run_pb2.CancelRunResponse(run=await self._answer(context))


@pytest.fixture
async def edge(settings: Settings) -> AsyncIterator[tuple[ScriptedExecutor, BuiltServer]]:
    executor = ScriptedExecutor()
    name = RUN_SERVICE.full_name
    backend = new_server("127.0.0.1", 0, [(run_pb2_grpc.add_RunServiceServicer_to_server, executor, name)])
    await backend.start()
    settings = settings.replace(executor_addr=f"127.0.0.1:{backend.port}", request_timeout_s=0.5)
    gateway = await gateway_server.build_server(settings.gateway, 0, http_port=0)
    await gateway.start()
    try:
        yield executor, gateway
    finally:
        await gateway.stop(0)
        await backend.stop(0)


def _details(status: object) -> dict[str, object]:
    found: dict[str, object] = {}
    for detail in status.details:  # type: ignore[attr-defined]
        for kind in (error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo, error_details_pb2.BadRequest):
            if detail.Is(kind.DESCRIPTOR):
                message = kind()
                detail.Unpack(message)
                found[kind.__name__] = message
    return found


async def test_the_executors_error_reaches_both_protocols_with_every_detail(
    edge: tuple[ScriptedExecutor, BuiltServer],
) -> None:
    executor, gateway = edge
    executor.error = ResourceExhausted(
        "executor is busy", reason="BUSY", retry_after_s=2.5, metadata={"queue": "full"}
    )
    async with grpc.aio.insecure_channel(f"127.0.0.1:{gateway.port}") as channel:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await run_pb2_grpc.RunServiceStub(channel).GetRun(run_pb2.GetRunRequest(run_id="r1"), timeout=5)
    err = info.value
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and err.details() == "executor is busy"
    details = _details(rpc_status.from_call(err))
    assert details["RetryInfo"].retry_delay.ToMilliseconds() == 2500  # type: ignore[attr-defined]
    assert details["ErrorInfo"].reason == "BUSY"  # type: ignore[attr-defined]
    assert details["ErrorInfo"].metadata["queue"] == "full"  # type: ignore[attr-defined]
    assert status_of(err) == rpc_status.from_call(err)

    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as client:
        response = await client.get("/v1/runs/r1")
    assert response.status_code == 429 and response.headers["retry-after"] == "3"
    body = response.json()["error"]
    assert body["status"] == "RESOURCE_EXHAUSTED" and body["message"] == "executor is busy"
    kinds = {d["@type"].rsplit(".", 1)[1]: d for d in body["details"]}
    assert kinds["RetryInfo"]["retryDelay"] == "2.500s"
    assert kinds["ErrorInfo"]["reason"] == "BUSY" and kinds["ErrorInfo"]["metadata"]["queue"] == "full"


async def test_a_rest_error_is_the_same_status_as_over_grpc(
    edge: tuple[ScriptedExecutor, BuiltServer],
) -> None:
    executor, gateway = edge
    executor.error = FailedPrecondition("run r1 already finished", reason="RUN_FINISHED")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{gateway.port}") as channel:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await run_pb2_grpc.RunServiceStub(channel).CancelRun(
                run_pb2.CancelRunRequest(run_id="r1"), timeout=5
            )
    over_grpc = rpc_status.from_call(info.value)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as client:
        response = await client.post("/v1/runs/r1:cancel")
    assert response.status_code == 409
    body = response.json()["error"]
    assert (body["status"], body["message"]) == ("FAILED_PRECONDITION", over_grpc.message)
    assert [d["reason"] for d in body["details"]] == [_details(over_grpc)["ErrorInfo"].reason]  # type: ignore[attr-defined]


async def test_callers_without_a_deadline_get_the_gateways_on_both_protocols(
    edge: tuple[ScriptedExecutor, BuiltServer],
) -> None:
    executor, gateway = edge
    async with grpc.aio.insecure_channel(f"127.0.0.1:{gateway.port}") as channel:
        stub = run_pb2_grpc.RunServiceStub(channel)
        await stub.GetRun(run_pb2.GetRunRequest(run_id="r1"), timeout=20)  # the caller's own
        await stub.GetRun(run_pb2.GetRunRequest(run_id="r1"))  # none: the gateway's 0.5 s
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as client:
            assert (await client.get("/v1/runs/r1")).status_code == 200  # REST: the gateway's
            own, no_deadline, rest = executor.deadlines
            # (grpc rounds a deadline up a little on its way)
            assert own is not None and 1.0 < own <= 20.1
            assert no_deadline is not None and no_deadline <= 0.6
            assert rest is not None and rest <= 0.6

            executor.delay_s = 2.0  # longer than AGENTRT_REQUEST_TIMEOUT_S
            slow = await client.get("/v1/runs/r1")
            assert slow.status_code == 504 and slow.json()["error"]["status"] == "DEADLINE_EXCEEDED"
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.GetRun(run_pb2.GetRunRequest(run_id="r1"))
        assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


async def test_the_rest_routes_and_the_openapi_paths_are_the_protos_http_options(
    edge: tuple[ScriptedExecutor, BuiltServer],
) -> None:
    _, gateway = edge
    # Every RunService RPC has an HTTP rule; the tool catalog is the one ToolService route.
    assert {r.rpc.name for r in ROUTES if r.rpc.containing_service == RUN_SERVICE} == {
        m.name for m in RUN_SERVICE.methods
    }
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as client:
        document = (await client.get("/openapi.json")).json()
    documented = {(verb, path) for path, ops in document["paths"].items() for verb in ops}
    assert {(r.verb, r.path) for r in ROUTES} <= documented
    assert {p for p in document["paths"] if p.startswith("/v1/")} == {r.path for r in ROUTES}
    operations = {document["paths"][r.path][r.verb]["operationId"]: r for r in ROUTES}
    # One operation per route: an RPC's name, an additional binding's with what its path adds.
    assert set(operations) == {r.name for r in ROUTES}
    assert operations["CreateRunByThreadId"].path == "/v1/threads/{thread_id}/runs"
    listing = document["paths"]["/v1/runs"]["get"]
    assert [p["name"] for p in listing["parameters"]] == ["page_size", "page_token", "status", "owner"]


async def test_the_served_openapi_document_is_valid_3_1_and_states_the_configured_limits(
    settings: Settings,
) -> None:
    """/openapi.json of a real gateway passes openapi-spec-validator as OpenAPI 3.1 (the version it
    declares), and its limits are the configured ones, which the server enforces at exactly that
    point: the document and the executor read one rule with one set of settings."""
    settings = settings.replace(max_prompt_chars=40, max_steps_limit=7)
    stack = await start_stack(settings)
    try:
        async with httpx.AsyncClient(base_url=stack.http, timeout=20) as client:
            document = (await client.get("/openapi.json")).json()
            assert document["openapi"] == "3.1.0"
            validate(document)  # by the version the document declares
            OpenAPIV31SpecValidator(document).validate()
            body = document["components"]["schemas"]["agentrt.v1.CreateRunRequest.Body"]
            assert body["required"] == ["prompt"]
            assert body["properties"]["prompt"]["maxLength"] == 40
            steps = body["properties"]["maxSteps"]
            assert (steps["minimum"], steps["maximum"]) == (0, 7)
            assert "AGENTRT_MAX_PROMPT_CHARS" in body["properties"]["prompt"]["description"]

            async def create(**fields: object) -> int:
                return (await client.post("/v1/runs", json={"prompt": "add 1 and 1", **fields})).status_code

            assert await create(prompt="add 1 and 1".ljust(40), maxSteps=7) == 200
            assert await create(prompt="add 1 and 1".ljust(41)) == 400
            assert await create(maxSteps=8) == 400
    finally:
        await stack.close()


class GoingAway(run_pb2_grpc.RunServiceServicer):
    """An executor replica that is up (its channel is ready) but answers every call UNAVAILABLE,
    as one shutting down does."""

    def __init__(self) -> None:
        self.calls = 0

    async def CreateRun(self, request, context):  # type: ignore[no-untyped-def]
        self.calls += 1
        await context.abort(grpc.StatusCode.UNAVAILABLE, "shutting down")

    async def GetRun(self, request, context):  # type: ignore[no-untyped-def]
        await context.abort(grpc.StatusCode.UNAVAILABLE, "shutting down")


async def test_a_replica_answering_unavailable_leaves_its_calls_to_the_others(settings: Settings) -> None:
    """With the executors given as a list, the gateway sends CreateRun to a replica of its own
    choosing (gateway/executors.py); one that answers UNAVAILABLE has the call sent on to any
    other, so no CreateRun fails while a working replica remains."""
    harness = Harness(settings)
    await harness.start()
    going = GoingAway()
    name = RUN_SERVICE.full_name
    backend = new_server("127.0.0.1", 0, [(run_pb2_grpc.add_RunServiceServicer_to_server, going, name)])
    await backend.start()
    working = harness.servers["executor"].port
    gateway = await gateway_server.build_server(
        harness.settings.replace(executor_addr=f"ipv4:127.0.0.1:{backend.port},127.0.0.1:{working}").gateway,
        0,
        http_port=0,
    )
    await gateway.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{gateway.port}")
    stub = run_pb2_grpc.RunServiceStub(channel)
    try:
        for _ in range(20):
            harness.planner.plan = plan_pb2.Plan(steps=[step("s1", "echo", value=1)], planner="scripted")
            run = (await stub.CreateRun(run_pb2.CreateRunRequest(prompt="scripted"), timeout=10)).run
            read = (await stub.GetRun(run_pb2.GetRunRequest(run_id=run.run_id), timeout=10)).run
            assert read.run_id == run.run_id
            await asyncio.sleep(0.01)  # the gateway's channels to each replica connect meanwhile
        assert going.calls > 0  # the going-away replica was chosen, and its calls went on
    finally:
        await channel.close()
        await gateway.stop(0)
        await backend.stop(0)
        await harness.close()


async def test_a_service_that_never_answers_is_named_with_its_address_and_what_to_do(
    settings: Settings,
) -> None:
    (port,) = free_ports(1)
    settings = settings.replace(executor_addr=f"127.0.0.1:{port}", request_timeout_s=5)
    gateway = await gateway_server.build_server(settings.gateway, 0, http_port=0)
    await gateway.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{gateway.port}")
    stub = run_pb2_grpc.RunServiceStub(channel)
    try:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.ListRuns(run_pb2.ListRunsRequest(), timeout=10)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        assert _details(status_of(info.value))["ErrorInfo"].reason == "SERVICE_UNREACHABLE"
        message = info.value.details() or ""
        # Which service, where, which setting points there, and what to run: not gRPC's text.
        assert (
            f"cannot reach executor_svc at 127.0.0.1:{port} (AGENTRT_EXECUTOR_ADDR): connection refused"
            in (message)
        )
        assert "agentrt up" in message and "backends failing" not in message
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as http:
            answer = await http.get("/v1/runs")
        assert answer.status_code == 503
        assert answer.json()["error"]["details"][0]["reason"] == "SERVICE_UNREACHABLE"
    finally:
        await channel.close()
        await gateway.stop(0)
