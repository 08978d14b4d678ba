"""todo_store as people use it: several todos at once, counting, and completing or deleting a
todo by its text, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import value_to_py
from agentrt.v1 import tool_service_pb2_grpc
from tests.integration.test_tools_service import invoke
from tools_svc import server as tools_server
from tools_svc.todos import MAX_LISTED_MATCHES

Call = Any


@pytest.fixture
async def todo(backend: Settings) -> AsyncIterator[Call]:
    built = await tools_server.build_server(backend.tools, 0)
    await built.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{built.port}")
    stub = tool_service_pb2_grpc.ToolServiceStub(channel)

    async def call(**arguments: object) -> dict[str, Any]:
        return value_to_py((await stub.InvokeTool(invoke("todo_store", **arguments), timeout=10)).output)

    try:
        yield call
    finally:
        await channel.close()
        await built.stop(0)


async def refused(call: Call, **arguments: object) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call(**arguments)
    return ErrorDetails.from_rpc_error(info.value)


async def test_several_todos_in_one_call_and_counting(todo: Call) -> None:
    assert (await todo(action="count"))["summary"] == "You have 0 todos."
    assert (await todo(action="list"))["summary"] == "Your todo list is empty."
    added = await todo(action="add", texts=["buy eggs", "pay rent", "call the dentist"])
    assert [t["id"] for t in added["todos"]] == [1, 2, 3]
    assert added["summary"] == "Added 3 todos: 'buy eggs', 'pay rent', 'call the dentist'."
    single = await todo(action="add", text="water plants")
    assert single["summary"] == "Added 'water plants' (#4)."
    await todo(action="complete", id=2)
    assert await todo(action="count") == {
        "count": 4,
        "open": 3,
        "done": 1,
        "summary": "You have 4 todos (3 open, 1 done).",
    }
    listed = await todo(action="list")
    assert listed["summary"] == (
        "You have 4 todos: 1. buy eggs; 2. pay rent (done); 3. call the dentist; 4. water plants."
    )


async def test_complete_and_delete_by_text(todo: Call) -> None:
    await todo(action="add", texts=["Buy eggs", "buy flour", "pay rent", "50% off_sale"])
    done = await todo(action="complete", text="buy EGGS")  # whole text, any case
    assert done["todo"] == {"id": 1, "text": "Buy eggs", "done": True}
    assert done["summary"] == "Marked 'Buy eggs' as done."
    assert (await todo(action="complete", text="rent"))["todo"]["id"] == 3  # the one containing it
    deleted = await todo(action="delete", text="flour")
    assert deleted["deleted"]["text"] == "buy flour" and deleted["summary"] == "Deleted 'buy flour'."
    # % and _ are matched as themselves, not as LIKE wildcards.
    assert (await todo(action="delete", text="50% off_"))["deleted"]["id"] == 4
    assert (await refused(todo, action="delete", text="0%_")).reason == "TODO_NOT_FOUND"


async def test_several_matches_are_an_error_listing_them_and_none_is_an_error(todo: Call) -> None:
    await todo(action="add", texts=["buy milk", "buy bread", "walk the dog"])
    ambiguous = await refused(todo, action="delete", text="buy")
    assert ambiguous.reason == "AMBIGUOUS_TODO"
    assert "2 todos match 'buy': #1 'buy milk'; #2 'buy bread'" in ambiguous.message
    # the ids it names, in that order, for a reply that picks one ("the second")
    assert ambiguous.metadata == {"candidates": "1,2"}
    missing = await refused(todo, action="complete", text="flour")
    assert missing.reason == "TODO_NOT_FOUND" and "no todo matches 'flour'" in missing.message
    assert len((await todo(action="list"))["todos"]) == 3  # nothing was changed


async def test_completing_by_text_prefers_the_open_todo(todo: Call) -> None:
    await todo(action="add", text="buy milk")
    assert (await todo(action="complete", text="buy milk"))["todo"]["id"] == 1
    await todo(action="add", text="buy milk")  # a new week, the same errand
    assert (await todo(action="complete", text="buy milk"))["todo"]["id"] == 2  # 1 is done already
    # Both done: completing again is ambiguous, not a guess.
    assert (await refused(todo, action="complete", text="buy milk")).reason == "AMBIGUOUS_TODO"
    # Another todo that is open is no reason to pick it: "milk" fits a done one and an open one.
    await todo(action="add", text="buy milk for Anna")
    assert (await refused(todo, action="complete", text="milk")).reason == "AMBIGUOUS_TODO"


async def test_adding_what_is_already_open_keeps_one(todo: Call) -> None:
    await todo(action="add", text="buy milk")
    again = await todo(action="add", text="Buy  Milk")  # any case, any spacing
    assert again == {
        "todo": {"id": 1, "text": "buy milk", "done": False, "already": True},
        "summary": "'buy milk' is already on your list (#1).",
    }
    several = await todo(action="add", texts=["call mom", "buy milk", "call mom"])
    assert [(t["id"], t.get("already", False)) for t in several["todos"]] == [(2, False), (1, True)]
    assert several["summary"] == "Added 1 todo: 'call mom'. Already on your list: 'buy milk' (#1)."
    await todo(action="complete", id=1)
    assert (await todo(action="add", text="buy milk"))["todo"]["id"] == 3  # done: a new one, open


@pytest.mark.parametrize(
    ("arguments", "violation"),
    [
        ({"action": "add"}, '"text" is a required property'),
        ({"action": "add", "text": "a", "texts": ["b"]}, '{"required":["text","texts"]} is not allowed'),
        ({"action": "complete"}, '"id" is a required property'),
        ({"action": "delete", "id": 1, "text": "x"}, '{"required":["id","text"]} is not allowed'),
        ({"action": "add", "texts": []}, "texts"),
        ({"action": "add", "texts": ["x"] * 51}, "texts"),
    ],
)
async def test_which_arguments_each_action_takes(todo: Call, arguments: dict, violation: str) -> None:
    details = await refused(todo, **arguments)
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert violation in details.message


async def test_state_filters_read_and_count_only_the_open_or_the_done(todo: Call) -> None:
    await todo(action="add", texts=["buy eggs", "pay rent", "call the dentist"])
    await todo(action="complete", text="pay rent")
    open_ones = await todo(action="list", state="open")
    assert [t["text"] for t in open_ones["todos"]] == ["buy eggs", "call the dentist"]
    assert open_ones["count"] == 2
    assert open_ones["summary"] == "You have 2 open todos: 1. buy eggs; 3. call the dentist."
    done = await todo(action="list", state="done")
    assert done["summary"] == "You have 1 done todo: 2. pay rent."
    assert (await todo(action="count", state="open"))["summary"] == "You have 2 open todos (3 in all)."
    counted = await todo(action="count", state="done")
    assert (counted["count"], counted["open"], counted["done"]) == (1, 2, 1)
    await todo(action="complete", text="eggs")
    await todo(action="complete", text="dentist")
    assert (await todo(action="list", state="open"))["summary"] == "You have no open todos (3 in all)."
    # A state does not narrow an add: the schema says so, by name.
    assert "state" in (await refused(todo, action="add", text="x", state="open")).message


async def test_delete_all_removes_every_todo_or_only_the_done_ones_and_numbering_goes_on(todo: Call) -> None:
    await todo(action="add", texts=["buy eggs", "pay rent", "call the dentist"])
    await todo(action="complete", id=1)
    cleared = await todo(action="delete_all", state="done")
    assert cleared == {
        "deleted_count": 1,
        "deleted": [{"id": 1, "text": "buy eggs", "done": True}],
        "summary": "Deleted 1 done todo: 'buy eggs'.",
    }
    assert [t["text"] for t in (await todo(action="list"))["todos"]] == ["pay rent", "call the dentist"]
    everything = await todo(action="delete_all")
    assert everything["summary"] == "Deleted 2 todos: 'pay rent', 'call the dentist'."
    again = await todo(action="delete_all")  # idempotent: nothing left, nothing wrong
    assert again == {"deleted_count": 0, "summary": "There were no todos to delete."}
    # Numbers are never reused: an id someone read earlier cannot come to mean another todo.
    assert (await todo(action="add", text="water plants"))["todo"]["id"] == 4


async def test_a_todo_is_found_by_its_words_in_any_form_and_never_guessed(todo: Call) -> None:
    """After the whole text and a part of it, the words: "walked the dog" is "walk the dog", "the
    plumber call" is "call the plumber". Every word must be there, and in one todo only."""
    await todo(action="add", texts=["walk the dog", "call the plumber", "water the plants", "call mom"])
    assert (await todo(action="complete", text="walked the dog"))["todo"]["text"] == "walk the dog"
    assert (await todo(action="complete", text="plumber call"))["todo"]["text"] == "call the plumber"
    assert (await todo(action="delete", text="watering the plants"))["deleted"]["text"] == "water the plants"
    # "calling" fits two todos: refused, naming both, and nothing changed. (Completing would take
    # the open one, as by text: "call the plumber" is done.)
    ambiguous = await refused(todo, action="delete", text="calling")
    assert ambiguous.reason == "AMBIGUOUS_TODO" and "call mom" in ambiguous.message
    missing = await refused(todo, action="complete", text="walked the cat")
    assert missing.reason == "TODO_NOT_FOUND"
    # Every word said fits two todos, though one has no other word: still a choice, not a guess
    # (people asked disagreed about "bought milk" here).
    await todo(action="add", texts=["buy milk", "buy oat milk"])
    assert (await refused(todo, action="delete", text="bought milk")).reason == "AMBIGUOUS_TODO"
    await todo(action="delete", text="oat milk")
    await todo(action="delete", text="buy milk")
    listed = await todo(action="list")
    assert [(t["text"], t["done"]) for t in listed["todos"]] == [
        ("walk the dog", True),
        ("call the plumber", True),
        ("call mom", False),
    ]


