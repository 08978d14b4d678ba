"""Step retry policy: which failures are retried, how often, and how long to wait.

The effective policy is resolved field by field: the run's own RetryPolicy, then the tool's
policy from settings, then the server defaults. Delays use exponential backoff with full jitter
(a uniform draw between 0 and the capped exponential), which spreads retries of many runs hitting
the same failing dependency instead of synchronizing them. UNAVAILABLE (a service restarting) is
retried past max_attempts until the run's deadline: see StepPolicy.retries.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import grpc

from agentrt.config import ExecutorSettings
from agentrt.core.errors import ErrorDetails
from agentrt.v1 import run_pb2

# The longest wait between attempts while a dependency is UNAVAILABLE past max_attempts.
OUTAGE_MAX_DELAY_S = 2.0


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

    def retries(self, details: ErrorDetails, failed_attempt: int) -> bool:
        """Whether to try again after attempt `failed_attempt` failed with `details`. A service
        that is UNAVAILABLE (restarting, a provider whose lease lapsed) is waited for until the
        run's deadline, whatever max_attempts says: a restart takes seconds, and the attempt
        budget is for calls that reached their tool and failed there. Permanent errors are
        never retried."""
        if not details.retryable:
            return False
        return failed_attempt < self.max_attempts or details.code == grpc.StatusCode.UNAVAILABLE

    def delay(self, details: ErrorDetails, failed_attempt: int, rng: random.Random | None = None) -> float:
        """The backoff before the next attempt; while waiting out an outage, at most
        OUTAGE_MAX_DELAY_S, so work resumes soon after the service is back."""
        delay = self.backoff(failed_attempt, rng)
        if failed_attempt >= self.max_attempts and details.code == grpc.StatusCode.UNAVAILABLE:
            delay = min(delay, OUTAGE_MAX_DELAY_S)
        return delay


def resolve_policy(settings: ExecutorSettings, tool: str, run_policy: run_pb2.RetryPolicy) -> StepPolicy:
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
