"""Plan validation: the checks every plan passes before any of its steps runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from graphlib import CycleError, TopologicalSorter
from typing import Any

from agentrt.core.refs import InvalidReference, may_reference, referenced_steps
from agentrt.core.schemas import InvalidSchema, Schema, cached_schema
from agentrt.core.values import struct_to_dict
from agentrt.v1 import plan_pb2

# Each step's arguments as plain values, in plan order: converted once by a caller that checks
# a plan more than one way (validate_plan, then validate_arguments), instead of once per check.
Arguments = Sequence[dict[str, Any]]


def arguments_of(plan: plan_pb2.Plan) -> list[dict[str, Any]]:
    return [struct_to_dict(step.arguments) for step in plan.steps]


class InvalidPlan(Exception):
    def __init__(self, message: str, reason: str = "INVALID_PLAN") -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason


def validate_plan(
    plan: plan_pb2.Plan, known_tools: set[str], max_steps: int, arguments: Arguments | None = None
) -> list[str]:
    """Check ids, tools, dependencies, references and size; return step ids in a valid execution
    order (dependencies first, otherwise plan order). `arguments`: see arguments_of."""
    if not plan.steps:
        # A plan may be only an answer ("what was the answer?" is answered from a thread's
        # history), which then names no step; with neither, there is nothing to do.
        if not plan.answer_template:
            raise InvalidPlan("the plan has no steps and no answer")
        try:
            referenced = referenced_steps(plan.answer_template)
        except InvalidReference as exc:
            raise InvalidPlan(f"the answer: {exc}") from None
        if referenced:
            missing = ", ".join(sorted(referenced))
            raise InvalidPlan(f"the answer refers to steps the plan does not have: {missing}")
        return []
    if len(plan.steps) > max_steps:
        raise InvalidPlan(
            f"the plan has {len(plan.steps)} steps, more than max_steps={max_steps}",
            reason="MAX_STEPS_EXCEEDED",
        )
    ids = [s.id for s in plan.steps]
    if any(not i for i in ids):
        raise InvalidPlan("every plan step needs an id")
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise InvalidPlan(f"duplicate step ids: {', '.join(duplicates)}")
    for step in plan.steps:
        if step.tool not in known_tools:
            raise InvalidPlan(f"step {step.id} uses unknown tool '{step.tool}'")
        for dep in step.depends_on:
            if dep not in ids:
                raise InvalidPlan(f"step {step.id} depends on unknown step '{dep}'")
            if dep == step.id:
                raise InvalidPlan(f"step {step.id} depends on itself")
    order = execution_order(plan)
    ancestors = _ancestors(plan, order)
    for index, step in enumerate(plan.steps):
        if arguments is not None:
            step_arguments = arguments[index]
        elif may_reference(step.arguments):
            step_arguments = struct_to_dict(step.arguments)
        else:
            continue  # no reference: nothing to convert (the executor checks names only)
        try:
            referenced = referenced_steps(step_arguments)
        except InvalidReference as exc:
            raise InvalidPlan(f"step {step.id}: {exc}") from None
        for ref in sorted(referenced - ancestors[step.id]):
            raise InvalidPlan(
                f"step {step.id} references the output of step '{ref}', which it does not depend on"
            )
    return order


def _ancestors(plan: plan_pb2.Plan, order: list[str]) -> dict[str, set[str]]:
    deps = {s.id: set(s.depends_on) for s in plan.steps}
    result: dict[str, set[str]] = {}
    for step_id in order:  # dependencies come first, so their ancestor sets are complete
        result[step_id] = set(deps[step_id]).union(*(result[d] for d in deps[step_id]))
    return result


def execution_order(plan: plan_pb2.Plan) -> list[str]:
    """Step ids with dependencies first, otherwise in plan order (of a plan validate_plan
    accepted: a stored plan resumed by another executor is not validated again)."""
    # Ready steps a whole round at a time, each round in plan order, so the result is deterministic.
    position = {s.id: i for i, s in enumerate(plan.steps)}
    sorter = TopologicalSorter({s.id: s.depends_on for s in plan.steps})
    try:
        sorter.prepare()
    except CycleError as exc:
        cycle = ", ".join(sorted(set(exc.args[1])))
        raise InvalidPlan(f"the plan has a dependency cycle among steps {cycle}") from None
    order: list[str] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=position.__getitem__)
        order += ready
        sorter.done(*ready)
    return order


def validate_arguments(
    plan: plan_pb2.Plan,
    input_schemas: Mapping[str, Schema | dict[str, Any] | None],
    arguments: Arguments | None = None,
) -> None:
    """Check each step's arguments against its tool's input schema. Steps whose arguments hold
    references are checked by tools_svc once the references are resolved. A schema agentrt
    would not accept (tools_svc refuses them at registration) is left to tools_svc to report.

    `input_schemas` maps a tool to its validator compiled once, when the tool entered the
    caller's catalog (agentrt.core.toolschemas); None for a schema agentrt would not accept. A
    plain dict is still taken, and costs a conversion and a hash to find its compiled form.
    `arguments`: see arguments_of."""
    if arguments is None:
        arguments = arguments_of(plan)
    problems = []
    for step, step_arguments in zip(plan.steps, arguments, strict=True):
        if referenced_steps(step_arguments) or step.tool not in input_schemas:
            continue
        schema = input_schemas[step.tool]
        if isinstance(schema, dict):
            try:
                schema = cached_schema(schema)
            except InvalidSchema:
                continue
        if schema is None:
            continue
        for path, message in schema.violations(step_arguments, "arguments"):
            problems.append(f"step {step.id} ({step.tool}) {path}: {message}")
    if problems:
        raise InvalidPlan("; ".join(problems), reason="INVALID_ARGUMENTS")
