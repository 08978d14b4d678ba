"""Redo ("undo the undo"), a correction after a rejection that was not done ("not that one", then
"I meant wash curtains"), and a reply that names the todo by a word it says ("the one for jen")."""

from __future__ import annotations

import pytest

from agentrt.core.values import dict_to_struct
from agentrt.v1 import planner_service_pb2 as P
from agentrt.v1 import run_pb2 as R
from tests.unit.test_discourse import answer, deleted, not_done, planned, refused, restored
from tests.unit.test_followups import added, turn

TWO = (turn(1, added(1, "take out recycling")), turn(2, added(2, "clean fridge")))
DELETED = (*TWO, turn(3, deleted(2, "clean fridge")))


def said(n: int, prompt: str, *steps: R.StepState) -> P.PriorTurn:
    return P.PriorTurn(turn=n, prompt=prompt, steps=steps)


UNDONE = (*DELETED, said(4, "undo", restored(2, "clean fridge")))


@pytest.mark.parametrize("prompt", ["redo", "undo the undo", "ok redo that please", "redo it then"])
def test_redo_reverses_the_undo_that_was_the_last_change(prompt: str) -> None:
    assert planned(prompt, *UNDONE) == [("todo_store", {"action": "delete", "id": 2})]


def test_redo_says_what_it_took_back() -> None:
    assert answer("redo", *UNDONE).startswith("Took back the undo of turn 4 (restore #2 'clean fridge')")


def test_redo_with_no_undo_last_is_refused_and_undo_after_a_redo_undoes_again() -> None:
    assert "nothing to redo" in refused("redo", *DELETED)
    redone = (*UNDONE, said(5, "redo", deleted(2, "clean fridge")))
    assert "nothing to redo" in refused("redo", *redone)
    assert planned("undo", *redone) == [("todo_store", {"action": "restore", "id": 2})]


@pytest.mark.parametrize("rejected", ["not that one", "no, wrong one", "nope"])
def test_a_correction_after_a_rejection_that_was_not_done_corrects_the_change_before(rejected: str) -> None:
    history = (
        turn(1, added(1, "wash dog")),
        turn(2, added(2, "wash curtains")),
        turn(3, deleted(1, "wash dog")),
        not_done(4, rejected),
    )
    assert planned("I meant wash curtains", *history) == [
        ("todo_store", {"action": "find", "text": "wash curtains"}),
        ("todo_store", {"action": "restore", "id": 1}),
        ("todo_store", {"action": "delete", "text": "wash curtains"}),
    ]


def test_a_correction_after_another_refused_request_is_not_read_against_the_change_before() -> None:
    history = (
        turn(1, added(1, "wash dog")),
        turn(2, added(2, "wash curtains")),
        turn(3, deleted(1, "wash dog")),
        not_done(4, "add frobnicate the whatsit to my list and"),
    )
    assert "corrects itself" in refused("I meant wash curtains", *history)


def test_a_reply_names_the_todo_by_a_word_it_says() -> None:
    history = (
        turn(1, added(1, "call jen about lease")),
        turn(2, added(2, "call plumber")),
        turn(3, added(3, "email jen photos")),
    )
    failed = R.StepState(
        step_id="s1",
        tool="todo_store",
        status=R.STEP_STATUS_FAILED,
        arguments=dict_to_struct({"action": "complete", "text": "made the call"}),
    )
    failed.error.metadata["candidates"] = "1,2"
    asked = P.PriorTurn(turn=4, prompt="made the call", status=R.RUN_STATUS_FAILED, steps=[failed])
    assert planned("the one for jen", *history, asked) == [("todo_store", {"action": "complete", "id": 1})]
    assert planned("the one for the plumber", *history, asked) == [
        ("todo_store", {"action": "complete", "id": 2})
    ]


def test_yes_before_a_request_and_a_slip_in_mark() -> None:
    assert planned("ok yes delete the gym one", *TWO) == [("todo_store", {"action": "delete", "text": "gym"})]
    assert planned("marke #2 as done pls", *TWO) == [("todo_store", {"action": "complete", "id": 2})]


def test_undo_twice_undoes_the_last_two_changes_latest_first_or_is_refused() -> None:
    assert planned("undo twice", *TWO) == [
        ("todo_store", {"action": "delete", "id": 2}),
        ("todo_store", {"action": "delete", "id": 1}),
    ]
    assert planned("undo the last two changes", *TWO) == planned("undo twice", *TWO)
    # "undo twice" then "undo" goes on back; "redo" puts both back
    twice = said(3, "undo twice", deleted(2, "clean fridge"), deleted(1, "take out recycling"))
    assert "nothing to undo" in refused("undo", *TWO, twice)
    assert planned("redo", *TWO, twice) == [
        ("todo_store", {"action": "restore", "id": 2}),
        ("todo_store", {"action": "restore", "id": 1}),
    ]
    assert "only turn 1 (add #1 'take out recycling') is left" in refused("undo twice", TWO[0])


def test_what_was_done_to_it_tells_which_of_two_it_means_when_one_task_starts_with_that_verb() -> None:
    history = (turn(1, added(1, "renew passport")), turn(2, added(2, "book flights")))
    assert planned("booked it", *history) == [("todo_store", {"action": "complete", "id": 2})]
    assert answer("booked it", *history).startswith("Reading 'it' as #2 'book flights'")
    assert planned("renewed it", *history) == [("todo_store", {"action": "complete", "id": 1})]
    assert "could be any of" in refused("paid it", *history)  # neither task is paying


def test_a_number_in_a_name_said_as_one_todo_is_its_name() -> None:
    assert planned("delete the 3 plumbers one", *TWO) == [
        ("todo_store", {"action": "delete", "text": "3 plumbers"})
    ]
    assert planned("2 lemons bought", *TWO) == [
        ("todo_store", {"action": "complete", "text": "bought 2 lemons"})
    ]
    # several by a count stays several
    assert planned("mark the 2 bills done", *TWO) == [
        ("todo_store", {"action": "complete", "text": "bills", "matching": 2})
    ]


def test_redo_after_a_refused_turn_is_refused_and_put_it_back_again_is_no_redo() -> None:
    assert "was not done" in refused("redo it", *UNDONE, not_done(5, "mark it done"))
    refused("put it back again", *UNDONE)  # a restore asked again: never the redo's delete


def test_undo_the_last_two_is_not_two_changes() -> None:
    # after one change of two todos, "the last two" is most likely those two: never two changes back
    refused("undo the last two", *TWO)
