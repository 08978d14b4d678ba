"""What every planner of the chain is: given a prompt and the tool catalog, a plan, or
PlanningFailed saying why not (the chain then asks the next planner)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from agentrt.v1 import plan_pb2, planner_service_pb2, tool_pb2


@dataclass
class PlanningFailed(Exception):
    """This planner cannot plan the request. `reason` is the error's reason if every planner
    fails; `usage` is what was spent finding out (LLM calls); the rule planner also says what it
    did and did not understand. `retryable`: the model did not answer (planner_svc/modelfailures.py),
    and asking again later may succeed."""

    message: str
    reason: str = "PLANNING_FAILED"
    retryable: bool = False
    usage: plan_pb2.Usage = field(default_factory=plan_pb2.Usage)
    understood: list[Any] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    # What an unclear reference could mean, each named in the message (discourse.Thing): a reply
    # next turn ("grandma", "the call dad one") picks among them (planner_svc/replies.py).
    candidates: tuple[Any, ...] = ()

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class PlanRequest:
    prompt: str
    tools: list[tool_pb2.Tool]
    max_steps: int  # 0: no limit from the caller
    replan: planner_service_pb2.Replan | None = None  # revise a plan whose step failed
    deadline: float | None = None  # time.monotonic() by which the whole chain must answer
    # The thread's earlier turns, oldest first (empty for a one-shot run): what "it" refers to.
    history: tuple[planner_service_pb2.PriorTurn, ...] = ()
    thread_turn: int = 0  # this run's place in its thread (0: not in one)


class Planner(Protocol):
    name: str

    async def plan(self, request: PlanRequest) -> plan_pb2.Plan:
        """A plan with `usage` filled in, or PlanningFailed."""
        ...
