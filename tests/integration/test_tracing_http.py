"""A caller's trace goes on through agentrt: a REST call with a W3C traceparent is one trace through
the gateway's HTTP edge, the executor, the planner and tools_svc, the run it creates records that
trace, and the run stays in it when it is resumed later by a call from another trace.

The four services run in this process and share one TracerProvider, with an in-memory exporter.
Tracing is global (the provider, gRPC's patched channel and server constructors), so the fixture
undoes it for the tests that follow."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from opentelemetry.util._once import Once

from agentrt.config import Settings
from agentrt.server import tracing
from agentrt.v1 import run_pb2
from tests.conftest import Stack, start_stack, watch_all

R = run_pb2
CREATE_RUN = "/agentrt.v1.RunService/CreateRun"
APPROVE_STEP = "/agentrt.v1.RunService/ApproveStep"


@dataclass
class Traced:
    stack: Stack
    exporter: InMemorySpanExporter

    async def spans(self, until: Callable[[Sequence[ReadableSpan]], bool]) -> list[ReadableSpan]:
        """The finished spans once `until` holds of them. A run's span ends just after its last
        event is published, so a watcher can see the end first."""
        for _ in range(400):
            provider = trace.get_tracer_provider()
            assert provider.force_flush()  # type: ignore[attr-defined]
            spans = list(self.exporter.get_finished_spans())
            if until(spans):
                return spans
            await asyncio.sleep(0.05)
        raise AssertionError(f"spans never complete: {sorted({s.name for s in spans})}")


def _untrace() -> None:
    from opentelemetry.instrumentation.grpc import (  # noqa: PLC0415
        GrpcAioInstrumentorClient,
        GrpcAioInstrumentorServer,
    )

    GrpcAioInstrumentorServer().uninstrument()
    GrpcAioInstrumentorClient().uninstrument()
    provider = trace.get_tracer_provider()
    if hasattr(provider, "shutdown"):
        provider.shutdown()
    # OpenTelemetry sets the global provider once per process; its own test utilities reset it so.
    trace._TRACER_PROVIDER = None
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    tracing._state["configured"] = False


@pytest.fixture
async def traced(settings: Settings) -> AsyncIterator[Traced]:
    assert not tracing.tracing_on(), "an earlier test left tracing on"
    exporter = InMemorySpanExporter()
    tracing.configure_tracing(settings, "test", exporter=exporter)  # before any server or channel
    try:
        # Rule plans wait for approval too: the resumed-run test needs a run that waits.
        running = await start_stack(
            settings.replace(approval_exempt_rules=False, approval_policy="destructive")
        )
        try:
            yield Traced(running, exporter)
        finally:
            await running.close()
    finally:
        _untrace()


def new_trace() -> tuple[str, str]:
    """A caller's trace id and span id, and the traceparent header naming them (sampled)."""
    trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
    return trace_id, f"00-{trace_id}-{span_id}-01"


def of_trace(spans: Sequence[ReadableSpan], trace_id: str) -> list[ReadableSpan]:
    return [s for s in spans if s.context is not None and s.context.trace_id == int(trace_id, 16)]


def named(spans: Sequence[ReadableSpan], name: str, kind: SpanKind = SpanKind.INTERNAL) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name and s.kind == kind]


async def test_one_trace_from_an_http_call_through_every_service(traced: Traced) -> None:
    trace_id, traceparent = new_trace()
    async with httpx.AsyncClient(base_url=traced.stack.http, timeout=20) as client:
        response = await client.post(
            "/v1/runs",
            json={"prompt": "Add a todo to buy milk, then show me all my tasks"},
            headers={"traceparent": traceparent},
        )
    assert response.status_code == 200, response.text
    created = response.json()["run"]
    assert created["traceId"] == trace_id
    await watch_all(traced.stack.gateway, created["runId"])
    run = (await traced.stack.gateway.GetRun(R.GetRunRequest(run_id=created["runId"]))).run
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    assert run.trace_id == trace_id

    spans = await traced.spans(lambda found: bool(named(of_trace(found, trace_id), "step s2")))
    mine = of_trace(spans, trace_id)
    kinds = {(s.name, s.kind) for s in mine}
    assert {
        ("POST /v1/runs", SpanKind.SERVER),  # the gateway's HTTP edge
        (CREATE_RUN, SpanKind.CLIENT),  # gateway -> executor
        (CREATE_RUN, SpanKind.SERVER),
        ("run", SpanKind.INTERNAL),
        ("plan", SpanKind.INTERNAL),
        ("step s1", SpanKind.INTERNAL),
        ("step s2", SpanKind.INTERNAL),
        ("/agentrt.v1.PlannerService/CreatePlan", SpanKind.SERVER),
        ("/agentrt.v1.ToolService/InvokeTool", SpanKind.SERVER),
    } <= kinds
    # The HTTP span is the caller's span's child, and the run is the CreateRun call's:
    (edge,) = named(mine, "POST /v1/runs", SpanKind.SERVER)
    assert edge.parent is not None and edge.parent.is_remote
    assert f"{edge.parent.span_id:016x}" == traceparent.split("-")[2]
    assert edge.attributes is not None and edge.attributes["http.route"] == "/v1/runs"
    (create,) = named(mine, CREATE_RUN, SpanKind.SERVER)
    (run_span,) = named(mine, "run")
    assert run_span.parent is not None and create.context is not None
    assert run_span.parent.span_id == create.context.span_id
    assert run_span.attributes is not None and run_span.attributes["agentrt.run_id"] == run.run_id


