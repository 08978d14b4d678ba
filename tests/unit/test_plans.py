import pytest

from agentrt.core.plans import InvalidPlan, validate_plan
from agentrt.v1 import plan_pb2

TOOLS = {"calculator", "todo_store"}


def make(*steps: tuple[str, str, list[str]]) -> plan_pb2.Plan:
    return plan_pb2.Plan(steps=[plan_pb2.PlanStep(id=i, tool=t, depends_on=d) for i, t, d in steps])


def test_order_follows_dependencies() -> None:
    plan = make(("c", "calculator", ["a", "b"]), ("a", "calculator", []), ("b", "todo_store", ["a"]))
    assert validate_plan(plan, TOOLS, 10) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("plan", "message", "reason"),
    [
        (make(), "no steps and no answer", "INVALID_PLAN"),
        (
            make(("a", "calculator", []), ("b", "calculator", [])),
            "more than max_steps=1",
            "MAX_STEPS_EXCEEDED",
        ),
        (make(("a", "nope", [])), "unknown tool 'nope'", "INVALID_PLAN"),
        (make(("a", "calculator", ["zz"])), "unknown step 'zz'", "INVALID_PLAN"),
        (make(("a", "calculator", ["a"])), "depends on itself", "INVALID_PLAN"),
        (make(("a", "calculator", []), ("a", "calculator", [])), "duplicate step ids: a", "INVALID_PLAN"),
        (make(("", "calculator", [])), "needs an id", "INVALID_PLAN"),
        (
            make(("a", "calculator", ["b"]), ("b", "calculator", ["a"])),
            "cycle among steps a, b",
            "INVALID_PLAN",
        ),
    ],
)
def test_invalid_plans(plan: plan_pb2.Plan, message: str, reason: str) -> None:
    max_steps = 1 if reason == "MAX_STEPS_EXCEEDED" else 10
    with pytest.raises(InvalidPlan, match=message) as info:
        validate_plan(plan, TOOLS, max_steps)
    assert info.value.reason == reason


def test_a_plan_without_references_is_checked_without_converting_its_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The executor checks every plan it is given: arguments with no reference need no dict."""
    from agentrt.core import plans  # noqa: PLC0415
    from agentrt.core.values import dict_to_struct, struct_to_dict  # noqa: PLC0415

    converted: list[object] = []
    monkeypatch.setattr(plans, "struct_to_dict", lambda s: converted.append(s) or struct_to_dict(s))
    plan = make(("a", "calculator", []), ("b", "todo_store", ["a"]))
    plan.steps[0].arguments.CopyFrom(dict_to_struct({"expression": "6*7"}))
    plan.steps[1].arguments.CopyFrom(dict_to_struct({"action": "add", "text": "{{steps.a.output.value}}"}))
    assert validate_plan(plan, TOOLS, 10) == ["a", "b"]
    assert converted == [plan.steps[1].arguments]  # only the step with a reference
    plan.steps[0].arguments.CopyFrom(dict_to_struct({"x": {"$ref": "steps.b.output"}}))
    with pytest.raises(InvalidPlan, match="which it does not depend on"):
        validate_plan(plan, TOOLS, 10)
