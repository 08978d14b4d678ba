"""Tracing is configured by OpenTelemetry's standard variables, with AGENTRT_TRACING and
AGENTRT_OTLP_ENDPOINT as a shorthand: spans sent to real collectors (OTLP over gRPC, plaintext and
TLS, and over HTTP) on this machine show what reaches them. No global state is touched: each test
builds its own provider."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.sdk.trace import TracerProvider

from agentrt.config import CommonSettings, ConfigError
from agentrt.server.tracing import new_provider, tracing_mode

DEAD_ENDPOINT = "http://127.0.0.1:9"  # the discard port: nothing listens there


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No OTEL_ or tracing variable of the machine's leaks into a test."""
    for name in list(os.environ):
        if name.startswith("OTEL_") or name in ("AGENTRT_TRACING", "AGENTRT_OTLP_ENDPOINT"):
            monkeypatch.delenv(name)


def settings_from_env(tmp_path: Path) -> CommonSettings:
    # As a service reads them: from the environment (which says which were set at all).
    return CommonSettings(data_dir=tmp_path)


@dataclass
class Export:
    metadata: dict[str, str]
    request: trace_service_pb2.ExportTraceServiceRequest

    def resource(self) -> dict[str, str]:
        (spans,) = self.request.resource_spans
        return {a.key: a.value.string_value for a in spans.resource.attributes}

    def span_names(self) -> list[str]:
        return [s.name for rs in self.request.resource_spans for ss in rs.scope_spans for s in ss.spans]


@dataclass
class Collector:
    """An OTLP/gRPC collector that keeps what it is sent."""

    port: int = 0
    exports: list[Export] = field(default_factory=list)


class _TraceService(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, collector: Collector) -> None:
        self._collector = collector

    def Export(self, request: Any, context: grpc.ServicerContext) -> Any:
        metadata = {k: v for k, v in context.invocation_metadata() if isinstance(v, str)}
        self._collector.exports.append(Export(metadata, request))
        return trace_service_pb2.ExportTraceServiceResponse()


def start_collector(credentials: grpc.ServerCredentials | None = None) -> tuple[grpc.Server, Collector]:
    collector = Collector()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(_TraceService(collector), server)
    if credentials is None:
        collector.port = server.add_insecure_port("127.0.0.1:0")
    else:
        collector.port = server.add_secure_port("127.0.0.1:0", credentials)
    server.start()
    return server, collector


@pytest.fixture
def collector() -> Iterator[Collector]:
    server, found = start_collector()
    yield found
    server.stop(0)


def emit(provider: TracerProvider | None, name: str = "work") -> bool:
    """One span through `provider`, flushed; whether it was recorded."""
    assert provider is not None, "tracing stayed off"
    with provider.get_tracer("test").start_as_current_span(name) as span:
        recording = span.is_recording()
    assert provider.force_flush(10_000)
    provider.shutdown()
    return recording


def test_otel_endpoint_headers_and_resource_reach_the_collector(
    collector: Collector, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{collector.port}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=acme,authorization=Bearer%20t0k")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "shop-agents")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=staging")
    # The shorthand points nowhere: with an OTEL endpoint set it must not be used.
    monkeypatch.setenv("AGENTRT_OTLP_ENDPOINT", DEAD_ENDPOINT)
    settings = settings_from_env(tmp_path)
    assert tracing_mode(settings) == ["otlp"]  # an OTEL endpoint alone turns tracing on
    assert emit(new_provider(settings, "executor"))
    (export,) = collector.exports
    assert export.span_names() == ["work"]
    assert export.metadata["x-tenant"] == "acme"
    assert export.metadata["authorization"] == "Bearer t0k"
    resource = export.resource()
    assert resource["service.name"] == "shop-agents"
    assert resource["deployment.environment"] == "staging"


def test_the_shorthand_applies_when_no_otel_endpoint_is_set(
    collector: Collector, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AGENTRT_TRACING", "otlp")
    # No scheme: plaintext, as AGENTRT_OTLP_ENDPOINT always was.
    monkeypatch.setenv("AGENTRT_OTLP_ENDPOINT", f"127.0.0.1:{collector.port}")
    assert emit(new_provider(settings_from_env(tmp_path), "executor"))
    (export,) = collector.exports
    assert export.resource()["service.name"] == "agentrt-executor"


def test_traces_endpoint_wins_over_the_generic_one(
    collector: Collector, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AGENTRT_TRACING", "otlp")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", DEAD_ENDPOINT)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f"http://127.0.0.1:{collector.port}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-team=runtime")
    assert emit(new_provider(settings_from_env(tmp_path), "planner"))
    (export,) = collector.exports
    assert export.metadata["x-team"] == "runtime"


