"""What the model reads of a thread's earlier turns: chat messages before the current request,
bounded by a token budget (AGENTRT_LLM_HISTORY_TOKENS).

Each earlier turn (a PriorTurn, as the executor sends it: executor_svc/run/history.py) becomes two
messages: a user message, its prompt; and an assistant message saying what the turn did (its tool
calls with their arguments and short outputs or errors) and how it ended (its answer, or that it
failed or was cancelled). The LLM planner (llm.py) and the agent's decisions (agent.py) both put
them after the system prompt (and the planner's examples) and before the current request.

History is model input written by others (earlier prompts, tools' outputs), so it is only ever
plain user and assistant text, never a system message or a tool call the model could take for its
own, and every piece is clipped before the budget is counted: the prompt and the answer to
TEXT_CHARS, each call's arguments and its output or error to CALL_CHARS, at most CALLS_SHOWN calls
a turn.

The budget, in tokens of the primary model (LLMClient.count_tokens): the newest turn first, each
whole if it fits; else without its calls' outputs; else without its calls (prompt and answer
only); the first turn that fits in none of these forms is left out, and so is every turn before
it (never a gap in the conversation). When the model does not see the thread from its first turn,
a note at the top says how many earlier turns are left out (here, or by the executor's byte budget,
AGENTRT_THREAD_CONTEXT_BYTES); the note counts against the budget too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agentrt.core.values import struct_to_dict, value_to_py
from agentrt.v1 import planner_service_pb2, run_pb2
from planner_svc.transcript import as_json

Message = dict[str, str]
Counter = Callable[[list[Message]], int]  # the tokens some messages take

TEXT_CHARS = 2000  # a turn's prompt, and its answer
CALL_CHARS = 300  # a call's arguments, and its output or error
CALLS_SHOWN = 10  # calls listed per turn; the rest are counted

# The forms of a turn, from whole to the least that is still worth sending.
WHOLE, NO_OUTPUTS, NO_CALLS = range(3)

_ENDED = {
    run_pb2.RUN_STATUS_FAILED: "The turn failed.",
    run_pb2.RUN_STATUS_CANCELLED: "The turn was cancelled.",
}


def clip(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    return f"{text[:limit]} ...[cut: {len(text) - limit} more characters]"


def _status(status: int, enum: Any, prefix: str) -> str:
    try:
        return enum.Name(status).removeprefix(prefix).lower().replace("_", " ")
    except ValueError:
        return "unknown"


def _call(step: run_pb2.StepState, outputs: bool) -> str:
    line = f"- {clip(step.tool, 100)} {clip(as_json(struct_to_dict(step.arguments)), CALL_CHARS)} -> "
    if step.status == run_pb2.STEP_STATUS_SUCCEEDED:
        if outputs and step.HasField("output"):
            return line + clip(as_json(value_to_py(step.output)), CALL_CHARS)
        return line + "succeeded (output left out)"
    if step.status == run_pb2.STEP_STATUS_FAILED:
        reason = clip(step.error.reason or step.error.code, 100)
        if outputs:
            return line + f"error ({reason}): {clip(step.error.message, CALL_CHARS)}"
        return line + f"failed ({reason})"
    return line + _status(step.status, run_pb2.StepStatus, "STEP_STATUS_")


def render(turn: planner_service_pb2.PriorTurn, form: int = WHOLE) -> list[Message]:
    """One earlier turn as a user message and an assistant message, in `form`."""
    lines: list[str] = []
    steps = list(turn.steps)
    if steps and form == NO_CALLS:
        lines.append(f"({len(steps)} tool call{'s' if len(steps) != 1 else ''} left out)")
    elif steps:
        lines.append("Tool calls:")
        lines += [_call(step, form == WHOLE) for step in steps[:CALLS_SHOWN]]
        if len(steps) > CALLS_SHOWN:
            lines.append(f"- ... and {len(steps) - CALLS_SHOWN} more")
    if turn.answer.strip():
        lines.append("Answer: " + clip(turn.answer, TEXT_CHARS))
    elif turn.status in _ENDED:
        lines.append(_ENDED[turn.status])
    elif turn.status == run_pb2.RUN_STATUS_SUCCEEDED:
        lines.append("The turn succeeded.")
    else:
        lines.append(f"The turn did not finish ({_status(turn.status, run_pb2.RunStatus, 'RUN_STATUS_')}).")
    return [
        {"role": "user", "content": clip(turn.prompt, TEXT_CHARS) or "(no prompt)"},
        {"role": "assistant", "content": "\n".join(lines)},
    ]


def note(left_out: int) -> Message:
    """The message at the top saying how many earlier turns the model does not see."""
    turns = "turn of this conversation is" if left_out == 1 else "turns of this conversation are"
    return {"role": "user", "content": f"[Note: {left_out} earlier {turns} left out here to keep it short.]"}


def history_messages(
    history: Sequence[planner_service_pb2.PriorTurn], budget: int, count: Counter
) -> list[Message]:
    """The messages for `history` (oldest first) that fit `budget` tokens; [] when budget is 0."""
    if budget <= 0 or not history:
        return []
    kept: list[tuple[int, list[Message]]] = []  # (tokens, messages), newest first
    # Room for the note, as if every turn were left out (then the check below is a formality).
    spent = count([note(history[-1].turn or len(history))])
    for turn in reversed(history):
        chosen: tuple[int, list[Message]] | None = None
        tried: list[list[Message]] = []
        for form in (WHOLE, NO_OUTPUTS, NO_CALLS):
            messages = render(turn, form)
            if messages in tried:  # a turn without calls (or outputs) reads the same in each form
                continue
            tried.append(messages)
            cost = count(messages)
            if spent + cost <= budget:
                chosen = (cost, messages)
                break
        if chosen is None:
            break
        spent += chosen[0]
        kept.append(chosen)
    # The note counts too: should it need more room than was set aside, the oldest kept turns go.
    while True:
        first = history[len(history) - len(kept)] if kept else None
        if first is None:
            left_out = history[-1].turn or len(history)
        else:
            left_out = first.turn - 1 if first.turn > 0 else len(history) - len(kept)
        top = [note(left_out)] if left_out > 0 else []
        if not top or sum(cost for cost, _ in kept) + count(top) <= budget:
            break
        if not kept:
            return []  # not even the note fits
        kept.pop()
    return top + [m for _, messages in reversed(kept) for m in messages]
