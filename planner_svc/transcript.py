"""An agent run's transcript as the model reads it: each earlier turn (its calls, answer or
refusal) followed by what each call returned.

Tool outputs are hostile to the context window (a todo list grows without bound), so what the
model reads of them is bounded: each output to `observation_chars`, and all outputs together to
`transcript_chars`, the oldest shrinking first. Whenever something is cut the model is told how
much, so it can ask for less (a count instead of a list) rather than reason from half a list.
"""

from __future__ import annotations

import json
from typing import Any

from agentrt.core.values import struct_to_dict, value_to_py
from agentrt.v1 import agent_pb2, run_pb2

S = run_pb2
# What an older output shrinks to when the transcript is over its bound.
_OMITTED = "[output omitted to keep the conversation short: {n} characters; call the tool again if needed]"


def as_json(value: Any) -> str:
    """A value as the model reads it: compact JSON, keys sorted, text as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _trim(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]} ...[trimmed: {len(text) - limit} more characters not shown]"


def observation(step: run_pb2.StepState) -> str:
    """A call's outcome in words the model can use, untrimmed."""
    if step.status == S.STEP_STATUS_SUCCEEDED:
        return as_json(value_to_py(step.output))
    if step.status == S.STEP_STATUS_FAILED:
        reason = step.error.reason or step.error.code
        if reason == "REJECTED":
            # Not an error to work around: the person said no. Small models read a bare error
            # as "not found" and told the user so; say what it is and what to do with it.
            return (
                f"declined (REJECTED): the user declined this call ({step.error.message}); it was not made. "
                "Do not make it again: tell the user it was not done."
            )
        if reason == "APPROVAL_TIMEOUT":
            return (
                "not made: nobody approved this call in time. Tell the user it was not done and "
                "that it needs their approval."
            )
        return f"error ({reason}): {step.error.message}"
    return "not executed (the run was interrupted before this call finished)"


class Transcript:
    def __init__(
        self,
        turns: list[agent_pb2.Turn],
        steps: list[run_pb2.StepState],
        observation_chars: int,
        transcript_chars: int,
    ) -> None:
        self._turns = turns
        self._steps = {s.step_id: s for s in steps}
        self._observations = self._bounded(observation_chars, transcript_chars)

    def _bounded(self, each: int, total: int) -> dict[str, str]:
        """Each call's observation, trimmed; newest first until the total is spent."""
        out: dict[str, str] = {}
        spent = 0
        for turn in reversed(self._turns):
            for call in turn.calls:
                step = self._steps.get(call.step_id)
                full = observation(step) if step is not None else observation(run_pb2.StepState())
                text = _trim(full, each)
                if spent + len(text) > total:
                    text = _OMITTED.format(n=len(full))
                spent += len(text)
                out[call.step_id] = text
        return out

    def messages(self, use_tools: bool) -> list[dict[str, Any]]:
        """Chat messages after the user's prompt: function-calling form or plain JSON form."""
        messages: list[dict[str, Any]] = []
        for turn in self._turns:
            if turn.calls:
                messages += self._calls(turn, use_tools)
            elif turn.answer:
                messages.append({"role": "assistant", "content": _content(use_tools, "answer", turn.answer)})
            elif turn.refusal:
                messages.append(
                    {"role": "assistant", "content": _content(use_tools, "refusal", turn.refusal)}
                )
        if messages and messages[-1]["role"] == "assistant":
            # A turn that ended the run before a RetryRun: the model is asked to go on.
            messages.append({"role": "user", "content": "Please try again and continue with the task."})
        return messages

    def _calls(self, turn: agent_pb2.Turn, use_tools: bool) -> list[dict[str, Any]]:
        if use_tools:
            assistant = {
                "role": "assistant",
                "content": turn.text or None,
                "tool_calls": [
                    {
                        "id": c.step_id,
                        "type": "function",
                        "function": {
                            "name": c.tool,
                            "arguments": json.dumps(struct_to_dict(c.arguments), sort_keys=True),
                        },
                    }
                    for c in turn.calls
                ],
            }
            results = [
                {"role": "tool", "tool_call_id": c.step_id, "content": self._observations[c.step_id]}
                for c in turn.calls
            ]
            return [assistant, *results]
        calls = [{"tool": c.tool, "arguments": struct_to_dict(c.arguments)} for c in turn.calls]
        lines = [f"- {c.step_id} {c.tool}: {self._observations[c.step_id]}" for c in turn.calls]
        # Small models given bare results tend to repeat the call: say what to do with them.
        return [
            {"role": "assistant", "content": json.dumps({"tool_calls": calls}, sort_keys=True)},
            {"role": "user", "content": "Tool results:\n" + "\n".join(lines) + "\n" + _NEXT},
        ]


_NEXT = (
    "Do not repeat a call that succeeded. If these results complete the task, reply with the "
    'answer ({"answer": "..."}); otherwise make the next call.'
)


def _content(use_tools: bool, key: str, text: str) -> str:
    return text if use_tools else json.dumps({key: text})
