"""tools_svc's Prometheus metrics."""

from __future__ import annotations

from prometheus_client import Counter

TOOL_INVOCATIONS = Counter(
    "agentrt_tool_invocations_total",
    "Tool invocations by outcome (ok, or the gRPC code).",
    ["tool", "outcome"],
)

# What this service's metrics port exports (with the RPC histogram and process metrics).
METRICS = [TOOL_INVOCATIONS]
