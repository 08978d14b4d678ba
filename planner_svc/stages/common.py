"""What every stage of the rule planner shares: step ids, the refusal it raises, bounds on
what a refusal echoes, and the regex flag every pattern uses."""

from __future__ import annotations

import re

from agentrt.core.text import clip
from planner_svc.grammar.intent import Intent
from planner_svc.planner import PlanningFailed

MAX_PIECES = 64
# Refusals quote what was and was not understood, at most this much of it.
MAX_ECHOED = 8
MAX_ECHO_CHARS = 120
# One clause spans at most this many pieces ("buy milk, eggs and bread" is three). Trying every
# run of pieces would make planning quadratic in the prompt's length.
MAX_CLAUSE_PIECES = 16


def step_id(position: int) -> str:
    """Id of the step planned from the clause at 1-based `position`."""
    return f"s{position}"


def _cannot_plan(
    message: str,
    understood: list[Intent] | None = None,
    not_understood: list[str] | None = None,
    reason: str = "UNPLANNABLE",
) -> PlanningFailed:
    """The prompt (or part of it) matches no rule: what was and was not understood."""
    return PlanningFailed(
        message, reason=reason, understood=understood or [], not_understood=not_understood or []
    )


_F = re.IGNORECASE


def _literal(text: str) -> str:
    """Text from an earlier turn, put into a plan: never read as a step reference."""
    return text.replace("{{", "{ {")


def _quote(text: str) -> str:
    """An echo of the user's words, bounded: the message travels in gRPC metadata."""
    return repr(clip(text, MAX_ECHO_CHARS))