async def test_several_completed_or_deleted_at_once_all_or_none(todo: Call) -> None:
    await todo(action="add", texts=["buy eggs", "pay rent", "call the dentist", "walk the dog"])
    done = await todo(action="complete", texts=["buy eggs", "walked the dog"])
    assert [(t["id"], t["done"]) for t in done["todos"]] == [(1, True), (4, True)]
    assert done["summary"] == "Marked 2 todos done: 'buy eggs', 'walk the dog'."
    # One name fits no todo: nothing changes, and the error names it.
    missing = await refused(todo, action="delete", texts=["pay rent", "book flights"])
    assert missing.reason == "TODO_NOT_FOUND" and "book flights" in missing.message
    unknown = await refused(todo, action="complete", ids=[2, 9])
    assert unknown.reason == "TODO_NOT_FOUND"
    twice = await refused(todo, action="delete", texts=["pay rent", "rent"])
    assert twice.reason == "AMBIGUOUS_TODO" and "#2" in twice.message
    listed = await todo(action="list")
    assert [(t["text"], t["done"]) for t in listed["todos"]] == [
        ("buy eggs", True), ("pay rent", False), ("call the dentist", False), ("walk the dog", True),
    ]  # fmt: skip
    deleted = await todo(action="delete", ids=[2, 3])
    assert deleted["summary"] == "Deleted 2 todos: 'pay rent', 'call the dentist'."
    assert [t["id"] for t in (await todo(action="list"))["todos"]] == [1, 4]
    # ids only for complete and delete, and never with a text
    assert (await refused(todo, action="list", ids=[1])).reason == "INVALID_TOOL_ARGUMENTS"
    assert (await refused(todo, action="delete", ids=[1], text="buy eggs")).reason == "INVALID_TOOL_ARGUMENTS"


