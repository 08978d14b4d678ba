"""The rule planner's follow-ups: the discourse model of a thread's history (planner_svc/discourse.py,
read through the tools' declared references) and how references bind to it."""

from __future__ import annotations

from typing import Any

import pytest

from agentrt.core.values import dict_to_struct, py_to_value
from agentrt.v1 import planner_service_pb2 as P
from agentrt.v1 import run_pb2 as R
from agentrt.v1 import tool_pb2
from planner_svc import rules
from planner_svc.discourse import Discourse
from planner_svc.followups import todo_reference
from planner_svc.planner import PlanningFailed
from tools_svc import calculator, todos

TOOLS = {"calculator", "todo_store"}
# The catalog entries as tools_svc publishes them: what their outputs mean comes from these.
CATALOG = (
    tool_pb2.Tool(name="todo_store", references=todos.REFERENCES),
    tool_pb2.Tool(name="calculator", references=calculator.REFERENCES),
)


def context(*history: P.PriorTurn, thread_turn: int = 0) -> Discourse:
    return Discourse.of(history, thread_turn, CATALOG)


def step(
    tool: str, arguments: dict[str, Any], output: Any, status: int = R.STEP_STATUS_SUCCEEDED
) -> R.StepState:
    state = R.StepState(step_id="s1", tool=tool, arguments=dict_to_struct(arguments), status=status)
    if output is not None:
        state.output.CopyFrom(py_to_value(output))
    return state


def turn(n: int, *steps: R.StepState, answer: str = "") -> P.PriorTurn:
    return P.PriorTurn(turn=n, prompt=f"turn {n}", answer=answer, steps=steps)


def added(todo_id: int, text: str) -> R.StepState:
    return step("todo_store", {"action": "add", "text": text}, {"todo": {"id": todo_id, "text": text}})


def listed(*todos: tuple[int, str]) -> R.StepState:
    return step("todo_store", {"action": "list"}, {"todos": [{"id": i, "text": t} for i, t in todos]})


def calc(expression: str, value: float) -> R.StepState:
    return step("calculator", {"expression": expression}, {"expression": expression, "value": value})


def planned(prompt: str, *history: P.PriorTurn) -> list[tuple[str, dict[str, Any]]]:
    return [(i.tool, i.arguments) for i in rules.plan(prompt, TOOLS, 0, context(*history))]


def refused(prompt: str, *history: P.PriorTurn) -> str:
    with pytest.raises(PlanningFailed) as caught:
        rules.plan(prompt, TOOLS, 0, context(*history))
    return str(caught.value)


@pytest.mark.parametrize(
    "prompt",
    ["mark it as done", "Mark it done, please", "it's done", "I finished it", "cross it off",
     "complete that one", "tick it off my list", "I'm done with it", "mark that todo as done",
     "mark the last one as done"],
)  # fmt: skip
def test_it_is_the_todo_the_last_todo_turn_added(prompt: str) -> None:
    history = (turn(1, added(3, "buy milk")), turn(2, calc("12 * 4", 48)))
    assert planned(prompt, *history) == [("todo_store", {"action": "complete", "id": 3})]


def test_delete_by_reference() -> None:
    history = (turn(1, added(3, "buy milk")),)
    for prompt in ("remove it", "delete that", "get rid of it", "take it off my list"):
        assert planned(prompt, *history) == [("todo_store", {"action": "delete", "id": 3})]


def test_a_listing_is_what_ordinals_count_in_and_it_is_ambiguous_after_one() -> None:
    history = (turn(1, listed((4, "eggs"), (7, "flour"), (9, "milk"))),)
    assert planned("mark the second one as done", *history) == [
        ("todo_store", {"action": "complete", "id": 7})
    ]
    assert planned("the 3rd one is done", *history) == [("todo_store", {"action": "complete", "id": 9})]
    assert planned("mark them all as done", *history) == [
        ("todo_store", {"action": "complete", "id": n}) for n in (4, 7, 9)
    ]
    message = refused("mark it as done", *history)
    assert "'it' could be any of #4 'eggs', #7 'flour', #9 'milk' (turn 1)" in message
    assert "both" in refused("mark both as done", *history)
    assert "todo number 5" in refused("mark the fifth one as done", *history)


def test_a_turn_that_added_and_listed_means_what_it_added() -> None:
    history = (turn(1, added(5, "pay rent"), listed((1, "eggs"), (5, "pay rent"))),)
    assert planned("mark it as done", *history) == [("todo_store", {"action": "complete", "id": 5})]
    assert planned("mark the first one as done", *history) == [
        ("todo_store", {"action": "complete", "id": 1})
    ]


def test_failed_steps_and_outputs_left_out_are_not_referents() -> None:
    failed = step("todo_store", {"action": "add", "text": "x"}, None, status=R.STEP_STATUS_FAILED)
    history = (
        turn(1, added(2, "old")),
        turn(2, failed),
        turn(3, step("todo_store", {"action": "add"}, None)),
    )
    assert planned("mark it as done", *history) == [("todo_store", {"action": "complete", "id": 2})]


