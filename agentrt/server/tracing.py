"""OpenTelemetry tracing, off by default, configured by OpenTelemetry's standard variables.

The SDK reads its own environment: the exporter's endpoint, protocol, TLS, certificates, headers
and timeout (OTEL_EXPORTER_OTLP_*), the sampler (OTEL_TRACES_SAMPLER, _ARG), the resource
(OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME) and the batching (OTEL_BSP_*). Nothing here passes
an argument that would override one of them: a hosted collector's TLS and API-key header work as
its documentation says. AGENTRT_TRACING and AGENTRT_OTLP_ENDPOINT stay as a shorthand
(`tracing_mode` says who decides what).

When on, gRPC clients and servers are instrumented and the gateway's HTTP edge (REST, SSE, /mcp)
opens a server span per request that continues the caller's W3C `traceparent`. A run belongs to
the trace of the call that created it (Run.trace_id): the executor's `run` span, its `plan` and
`step <id>` spans, and under them the planner's and tools_svc's server spans, in every service
and on whichever replica drives the run, however often it is resumed. Log lines written inside a
span carry its trace_id and span_id.

Only the API is imported here; the SDK, exporters and instrumentations load when tracing is on.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

from opentelemetry import context as otel_context
from opentelemetry import trace

from agentrt.config import CommonSettings, ConfigError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter
    from opentelemetry.sdk.trace.id_generator import IdGenerator

Exporter = Literal["console", "otlp"]

# OTEL_TRACES_EXPORTER's values that agentrt ships an exporter for ("none": no spans).
_OTEL_EXPORTERS = {"otlp", "console", "none"}
_PROTOCOLS = ("grpc", "http/protobuf")
# Probes poll every few seconds: a trace each would bury the calls that matter. The standard
# OTEL_PYTHON_ASGI_EXCLUDED_URLS / OTEL_PYTHON_EXCLUDED_URLS replace this list.
_PROBES = "/healthz,/readyz"

_state = {"configured": False}
# The span id the next span gets instead of a random one (see _RunSpanIds); 0: random.
_wanted_span_id: contextvars.ContextVar[int] = contextvars.ContextVar("agentrt_span_id", default=0)
# Which service's code runs here ("executor"): set once per process when it is one service, per
# server and per local call when one process runs all four (agentrt up). Every span carries it as
# `agentrt.service`, so a trace says the same in both topologies.
SERVICE: contextvars.ContextVar[str] = contextvars.ContextVar("agentrt_service", default="")


def _invalid(variable: str, problem: str) -> ConfigError:
    return ConfigError(f"agentrt: invalid configuration\n  {variable}: {problem}")


def _env(env: Mapping[str, str], name: str) -> str:
    return env.get(name, "").strip()


def _otel_endpoint(env: Mapping[str, str]) -> str:
    return _env(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or _env(env, "OTEL_EXPORTER_OTLP_ENDPOINT")


def tracing_mode(settings: CommonSettings, env: Mapping[str, str] = os.environ) -> list[Exporter]:
    """Where spans go; empty: tracing is off.

    OTEL_SDK_DISABLED=true turns it off whatever else is set (the standard switch). Otherwise
    AGENTRT_TRACING decides when it is set, "off" included. When it is not, the standard
    variables do: OTEL_TRACES_EXPORTER (otlp, console, both comma-separated, or none), else an
    OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) alone
    means otlp, so a deployment that sets only OTEL_ variables (an operator injecting them,
    say) gets traces without an agentrt-specific one. Nothing set: off.
    """
    if _env(env, "OTEL_SDK_DISABLED").lower() == "true":
        return []
    if "tracing" in settings.model_fields_set:
        return [] if settings.tracing == "off" else [settings.tracing]
    names = [n.strip().lower() for n in _env(env, "OTEL_TRACES_EXPORTER").split(",") if n.strip()]
    if names:
        unknown = [n for n in names if n not in _OTEL_EXPORTERS]
        if unknown:
            problem = f"{unknown[0]!r} is not one agentrt ships (otlp, console, none)"
            raise _invalid("OTEL_TRACES_EXPORTER", problem)
        return [cast(Exporter, n) for n in dict.fromkeys(names) if n != "none"]
    return ["otlp"] if _otel_endpoint(env) else []


def _protocol(env: Mapping[str, str]) -> str:
    variable = (
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
        if _env(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        else "OTEL_EXPORTER_OTLP_PROTOCOL"
    )
    # grpc by default, as OpenTelemetry's Python SDK does: it is the port (4317) agentrt always used.
    protocol = _env(env, variable).lower() or "grpc"
    if protocol not in _PROTOCOLS:
        raise _invalid(variable, f"{protocol!r} is not supported; use grpc or http/protobuf")
    return protocol


def _otlp_exporter(settings: CommonSettings, env: Mapping[str, str]) -> SpanExporter:
    protocol = _protocol(env)
    endpoint: str | None = None  # None: the exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT itself
    if not _otel_endpoint(env):
        shorthand = settings.otlp_endpoint.strip()
        # Without a scheme, plaintext as AGENTRT_OTLP_ENDPOINT always was; the exporter still
        # honours OTEL_EXPORTER_OTLP_INSECURE=false (TLS) and the certificate variables.
        if shorthand and "://" not in shorthand:
            shorthand = f"http://{shorthand}"
        if protocol == "grpc":
            endpoint = shorthand or None
        elif "otlp_endpoint" in settings.model_fields_set and shorthand:
            # Set for OTLP/HTTP: a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT is. Left at its
            # default (the gRPC port) it would be wrong: the exporter's own default applies.
            endpoint = f"{shorthand.rstrip('/')}/v1/traces"
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter  # noqa: PLC0415

        return OTLPSpanExporter(endpoint=endpoint)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # noqa: PLC0415
        OTLPSpanExporter as HttpSpanExporter,
    )

    return HttpSpanExporter(endpoint=endpoint)


def _service_attribute() -> Any:
    """A span processor that names, on each span, the service whose code opened it."""
    from opentelemetry.sdk.trace import SpanProcessor  # noqa: PLC0415

    class ServiceAttribute(SpanProcessor):
        def on_start(self, span: Any, parent_context: Any = None) -> None:
            if service := SERVICE.get():
                span.set_attribute("agentrt.service", service)

    return ServiceAttribute()


def local_span(method: str, server: bool) -> contextlib.AbstractContextManager[Any]:
    """The client or server span of a call between services of one process (localcalls.py), as
    gRPC's instrumentation opens each for a call over the network; nothing when tracing is off."""
    if not _state["configured"]:
        return contextlib.nullcontext()
    service, _, name = method.lstrip("/").partition("/")
    attributes = {"rpc.system": "grpc", "rpc.service": service, "rpc.method": name, "agentrt.local": True}
    return span(method, attributes, trace.SpanKind.SERVER if server else trace.SpanKind.CLIENT)