async def test_find_names_todos_and_changes_nothing(todo: Call) -> None:
    await todo(action="add", texts=["buy eggs", "pay rent"])
    await todo(action="complete", id=1)
    found = await todo(action="find", texts=["eggs", "paid rent"])
    assert [t["id"] for t in found["todos"]] == [1, 2]
    assert found["summary"] == "Found 2 todos: 'buy eggs', 'pay rent'."
    assert (await todo(action="find", id=2))["todos"][0]["text"] == "pay rent"
    assert (await refused(todo, action="find", texts=["eggs", "dentist"])).reason == "TODO_NOT_FOUND"
    assert (await refused(todo, action="find", ids=[2, 7])).reason == "TODO_NOT_FOUND"
    listed = await todo(action="list")
    assert [(t["text"], t["done"]) for t in listed["todos"]] == [("buy eggs", True), ("pay rent", False)]


async def test_words_that_fit_several_todos_are_a_choice_even_as_said_in_one(todo: Call) -> None:
    """People asked disagreed whether "ordered the new glasses" names "order new glasses" beside
    "order new glass for the door": a choice for the person, never a guess."""
    await todo(
        action="add", texts=["order new glasses", "order new glass for the door", "buy milk", "buy oat milk"]
    )
    glasses = await refused(todo, action="complete", text="ordered the new glasses")
    assert glasses.reason == "AMBIGUOUS_TODO" and "order new glass for the door" in glasses.message
    tie = await refused(todo, action="complete", text="bought milk")
    assert tie.reason == "AMBIGUOUS_TODO"
    assert (await todo(action="complete", text="order new glasses"))["todo"]["text"] == "order new glasses"
    # a part of one todo's text, and another's words in some form: a choice as well
    await todo(action="add", texts=["do the ironing", "iron Tom's suit"])
    ironing = await refused(todo, action="complete", text="ironing")
    assert ironing.reason == "AMBIGUOUS_TODO" and "iron Tom's suit" in ironing.message


