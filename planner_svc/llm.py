"""The LLM planner: a model, through litellm, turns the prompt and the live tool catalog into a
plan as structured output; the plan is validated like any plan, and the exact errors are sent
back for a bounded number of repair rounds before the chain moves on to the next planner.

litellm is used with its Router (primary model plus fallbacks), explicit timeouts and
`num_retries=0`: the planner owns its retry budget (the repair rounds and the chain).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

# Before litellm is imported anywhere: use the bundled model price map, never fetch one.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agentrt.client.text import register_secrets
from agentrt.client.values import dict_to_struct, struct_to_dict, value_to_py
from agentrt.config import LLMModel, Settings
from agentrt.core.plans import InvalidPlan, validate_arguments, validate_plan
from agentrt.v1 import plan_pb2, planner_service_pb2, run_pb2, tool_pb2

# Spare time left for the planners after this one (the rule planner needs milliseconds).
RESERVE_S = 0.5


@dataclass
class PlanningFailed(Exception):
    message: str
    usage: plan_pb2.Usage = field(default_factory=plan_pb2.Usage)

    def __str__(self) -> str:
        return self.message


def _example(tools: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """Few-shot examples, kept only when the catalog has their tools."""
    examples: list[tuple[set[str], str, dict[str, Any]]] = [
        (
            {"calculator"},
            "calculate (10 + 5) * 2",
            {
                "steps": [
                    {
                        "id": "s1",
                        "tool": "calculator",
                        "arguments": {"expression": "(10 + 5) * 2"},
                        "depends_on": [],
                        "reasoning": "arithmetic",
                    }
                ]
            },
        ),
        (
            {"todo_store"},
            "Add a todo to buy milk, then show me all my tasks",
            {
                "steps": [
                    {
                        "id": "s1",
                        "tool": "todo_store",
                        "arguments": {"action": "add", "text": "buy milk"},
                        "depends_on": [],
                        "reasoning": "add the todo",
                    },
                    {
                        "id": "s2",
                        "tool": "todo_store",
                        "arguments": {"action": "list"},
                        "depends_on": ["s1"],
                        "reasoning": "then list all todos",
                    },
                ]
            },
        ),
        (
            {"calculator", "todo_store"},
            "what is 6 times 7, then add a todo with the answer",
            {
                "steps": [
                    {
                        "id": "s1",
                        "tool": "calculator",
                        "arguments": {"expression": "6 * 7"},
                        "depends_on": [],
                        "reasoning": "compute the answer",
                    },
                    {
                        "id": "s2",
                        "tool": "todo_store",
                        "arguments": {
                            "action": "add",
                            "text": "{{steps.s1.output.expression}} = {{steps.s1.output.value}}",
                        },
                        "depends_on": ["s1"],
                        "reasoning": "store the answer from s1",
                    },
                ]
            },
        ),
        (
            {"calculator"},
            "compute 9 - 4, then double it",
            {
                "steps": [
                    {
                        "id": "s1",
                        "tool": "calculator",
                        "arguments": {"expression": "9 - 4"},
                        "depends_on": [],
                        "reasoning": "first result",
                    },
                    {
                        "id": "s2",
                        "tool": "calculator",
                        "arguments": {"expression": "({{steps.s1.output.value}}) * 2"},
                        "depends_on": ["s1"],
                        "reasoning": "a referenced value goes in parentheses",
                    },
                ]
            },
        ),
        (
            {"todo_store"},
            "don't let me forget the dentist appointment",
            {
                "steps": [
                    {
                        "id": "s1",
                        "tool": "todo_store",
                        "arguments": {"action": "add", "text": "the dentist appointment"},
                        "depends_on": [],
                        "reasoning": "a reminder is a todo",
                    }
                ]
            },
        ),
        (set(), "book a table for two tonight", {"steps": [], "refusal": "no tool can book restaurants"}),
    ]
    return [(prompt, plan) for needed, prompt, plan in examples if needed <= tools]


def plan_schema(tools: list[tool_pb2.Tool], max_steps: int) -> dict[str, Any]:
    """JSON Schema of the answer: each step is one of the catalog's tools with its own arguments."""
    step_variants = [
        {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "tool": {"type": "string", "enum": [t.name]},
                "arguments": struct_to_dict(t.input_schema) or {"type": "object"},
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


def _system_prompt(tools: list[tool_pb2.Tool], max_steps: int) -> str:
    catalog = "\n".join(
        f"- {t.name}: {t.description}\n  arguments JSON Schema: {json.dumps(struct_to_dict(t.input_schema))}"
        for t in tools
    )
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

    def __init__(self, settings: Settings) -> None:
        # litellm takes seconds to import: only processes whose chain uses the LLM pay for it.
        try:
            from litellm import Router  # noqa: PLC0415
        except ImportError:
            raise RuntimeError(
                "the LLM planner needs litellm: pip install 'agentrt[llm]' "
                '(or take "llm" out of AGENTRT_PLANNER_CHAIN)'
            ) from None

        self._settings = settings
        self._models = settings.llm_models
        # Providers' error texts may quote a key: never pass one on (see agentrt/client/text.py).
        register_secrets(m.api_key.get_secret_value() for m in self._models if m.api_key is not None)
        model_list = [
            {"model_name": f"m{i}", "litellm_params": _litellm_params(m)} for i, m in enumerate(self._models)
        ]
        fallbacks = [{"m0": [f"m{i}" for i in range(1, len(self._models))]}] if len(self._models) > 1 else []
        self._router = Router(
            model_list=model_list, fallbacks=fallbacks, num_retries=0, timeout=settings.llm_timeout_s
        )

    def _response_format(self, schema: dict[str, Any]) -> dict[str, Any]:
        mode = self._models[0].response_format
        if mode == "auto":
            import litellm  # noqa: PLC0415 - see __init__

            try:
                supported = litellm.supports_response_schema(model=self._models[0].model)
            except Exception:
                supported = False
            mode = "json_schema" if supported else "json_object"
        if mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": "plan", "schema": schema}}
        return {"type": "json_object"}

    def request(
        self,
        prompt: str,
        tools: list[tool_pb2.Tool],
        max_steps: int,
        replan: planner_service_pb2.Replan | None,
    ) -> dict[str, Any]:
        """The litellm request for a first attempt (repair rounds append to its messages)."""
        schema = plan_schema(tools, max_steps)
        messages: list[dict[str, str]] = [{"role": "system", "content": _system_prompt(tools, max_steps)}]
        for example_prompt, example_plan in _example({t.name for t in tools}):
            messages += [
                {"role": "user", "content": example_prompt},
                {"role": "assistant", "content": json.dumps(example_plan)},
            ]
        messages.append({"role": "user", "content": prompt})
        if replan is not None:
            messages.append({"role": "user", "content": _replan_message(replan)})
        return {
            "model": "m0",
            "messages": messages,
            "response_format": self._response_format(schema),
            "temperature": self._settings.llm_temperature,
            "max_tokens": self._settings.llm_max_tokens,
        }

    async def plan(
        self,
        prompt: str,
        tools: list[tool_pb2.Tool],
        max_steps: int,
        replan: planner_service_pb2.Replan | None = None,
        deadline: float | None = None,
    ) -> tuple[plan_pb2.Plan, plan_pb2.Usage]:
        """Plan or raise PlanningFailed; `deadline` is a time.monotonic() bound for all rounds."""
        import litellm  # noqa: PLC0415 - see __init__

        request = self.request(prompt, tools, max_steps, replan)
        usage = plan_pb2.Usage()
        schemas = {t.name: struct_to_dict(t.input_schema) for t in tools}
        problem = ""
        for _ in range(1 + self._settings.llm_repair_rounds):
            timeout = self._settings.llm_timeout_s
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic() - RESERVE_S)
            if timeout <= 0:
                raise PlanningFailed(f"no time left for another LLM round (last problem: {problem})", usage)
            try:
                response = await self._router.acompletion(**request, timeout=timeout)
            except litellm.Timeout:
                raise PlanningFailed(f"the LLM did not answer within {timeout:.1f}s", usage) from None
            except Exception as exc:
                raise PlanningFailed(
                    f"the LLM call failed: {type(exc).__name__}: {exc}"[:500], usage
                ) from None
            _add_usage(usage, response)
            content = response.choices[0].message.content or ""
            try:
                plan = parse_plan(content)
                if not plan.steps:
                    raise PlanningFailed(f"the model declined: {_refusal(content) or 'no steps'}", usage)
                validate_plan(plan, set(schemas), max_steps or len(plan.steps))
                validate_arguments(plan, schemas)
            except (InvalidPlan, ValueError) as exc:
                problem = str(exc)
                request["messages"] = [
                    *request["messages"],
                    {"role": "assistant", "content": content},
                    {
                        "role": "user",
                        "content": f"That plan is invalid: {problem}\nReply with a corrected plan.",
                    },
                ]
                continue
            plan.planner = self.name
            return plan, usage
        raise PlanningFailed(
            f"no valid plan after {1 + self._settings.llm_repair_rounds} attempts; last problem: {problem}",
            usage,
        )


def _litellm_params(model: LLMModel) -> dict[str, Any]:
    params: dict[str, Any] = {"model": model.model}
    if model.api_base:
        params["api_base"] = model.api_base
    if model.api_key:
        params["api_key"] = model.api_key.get_secret_value()
    elif model.api_base:
        params["api_key"] = "none"  # OpenAI-compatible local servers need some key
    return params


def _add_usage(usage: plan_pb2.Usage, response: Any) -> None:
    usage.llm_calls += 1
    if getattr(response, "usage", None):
        usage.prompt_tokens += response.usage.prompt_tokens or 0
        usage.completion_tokens += response.usage.completion_tokens or 0
    cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
    usage.cost_usd += float(cost or 0.0)


def _refusal(content: str) -> str:
    try:
        return str(json.loads(content).get("refusal", ""))
    except (ValueError, AttributeError):
        return ""


def parse_plan(content: str) -> plan_pb2.Plan:
    """The model's JSON answer as a Plan; ValueError says what is wrong with it."""
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the answer is not valid JSON ({exc.msg} at position {exc.pos})") from None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise ValueError('the answer must be a JSON object with a "steps" list')
    plan = plan_pb2.Plan()
    for index, raw in enumerate(data["steps"]):
        where = f"steps[{index}]"
        if not isinstance(raw, dict):
            raise ValueError(f"{where} must be an object")
        arguments = raw.get("arguments", {})
        depends_on = raw.get("depends_on", [])
        if not isinstance(arguments, dict):
            raise ValueError(f"{where}.arguments must be an object")
        if not isinstance(depends_on, list) or not all(isinstance(d, str) for d in depends_on):
            raise ValueError(f"{where}.depends_on must be a list of step ids")
        plan.steps.append(
            plan_pb2.PlanStep(
                id=str(raw.get("id") or f"s{index + 1}"),
                tool=str(raw.get("tool", "")),
                arguments=dict_to_struct(arguments),
                depends_on=depends_on,
                reasoning=str(raw.get("reasoning", "")),
            )
        )
    return plan
