"""The LLM planner: a model, through litellm, turns the prompt and the live tool catalog into a
plan as structured output; the plan is validated like any plan, and the exact errors are sent
back for a bounded number of repair rounds before the chain moves on to the next planner.

The model is reached through llmclient.LLMClient (litellm's Router), shared with the agent loop's
decisions (agent.py). The prompt is byte-stable for the same catalog (tools sorted by name, schemas
with sorted keys), so a server's prompt cache keeps working across restarts. Each tool's schema is
converted, compiled and written as prompt text once (agentrt.core.toolschemas.SchemaBook), not
per plan. A thread's turn also sends the thread's earlier turns, within a token budget, between
the examples and the request (history.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentrt.config import PlannerSettings
from agentrt.core.plans import InvalidPlan, arguments_of, validate_arguments, validate_plan
from agentrt.core.runstate import add_usage
from agentrt.core.toolschemas import CompiledSchema, SchemaBook, validators
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.v1 import plan_pb2, planner_service_pb2, run_pb2, tool_pb2
from planner_svc.history import history_messages
from planner_svc.llmclient import LLMCallFailed, LLMClient
from planner_svc.planner import PlanningFailed, PlanRequest

# Spare time left for the planners after this one (the rule planner needs milliseconds).
RESERVE_S = 0.5


# Few-shot examples (planner_svc/examples.json): data, so they can be read, reviewed and extended
# without reading code. Each is used only when the catalog has the tools it names. They are earlier
# turns of the conversation, and the user's request after them is marked as the new one: unmarked,
# a small model carried an example into its plan ("what is 41*7+13" gained the example's "add a
# todo with the answer" step; "add a todo to buy milk" became a "6 * 7 = 42" todo). In the system
# prompt instead, or left out, the 0.5B model ran on past the steps asked for, to max_tokens.
_EXAMPLES = json.loads(resources.files("planner_svc").joinpath("examples.json").read_text())


def _examples(tools: set[str]) -> list[tuple[str, dict[str, Any]]]:
    return [(e["prompt"], e["answer"]) for e in _EXAMPLES if set(e["tools"]) <= tools]


NEW_REQUEST = "New request (plan only this one; the requests above were examples): "
# After a thread's earlier turns (history.py), which already took effect: planned again, a small
# model would redo them; after the examples too, the marker names both.
NEXT_TURN = "New request (plan only this one; the requests above are earlier turns of this conversation): "
NEXT_TURN_AFTER_EXAMPLES = (
    "New request (plan only this one; the requests above were examples, then earlier turns of this "
    "conversation): "
)


def _marker(examples: bool, history: bool) -> str:
    """What the user's request starts with, after the examples and/or the thread's history."""
    if history:
        return NEXT_TURN_AFTER_EXAMPLES if examples else NEXT_TURN
    return NEW_REQUEST if examples else ""


def compiled_schemas(
    tools: list[tool_pb2.Tool], compiled: Mapping[str, CompiledSchema] | None
) -> Mapping[str, CompiledSchema]:
    """`compiled` (each tool's schema from the planner's SchemaBook), or, for a caller without
    one, the tools' schemas converted for this call only."""
    return compiled if compiled is not None else SchemaBook().catalog(tools)


def plan_schema(
    tools: list[tool_pb2.Tool], max_steps: int, compiled: Mapping[str, CompiledSchema] | None = None
) -> dict[str, Any]:
    """JSON Schema of the answer: each step is one of the catalog's tools with its own arguments."""
    schemas = compiled_schemas(tools, compiled)
    step_variants = [
        {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "tool": {"type": "string", "enum": [t.name]},
                "arguments": schemas[t.name].fresh(),
                "depends_on": {"type": "array", "items": {"type": "string"}},
                "reasoning": {"type": "string"},
            },
            "required": ["id", "tool", "arguments", "depends_on"],
        }
        for t in tools
    ]
    steps: dict[str, Any] = {"type": "array", "items": {"anyOf": step_variants}}
    if max_steps:
        steps["maxItems"] = max_steps
    return {
        "type": "object",
        "properties": {"steps": steps, "refusal": {"type": "string"}},
        "required": ["steps"],
    }