async def test_a_part_of_one_name_beside_a_name_typed_with_a_slip_is_a_choice(todo: Call) -> None:
    """ "pick up" is a part of "pick up kids' soccer uniforms" and, typed with a slip, all of "pck
    up kids": which one is a question. A slip only widens a choice: alone it names nothing."""
    await todo(action="add", texts=["pck up kids", "pick up kids' soccer uniforms"])
    pick = await refused(todo, action="complete", text="pick up")
    assert pick.reason == "AMBIGUOUS_TODO" and "pck up kids" in pick.message
    assert pick.metadata["candidates"] == "1,2"
    # the whole name as typed still names it
    assert (await todo(action="complete", text="pck up kids"))["todo"]["id"] == 1
    # a name with its capital is a person, not a slip of another's name
    await todo(action="add", texts=["call Ann", "call Anna"])
    assert (await todo(action="delete", text="Anna"))["deleted"]["text"] == "call Anna"


async def test_a_short_form_everyone_writes_finds_the_word_spelt_out(todo: Call) -> None:
    await todo(action="add", texts=["book vet appointment", "team meeting notes"])
    assert (await todo(action="delete", text="the vet appt"))["deleted"]["text"] == "book vet appointment"
    assert (await todo(action="complete", text="mtg notes"))["todo"]["text"] == "team meeting notes"
    # once it is gone, no other todo is an appointment
    assert (await refused(todo, action="delete", text="appt")).reason == "TODO_NOT_FOUND"
    # a short form of two letters, with the number that says which chapter
    await todo(action="add", texts=["read chapter 3", "read chapter 30"])
    assert (await todo(action="complete", text="ch 30"))["todo"]["text"] == "read chapter 30"
    assert (await refused(todo, action="complete", text="ch 31")).reason == "TODO_NOT_FOUND"


async def test_picking_up_is_getting_as_buying_is(todo: Call) -> None:
    """ "picked up dog food" is "buy dog food", "got the prescription" is "pick up prescription":
    the two words of "pick up" are one verb; every other word must still be there."""
    await todo(action="add", texts=["buy dog food", "walk dog", "pick up prescription", "pick up kids"])
    assert (await todo(action="complete", text="picked up dog food"))["todo"]["text"] == "buy dog food"
    got = await todo(action="complete", text="got the prescription")
    assert got["todo"]["text"] == "pick up prescription"
    assert (await refused(todo, action="complete", text="picked up the cat")).reason == "TODO_NOT_FOUND"
    assert (await todo(action="delete", text="picking up kids"))["deleted"]["text"] == "pick up kids"


async def test_a_past_that_says_how_it_was_done_is_not_part_of_the_name(todo: Call) -> None:
    """ "vet appt booked" is "schedule vet appointment" done, "sent the email" is "email the
    landlord": when no todo has the reporting verb, the rest must name one todo alone; a past
    that says it was not done ("skipped", "cancelled") is never dropped, and one that fits the
    todo's own verb is kept ("ordered flowers" is "order flowers", not "water flowers")."""
    await todo(
        action="add",
        texts=[
            "schedule vet appointment",
            "email the landlord",
            "order flowers",
            "water flowers",
            "book dentist",
        ],
    )
    assert (await todo(action="complete", text="vet appt booked"))["todo"][
        "text"
    ] == "schedule vet appointment"
    assert (await todo(action="complete", text="sent the email"))["todo"]["text"] == "email the landlord"
    assert (await todo(action="complete", text="ordered flowers"))["todo"]["text"] == "order flowers"
    assert (await refused(todo, action="complete", text="flowers bought")).reason == "AMBIGUOUS_TODO"
    assert (await refused(todo, action="complete", text="skipped the dentist")).reason == "TODO_NOT_FOUND"
    assert (await refused(todo, action="complete", text="cancelled the dentist")).reason == "TODO_NOT_FOUND"
    # the rest by every word: "the bins out" is not "buy bin bags" with the "out" left out
    await todo(action="add", text="buy bin bags")
    assert (await refused(todo, action="complete", text="took the bins out")).reason == "TODO_NOT_FOUND"


