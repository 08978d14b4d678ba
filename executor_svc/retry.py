"""Step retry policy: which failures are retried, how often, and how long to wait.

The effective policy is resolved field by field: the run's own RetryPolicy, then the tool's
policy from settings, then the server defaults. Delays use exponential backoff with full jitter
(a uniform draw between 0 and the capped exponential), which spreads retries of many runs hitting
the same failing dependency instead of synchronizing them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from agentrt.config import Settings
from agentrt.errors import ErrorDetails
from agentrt.v1 import run_pb2


@dataclass(frozen=True)
class StepPolicy:
    max_attempts: int
    base_delay_s: float
    max_delay_s: float
    timeout_s: float

    def backoff_cap(self, failed_attempt: int) -> float:
        """Upper bound of the delay after attempt number `failed_attempt` (1-based)."""
        return min(self.max_delay_s, self.base_delay_s * 2 ** (failed_attempt - 1))

    def backoff(self, failed_attempt: int, rng: random.Random | None = None) -> float:
        return (rng or random).uniform(0, self.backoff_cap(failed_attempt))


def resolve_policy(settings: Settings, tool: str, run_policy: run_pb2.RetryPolicy) -> StepPolicy:
    tool_policy = settings.tool_policies.get(tool)

    def pick(run_value: float, tool_value: float | None, default: float) -> float:
        if run_value:
            return run_value
        return tool_value if tool_value is not None else default

    return StepPolicy(
        max_attempts=int(
            pick(
                run_policy.max_attempts, tool_policy and tool_policy.max_attempts, settings.retry_max_attempts
            )
        ),
        base_delay_s=pick(
            _seconds(run_policy, "base_delay"),
            tool_policy and tool_policy.base_delay_s,
            settings.retry_base_delay_s,
        ),
        max_delay_s=pick(
            _seconds(run_policy, "max_delay"),
            tool_policy and tool_policy.max_delay_s,
            settings.retry_max_delay_s,
        ),
        timeout_s=pick(
            _seconds(run_policy, "step_timeout"),
            tool_policy and tool_policy.timeout_s,
            settings.step_timeout_s,
        ),
    )


def _seconds(policy: run_pb2.RetryPolicy, field: str) -> float:
    return getattr(policy, field).ToNanoseconds() / 1e9 if policy.HasField(field) else 0.0


def is_retryable(details: ErrorDetails) -> bool:
    """UNAVAILABLE, DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED are retryable by nature; any other
    failure only when the tool flagged it (google.rpc.ErrorInfo metadata retryable=true)."""
    return details.retryable


def validate_run_policy(policy: run_pb2.RetryPolicy) -> list[tuple[str, str]]:
    violations = []
    if not 0 <= policy.max_attempts <= 100:
        violations.append(("retry_policy.max_attempts", "must be between 0 (default) and 100"))
    for field in ("base_delay", "max_delay", "step_timeout"):
        if policy.HasField(field) and getattr(policy, field).ToNanoseconds() < 0:
            violations.append((f"retry_policy.{field}", "must not be negative"))
    return violations
