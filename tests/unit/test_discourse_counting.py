"""Ordinals when the set the person counts in changed under them: a part of it changed, a todo of
it deleted, a todo added after a listing; and "it" after a turn not done that named nothing else."""

from __future__ import annotations

import pytest

from tests.unit.test_discourse import deleted, done, not_done, planned, refused, restored
from tests.unit.test_followups import added, listed, turn

FOUR = turn(1, listed((1, "rake leaves"), (2, "clean gutters"), (3, "fix fence"), (4, "paint shed")))
THREE = turn(1, listed((1, "buy eggs"), (2, "buy bread"), (3, "buy cheese")))


def test_a_part_of_the_set_changed_keeps_the_set_counted_in() -> None:
    # "first two done", then "the last one": the listing's last, or the second of the two? (it
    # deleted the second of the two: a wrong change)
    first_two = turn(2, done(1, "rake leaves"), done(2, "clean gutters"))
    assert "or in the 2 changed just now" in refused("delete the last one", FOUR, first_two)
    # the same todo either way
    assert planned("delete the first one", FOUR, first_two) == [("todo_store", {"action": "delete", "id": 1})]
    last_two = turn(2, done(3, "fix fence"), done(4, "paint shed"))
    assert "say which" in refused("delete the first one", FOUR, last_two)
    assert planned("the rest are done too", FOUR, first_two) == [
        ("todo_store", {"action": "complete", "id": 3}),
        ("todo_store", {"action": "complete", "id": 4}),
    ]
    # "them" is still the two just changed
    assert planned("delete them", FOUR, first_two) == [
        ("todo_store", {"action": "delete", "id": 1}),
        ("todo_store", {"action": "delete", "id": 2}),
    ]


def test_an_ordinal_after_a_delete_in_the_set_is_refused_when_the_readings_differ() -> None:
    gone = turn(2, deleted(1, "buy eggs"))
    why = refused("mark the 2nd done", THREE, gone)
    assert "#1 'buy eggs' was deleted since" in why
    assert "as seen that is #2 'buy bread', as the list is now #3 'buy cheese'" in why
    assert "deleted since" in refused("now the first one is done", THREE, gone)
    # the last is the last either way
    assert planned("mark the last one done", THREE, gone) == [("todo_store", {"action": "complete", "id": 3})]


def test_an_ordinal_after_a_delete_acts_when_both_readings_pick_the_same_todo() -> None:
    adds = (
        turn(1, added(1, "book dentist")),
        turn(2, added(2, "book haircut")),
        turn(3, added(3, "book massage")),
        turn(4, deleted(3, "book massage")),
    )
    assert planned("mark the first one done", *adds) == [("todo_store", {"action": "complete", "id": 1})]
    assert "deleted since" in refused("mark the last one done", *adds)  # the massage, or the haircut?
    # restored: the set is as it was seen again
    back = turn(5, restored(3, "book massage"))
    assert planned("mark the last one done", *adds, back) == [("todo_store", {"action": "complete", "id": 3})]


def test_a_third_as_seen_with_two_left_is_the_third_when_it_is_still_there() -> None:
    gone = turn(2, deleted(1, "buy eggs"))
    assert planned("mark the 3rd one done", THREE, gone) == [("todo_store", {"action": "complete", "id": 3})]


def test_an_ordinal_after_a_listing_and_one_add_counts_in_the_list_as_it_is_when_that_agrees() -> None:
    after = (THREE, turn(2, added(4, "call movers")))
    assert planned("the 2nd one is done", *after) == [("todo_store", {"action": "complete", "id": 2})]
    # the listing's last, or the list's last (the add)?
    assert "say which" in refused("the last one is done", *after)
    # a change of one of them then keeps counting the same way
    second = turn(3, done(2, "buy bread"))
    assert "say which" in refused("and the last one", *after, second)
    assert planned("and the first one", *after, second) == [("todo_store", {"action": "complete", "id": 1})]


@pytest.mark.parametrize(
    "before", ["don't mark it done yet", "mark it done tomorrow", "not yet, don't tick it"]
)
def test_it_after_a_turn_not_done_that_named_nothing_else_is_what_it_was(before: str) -> None:
    history = (turn(1, added(1, "finish the report")), not_done(2, before))
    assert planned("ok now it's done", *history) == [("todo_store", {"action": "complete", "id": 1})]


def test_it_after_a_turn_not_done_that_named_something_stays_unclear() -> None:
    history = (turn(1, added(1, "finish the report")), not_done(2, "mark it done and the milk one"))
    assert "that turn was not done" in refused("ok now it's done", *history)


@pytest.mark.parametrize("prompt", ["list again", "show it again", "list them again"])
def test_list_again_lists(prompt: str) -> None:
    assert planned(prompt, THREE) == [("todo_store", {"action": "list"})]


@pytest.mark.parametrize("prompt", ["mark the phone bill paid", "mark the phone bill as paid"])
def test_mark_a_todo_by_the_state_doing_it_leaves(prompt: str) -> None:
    assert planned(prompt, THREE) == [("todo_store", {"action": "complete", "text": "phone bill"})]


def test_them_after_a_listing_and_one_add_is_refused() -> None:
    after = (THREE, turn(2, added(4, "buy mint")))
    assert "say which" in refused("mark them done", *after)


def test_a_delete_undone_puts_the_todo_back_in_the_set_counted_in() -> None:
    adds = (turn(1, added(1, "buy mouthwash")), turn(2, added(2, "reply to Tom")))
    history = (*adds, turn(3, deleted(1, "buy mouthwash")), turn(4, restored(1, "buy mouthwash")))
    assert planned("mark the second one done", *history) == [("todo_store", {"action": "complete", "id": 2})]
    assert planned("mark it done", *history) == [("todo_store", {"action": "complete", "id": 1})]


def test_a_delete_after_a_listing_and_one_add_makes_an_ordinal_unclear_unless_both_agree() -> None:
    history = (
        turn(1, listed((1, "pay rent"), (2, "call mom"), (3, "wash car"))),
        turn(2, added(4, "fix sink")),
        turn(3, deleted(2, "call mom")),
    )
    assert "say which" in refused("mark the 3rd one done", *history)  # wash car as listed, fix sink now
    assert "say which" in refused("mark the 2nd one done", *history)  # deleted since
    assert planned("mark the first one done", *history) == [("todo_store", {"action": "complete", "id": 1})]


def test_it_after_a_rejection_not_done_stays_unclear() -> None:
    # "not that one": the person said the todo just changed was not the one meant
    history = (FOUR, turn(2, done(2, "clean gutters")), not_done(3, "not that one"))
    assert "that turn was not done" in refused("delete it", *history)
    assert "that turn was not done" in refused(
        "delete it", FOUR, turn(2, done(2, "x")), not_done(3, "don't do that")
    )


@pytest.mark.parametrize("said", ["I finished it", "completed it", "sorted it"])
def test_a_verb_that_says_only_done_picks_no_todo(said: str) -> None:
    history = (turn(1, added(1, "call mom")), turn(2, added(2, "finish essay")))
    assert "could be any of" in refused(said, *history)