async def test_speaking_to_someone_is_the_call_to_them(todo: Call) -> None:
    """ "spoke to grandma's neighbour" is "call grandma's neighbour" done; where a talk and a call
    to one person are both on the list, it is either, so a choice."""
    await todo(action="add", texts=["call grandma", "call grandma's neighbour", "talk to boss", "call boss"])
    spoke = await todo(action="complete", text="spoke to grandma's neighbour")
    assert spoke["todo"]["text"] == "call grandma's neighbour"
    assert (await refused(todo, action="complete", text="talked with boss")).reason == "AMBIGUOUS_TODO"
    assert (await refused(todo, action="complete", text="spoke to the plumber")).reason == "TODO_NOT_FOUND"


async def test_a_verb_said_another_way_and_a_particle_the_todo_leaves_out(todo: Call) -> None:
    """ "telephoned" is "phone" is "call"; "hung the washing out" is "hang the washing", unless a
    todo has the particle too ("called mom back" is "call mom back", not "call mom")."""
    await todo(action="add", texts=["phone the pharmacy", "hang the washing", "call mom", "call mom back"])
    done = await todo(action="complete", text="telephoned the pharmacy")
    assert done["todo"]["text"] == "phone the pharmacy"
    assert (await todo(action="complete", text="hung the washing out"))["todo"]["text"] == "hang the washing"
    assert (await todo(action="complete", text="called mom back"))["todo"]["text"] == "call mom back"
    # a particle alone names nothing
    assert (await refused(todo, action="complete", text="out")).reason == "TODO_NOT_FOUND"


async def test_one_name_that_fits_so_many_todos_changes_each_or_none(todo: Call) -> None:
    """ "paid both bills": text "bills", matching 2 completes the two todos it fits; when it fits
    another number of them, nothing changes and the error names those it fits."""
    await todo(
        action="add", texts=["pay gas bill", "pay water bill", "email Sam", "email landlord", "email Jo"]
    )
    both = await todo(action="complete", text="paid bills", matching=2)
    assert [t["text"] for t in both["todos"]] == ["pay gas bill", "pay water bill"]
    assert both["summary"] == "Marked 2 todos done: 'pay gas bill', 'pay water bill'."
    three = await refused(todo, action="delete", text="email", matching=2)
    assert three.reason == "AMBIGUOUS_TODO" and "3 todos match 'email', not 2" in three.message
    one = await refused(todo, action="delete", text="landlord", matching=2)
    assert one.reason == "AMBIGUOUS_TODO" and "only one todo matches 'landlord'" in one.message
    assert (await refused(todo, action="delete", text="dentist", matching=2)).reason == "TODO_NOT_FOUND"
    found = await todo(action="find", text="email", matching=3)
    assert [t["text"] for t in found["todos"]] == ["email Sam", "email landlord", "email Jo"]
    assert (await todo(action="count"))["count"] == 5  # nothing deleted
    deleted = await todo(action="delete", text="email", matching=3)
    assert len(deleted["todos"]) == 3 and (await todo(action="count"))["count"] == 2


async def test_every_todo_one_name_fits_however_many_up_to_a_bound(todo: Call) -> None:
    """ "delete all the milk ones": text "milk", every: true changes each todo it fits, one or
    several; none is TODO_NOT_FOUND, and more than MAX_LISTED_MATCHES an error naming them that
    changes nothing (what "all" covers is shown before so many go)."""
    await todo(action="add", texts=["buy milk", "buy oat milk", "call mom", "milk the goats"])
    found = await todo(action="find", text="milk", every=True)
    assert [t["text"] for t in found["todos"]] == ["buy milk", "buy oat milk", "milk the goats"]
    deleted = await todo(action="delete", text="milk", every=True)
    assert deleted["summary"] == "Deleted 3 todos: 'buy milk', 'buy oat milk', 'milk the goats'."
    one = await todo(action="complete", text="mom", every=True)
    assert one["summary"] == "Marked 1 todo done: 'call mom'."
    assert (await refused(todo, action="delete", text="dentist", every=True)).reason == "TODO_NOT_FOUND"
    await todo(action="add", texts=[f"email client {k}" for k in range(1, MAX_LISTED_MATCHES + 2)])
    many = await refused(todo, action="delete", text="email", every=True)
    assert many.reason == "AMBIGUOUS_TODO" and f"more than {MAX_LISTED_MATCHES} todos" in many.message
    assert (await todo(action="count"))["count"] == MAX_LISTED_MATCHES + 2  # nothing deleted
    both = await refused(todo, action="delete", text="email", every=True, matching=2)
    assert both.code == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_todo_named_by_its_place_on_the_list(todo: Call) -> None:
    await todo(action="add", texts=["buy eggs", "pay rent", "call mom", "walk the dog"])
    await todo(action="delete", id=1)  # places are the list's, not ids: #2 is now the first
    assert (await todo(action="complete", position=2))["todo"]["text"] == "call mom"
    assert (await todo(action="find", position=-1))["todos"][0]["text"] == "walk the dog"
    assert (await todo(action="delete", position=-1))["deleted"]["text"] == "walk the dog"
    missing = await refused(todo, action="delete", position=3)
    assert missing.reason == "TODO_NOT_FOUND" and "the list has 2" in missing.message
    for wrong in ({"position": 0}, {"position": 1, "text": "rent"}, {"action": "add", "position": 1}):
        assert (await refused(todo, **{"action": "delete", **wrong})).reason == "INVALID_TOOL_ARGUMENTS"
    listed = await todo(action="list")
    assert [(t["text"], t["done"]) for t in listed["todos"]] == [("pay rent", False), ("call mom", True)]