def _run_span_ids() -> IdGenerator:
    """The SDK's random ids, except where run_span asks for a span id derived from the run id.

    That makes the span id of a run's first `run` span known to every replica without storing
    it, so a replica resuming the run later parents its spans to that span."""
    from opentelemetry.sdk.trace.id_generator import RandomIdGenerator  # noqa: PLC0415

    class RunSpanIds(RandomIdGenerator):
        def generate_span_id(self) -> int:
            return _wanted_span_id.get() or super().generate_span_id()

    return RunSpanIds()


def new_provider(
    settings: CommonSettings, service: str, exporter: SpanExporter | None = None
) -> TracerProvider | None:
    """A TracerProvider for service `service` as the settings and OTEL_ variables say, None when
    tracing is off. `exporter` replaces the configured exporters (tests), tracing on."""
    exporters = tracing_mode(settings)
    if exporter is None and not exporters:
        return None
    from opentelemetry.sdk.resources import OTELResourceDetector, Resource  # noqa: PLC0415
    from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter  # noqa: PLC0415

    # agentrt-<service> ("agentrt": the four in one process) unless OTEL_SERVICE_NAME or
    # OTEL_RESOURCE_ATTRIBUTES names the service: Resource.create lets explicit attributes win
    # over the environment, so pass none then.
    named = "service.name" in OTELResourceDetector().detect().attributes
    process = f"agentrt-{service}" if service else "agentrt"
    resource = Resource.create({} if named else {"service.name": process})
    # No sampler argument: the SDK reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG.
    provider = TracerProvider(resource=resource, id_generator=_run_span_ids())
    provider.add_span_processor(_service_attribute())
    if exporter is not None:
        chosen = [exporter]
    else:
        chosen = [
            _otlp_exporter(settings, os.environ)
            if name == "otlp"
            else ConsoleSpanExporter(service_name=process)
            for name in exporters
        ]
    for each in chosen:
        provider.add_span_processor(BatchSpanProcessor(each))
    return provider


def configure_tracing(settings: CommonSettings, service: str, exporter: SpanExporter | None = None) -> None:
    """Install the provider and the gRPC instrumentation; call before servers and channels exist.
    `exporter` (tests) sends the spans there, tracing on whatever the settings say."""
    if _state["configured"]:
        return
    provider = new_provider(settings, service, exporter)
    if provider is None:
        return
    from opentelemetry.instrumentation.grpc import (  # noqa: PLC0415 - only when tracing is on
        GrpcAioInstrumentorClient,
        GrpcAioInstrumentorServer,
    )

    trace.set_tracer_provider(provider)
    GrpcAioInstrumentorServer().instrument()
    GrpcAioInstrumentorClient().instrument()
    _state["configured"] = True


