"""make eval counts wrong changes apart (scripts/eval_followups.py): a call that changed the list
and that the turn's expectation does not allow."""

from __future__ import annotations

from agentrt.core.values import dict_to_struct, py_to_value
from agentrt.v1 import run_pb2
from scripts.eval_followups import Turn, judge, kind_of_wrong, wrong_changes

R = run_pb2


def run_of(*calls: tuple[str, dict, int]) -> run_pb2.Run:
    return R.Run(
        steps=[
            R.StepState(tool=tool, arguments=dict_to_struct(args), status=status)
            for tool, args, status in calls
        ]
    )


DONE = R.STEP_STATUS_SUCCEEDED


def test_a_change_where_a_refusal_was_expected_is_wrong() -> None:
    run = run_of(("todo_store", {"action": "complete", "id": 2}, DONE))
    assert wrong_changes(Turn(say="mark it done", refused=True), run) == [
        'todo_store {"action": "complete", "id": 2}'
    ]


def test_a_change_of_another_todo_than_expected_is_wrong_and_reads_are_not_changes() -> None:
    turn = Turn.model_validate(
        {"say": "mark the first done", "steps": [{"tool": "todo_store", "action": "complete", "id": 1}]}
    )
    assert wrong_changes(turn, run_of(("todo_store", {"action": "complete", "id": 2}, DONE))) != []
    assert wrong_changes(turn, run_of(("todo_store", {"action": "complete", "id": 1}, DONE))) == []
    assert (
        wrong_changes(
            turn, run_of(("todo_store", {"action": "list"}, DONE), ("calculator", {"expression": "1"}, DONE))
        )
        == []
    )
    # A call that failed changed nothing; a turn whose steps are not stated is not judged.
    assert (
        wrong_changes(turn, run_of(("todo_store", {"action": "delete", "id": 1}, R.STEP_STATUS_FAILED))) == []
    )
    assert wrong_changes(Turn(say="x"), run_of(("todo_store", {"action": "delete", "id": 1}, DONE))) == []


def test_ids_in_one_call_are_one_call_per_id_either_way() -> None:
    several = Turn.model_validate(
        {"say": "mark both done", "steps": [{"tool": "todo_store", "action": "complete", "ids": [1, 2]}]}
    )
    one_by_one = run_of(
        ("todo_store", {"action": "complete", "id": 1}, DONE),
        ("todo_store", {"action": "complete", "id": 2}, DONE),
    )
    assert wrong_changes(several, one_by_one) == []
    assert judge(several, R.Run(status=R.RUN_STATUS_SUCCEEDED, steps=one_by_one.steps)) == ""
    each = Turn.model_validate(
        {
            "say": "mark both done",
            "steps": [
                {"tool": "todo_store", "action": "complete", "id": 1},
                {"tool": "todo_store", "action": "complete", "id": 2},
            ],
        }
    )
    at_once = run_of(("todo_store", {"action": "complete", "ids": [1, 2]}, DONE))
    assert wrong_changes(each, at_once) == []
    # ... but a third todo in the call is a wrong change, and the order is the one expected
    assert wrong_changes(each, run_of(("todo_store", {"action": "complete", "ids": [1, 2, 3]}, DONE))) == [
        'todo_store {"action": "complete", "id": 3}'
    ]
    reversed_ = R.Run(
        status=R.RUN_STATUS_SUCCEEDED,
        steps=run_of(("todo_store", {"action": "complete", "ids": [2, 1]}, DONE)).steps,
    )
    assert judge(each, reversed_) != ""