async def test_a_run_resumed_by_a_call_from_another_trace_stays_in_its_own(traced: Traced) -> None:
    trace_id, traceparent = new_trace()
    approver_trace, approver_parent = new_trace()
    async with httpx.AsyncClient(base_url=traced.stack.http, timeout=20) as client:
        response = await client.post(
            "/v1/runs",
            json={"prompt": "add a todo to buy milk", "approvalPolicy": "APPROVAL_POLICY_ALWAYS"},
            headers={"traceparent": traceparent},
        )
        assert response.status_code == 200, response.text
        run_id = response.json()["run"]["runId"]
        async for answer in traced.stack.gateway.WatchRun(R.WatchRunRequest(run_id=run_id), timeout=20):
            if answer.event.status_changed.status == R.RUN_STATUS_WAITING:
                break
        # The waiting run's driver ended; the approval, from another trace, drives it again
        # from what the store holds.
        waiting = (await traced.stack.gateway.GetRun(R.GetRunRequest(run_id=run_id))).run
        assert waiting.status == R.RUN_STATUS_WAITING
        (step,) = waiting.steps
        approve = f"/v1/runs/{run_id}/steps/{step.step_id}:approve"
        approved = await client.post(approve, json={}, headers={"traceparent": approver_parent})
        assert approved.status_code == 200, approved.text
    await watch_all(traced.stack.gateway, run_id)
    run = (await traced.stack.gateway.GetRun(R.GetRunRequest(run_id=run_id))).run
    assert run.status == R.RUN_STATUS_SUCCEEDED, run.error.message
    assert run.trace_id == trace_id

    spans = await traced.spans(lambda found: len(named(of_trace(found, trace_id), "run")) == 2)
    mine = of_trace(spans, trace_id)
    first, resumed = sorted(named(mine, "run"), key=lambda s: s.start_time or 0)
    (create,) = named(mine, CREATE_RUN, SpanKind.SERVER)
    assert first.parent is not None and create.context is not None and first.context is not None
    assert first.parent.span_id == create.context.span_id
    # The resumed stretch is the first one's child, in the run's trace, and links to the call
    # that woke it (the approver's trace):
    assert resumed.parent is not None and resumed.parent.span_id == first.context.span_id
    (approve,) = named(of_trace(spans, approver_trace), APPROVE_STEP, SpanKind.SERVER)
    assert [link.context.span_id for link in resumed.links] == [approve.context.span_id]  # type: ignore[union-attr]
    # The step ran after the approval, in the run's trace, down to tools_svc:
    assert named(mine, f"step {step.step_id}")
    assert named(mine, "/agentrt.v1.ToolService/InvokeTool", SpanKind.SERVER)
    route = "POST /v1/runs/{run_id}/steps/{step_id}:approve"  # named by route, not by run id
    assert named(of_trace(spans, approver_trace), route, SpanKind.SERVER)


async def test_tracing_off_leaves_no_trace(stack: Stack) -> None:
    _, traceparent = new_trace()
    async with httpx.AsyncClient(base_url=stack.http, timeout=20) as client:
        response = await client.post(
            "/v1/runs", json={"prompt": "what is 2 + 2"}, headers={"traceparent": traceparent}
        )
    assert response.status_code == 200, response.text
    run_id = response.json()["run"]["runId"]
    assert "traceId" not in response.json()["run"]
    await watch_all(stack.gateway, run_id)
    assert (await stack.gateway.GetRun(R.GetRunRequest(run_id=run_id))).run.trace_id == ""