def tracing_on() -> bool:
    return _state["configured"]


def traced_asgi(app: Any, span_details: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]) -> Any:
    """`app` opening a server span per HTTP request that continues the caller's `traceparent`
    (through the configured propagators, OTEL_PROPAGATORS); `app` itself when tracing is off.
    `span_details(scope)` names the span and adds attributes (the gateway names it by route)."""
    if not _state["configured"]:
        return app
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware  # noqa: PLC0415

    excluded = os.environ.get("OTEL_PYTHON_ASGI_EXCLUDED_URLS") or os.environ.get("OTEL_PYTHON_EXCLUDED_URLS")
    # No span per ASGI send and receive: an SSE stream would make one per event.
    return OpenTelemetryMiddleware(
        app,
        excluded_urls=excluded or _PROBES,
        default_span_details=span_details,
        exclude_spans=["receive", "send"],
    )


def tracer() -> trace.Tracer:
    return trace.get_tracer("agentrt")


def span(
    name: str, attributes: Mapping[str, Any], kind: trace.SpanKind = trace.SpanKind.INTERNAL
) -> contextlib.AbstractContextManager[Any]:
    """A span around the block (a run's plan, a step, a local call); nothing when tracing is off:
    OpenTelemetry's no-op span still costs a context attach and detach, on every step of every run."""
    if not _state["configured"]:
        return contextlib.nullcontext()
    return tracer().start_as_current_span(name, kind=kind, attributes=attributes)


def current_trace_id() -> str:
    """The current span's trace id (32 hex characters), "" outside any (tracing off)."""
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else ""


def _run_span_id(run_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(run_id.encode(), digest_size=8).digest(), "big") or 1


def _sampled_as_new(trace_id: int) -> trace.TraceFlags:
    """Whether a resumed run's spans are recorded. The creating call's decision is not stored:
    decide as the sampler would for a new trace with this id, which for the samplers that decide
    by trace id (always_on, always_off, traceidratio and their parentbased_ forms) is the
    decision made when the run was created."""
    sampler = getattr(trace.get_tracer_provider(), "sampler", None)
    if sampler is None:
        return trace.TraceFlags(trace.TraceFlags.SAMPLED)
    # An empty context: a parent-based sampler must not follow the call that woke the run.
    result = sampler.should_sample(otel_context.Context(), trace_id, "run")
    sampled = result.decision.is_sampled()
    return trace.TraceFlags(trace.TraceFlags.SAMPLED if sampled else trace.TraceFlags.DEFAULT)


@contextlib.contextmanager
def run_span(run_id: str, trace_id: str, *, created: bool) -> Iterator[trace.Span]:
    """The `run` span of one stretch of driving run `run_id`, current while the block runs.

    `created`: the stretch that starts in the CreateRun call, a child of that call's span, with
    a span id derived from the run id. A later stretch (restart, takeover by another replica,
    approval, retry) is a child of that first span in the run's trace `trace_id` (Run.trace_id),
    linked to the call that woke it if any. A run without a trace id (created while tracing was
    off) gets a trace of its own."""
    links: list[trace.Link] = []
    parent: otel_context.Context | None = None  # None: the current context (CreateRun's span)
    try:
        stored = int(trace_id, 16) if len(trace_id) == 32 else 0
    except ValueError:
        stored = 0
    if not created:
        if stored:
            first = trace.SpanContext(stored, _run_span_id(run_id), True, _sampled_as_new(stored))
            parent = trace.set_span_in_context(trace.NonRecordingSpan(first), otel_context.Context())
        else:
            parent = otel_context.Context()
        waker = trace.get_current_span().get_span_context()
        if waker.is_valid:
            links.append(trace.Link(waker))
    token = _wanted_span_id.set(_run_span_id(run_id) if created else 0)
    try:
        span = tracer().start_span("run", context=parent, links=links, attributes={"agentrt.run_id": run_id})
    finally:
        _wanted_span_id.reset(token)
    with trace.use_span(span, end_on_exit=True):
        yield span


def add_trace_ids(_logger: object, _name: str, event: dict) -> dict:
    """structlog processor: the current span's ids on every line written inside a span."""
    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        event.setdefault("trace_id", format(context.trace_id, "032x"))
        event.setdefault("span_id", format(context.span_id, "016x"))
    return event