async def test_a_state_narrows_the_todo_a_text_names_or_alone_names_the_one_in_it(todo: Call) -> None:
    # "delete the finished 'water the plants'": two copies, the state says which.
    await todo(action="add", texts=["water the plants", "feed the cat"])
    await todo(action="complete", id=1)
    assert (await todo(action="add", text="water the plants"))["todo"]["id"] == 3  # the done one is not it
    assert (await refused(todo, action="delete", text="water the plants")).reason == "AMBIGUOUS_TODO"
    gone = await todo(action="delete", text="water the plants", state="done")
    assert gone["deleted"]["id"] == 1
    # "remove the done one": none done now, then exactly one, then two.
    none = await refused(todo, action="delete", state="done")
    assert none.reason == "TODO_NOT_FOUND" and "no todo is done" in none.message
    await todo(action="complete", text="feed the cat")
    assert (await todo(action="find", state="done"))["todos"][0]["text"] == "feed the cat"
    await todo(action="complete", id=3)
    two = await refused(todo, action="delete", state="done")
    assert two.reason == "AMBIGUOUS_TODO" and "#2 'feed the cat'" in two.message and "#3" in two.message
    # A state that no todo named by the text is in: nothing changes, and the error says the state.
    await todo(action="add", text="call mom")
    missing = await refused(todo, action="complete", text="call mom", state="done")
    assert missing.reason == "TODO_NOT_FOUND" and "no done todo matches 'call mom'" in missing.message
    # An id names its todo already: a state beside it is refused, as is a state on an add.
    for wrong in (
        {"id": 2, "state": "done"},
        {"ids": [2], "state": "open"},
        {"action": "add", "text": "x", "state": "open"},
    ):
        assert (await refused(todo, **{"action": "delete", **wrong})).reason == "INVALID_TOOL_ARGUMENTS"
    listed = await todo(action="list")
    assert [(t["text"], t["done"]) for t in listed["todos"]] == [
        ("feed the cat", True),
        ("water the plants", True),
        ("call mom", False),
    ]


async def test_a_word_with_its_apostrophe_s_is_that_word(todo: Call) -> None:
    # "the grandma one" could be either: "grandma's" is about grandma too, so neither is picked.
    await todo(action="add", texts=["call grandma", "call grandpa", "call grandma's neighbour"])
    details = await refused(todo, action="delete", text="grandma")
    assert details.reason == "AMBIGUOUS_TODO"
    assert "neighbour" in details.message
    # Its whole text still names the one todo.
    assert (await todo(action="delete", text="call grandma"))["summary"] == "Deleted 'call grandma'."
    assert (await todo(action="complete", text="grandma's neighbour"))["todo"]["id"] == 3


async def test_a_long_word_typed_with_one_slip_is_read_last_and_never_guessed(todo: Call) -> None:
    """ "mechanc" is "mechanic" when no todo has the words as typed and one todo fits; a short
    word is never read as slipped ("cal" could be "call" or "car"), nor one that fits several."""
    await todo(
        action="add", texts=["call the mechanic", "buy coolant", "return library books", "return the rental"]
    )
    assert (await todo(action="delete", text="mechanc"))["deleted"]["text"] == "call the mechanic"
    assert (await refused(todo, action="complete", text="cal")).reason == "TODO_NOT_FOUND"
    assert (await refused(todo, action="complete", text="retrun")).reason == "AMBIGUOUS_TODO"
    assert (await todo(action="complete", text="retrun library books"))["todo"][
        "text"
    ] == "return library books"


