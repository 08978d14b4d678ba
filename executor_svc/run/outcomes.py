"""How a piece of a run's work ends, as a value: the one vocabulary of steps, attempts and runs.

- an attempt of a tool call: `Succeeded`, `Failed(error)` or `RetryAfter(error, delay_s)`;
- a step (its attempts, its approval): `Succeeded`, `Failed(error)` or `Waiting`;
- a run's work (a plan's DAG, the agent loop): `Ended` (its terminal status is recorded),
  `Failed(error)` (the driver records it), or `Waiting` (the driver records the wait).

Only a stop is an exception (`asyncio.CancelledError`), and `stopped_by` says which of its three
meanings it has, in one place.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from agentrt.v1 import run_pb2
from executor_svc.run.recorder import ActiveRun


@dataclass(frozen=True)
class Succeeded:
    """The call answered (its output is stored in the step), or every step of the plan did."""


@dataclass(frozen=True)
class Failed:
    """Failed for good with `error` (a step: recorded FAILED already; a run: to be recorded)."""

    error: run_pb2.RunError


@dataclass(frozen=True)
class NotUnderstood(Failed):
    """The planner answered that it has no plan for the prompt (its rules did not understand
    it, or it needs more steps than max_steps), as opposed to the planner being down or its
    plan being invalid. In auto mode the agent loop gets to try the prompt."""


@dataclass(frozen=True)
class Waiting:
    """A person must decide a call first (the step is recorded AWAITING_APPROVAL; it has not run)."""


@dataclass(frozen=True)
class RetryAfter:
    """A retryable failure with attempts left: try again after `delay_s` (not yet recorded)."""

    error: run_pb2.RunError
    delay_s: float


@dataclass(frozen=True)
class Ended:
    """The run's terminal status is recorded already (the model answered, refused, or spent a
    budget in the same save as its turn; a plan's last step succeeded)."""


AttemptOutcome = Succeeded | Failed | RetryAfter
StepOutcome = Succeeded | Failed | Waiting
RunOutcome = Ended | Failed | Waiting


class Stop(enum.Enum):
    """What an `asyncio.CancelledError` in a driver means."""

    CANCELLED = "CancelRun: record the run CANCELLED"
    HANDED_OVER = "the lease went to another replica: it resumes from our last save"
    SHUTDOWN = "this executor is stopping: leave the run as stored, it resumes on a restart or elsewhere"


def stopped_by(active: ActiveRun) -> Stop:
    """Why `active`'s driver was cancelled (the engine sets the flags before cancelling it).
    CancelRun first: if the lease only lapsed, the CANCELLED save still goes through; if another
    replica holds it now, that save is fenced out (LeaseLost) and the run is handed over."""
    if active.cancel_requested:
        return Stop.CANCELLED
    if active.lost:
        return Stop.HANDED_OVER
    return Stop.SHUTDOWN
