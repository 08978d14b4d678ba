"""The agent loop's decisions: given the prompt, the tools and the transcript so far (each earlier
call with its arguments and its output or error), the model's next move: tool calls, a final
answer, or a refusal.

Two ways to ask, per model (LLMModel.tool_calling): the provider's function calling, with each
tool's JSON Schema as the function's parameters; or, for local servers without it, one JSON
answer held to a schema (tool calls | answer | refusal). Either way the calls are checked here
against the catalog and each tool's schema before the executor runs any of them; a bad decision
goes back to the model with the exact problem, for at most `llm_repair_rounds` more calls.

What the model reads of tool outputs is bounded (transcript.py): a long todo list cannot blow
the context or the message limits, and the model is told what was cut. So is what it reads of a
thread's earlier turns, which come before the request (history.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentrt.config import PlannerSettings
from agentrt.core.plans import InvalidPlan, validate_arguments
from agentrt.core.runstate import add_usage
from agentrt.core.schemas import Schema
from agentrt.core.toolschemas import CompiledSchema, SchemaBook, validators
from agentrt.core.values import dict_to_struct
from agentrt.v1 import agent_pb2, plan_pb2, planner_service_pb2, tool_pb2
from planner_svc.history import history_messages
from planner_svc.llm import catalog_text
from planner_svc.llmclient import LLMCallFailed, LLMClient
from planner_svc.planner import PlanningFailed
from planner_svc.transcript import Transcript

# The function a model calls (function-calling mode) to refuse; not offered if a tool has the name.
DECLINE = "decline_request"
# Bounds on what a decision may carry into the run's record.
MAX_TEXT_CHARS = 4000
MAX_CALLS_PER_TURN = 8
# What a repair round sends back of the broken reply (a cut-off one repeats itself for pages).
REPAIR_ECHO_CHARS = 600


class DecisionFailed(PlanningFailed):
    """No valid decision: the LLM failed (`retryable`: asking again may succeed) or kept
    answering wrong."""


_RULES = (
    "You are the agent of agentrt. You carry out the user's task by calling tools, looking at "
    "what they return, and then answering.\n"
    "Each turn, either call tools or give the final answer. Calls in one turn run in the order "
    "you give them (a call that changes something runs before the calls after it), so put a "
    "list after the add it should show.\n"
    "Rules:\n"
    "- Use only the tools listed, with arguments valid against their JSON Schema.\n"
    "- You know nothing about the user's data (their todos, say) except what tools return in "
    "this conversation: to answer about it, call a tool first.\n"
    "- When the user names something by its words (a todo, say), pass those words as the text "
    "argument; use an id only if a tool returned it in this conversation. Never guess an id.\n"
    "- A tool error is information: when nothing matched, list to see what there is, then try "
    "again with what you saw; fix the arguments or try another way; never repeat a failing call "
    "unchanged.\n"
    "- A call the user declined was not made: do not make it again; say it was not done.\n"
    "- Do exactly what was asked and nothing more.\n"
    "- When the task is done, answer in one or two plain sentences that give the result.\n"
)


# Only with a thread's history: its turns took effect already, and what their tools returned then
# may have changed since.
_HISTORY_RULE = (
    "- The messages before the user's current request are earlier turns of this conversation, already "
    'carried out: use them to understand the request (what "it" or "that" is), do not redo '
    "them, and call a tool again for anything that may have changed since.\n"
)


def _decision_schema(
    tools: list[tool_pb2.Tool], max_calls: int, compiled: Mapping[str, CompiledSchema]
) -> dict[str, Any]:
    """JSON-mode answer: {"tool_calls": [...]} | {"answer": "..."} | {"refusal": "..."}."""
    variants = [
        {
            "type": "object",
            "properties": {
                "tool": {"type": "string", "enum": [t.name]},
                "arguments": compiled[t.name].fresh(),
            },
            "required": ["tool", "arguments"],
        }
        for t in tools
    ]
    answers: list[dict[str, Any]] = [
        {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
        {"type": "object", "properties": {"refusal": {"type": "string"}}, "required": ["refusal"]},
    ]
    if max_calls > 0:
        calls = {"type": "array", "items": {"anyOf": variants}, "minItems": 1, "maxItems": max_calls}
        answers.insert(0, {"type": "object", "properties": {"tool_calls": calls}, "required": ["tool_calls"]})
    return {"anyOf": answers}


def _functions(tools: list[tool_pb2.Tool], compiled: Mapping[str, CompiledSchema]) -> list[dict[str, Any]]:
    functions = [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": compiled[t.name].fresh(),
            },
        }
        for t in tools
    ]
    if DECLINE not in {t.name for t in tools}:
        functions.append(
            {
                "type": "function",
                "function": {
                    "name": DECLINE,
                    "description": "Refuse the task when the tools cannot do it; say what is missing.",
                    "parameters": {
                        "type": "object",
                        "properties": {"reason": {"type": "string"}},
                        "required": ["reason"],
                    },
                },
            }
        )
    return functions


class AnswerPeek:
    """The "answer" string of a JSON decision as it streams in, decoded piece by piece (JSON mode:
    the model writes {"answer": "..."}; watchers get the words, not the JSON)."""

    _START = re.compile(r'"answer"\s*:\s*"')

    def __init__(self) -> None:
        self._text = ""
        self._start = -1
        self._pos = 0
        self.done = False

    def feed(self, piece: str) -> str:
        self._text += piece
        if self._start < 0:
            m = self._START.search(self._text)
            if m is None:
                return ""
            self._start = self._pos = m.end()
        out = []
        text, i = self._text, self._pos
        while i < len(text) and not self.done:
            ch = text[i]
            if ch == '"':
                self.done = True
                break
            if ch == "\\":
                if i + 1 >= len(text):
                    break
                if text[i + 1] == "u":
                    if i + 6 > len(text):
                        break
                    try:
                        out.append(json.loads(f'"{text[i : i + 6]}"'))
                    except ValueError:
                        out.append(text[i : i + 6])
                    i += 6
                    continue
                out.append(
                    {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(text[i + 1], text[i + 1])
                )
                i += 2
                continue
            out.append(ch)
            i += 1
        self._pos = i
        return "".join(out)


class AgentDecider:
    def __init__(
        self, settings: PlannerSettings, client: LLMClient, schemas: SchemaBook | None = None
    ) -> None:
        self._settings = settings
        self._client = client
        # Each tool's schema converted and compiled once, then looked up by every decision.
        self._schemas = schemas if schemas is not None else SchemaBook()

    async def decide(
        self,
        *,
        prompt: str,
        tools: list[tool_pb2.Tool],
        transcript: Transcript,
        calls_left: int,
        tokens_left: int,
        on_text: Callable[[str], None],
        time_left: Callable[[], float],
        history: Sequence[planner_service_pb2.PriorTurn] = (),
    ) -> agent_pb2.Turn:
        """The next decision, or DecisionFailed. `time_left()` says how long the next LLM call may
        take (the caller's deadline); `on_text` gets the model's text as it streams; `history` is
        the thread's earlier turns, oldest first."""
        tools = sorted(tools, key=lambda t: t.name)
        compiled = self._schemas.catalog(tools)
        schemas = validators(compiled)
        max_calls = min(calls_left, MAX_CALLS_PER_TURN)  # what the model is offered
        use_tools = self._client.uses_tools()
        call = self._request(
            prompt, tools, transcript, max_calls, use_tools, compiled=compiled, history=history
        )
        if tokens_left > 0:
            call["max_tokens"] = max(16, min(call["max_tokens"], tokens_left))
        usage = plan_pb2.Usage()
        problem = ""
        for _ in range(1 + self._settings.llm_repair_rounds):
            seconds = time_left()
            if seconds <= 0:
                raise DecisionFailed(
                    f"no time left for another LLM call (last problem: {problem})", usage=usage
                )
            peek = None if use_tools else AnswerPeek()
            forward = on_text if peek is None else (lambda piece, p=peek: (t := p.feed(piece)) and on_text(t))
            try:
                answer = await self._client.stream(call, seconds, forward)
            except LLMCallFailed as exc:
                failure = exc.failure
                raise DecisionFailed(
                    failure.message, reason=failure.reason, retryable=failure.retryable, usage=usage
                ) from None
            add_usage(usage, answer.usage)
            try:
                turn = self._parse(answer.content, answer.tool_calls, use_tools, schemas)
            except ValueError as exc:
                problem = str(exc)
                call["messages"] = [*call["messages"], *_repair(answer.content, answer.tool_calls, problem)]
                continue
            turn.usage.CopyFrom(usage)
            return turn
        raise DecisionFailed(
            f"no valid decision after {1 + self._settings.llm_repair_rounds} attempts; "
            f"last problem: {problem}",
            reason="INVALID_DECISION",
            usage=usage,
        )

    def _request(
        self,
        prompt: str,
        tools: list[tool_pb2.Tool],
        transcript: Transcript,
        max_calls: int,
        use_tools: bool,
        *,
        compiled: Mapping[str, CompiledSchema],
        history: Sequence[planner_service_pb2.PriorTurn] = (),
    ) -> dict[str, Any]:
        """The system prompt, the thread's earlier turns that fit the history budget (history.py),
        the user's request, then this run's transcript."""
        if use_tools:
            system = (
                _RULES + "- If the tools cannot do the task, call decline_request saying what is missing.\n"
            )
            extra: dict[str, Any] = {"tools": _functions(tools, compiled)} if max_calls > 0 else {}
        else:
            system = (
                _RULES
                + "- If the tools cannot do the task, refuse, saying what is missing.\n"
                + 'Reply with one JSON object only: {"tool_calls": [{"tool": "<name>", "arguments": '
                + '{...}}]} to call tools, {"answer": "<your answer>"} when done, or {"refusal": '
                + '"<what is missing>"}.\n\n'
                + f"Tools:\n{catalog_text(tools, compiled)}"
            )
            extra = {
                "response_format": self._client.response_format(
                    "decision", _decision_schema(tools, max_calls, compiled)
                )
            }
        if max_calls <= 0:
            system += "- No tool calls are left in this run's budget: answer now with what you know.\n"
        budget = self._settings.llm_history_tokens
        earlier = history_messages(history, budget, self._client.count_tokens) if history else []
        if earlier:
            system += _HISTORY_RULE
        messages = [{"role": "system", "content": system}, *earlier, {"role": "user", "content": prompt}]
        messages += transcript.messages(use_tools)
        return {
            "model": "m0",
            "messages": messages,
            "temperature": self._settings.llm_temperature,
            "max_tokens": self._settings.llm_max_tokens,
            **extra,
        }

    def _parse(
        self,
        content: str,
        tool_calls: list[tuple[str, str]],
        use_tools: bool,
        schemas: dict[str, Schema | None],
    ) -> agent_pb2.Turn:
        """The decision in `content`/`tool_calls`, checked; ValueError says what is wrong."""
        if use_tools:
            calls = []
            for name, raw in tool_calls:
                try:
                    arguments = json.loads(raw or "{}")
                except json.JSONDecodeError as exc:
                    raise ValueError(f"the arguments of {name} are not valid JSON ({exc.msg})") from None
                if name == DECLINE and DECLINE not in schemas:
                    reason = arguments.get("reason") if isinstance(arguments, dict) else None
                    return agent_pb2.Turn(refusal=_bounded(str(reason or content or "declined")))
                calls.append((name, arguments))
            if not calls:
                if not content.strip():
                    raise ValueError("the answer is empty: call a tool or answer in words")
                return agent_pb2.Turn(answer=_bounded(content.strip()))
            text = content
        else:
            try:
                data = json.loads(content)
            except json.JSONDecodeError as exc:
                raise ValueError(f"the answer is not valid JSON ({exc.msg} at position {exc.pos})") from None
            if not isinstance(data, dict):
                raise ValueError('the answer must be a JSON object with "tool_calls", "answer" or "refusal"')
            if (
                isinstance(data.get("refusal"), str)
                and data["refusal"].strip()
                and not data.get("tool_calls")
            ):
                return agent_pb2.Turn(refusal=_bounded(data["refusal"].strip()))
            if isinstance(data.get("answer"), str) and data["answer"].strip() and not data.get("tool_calls"):
                return agent_pb2.Turn(answer=_bounded(data["answer"].strip()))
            raw_calls = data.get("tool_calls")
            if not isinstance(raw_calls, list) or not raw_calls:
                raise ValueError(
                    'the answer must have a non-empty "tool_calls" list, an "answer" or a "refusal"'
                )
            calls = []
            for n, item in enumerate(raw_calls):
                if not isinstance(item, dict) or not isinstance(item.get("tool"), str):
                    raise ValueError(f'tool_calls.{n} must be an object with "tool" and "arguments"')
                calls.append((item["tool"], item.get("arguments", {})))
            text = ""
        # More calls than the run's budget has left are the executor's to refuse (the run fails
        # naming the budget); more than a turn may hold go back to the model.
        if len(calls) > MAX_CALLS_PER_TURN:
            raise ValueError(f"at most {MAX_CALLS_PER_TURN} tool calls fit in one turn, not {len(calls)}")
        turn = agent_pb2.Turn(text=_bounded(text.strip()))
        plan = plan_pb2.Plan()
        for n, (name, arguments) in enumerate(calls, start=1):
            if name not in schemas:
                raise ValueError(f"unknown tool {name[:80]!r}; the tools are: {', '.join(sorted(schemas))}")
            if not isinstance(arguments, dict):
                raise ValueError(f"the arguments of {name} must be a JSON object")
            struct = dict_to_struct(arguments)
            turn.calls.add(tool=name, arguments=struct)
            plan.steps.add(id=f"call {n}", tool=name, arguments=struct)
        try:
            validate_arguments(plan, schemas)
        except InvalidPlan as exc:
            raise ValueError(str(exc)) from None
        return turn


def _repair(content: str, tool_calls: list[tuple[str, str]], problem: str) -> list[dict[str, Any]]:
    """What goes back to the model after an invalid decision."""
    if tool_calls:
        ids = [f"invalid-{n}" for n in range(1, len(tool_calls) + 1)]
        return [
            {
                "role": "assistant",
                "content": content or None,
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": name, "arguments": raw}}
                    for i, (name, raw) in zip(ids, tool_calls, strict=True)
                ],
            },
            *(
                {"role": "tool", "tool_call_id": i, "content": f"not executed: {problem}. Correct the call."}
                for i in ids
            ),
        ]
    # Small models given "the answer is not valid JSON" wrote that sentence as their answer: say
    # whose words these are, and keep the broken reply short (a cut-off one can be hundreds of
    # tokens of the same words).
    return [
        {"role": "assistant", "content": _bounded(content, REPAIR_ECHO_CHARS)},
        {
            "role": "user",
            "content": f"(From the system, not the user: your last reply could not be used: {problem}. "
            "Do not repeat this message. Reply again, shorter, with the JSON object only.)",
        },
    ]


def _bounded(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + " [...]"
