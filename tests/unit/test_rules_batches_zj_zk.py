"""Adds that a careless agent gets wrong (tuning batch zj of evals/followups): a todo with a time
in it read as a unit conversion, words that say a list comes read as a todo, lines run together,
a task said with when it is done and a chore beside it, and "them" after a report that names
fewer todos than the conversation last showed."""

from __future__ import annotations

import pytest

from planner_svc import rules
from planner_svc.planner import PlanningFailed
from tests.unit.test_followups import added, calc, planned, refused, turn

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


# --- batch zk (an add right after a computation) and requests batch ap --------------------------

RESULT = turn(1, calc("1500 / 12", 125))


@pytest.mark.parametrize(
    ("prompt", "text"),
    [
        ("remind me to set that aside each month", "set 125 aside each month"),
        ("remind me to tip the driver that", "tip the driver 125"),
        ("add pay back Lee the total", "pay back Lee 125"),
        ("add tht to my list pls", "125"),  # a chat spelling of "that", never a todo "tht"
    ],
)
def test_an_amount_pointed_at_right_after_a_result_is_that_result(prompt: str, text: str) -> None:
    assert planned(prompt, RESULT) == [("todo_store", {"action": "add", "text": text})]


def test_an_amount_pointed_at_with_nothing_computed_is_the_persons_words() -> None:
    assert planned("remind me to tip the driver that", turn(1, added(1, "buy milk"))) == [
        ("todo_store", {"action": "add", "text": "tip the driver that"})
    ]


@pytest.mark.parametrize(
    ("prompt", "expression"),
    [
        (
            "a 2 litre bottle of juice, glasses of 250 ml. how many glasses can I fill?",
            "floor(2 * 1000 / 1 / 250)",
        ),
        ("how much is 3 lattes at 4.75", "3 * 4.75"),
        ("I spent 12, 30 and 8.50 today, total?", "12 + 30 + 8.50"),
    ],
)
def test_quantities_in_one_unit_and_a_price_asked(prompt: str, expression: str) -> None:
    assert steps(prompt) == [("calculator", {"expression": expression})]


@pytest.mark.parametrize(
    "prompt",
    [
        # (was 2 / 250 = 0 glasses)
        "a 2 litre bottle of juice, glasses of 250 g. how many glasses can I fill?",
        # (was 5 * 2.75: how many trips a day is not told)
        "bus fare is 2.75 each way and I commute 5 days a week. how much do I spend on the bus per week?",
        # (was 22 + 7.5 + 6: a rate is never added to what it is paid for)
        "I charge 22 an hour, worked 7.5 hours monday and 6 hours tuesday. total?",
        "how much is a table for two at 7",
    ],
)
def test_a_story_whose_numbers_do_not_add_up_is_refused(prompt: str) -> None:
    with pytest.raises(PlanningFailed):
        steps(prompt)


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("ok great, that's cheaper than I thought. add cancel the gym", ("add", "text", "cancel the gym")),
        ("cool, worth it. add buy the 12-pack", ("add", "text", "buy the 12-pack")),
        ("done with the oven finally, what a mess", ("complete", "text", "oven")),
        ("fence is painted, looks great", ("complete", "text", "painted fence")),
        ("credit card paid off \U0001f4b3\u2705", ("complete", "text", "paid off credit card")),
        ("ok paid that parking ticket, ugh 60 bucks", ("complete", "text", "paid that parking ticket")),
    ],
)
def test_how_it_felt_beside_a_request_asks_for_nothing(prompt: str, expected: tuple[str, str, str]) -> None:
    action, key, value = expected
    assert steps(prompt) == [("todo_store", {"action": action, key: value})]
