"""What a thread's turn sees of the earlier turns: the latest ones that fit a byte budget.

The planner gets them with each plan and each agent decision (PriorTurn: prompt, answer, status,
steps). Newest first until the budget (AGENTRT_THREAD_CONTEXT_BYTES) is spent: a turn that does
not fit whole goes without its steps' outputs (what it did stays, what it returned does not),
and the first that does not fit even so ends the history, so what is sent is always the most
recent stretch of the conversation, never a gap in it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from agentrt.v1 import planner_service_pb2, run_pb2

History = Callable[[run_pb2.Run], Awaitable[list[planner_service_pb2.PriorTurn]]]


def prior_turns(
    newest_first: Iterable[run_pb2.Run], budget_bytes: int
) -> list[planner_service_pb2.PriorTurn]:
    """A thread's earlier turns, given newest first, as PriorTurns, oldest first: the latest that
    fit `budget_bytes`. It stops at the first that does not fit, so turns past the budget are
    never read (the store hands them over one by one)."""
    kept: list[planner_service_pb2.PriorTurn] = []
    spent = 0
    for run in newest_first:
        turn = planner_service_pb2.PriorTurn(
            turn=run.thread_turn, prompt=run.prompt, answer=run.answer, status=run.status, steps=run.steps
        )
        if spent + turn.ByteSize() > budget_bytes:
            for step in turn.steps:
                step.ClearField("output")
        if spent + turn.ByteSize() > budget_bytes:
            break
        spent += turn.ByteSize()
        kept.append(turn)
    return kept[::-1]