def test_an_add_of_several_texts_is_right_as_one_step_or_one_per_text() -> None:
    added = R.Run(
        status=R.RUN_STATUS_SUCCEEDED,
        steps=[
            R.StepState(
                tool="todo_store",
                arguments=dict_to_struct({"action": "add", "texts": ["milk", "eggs"]}),
                status=DONE,
                output=py_to_value({"todos": [{"id": 1, "text": "milk"}, {"id": 2, "text": "eggs"}]}),
            )
        ],
    )
    one = Turn.model_validate(
        {"say": "add milk and eggs", "steps": [{"tool": "todo_store", "action": "add"}]}
    )
    each = Turn.model_validate(
        {
            "say": "add milk and eggs",
            "steps": [
                {"tool": "todo_store", "action": "add", "text_contains": "milk", "id": 1},
                {"tool": "todo_store", "action": "add", "text_contains": "eggs", "id": 2},
            ],
        }
    )
    for turn in (one, each):
        assert judge(turn, added) == "" and wrong_changes(turn, added) == []
    # ... in the order expected, and only the texts expected
    swapped = Turn.model_validate({"say": "x", "steps": list(reversed(each.model_dump()["steps"]))})
    assert judge(swapped, added) != ""
    only_milk = Turn.model_validate({"say": "x", "steps": each.model_dump()["steps"][:1]})
    assert wrong_changes(only_milk, added) == ['todo_store {"action": "add", "id": 2, "text": "eggs"}']


def test_a_name_with_how_many_it_fits_is_one_call_per_todo_changed() -> None:
    both = R.Run(
        status=R.RUN_STATUS_SUCCEEDED,
        steps=[
            R.StepState(
                tool="todo_store",
                arguments=dict_to_struct({"action": "complete", "text": "milk", "matching": 2}),
                status=DONE,
                output=py_to_value(
                    {"todos": [{"id": 1, "text": "buy milk"}, {"id": 2, "text": "buy oat milk"}]}
                ),
            )
        ],
    )
    each = Turn.model_validate(
        {
            "say": "both",
            "steps": [
                {"tool": "todo_store", "action": "complete", "id": 1},
                {"tool": "todo_store", "action": "complete", "id": 2},
            ],
        }
    )
    assert judge(each, both) == "" and wrong_changes(each, both) == []
    first_only = Turn.model_validate({"say": "x", "steps": each.model_dump()["steps"][:1]})
    assert wrong_changes(first_only, both) == [
        'todo_store {"action": "complete", "id": 2, "matching": 2, "text": "buy oat milk"}'
    ]


def test_a_wrong_change_is_shown_by_its_kind_without_the_case_words() -> None:
    """A held-out part shows what sort of wrong change it made (which mechanism to look at),
    never the case's words or ids."""
    change = 'todo_store {"action": "delete", "id": 2}'
    assert kind_of_wrong(Turn(say="delete the milk one", refused=True), change) == (
        "delete where a refusal was expected"
    )
    delete_one = Turn.model_validate(
        {"say": "x", "steps": [{"tool": "todo_store", "action": "delete", "id": 1}]}
    )
    assert kind_of_wrong(delete_one, change) == "delete of another todo (or text) than expected"
    read = Turn.model_validate({"say": "x", "steps": [{"tool": "todo_store", "action": "list"}]})
    assert kind_of_wrong(read, change) == "delete where list was expected"
    assert kind_of_wrong(Turn.model_validate({"say": "x", "steps": []}), change) == (
        "delete where no change was expected"
    )


def test_an_add_of_one_text_is_judged_with_the_id_its_todo_got() -> None:
    """A turn may say which id an add gets ("add water plants. add take out recycling." as #1 and
    #2): an add of one text made as expected is no wrong change, and one given another id is."""
    turn = Turn.model_validate(
        {
            "say": "add water plants. add take out recycling.",
            "steps": [
                {"tool": "todo_store", "action": "add", "id": 1, "text_contains": "water plants"},
                {"tool": "todo_store", "action": "add", "id": 2, "text_contains": "recycling"},
            ],
        }
    )

    def added(text: str, todo_id: int) -> run_pb2.StepState:
        return R.StepState(
            tool="todo_store",
            arguments=dict_to_struct({"action": "add", "text": text}),
            status=DONE,
            output=py_to_value({"todo": {"id": todo_id, "text": text, "done": False}}),
        )

    right = R.Run(steps=[added("water plants", 1), added("take out recycling", 2)])
    assert wrong_changes(turn, right) == []
    assert judge(turn, R.Run(status=R.RUN_STATUS_SUCCEEDED, steps=right.steps)) == ""
    swapped = R.Run(steps=[added("water plants", 2), added("take out recycling", 3)])
    assert wrong_changes(turn, swapped) != []