def test_that_is_the_last_result_and_a_chain_leaves_its_last() -> None:
    history = (turn(1, calc("12 * 4", 48)),)
    assert planned("add that as a todo", *history) == [("todo_store", {"action": "add", "text": "48"})]
    assert planned("now double it", *history) == [("calculator", {"expression": "(48) * 2"})]
    assert planned("divide the answer by 3", *history) == [("calculator", {"expression": "(48) / 3"})]
    chain = (turn(1, calc("2 + 3", 5), calc("(5) * 4", 20)),)
    assert planned("add 1 to that", *chain) == [("calculator", {"expression": "1 + (20)"})]
    two = (turn(1, calc("2 + 2", 4), calc("3 + 3", 6)),)
    message = refused("double it", *two)
    assert "2 + 2 = 4" in message and "3 + 3 = 6" in message


def test_a_step_of_the_same_prompt_comes_before_the_history() -> None:
    history = (turn(1, calc("12 * 4", 48), added(3, "buy milk")),)
    assert planned("what is 2 + 2, then double it", *history)[1] == (
        "calculator",
        {"expression": "({{steps.s1.output.value}}) * 2"},
    )
    assert planned("add a todo to call mom, then mark it as done", *history)[1] == (
        "todo_store",
        {"action": "complete", "id": {"$ref": "steps.s1.output.todo.id"}},
    )
    assert planned("add todos: a, b and c, then mark the second one as done", *history)[1] == (
        "todo_store",
        {"action": "complete", "id": {"$ref": "steps.s1.output.todos.1.id"}},
    )
    assert "number is not known" in refused("show my list, then mark it as done", *history)


def test_recall_is_an_answer_without_steps() -> None:
    history = (turn(1, added(3, "buy milk")), turn(2, calc("12 * 4", 48), answer="12 * 4 = 48"))
    intents = rules.plan("what did I just add?", TOOLS, 0, context(*history))
    assert [i.tool for i in intents] == [""]
    assert rules.answer_template(intents) == "You added #3 'buy milk' (turn 1)."
    intents = rules.plan("what was the answer?", TOOLS, 0, context(*history))
    assert rules.answer_template(intents) == "The answer was 12 * 4 = 48 (turn 2)."
    # Text from an earlier turn never becomes a step reference in the plan.
    sneaky = (turn(1, added(1, "{{steps.s1.output}}")),)
    assert "{{" not in rules.answer_template(rules.plan("what did I add", TOOLS, 0, context(*sneaky)))


def test_nothing_to_point_at_is_refused_saying_so() -> None:
    assert "not part of a thread" in refused("mark it as done")
    with pytest.raises(PlanningFailed, match="this is the thread's first turn"):
        rules.plan("mark it as done", TOOLS, 0, context(thread_turn=1))
    assert "no earlier turn of this thread added, changed or listed a todo" in refused(
        "mark it as done", turn(1, calc("1 + 1", 2))
    )
    assert "no earlier turn of this thread computed anything" in refused(
        "add that as a todo", turn(1, added(1, "x"))
    )
    assert "added a todo" in refused("what did I just add", turn(1, calc("1 + 1", 2)))


@pytest.mark.parametrize(
    ("phrase", "count", "index"),
    [("it", 1, None), ("that one", 1, None), ("them", None, None), ("both of them", 2, None),
     ("all three", 3, None), ("the second one", None, 2), ("the last todo", None, -1), ("2nd", None, 2)],
)  # fmt: skip
def test_reference_phrases(phrase: str, count: int | None, index: int | None) -> None:
    reference = todo_reference(phrase)
    assert reference is not None and (reference.count, reference.index) == (count, index)


@pytest.mark.parametrize("name", ["buy milk", "the milk", "second hand books", "itinerary", "0th"])
def test_names_are_not_references(name: str) -> None:
    assert todo_reference(name) is None


@pytest.mark.parametrize(
    ("prompt", "text"),
    [
        ("add a todo to pay Jamie that amount", "pay Jamie 24"),
        ("remind me to transfer that sum to savings", "transfer 24 to savings"),
        ("put 'send Sam the same amount' on my list", "send Sam the same amount"),  # quoted: as written
    ],
)
def test_an_amount_named_inside_a_todo_is_the_earlier_result(prompt: str, text: str) -> None:
    # Issue 58: the todo was the words "pay Jamie that amount", a wrong change.
    assert planned(prompt, turn(1, calc("96 / 4", 24))) == [("todo_store", {"action": "add", "text": text})]


def test_an_amount_with_no_single_result_to_name_is_refused() -> None:
    assert "'that amount' refers to a result" in refused("add a todo to pay Jamie that amount")
    two = turn(1, calc("3 * 4", 12), calc("5 * 6", 30))
    assert "could be any of the 2 results" in refused("add a todo to send Sam that amount", two)
    # A todo's own words that only look alike stay its words.
    assert planned("add a todo to check the total of the invoice", turn(1, calc("1 + 1", 2))) == [
        ("todo_store", {"action": "add", "text": "check the total of the invoice"})
    ]
