import pytest

from planner_svc import rules
from planner_svc.planner import PlanningFailed

TOOLS = {"calculator", "todo_store"}


def plan(prompt: str, **kw: object) -> list[tuple[str, dict]]:
    return [(i.tool, i.arguments) for i in rules.plan(prompt, TOOLS, **kw)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("prompt", "expression"),
    [
        ("calculate (10 + 5) * 2", "(10 + 5) * 2"),
        ("Calculate (41 * 7) + 13", "(41 * 7) + 13"),
        ("what is 41*7+13", "41*7+13"),
        ("What's 2 plus 3 times 4?", "2 + 3 * 4"),
        ("add 3 and 4", "3 + 4"),
        ("divide 100 by 8", "100 / 8"),
        ("subtract 3 from 10", "10 - 3"),
        ("multiply 6 by 7", "6 * 7"),
        ("the sum of 2 and 2", "2 + 2"),
        ("2^10", "2**10"),
        ("12 x 3", "12 * 3"),
        ("please compute 7 mod 4.", "7 % 4"),
    ],
)
def test_arithmetic(prompt: str, expression: str) -> None:
    assert plan(prompt) == [("calculator", {"expression": expression})]


@pytest.mark.parametrize(
    ("prompt", "arguments"),
    [
        ("add a todo to buy milk", {"action": "add", "text": "buy milk"}),
        ("Add a todo: call mom", {"action": "add", "text": "call mom"}),
        ("create a new task to water the plants", {"action": "add", "text": "water the plants"}),
        ("remind me to call Bob", {"action": "add", "text": "call Bob"}),
        ("add eggs to my todo list", {"action": "add", "text": "eggs"}),
        ("show me all my tasks", {"action": "list"}),
        ("list todos", {"action": "list"}),
        ("what are my todos?", {"action": "list"}),
        ("mark todo 2 done", {"action": "complete", "id": 2}),
        ("mark task #3 as completed", {"action": "complete", "id": 3}),
        ("complete todo 4", {"action": "complete", "id": 4}),
        ("delete todo 2", {"action": "delete", "id": 2}),
        ("remove task 7", {"action": "delete", "id": 7}),
    ],
)
def test_todos(prompt: str, arguments: dict) -> None:
    assert plan(prompt) == [("todo_store", arguments)]


def test_multi_step_with_then_and_and() -> None:
    assert plan("Add a todo to buy milk, then show me all my tasks") == [
        ("todo_store", {"action": "add", "text": "buy milk"}),
        ("todo_store", {"action": "list"}),
    ]
    assert plan("calculate 2+3 then multiply 4 by 5 and list my todos") == [
        ("calculator", {"expression": "2+3"}),
        ("calculator", {"expression": "4 * 5"}),
        ("todo_store", {"action": "list"}),
    ]
    assert plan("add a todo to buy bread; then mark todo 1 done") == [
        ("todo_store", {"action": "add", "text": "buy bread"}),
        ("todo_store", {"action": "complete", "id": 1}),
    ]


def test_and_inside_a_clause_stays_in_it() -> None:
    # "and" only splits where both sides are instructions of their own.
    assert plan("add a todo to call mom and dad") == [
        ("todo_store", {"action": "add", "text": "call mom and dad"})
    ]
    assert plan("add a todo to buy milk and eggs, then show me all my tasks") == [
        ("todo_store", {"action": "add", "text": "buy milk and eggs"}),
        ("todo_store", {"action": "list"}),
    ]
    assert plan("add a todo to buy milk and show me all my tasks") == [
        ("todo_store", {"action": "add", "text": "buy milk"}),
        ("todo_store", {"action": "list"}),
    ]


@pytest.mark.parametrize(
    "prompt", ["fly to the moon", "what is the weather in Paris", "5", "hello", "and then"]
)
def test_unplannable_prompts_are_refused_not_guessed(prompt: str) -> None:
    with pytest.raises(PlanningFailed) as info:
        rules.plan(prompt, TOOLS)
    assert "could not plan" in info.value.message
    assert info.value.understood == []
    assert "I can do arithmetic" in info.value.message


def test_partly_understood_prompt_names_both_parts() -> None:
    with pytest.raises(PlanningFailed) as info:
        rules.plan("calculate 2+2 and then fly to the moon", TOOLS)
    err = info.value
    assert err.not_understood == ["fly to the moon"]
    assert [i.tool for i in err.understood] == ["calculator"]
    assert "'fly to the moon'" in err.message
    assert "Understood: 'calculate 2+2' -> calculator" in err.message


def test_missing_tool_and_max_steps() -> None:
    with pytest.raises(PlanningFailed, match="lacks todo_store"):
        rules.plan("show my tasks", {"calculator"})
    with pytest.raises(PlanningFailed, match="needs 2 steps but max_steps is 1"):
        rules.plan("calculate 1+1 then calculate 2+2", TOOLS, max_steps=1)


def test_very_long_prompts_are_bounded() -> None:
    with pytest.raises(PlanningFailed, match="too many parts"):
        rules.plan(" and ".join(["calculate 1+1"] * 100), TOOLS)
