"""What batch ze of issue 58 showed: the answer to "which one?" said as names ("milk and eggs",
"not the milk one, the bread one", "the slides" after a report that fitted two), "the three I
just added", "the first of those two", "don't delete it" right after a delete, and a word
problem asked again with one of its numbers changed ("and if there were 5 of us?")."""

from __future__ import annotations

import pytest

from agentrt.v1 import planner_service_pb2 as P
from tests.unit.test_discourse import answer, deleted, not_done, planned, refused
from tests.unit.test_followups import added, calc, listed, turn

THREE = (
    turn(1, added(1, "buy milk"), added(2, "buy eggs"), added(3, "buy butter")),
    turn(2, listed((1, "buy milk"), (2, "buy eggs"), (3, "buy butter"))),
)
TWO = (turn(1, added(1, "buy milk"), added(2, "buy bread")),)


def said(n: int, prompt: str, *steps) -> P.PriorTurn:  # type: ignore[no-untyped-def]
    prior = turn(n, *steps)
    prior.prompt = prompt
    return prior


def test_names_in_reply_pick_each_of_those_asked_about() -> None:
    history = (*THREE, not_done(3, "both are done"))
    assert planned("milk and eggs", *history) == [
        ("todo_store", {"action": "complete", "id": 1}),
        ("todo_store", {"action": "complete", "id": 2}),
    ]
    # one named twice, or a name none of them has, is no answer
    assert refused("milk and milk", *history)
    assert refused("milk and cheese", *history)


@pytest.mark.parametrize("reply", ["not the milk one, the bread one", "not the milk one but the bread one"])
def test_the_one_not_meant_then_the_one_meant(reply: str) -> None:
    assert planned(reply, *TWO, not_done(2, "remove it")) == [("todo_store", {"action": "delete", "id": 2})]


def test_a_name_alone_narrows_a_report_that_fitted_two() -> None:
    history = (
        turn(1, added(1, "email Priya about the budget")),
        turn(2, added(2, "email Priya the slides")),
        not_done(3, "emailed priya"),
    )
    # the tool looks the two names up together: only a todo that both fit
    expected = [("todo_store", {"action": "complete", "text": "emailed priya slides"})]
    assert planned("the slides", *history) == expected
    assert planned("slides", *history) == expected


def test_the_ones_just_added_are_the_latest_adding_turns() -> None:
    history = (
        turn(1, added(1, "pay rent")),
        turn(2, added(2, "buy tape"), added(3, "buy boxes"), added(4, "book movers")),
    )
    expected = [("todo_store", {"action": "complete", "id": i}) for i in (2, 3, 4)]
    assert planned("mark the three I just added done", *history) == expected
    assert planned("the three I just added", *history, not_done(3, "mark them all done")) == expected
    # as many as said, or refused; and "the ones" after two adding turns in a row is unclear
    assert "it added #2 'buy tape'" in refused("delete the 2 I just added", *history)
    assert "or all 4 added" in refused("delete the ones I just added", *history)


def test_the_first_of_those_two_counts_in_the_two_seen_together() -> None:
    history = (turn(1, added(1, "take out trash")), turn(2, added(2, "fix bike"), added(3, "return books")))
    assert planned("actually scratch the first of those two", *history) == [
        ("todo_store", {"action": "delete", "id": 2})
    ]
    assert "counts in 3 todos" in refused("delete the first of those three", *history)


@pytest.mark.parametrize(
    "prompt",
    ["wait no, don't delete it, I still need to call him", "don't delete it", "no don't delete that!"],
)
def test_dont_delete_it_right_after_a_delete_puts_it_back(prompt: str) -> None:
    history = (
        turn(1, added(1, "buy printer ink"), added(2, "call the plumber")),
        turn(2, deleted(2, "call the plumber")),
    )
    assert planned(prompt, *history) == [("todo_store", {"action": "restore", "id": 2})]
    # not the change just made: said so, nothing changed
    assert "says not to mark it done" in refused("don't mark it done", *history)
    assert "made no change" in refused("don't delete it", *history, turn(3, listed((1, "buy printer ink"))))


BILL = "there are 7 of us and the bill is 231, how much each"
SAVING = "if I save 45 a week how much do I have after 12 weeks"


@pytest.mark.parametrize(
    ("asked", "expression", "follow_up", "again"),
    [
        (BILL, "231 / 7", "and if there were 5 of us", "231 / 5"),
        (SAVING, "45 * 12", "and after 20 weeks?", "45 * 20"),
        (SAVING, "45 * 12", "what if I saved 40 a week instead", "40 * 12"),
    ],
)
def test_a_word_problem_asked_again_with_one_number_changed(
    asked: str, expression: str, follow_up: str, again: str
) -> None:
    history = (said(1, asked, calc(expression, 1.0)),)
    assert planned(follow_up, *history) == [("calculator", {"expression": again})]
    assert answer(follow_up, *history).startswith("With ")


def test_a_number_that_could_replace_several_or_none_is_refused() -> None:
    history = (
        said(
            1, "A recipe needs 250 g of flour for 4 people. How much for 6 people?", calc("250 * 6 / 4", 375)
        ),
    )
    assert "could replace are 4, 6" in refused("and for 10?", *history)
    # nothing says which number ("it"), or the turn before was not done: the other rules' refusal
    assert refused("what if it were 300", *history)
    assert refused("and if there were 5 of us", *history, not_done(2, "there are 7 of us, 231 each"))


def test_an_operation_said_alone_after_a_sum_is_done_to_it() -> None:
    history = (said(1, "dinner was 120 plus an 18% tip", calc("120 + 18% of 120", 141.6)),)
    assert planned("split 4 ways?", *history) == [("calculator", {"expression": "(141.6) / 4"})]
    assert planned("and with 8% tax", *history) == [("calculator", {"expression": "(141.6) + 8% of (141.6)"})]
    # less on a wage, more on a bill: not read
    assert refused("and after 20% tax?", *history)
