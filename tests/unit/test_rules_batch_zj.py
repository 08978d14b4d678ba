"""Adds that a careless agent gets wrong (tuning batch zj of evals/followups): a todo with a time
in it read as a unit conversion, words that say a list comes read as a todo, lines run together,
a task said with when it is done and a chore beside it, and "them" after a report that names
fewer todos than the conversation last showed."""

from __future__ import annotations

import pytest

from planner_svc import rules
from planner_svc.planner import PlanningFailed
from tests.unit.test_followups import added, planned, refused, turn

TOOLS = {"calculator", "todo_store"}


def steps(prompt: str) -> list[tuple[str, dict]]:
    return [(i.tool, i.arguments) for i in rules.plan(prompt, TOOLS)]


@pytest.mark.parametrize(
    ("prompt", "text"),
    [
        ("pls add practice piano 210 min this week", "practice piano 210 min this week"),
        ("add walk 30 min a day", "walk 30 min a day"),
    ],
)
def test_a_time_said_in_a_todo_is_no_unit_to_convert_to(prompt: str, text: str) -> None:
    assert steps(prompt) == [("todo_store", {"action": "add", "text": text})]


def test_a_unit_asked_for_is_still_converted() -> None:
    assert steps("I weigh 150 pounds, what is that in kilograms") == [
        ("calculator", {"expression": "150 * 0.45359237"})
    ]
    with pytest.raises(PlanningFailed):
        steps("210 min this week")


@pytest.mark.parametrize(
    "prompt",
    [
        "add both of these: bread and jam",
        "add all of these: bread, jam",
        "add a couple of things: bread, jam",
        "add the following, bread, jam",
        "add the following to my list, bread and jam",
        "add these two items. bread and jam",
        "add these please\nbread\njam",
        "please add the following to my todo list.\nbread\njam",
    ],
)
def test_words_that_say_a_list_comes_are_no_todo(prompt: str) -> None:
    assert steps(prompt) == [("todo_store", {"action": "add", "texts": ["bread", "jam"]})]


@pytest.mark.parametrize(
    "prompt",
    ["can you add the following two items? bread and jam", "add these please:", "add those for me"],
)
def test_a_list_announced_and_not_given_is_refused(prompt: str) -> None:
    with pytest.raises(PlanningFailed):
        steps(prompt)


def test_lines_that_are_no_list_end_where_they_end() -> None:
    # (never one todo "these call bank")
    assert steps("hi\ncan you add milk") == [("todo_store", {"action": "add", "text": "milk"})]
    assert steps("add these\ncall bank") == [("todo_store", {"action": "add", "text": "call bank"})]


@pytest.mark.parametrize(
    ("prompt", "texts"),
    [
        ("add pick up kids at 3 and grocery run", ["pick up kids at 3", "grocery run"]),
        ("add call mom on sunday and laundry", ["call mom on sunday", "laundry"]),
        ("add call dentist at 9am and pay rent", ["call dentist at 9am", "pay rent"]),
    ],
)
def test_a_task_said_with_when_and_a_chore_beside_it_are_two(prompt: str, texts: list[str]) -> None:
    assert steps(prompt) == [("todo_store", {"action": "add", "texts": texts})]


@pytest.mark.parametrize(
    "prompt", ["add buy bread and milk", "add meet Sam at the cafe and bakery", "add buy salt and pepper"]
)
def test_one_verb_and_what_it_acts_on_stay_one(prompt: str) -> None:
    assert len(steps(prompt)) == 1 and "text" in steps(prompt)[0][1]


THREE = turn(1, added(1, "buy tomatoes"), added(2, "buy basil"), added(3, "call Nina about friday"))


@pytest.mark.parametrize(
    ("prompt", "ids"),
    [
        ("I got the tomatoes and the basil, mark them done", [1, 2]),
        ("got the tomatoes, mark them done", [1]),
        ("got everything at the store, mark them all done", [1, 2, 3]),
        ("bought the tomatoes and basil and called nina, mark them done", [1, 2, 3]),
    ],
)
def test_them_after_a_report_are_the_todos_it_names(prompt: str, ids: list[int]) -> None:
    assert planned(prompt, THREE) == [("todo_store", {"action": "complete", "id": i}) for i in ids]


def test_a_report_part_that_fits_none_of_them_is_refused_naming_them() -> None:
    message = refused("got tomatoes and eggs, mark them done", THREE)
    assert "buy tomatoes" in message and "buy basil" in message