async def test_a_slip_is_never_read_in_a_word_longer_than_any_word(todo: Call) -> None:
    """A name of one very long word is compared as said, not slip by slip (which costs the
    words' length squared): a word one letter longer than a todo's is not found."""
    await todo(action="add", text="x" * 40)
    assert (await refused(todo, action="complete", text="x" * 41)).reason == "TODO_NOT_FOUND"
    assert (await todo(action="complete", text="x" * 40))["todo"]["done"] is True


async def test_other_words_for_the_same_thing_find_it(todo: Call) -> None:
    """A nickname, a British spelling, "hoovered" for "vacuum", "rang" for "call", "re" for
    "about", "dr" for "doctor", "got off the phone with" for a call: the same todo; every other
    word must still be there, and several that fit stay a choice."""
    await todo(
        action="add",
        texts=[
            "call grandma",
            "vacuum the car",
            "fix bike tire",
            "renew passport",
            "make doctor's appointment",
        ],
    )
    assert (await todo(action="complete", text="rang granny"))["todo"]["text"] == "call grandma"
    assert (await todo(action="complete", text="hoovered the car"))["todo"]["text"] == "vacuum the car"
    assert (await todo(action="complete", text="bike tyre"))["todo"]["text"] == "fix bike tire"
    assert (await todo(action="complete", text="passport renewal"))["todo"]["text"] == "renew passport"
    assert (await todo(action="delete", text="made the dr appt"))["deleted"][
        "text"
    ] == "make doctor's appointment"
    await todo(
        action="add", texts=["call grandma's neighbour about the fence", "call mom's doctor", "call mom"]
    )
    found = await todo(action="find", text="rang grandma's neighbour re the fence")
    assert found["todos"][0]["text"] == "call grandma's neighbour about the fence"
    phoned = await todo(action="complete", text="got off the phone with mom's doctor")
    assert phoned["todo"]["text"] == "call mom's doctor"
    assert (await refused(todo, action="complete", text="hoovered the lounge")).reason == "TODO_NOT_FOUND"


async def test_the_old_one_is_the_one_already_on_the_list_unless_a_todo_says_old(todo: Call) -> None:
    """ "delete the old dentist one" (to add the new): "old" is not part of the name when no todo
    has it, and the rest must then name one todo as any name does; a todo that says "old" is found
    by it first."""
    await todo(
        action="add", texts=["book dentist for Feb 10", "call the bank", "sell old bike", "fix new bike"]
    )
    assert (await todo(action="delete", text="old dentist"))["deleted"]["text"] == "book dentist for Feb 10"
    assert (await todo(action="complete", text="existing bank"))["todo"]["text"] == "call the bank"
    assert (await todo(action="complete", text="old bike"))["todo"]["text"] == "sell old bike"
    await todo(action="add", texts=["pay gas bill", "pay water bill"])
    assert (await refused(todo, action="delete", text="old bill")).reason == "AMBIGUOUS_TODO"
    assert (await refused(todo, action="delete", text="old car")).reason == "TODO_NOT_FOUND"
    # one "old" is set aside, not one per word: "old old bank" names no todo
    assert (await refused(todo, action="delete", text="old old bank")).reason == "TODO_NOT_FOUND"
    assert (await todo(action="count"))["count"] == 5


async def test_the_email_sent_to_someone_is_the_email_to_them(todo: Call) -> None:
    await todo(action="add", texts=["email Sarah about the budget", "email Tom", "text Priya the address"])
    sent = await todo(action="complete", text="sent the email to Sarah")
    assert sent["todo"]["text"] == "email Sarah about the budget"
    assert (await todo(action="complete", text="sent a text to Priya"))["todo"][
        "text"
    ] == "text Priya the address"
    assert (await refused(todo, action="complete", text="sent the email to Ben")).reason == "TODO_NOT_FOUND"


async def test_sent_back_is_returned_and_scrubbed_is_cleaned(todo: Call) -> None:
    await todo(
        action="add", texts=["return the blue dress", "clean the bathroom", "send the documents to the bank"]
    )
    assert (await todo(action="complete", text="sent the dress back"))["todo"][
        "text"
    ] == "return the blue dress"
    assert (await todo(action="complete", text="scrubbed bathroom"))["todo"]["text"] == "clean the bathroom"
    await todo(action="add", text="return the Amazon package")
    back_first = await todo(action="complete", text="sent back that amazon package")
    assert back_first["todo"]["text"] == "return the Amazon package"
    already = await todo(action="complete", text="sent already the documents to the bank")
    assert already["todo"]["text"] == "send the documents to the bank"


