"""The executor's Prometheus metrics: runs, steps, leases, retention, watchers."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from agentrt.server.metrics import LATENCY_BUCKETS

RUNS = Counter("agentrt_runs_total", "Runs that reached a terminal status.", ["status"])

RUNS_ACTIVE = Gauge("agentrt_runs_active", "Runs this executor is driving right now.")

STEP_DURATION = Histogram(
    "agentrt_step_duration_seconds",
    "Step duration, first attempt to final status.",
    ["tool", "status"],
    buckets=LATENCY_BUCKETS,
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

# What this service's metrics port exports (with the RPC histogram and process metrics).
METRICS = [
    RUNS,
    RUNS_ACTIVE,
    STEP_DURATION,
    STEP_RETRIES,
    REPLANS,
    LEASE_CLAIMS,
    LEASES_LOST,
    RUNS_PRUNED,
    WATCHERS,
]