def test_insecure_is_the_standard_variables_choice(
    collector: Collector, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Without a scheme the exporter would use TLS, which this collector does not speak;
    # OTEL_EXPORTER_OTLP_INSECURE says plaintext.
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"127.0.0.1:{collector.port}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
    assert emit(new_provider(settings_from_env(tmp_path), "tools"))
    assert len(collector.exports) == 1


def test_tls_with_the_certificate_named_in_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a certificate with")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    server, collector = start_collector(grpc.ssl_server_credentials([(key.read_bytes(), cert.read_bytes())]))
    try:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"https://127.0.0.1:{collector.port}")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", str(cert))
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=k3y")
        assert emit(new_provider(settings_from_env(tmp_path), "gateway"))
        (export,) = collector.exports
        assert export.metadata["x-api-key"] == "k3y"
    finally:
        server.stop(0)


def test_always_off_sampler_records_nothing(
    collector: Collector, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{collector.port}")
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_off")
    assert not emit(new_provider(settings_from_env(tmp_path), "executor"))
    assert collector.exports == []


def test_ratio_sampler_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTRT_TRACING", "console")
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "parentbased_traceidratio")
    monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", "0.25")
    provider = new_provider(settings_from_env(tmp_path), "executor")
    assert provider is not None
    assert "TraceIdRatioBased{0.25}" in provider.sampler.get_description()
    provider.shutdown()


@dataclass
class HttpCollector:
    port: int = 0
    posts: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)


@pytest.fixture
def http_collector() -> Iterator[HttpCollector]:
    """An OTLP/HTTP collector that keeps each POST's path, headers and body."""
    found = HttpCollector()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            found.posts.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    found.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield found
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("how", ["otel", "shorthand"])
def test_otlp_over_http(
    how: str, http_collector: HttpCollector, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=acme")
    base = f"http://127.0.0.1:{http_collector.port}"
    if how == "otel":
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", base)
    else:
        monkeypatch.setenv("AGENTRT_TRACING", "otlp")
        monkeypatch.setenv("AGENTRT_OTLP_ENDPOINT", base)
    assert emit(new_provider(settings_from_env(tmp_path), "gateway"), "over-http")
    ((path, headers, body),) = http_collector.posts
    assert path == "/v1/traces"
    assert headers["x-tenant"] == "acme"
    assert headers["content-type"] == "application/x-protobuf"
    request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
    assert Export({}, request).span_names() == ["over-http"]


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, []),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": DEAD_ENDPOINT}, ["otlp"]),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": DEAD_ENDPOINT}, ["otlp"]),
        ({"OTEL_TRACES_EXPORTER": "console"}, ["console"]),
        ({"OTEL_TRACES_EXPORTER": "otlp,console"}, ["otlp", "console"]),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": DEAD_ENDPOINT}, []),
        # AGENTRT_TRACING, when set, decides, "off" included:
        ({"AGENTRT_TRACING": "off", "OTEL_EXPORTER_OTLP_ENDPOINT": DEAD_ENDPOINT}, []),
        ({"AGENTRT_TRACING": "console", "OTEL_TRACES_EXPORTER": "otlp"}, ["console"]),
        ({"AGENTRT_TRACING": "otlp"}, ["otlp"]),
        # The shorthand endpoint alone does not turn tracing on (it always has a default).
        ({"AGENTRT_OTLP_ENDPOINT": DEAD_ENDPOINT}, []),
        # The standard switch turns everything off.
        ({"OTEL_SDK_DISABLED": "true", "AGENTRT_TRACING": "otlp"}, []),
    ],
)
def test_who_turns_tracing_on(
    env: dict[str, str], expected: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = settings_from_env(tmp_path)
    assert tracing_mode(settings) == expected
    provider = new_provider(settings, "executor")
    assert (provider is not None) == bool(expected)
    if provider is not None:
        provider.shutdown()


@pytest.mark.parametrize(
    ("name", "value"),
    [("OTEL_TRACES_EXPORTER", "zipkin"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")],
)
def test_unsupported_values_name_the_variable(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", DEAD_ENDPOINT)
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as info:
        new_provider(settings_from_env(tmp_path), "executor")
    assert f"{name}: '{value}'" in str(info.value)
