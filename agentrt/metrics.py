"""Prometheus metrics of every agentrt service, defined in one place.

Each process exposes, on its metrics port (`serve_metrics`), the RPC histogram, the process
collectors and the metrics of its own service (SERVICE_METRICS) only: a gateway that exported
`agentrt_runs_active` at zero would read as "no runs" on a dashboard. All of them also live in the
default registry, which in-process tests read.
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    start_http_server,
)

_LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

RPC_DURATION = Histogram(
    "agentrt_rpc_duration_seconds", "Server-side gRPC call duration.", ["method", "code"], buckets=_LATENCY
)
RUNS = Counter("agentrt_runs_total", "Runs that reached a terminal status.", ["status"])
RUNS_ACTIVE = Gauge("agentrt_runs_active", "Runs this executor is driving right now.")
STEP_DURATION = Histogram(
    "agentrt_step_duration_seconds",
    "Step duration, first attempt to final status.",
    ["tool", "status"],
    buckets=_LATENCY,
)
STEP_RETRIES = Counter(
    "agentrt_step_retries_total", "Step attempts that failed and were retried.", ["tool", "code"]
)
REPLANS = Counter("agentrt_replans_total", "Revised plans installed after a failed step.")
LEASE_CLAIMS = Counter(
    "agentrt_run_lease_claims_total",
    "Runs this executor claimed: 'resume' (unleased or its own after a restart), 'takeover' "
    "(another replica's lease lapsed, or CancelRun/RetryRun took it over).",
    ["kind"],
)
LEASES_LOST = Counter(
    "agentrt_run_leases_lost_total", "Runs this executor stopped driving: lease taken over."
)
RUNS_PRUNED = Counter("agentrt_runs_pruned_total", "Finished runs deleted by retention.")
WATCHERS = Gauge("agentrt_watchers", "WatchRun streams connected to this executor.")
TOOL_INVOCATIONS = Counter(
    "agentrt_tool_invocations_total",
    "Tool invocations by outcome (ok, or the gRPC code).",
    ["tool", "outcome"],
)
PLANNER_DURATION = Histogram(
    "agentrt_planner_duration_seconds",
    "Time one planner of the chain took.",
    ["planner", "outcome"],
    buckets=_LATENCY,
)
PLANNER_FALLBACKS = Counter(
    "agentrt_planner_fallbacks_total", "A planner failed and the chain moved on.", ["planner"]
)
LLM_TOKENS = Counter("agentrt_llm_tokens_total", "LLM tokens spent by the planner.", ["kind"])
LLM_COST = Counter("agentrt_llm_cost_usd_total", "LLM cost in US dollars as litellm prices it.")


SERVICE_METRICS: dict[str, list[Counter | Gauge | Histogram]] = {
    "gateway": [],
    "executor": [
        RUNS,
        RUNS_ACTIVE,
        STEP_DURATION,
        STEP_RETRIES,
        REPLANS,
        LEASE_CLAIMS,
        LEASES_LOST,
        RUNS_PRUNED,
        WATCHERS,
    ],
    "planner": [PLANNER_DURATION, PLANNER_FALLBACKS, LLM_TOKENS, LLM_COST],
    "tools": [TOOL_INVOCATIONS],
}


def serve_metrics(host: str, port: int, service: str) -> None:
    """Expose `service`'s metrics at http://host:port/metrics (a daemon thread); 0 = off."""
    if not port:
        return
    registry = CollectorRegistry()
    for metric in [RPC_DURATION, *SERVICE_METRICS[service]]:
        registry.register(metric)
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    start_http_server(port, addr=host, registry=registry)
