"""OpenTelemetry tracing, off by default.

When on, gRPC clients and servers are instrumented, so the trace context travels in gRPC
metadata and one run is one trace across all four services: the executor opens a root span per
run, with a span for planning and one per step attempt, under which the InvokeTool client span
and tools_svc's server span hang. Log lines written inside a span carry its trace_id and span_id.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace

from agentrt.config import Settings

_state = {"configured": False}


def configure_tracing(settings: Settings, service: str) -> None:
    """Install the exporter and gRPC instrumentation; call before servers and channels exist."""
    if settings.tracing == "off" or _state["configured"]:
        return
    from opentelemetry.instrumentation.grpc import (  # noqa: PLC0415 - only when tracing is on
        GrpcAioInstrumentorClient,
        GrpcAioInstrumentorServer,
    )
    from opentelemetry.sdk.resources import Resource  # noqa: PLC0415
    from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter  # noqa: PLC0415

    provider = TracerProvider(resource=Resource.create({"service.name": f"agentrt-{service}"}))
    if settings.tracing == "otlp":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter  # noqa: PLC0415

        exporter: Any = OTLPSpanExporter(endpoint=settings.otlp_endpoint, insecure=True)
    else:
        exporter = ConsoleSpanExporter(service_name=f"agentrt-{service}")
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    GrpcAioInstrumentorServer().instrument()
    GrpcAioInstrumentorClient().instrument()
    _state["configured"] = True


def tracer() -> trace.Tracer:
    return trace.get_tracer("agentrt")


def add_trace_ids(_logger: object, _name: str, event: dict) -> dict:
    """structlog processor: the current span's ids on every line written inside a span."""
    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        event.setdefault("trace_id", format(context.trace_id, "032x"))
        event.setdefault("span_id", format(context.span_id, "016x"))
    return event
