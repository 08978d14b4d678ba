"""The planner's Prometheus metrics: each planner of the chain, and what LLM calls cost."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from agentrt.server.metrics import LATENCY_BUCKETS

PLANNER_DURATION = Histogram(
    "agentrt_planner_duration_seconds",
    "Time one planner of the chain took.",
    ["planner", "outcome"],
    buckets=LATENCY_BUCKETS,
)

PLANNER_FALLBACKS = Counter(
    "agentrt_planner_fallbacks_total", "A planner failed and the chain moved on.", ["planner"]
)

LLM_TOKENS = Counter("agentrt_llm_tokens_total", "LLM tokens spent by the planner.", ["kind"])

LLM_COST = Counter("agentrt_llm_cost_usd_total", "LLM cost in US dollars as litellm prices it.")

# What this service's metrics port exports (with the RPC histogram and process metrics).
METRICS = [PLANNER_DURATION, PLANNER_FALLBACKS, LLM_TOKENS, LLM_COST]