def catalog_text(tools: list[tool_pb2.Tool], compiled: Mapping[str, CompiledSchema] | None = None) -> str:
    """The tools as the model reads them; the same bytes for the same catalog, in any order."""
    schemas = compiled_schemas(tools, compiled)
    return "\n".join(
        f"- {t.name}: {t.description}\n  arguments JSON Schema: {schemas[t.name].text}"
        for t in sorted(tools, key=lambda t: t.name)
    )


def _system_prompt(tools: list[tool_pb2.Tool], max_steps: int, compiled: Mapping[str, CompiledSchema]) -> str:
    catalog = catalog_text(tools, compiled)
    limit = f"\n- Use at most {max_steps} steps." if max_steps else ""
    return (
        "You are the planner of agentrt, a runtime that executes plans of tool calls.\n"
        'Turn the user\'s request into a plan: a JSON object {"steps": [...]} where each step is '
        '{"id": "s1", "tool": "<tool name>", "arguments": {...}, "depends_on": ["<ids of earlier steps>"], '
        '"reasoning": "<why>"}.\n'
        "Rules:\n"
        "- Use only the tools listed below, with arguments valid against their JSON Schema.\n"
        "- Plan exactly what the user asked: one step per action, in their order, and nothing more.\n"
        "- Each step depends on the step before it.\n"
        "- Reminders and things to remember or not forget are todos.\n"
        "- To use an earlier step's output inside a string argument, write {{steps.<id>.output.<field>}}, "
        "for example {{steps.s1.output.value}}.\n"
        '- If the tools cannot do what is asked, answer {"steps": [], "refusal": "<what is missing>"}.'
        f"{limit}\n"
        "- Answer with the JSON object only.\n\n"
        f"Tools:\n{catalog}"
    )


def _replan_message(replan: planner_service_pb2.Replan) -> str:
    steps = [
        {
            "id": s.step_id,
            "tool": s.tool,
            "status": run_pb2.StepStatus.Name(s.status),
            **({"output": value_to_py(s.output)} if s.HasField("output") else {}),
        }
        for s in replan.steps
    ]
    return (
        "The previous plan failed. Succeeded steps already took effect: do not repeat them.\n"
        f"Failure: {replan.failure.message}\n"
        f"Steps: {json.dumps(steps)}\n"
        "Reply with a revised plan for the remaining work only."
    )


