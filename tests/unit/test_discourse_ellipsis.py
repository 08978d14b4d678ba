"""References said the short way on a thread (batch zb of issue 58): "the next one", "first two
done", "got the first two", "undo again", "both" in reply to a name that fitted two, "... then"
after a request; and a reference is never a todo's name ("first one's done" completed a todo
named by "one's")."""

from __future__ import annotations

import pytest

from tests.unit.test_discourse import THREE_ADDS, answer, done, not_done, planned, refused
from tests.unit.test_followups import added, listed, turn

AFTER_FIRST_DONE = (*THREE_ADDS, turn(4, done(1, "buy milk")))


@pytest.mark.parametrize(
    ("prompt", "ids"),
    [
        ("first one's done", [1]),
        ("first two done", [1, 2]),
        ("first 2 done", [1, 2]),
        ("got the first two", [1, 2]),
        ("did the first two", [1, 2]),
        ("last two are done", [2, 3]),
    ],
)
def test_ordinals_said_short_complete_what_they_count(prompt: str, ids: list[int]) -> None:
    assert planned(prompt, *THREE_ADDS) == [("todo_store", {"action": "complete", "id": i}) for i in ids]


def test_words_after_a_reference_do_not_make_it_a_name() -> None:
    assert planned("delete the first one instead", *THREE_ADDS) == [
        ("todo_store", {"action": "delete", "id": 1})
    ]
    assert planned("mark the second one done now", *THREE_ADDS) == [
        ("todo_store", {"action": "complete", "id": 2})
    ]


@pytest.mark.parametrize(
    "prompt", ["mark the next one done", "and the next one", "next one too", "also the next"]
)
def test_the_next_one_is_the_one_after_the_one_just_done(prompt: str) -> None:
    assert planned(prompt, *AFTER_FIRST_DONE) == [("todo_store", {"action": "complete", "id": 2})]
    assert "as #2 'call mom'" in answer(prompt, *AFTER_FIRST_DONE)


def test_the_next_one_after_the_last_is_refused() -> None:
    last_done = (*THREE_ADDS, turn(4, done(3, "pay rent")))
    assert "the todo after the one just done" in refused("mark the next one done", *last_done)


def test_undo_again_takes_back_one_more() -> None:
    history = (*AFTER_FIRST_DONE,)
    assert planned("undo again", *history) == [("todo_store", {"action": "reopen", "id": 1})]


def test_then_after_a_request_and_wait_before_one() -> None:
    assert planned("ok mark it done then", *AFTER_FIRST_DONE) == [
        ("todo_store", {"action": "complete", "id": 1})
    ]
    assert planned("wait reopen it", *AFTER_FIRST_DONE) == [("todo_store", {"action": "reopen", "id": 1})]


def test_both_in_reply_to_a_name_that_fitted_two_asks_the_tool_for_exactly_two() -> None:
    history = (
        turn(1, added(1, "buy milk")),
        turn(2, added(2, "buy oat milk")),
        not_done(3, "got the milk"),
    )
    assert planned("oh, both actually", *history) == [
        ("todo_store", {"action": "complete", "text": "got the milk", "matching": 2})
    ]


def test_a_listing_then_first_two_done() -> None:
    history = (turn(1, listed((1, "call Ana"), (3, "text Cora"), (4, "ping Dev"))),)
    assert planned("first two done", *history) == [
        ("todo_store", {"action": "complete", "id": 1}),
        ("todo_store", {"action": "complete", "id": 3}),
    ]


def test_one_more_said_first_is_never_a_remark() -> None:
    history = (
        turn(1, added(1, "watch the last jedi")),
        turn(2, added(2, "buy popcorn")),
        turn(3, added(3, "invite Sam")),
        turn(4, done(3, "invite Sam")),
    )
    # "the last jedi" is no reference the rules read, and "it" in "watched it" means it: refused,
    # never #3 (it completed 'invite Sam')
    refused("and the last jedi too, watched it", *history)


def test_a_name_alone_answers_which_one_among_those_asked_about() -> None:
    two = (turn(1, added(1, "get haircut")), turn(2, added(2, "buy new razor")))
    history = (*two, turn(3, listed((1, "get haircut"), (2, "buy new razor"))), not_done(4, "done with it"))
    assert planned("haircut", *history) == [("todo_store", {"action": "complete", "id": 1})]
    assert "'haircut' read as #1 'get haircut'" in answer("haircut", *history)
    # ... never a todo outside them, nor a word that names none of them
    refused("laundry", *history)


def test_del_deletes_and_one_of_two_is_no_number() -> None:
    assert planned("del the first one", *THREE_ADDS) == [("todo_store", {"action": "delete", "id": 1})]


@pytest.mark.parametrize(
    "prompt",
    [
        "hm undo that, she changed her mind again",
        "k undo",
        "lol undo",
        "wait put it back, still need to ask about carpool",
    ],
)
def test_an_undo_with_a_word_before_it_or_why_after_it(prompt: str) -> None:
    assert planned(prompt, *AFTER_FIRST_DONE) == [("todo_store", {"action": "reopen", "id": 1})]
