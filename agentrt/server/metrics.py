"""Prometheus metrics every agentrt service shares, and serving a service's own.

Each process exposes, on its metrics port (`serve_metrics`), the RPC histogram, the event loop's
lag (watchdog.py), the process collectors and the metrics of its own service (each service's
`metrics` module) only: a gateway that exported `agentrt_runs_active` at zero would read as "no
runs" on a dashboard. All of them also live in the default registry, which in-process tests read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    start_http_server,
)
from prometheus_client.metrics import MetricWrapperBase

from agentrt.server.watchdog import LOOP_LAG

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

RPC_DURATION = Histogram(
    "agentrt_rpc_duration_seconds",
    "Server-side gRPC call duration.",
    ["method", "code"],
    buckets=LATENCY_BUCKETS,
)


# Each labelled series a call site uses, looked up once: labels() validates its values and takes
# the metric's lock on every call (several a run). As bounded as the metric itself, which keeps
# one series for each set of label values it has seen anyway.
_SERIES: dict[tuple[MetricWrapperBase, tuple[str, ...]], Any] = {}


def series(metric: MetricWrapperBase, *labels: str) -> Any:
    """metric.labels(*labels), the same series each time."""
    found = _SERIES.get((metric, labels))
    if found is None:
        found = _SERIES[(metric, labels)] = metric.labels(*labels)
    return found


def serve_metrics(host: str, port: int, own: Sequence[MetricWrapperBase]) -> None:
    """Expose the RPC histogram and `own` metrics at http://host:port/metrics (a daemon
    thread); port 0 = off."""
    if not port:
        return
    registry = CollectorRegistry()
    for metric in [RPC_DURATION, LOOP_LAG, *own]:
        registry.register(metric)
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    start_http_server(port, addr=host, registry=registry)