class LLMPlanner:
    name = "llm"

    def __init__(
        self, settings: PlannerSettings, client: LLMClient | None = None, schemas: SchemaBook | None = None
    ) -> None:
        self._settings = settings
        self._client = client if client is not None else LLMClient(settings)
        # Each tool's schema converted and compiled once, then looked up by every plan.
        self._schemas = schemas if schemas is not None else SchemaBook()

    def request(
        self,
        prompt: str,
        tools: list[tool_pb2.Tool],
        max_steps: int,
        replan: planner_service_pb2.Replan | None,
        compiled: Mapping[str, CompiledSchema] | None = None,
        *,
        history: Sequence[planner_service_pb2.PriorTurn] = (),
    ) -> dict[str, Any]:
        """The litellm request for a first attempt (repair rounds append to its messages): the
        system prompt, the examples, the thread's earlier turns that fit the history budget
        (history.py), then the request."""
        tools = sorted(tools, key=lambda t: t.name)
        if compiled is None:
            compiled = self._schemas.catalog(tools)
        schema = plan_schema(tools, max_steps, compiled)
        response_format = self._client.response_format("plan", schema)
        system = _system_prompt(tools, max_steps, compiled)
        messages: list[dict[str, str]] = [{"role": "system", "content": system}]
        examples = _examples({t.name for t in tools})
        for example_prompt, example_plan in examples:
            messages += [
                {"role": "user", "content": example_prompt},
                {"role": "assistant", "content": json.dumps(example_plan)},  # in the schema's order
            ]
        budget = self._settings.llm_history_tokens
        earlier = history_messages(history, budget, self._client.count_tokens) if history else []
        messages += earlier
        messages.append({"role": "user", "content": _marker(bool(examples), bool(earlier)) + prompt})
        if replan is not None:
            messages.append({"role": "user", "content": _replan_message(replan)})
        return {
            "model": "m0",
            "messages": messages,
            "response_format": response_format,
            "temperature": self._settings.llm_temperature,
            "max_tokens": self._settings.llm_max_tokens,
        }

    async def plan(self, request: PlanRequest) -> plan_pb2.Plan:
        """Plan or raise PlanningFailed; the request's deadline bounds all rounds."""
        prompt, tools, max_steps = request.prompt, request.tools, request.max_steps
        replan, deadline = request.replan, request.deadline

        compiled = self._schemas.catalog(tools)
        call = self.request(prompt, tools, max_steps, replan, compiled, history=request.history)
        usage = plan_pb2.Usage()
        checks = validators(compiled)
        problem = ""
        for _ in range(1 + self._settings.llm_repair_rounds):
            timeout = self._settings.llm_timeout_s
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic() - RESERVE_S)
            if timeout <= 0:
                raise PlanningFailed(
                    f"no time left for another LLM round (last problem: {problem})", usage=usage
                )
            try:
                answer = await self._client.complete(call, timeout)
            except LLMCallFailed as exc:
                failure = exc.failure
                raise PlanningFailed(
                    failure.message, reason=failure.reason, retryable=failure.retryable, usage=usage
                ) from None
            add_usage(usage, answer.usage)
            content = answer.content
            try:
                plan = parse_plan(content)
                if not plan.steps:
                    raise PlanningFailed(
                        f"the model declined: {_refusal(content) or 'no steps'}", usage=usage
                    )
                arguments = arguments_of(plan)  # once, for both checks
                validate_plan(plan, set(checks), max_steps or len(plan.steps), arguments)
                validate_arguments(plan, checks, arguments)
            except (InvalidPlan, ValueError) as exc:
                problem = str(exc)
                call["messages"] = [
                    *call["messages"],
                    {"role": "assistant", "content": content},
                    {
                        "role": "user",
                        "content": f"That plan is invalid: {problem}\nReply with a corrected plan.",
                    },
                ]
                continue
            plan.planner = self.name
            plan.usage.CopyFrom(usage)
            return plan
        raise PlanningFailed(
            f"no valid plan after {1 + self._settings.llm_repair_rounds} attempts; last problem: {problem}",
            usage=usage,
        )


def _refusal(content: str) -> str:
    try:
        return str(json.loads(content).get("refusal", ""))
    except (ValueError, AttributeError):
        return ""


class _StepAnswer(BaseModel):
    """One step as the model writes it. Strict types: a number where a list belongs is an error
    the repair round reports, not something to guess at."""

    model_config = ConfigDict(strict=True)

    id: str | None = None
    tool: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)
    depends_on: list[str] = Field(default_factory=list)
    reasoning: str = ""


class _Answer(BaseModel):
    steps: list[_StepAnswer]
    refusal: str = ""


def parse_plan(content: str) -> plan_pb2.Plan:
    """The model's JSON answer as a Plan; ValueError says what is wrong with it."""
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the answer is not valid JSON ({exc.msg} at position {exc.pos})") from None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise ValueError('the answer must be a JSON object with a "steps" list')
    try:
        answer = _Answer.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}"
            for e in exc.errors(include_url=False)[:8]
        ]
        raise ValueError("; ".join(problems)) from None
    return plan_pb2.Plan(
        steps=[
            plan_pb2.PlanStep(
                id=step.id or f"s{index}",
                tool=step.tool,
                arguments=dict_to_struct(step.arguments),
                depends_on=step.depends_on,
                reasoning=step.reasoning,
            )
            for index, step in enumerate(answer.steps, start=1)
        ]
    )