async def test_where_when_or_what_about_after_a_name_only_adds_to_it(todo: Call) -> None:
    await todo(
        action="add",
        texts=[
            "pick up prescription",
            "return library books",
            "call mum",
            "call mom about the party",
            "pick up Mia",
        ],
    )
    await todo(action="add", texts=["pick up Mia's cake", "email the school"])
    for said, meant in (
        ("picked up my prescription at boots", 1),
        ("emailed school re the trip", 7),
    ):
        assert (await todo(action="complete", text=said))["todo"]["id"] == meant, said
    # two the words before the cut fit, one of them saying more ("Mia's cake", "about the party"):
    # the words after the cut may be what tells them apart, a choice
    assert (await refused(todo, action="complete", text="Picked up Mia at 3")).reason == "AMBIGUOUS_TODO"
    assert (
        await refused(todo, action="complete", text="spoke to mum for an hour")
    ).reason == "AMBIGUOUS_TODO"
    # a report of a task done may say where after its thing: every word of the todo said, those
    # before the cut among them ("returned the books to the library" is "return library books")
    assert (await todo(action="complete", text="returned the books to the library"))["todo"]["id"] == 2
    # but only a report: to delete, "my email to Sam" is an email, not the task "email Sam"
    await todo(action="add", texts=["email Sam"])
    assert (await refused(todo, action="delete", text="my email to Sam")).reason in (
        "TODO_NOT_FOUND",
        "AMBIGUOUS_TODO",  # (beside "email the school")
    )
    # a todo that says more than the message (the party) is not what the message reports done
    await todo(action="delete", id=3)
    assert (
        await refused(todo, action="complete", text="called mom about the car")
    ).reason == "TODO_NOT_FOUND"
    # the words before the circumstance tell the two apart, or it is a choice
    await todo(action="add", texts=["buy stamps", "buy stamps for Jo"])
    assert (await todo(action="complete", text="bought stamps for Jo at the post office"))["todo"]["id"] == 10
    stamps = await refused(todo, action="complete", text="bought stamps at the post office")
    assert stamps.reason == "AMBIGUOUS_TODO"  # "for Jo" may be what the message left out


async def test_names_joined_in_one_text_name_a_todo_each_when_no_todo_has_them_all(todo: Call) -> None:
    """ "mark milk and eggs done": one todo each when no todo is named "milk and eggs"; a todo whose
    name has the "and" is still that todo; one part that fits nothing changes nothing."""
    await todo(
        action="add", texts=["buy milk", "buy eggs", "salt and pepper", "buy conditioner", "buy razors"]
    )
    both = await todo(action="complete", text="milk and eggs")
    assert [t["text"] for t in both["todos"]] == ["buy milk", "buy eggs"]
    assert all(t["done"] for t in both["todos"])
    assert (await todo(action="complete", text="salt and pepper"))["todo"]["text"] == "salt and pepper"
    missing = await refused(todo, action="delete", text="conditioner and bread")
    assert missing.reason == "TODO_NOT_FOUND" and "conditioner and bread" in missing.message
    listed = await todo(action="list")
    assert [t["text"] for t in listed["todos"] if not t["done"]] == ["buy conditioner", "buy razors"]
    found = await todo(action="find", text="conditioner & razors")
    assert [t["text"] for t in found["todos"]] == ["buy conditioner", "buy razors"]
    gone = await todo(action="delete", text="conditioner + razors")
    assert [t["text"] for t in gone["todos"]] == ["buy conditioner", "buy razors"]


async def test_a_report_of_another_thing_done_to_a_word_of_a_name_names_no_todo(todo: Call) -> None:
    """ "printer's fixed": the printer was fixed, and "buy printer paper" buys paper (it had been
    completed); "flowers ordered" is still "order flowers for mum", "sent the email" still "email
    the landlord", and "car booked" still "book car service"."""
    await todo(
        action="add",
        texts=["buy printer paper", "order flowers for mum", "email the landlord", "book car service"],
    )
    for report in ("printer's fixed", "fixed printer", "printer fixed"):
        assert (await refused(todo, action="complete", text=report)).reason == "TODO_NOT_FOUND"
    assert (await todo(action="complete", text="flowers ordered"))["todo"]["text"] == "order flowers for mum"
    assert (await todo(action="complete", text="sent the email"))["todo"]["text"] == "email the landlord"
    assert (await todo(action="complete", text="car booked"))["todo"]["text"] == "book car service"
