"""Single messages from batch zd of issue 58: words after a change that say why (read by no
rule, or what was done to the one named) are skipped, never read as a request or kept in the
name; a past that says a todo was not done is no report of it done."""

import pytest

from planner_svc import rules
from planner_svc.planner import PlanningFailed

TOOLS = {"calculator", "todo_store"}


def steps(prompt: str) -> list[tuple[str, dict]]:
    return [(i.tool, i.arguments) for i in rules.plan(prompt, TOOLS)]


@pytest.mark.parametrize(
    ("prompt", "planned"),
    [
        ("remove the umbrella one, forecast says sunny", [("delete", "umbrella")]),
        ("delete the gym one, membership expired on its own", [("delete", "gym")]),
        ("delete the contact solution one, switching to glasses only", [("delete", "contact solution")]),
        ("mark the dentist one as not done, my neighbour cancelled on me", [("reopen", "dentist")]),
        ("delete the milk one, forecast says sunny, thanks", [("delete", "milk")]),
        # what was done to the one named, in the past
        ("delete the scissors, found mine", [("delete", "scissors")]),
        ("and delete the bike one, I sold the bike", [("delete", "bike")]),
        # "expired" is what happens to things: no todo reported done
        ("actually delete the gym one, membership expired and I'm not renewing lol", [("delete", "gym")]),
        # "skipped" says it was not done: the report names what to delete
        ("skipped the gym, delete it", [("delete", "gym")]),
    ],
)
def test_why_after_a_change_is_skipped(prompt: str, planned: list[tuple[str, str]]) -> None:
    assert [(a["action"], a["text"]) for _, a in steps(prompt)] == planned


@pytest.mark.parametrize(
    "prompt",
    [
        "remove the umbrella one, also the boots",  # one more, not why
        "delete the dentist one, the boots one too",
        "mark the milk one done, add eggs",  # a request of its own
    ],
)
def test_words_that_may_ask_for_more_are_never_skipped(prompt: str) -> None:
    try:
        planned = steps(prompt)
    except PlanningFailed:
        return  # refused: nothing missed
    assert len(planned) > 1 or "," in str(planned[0][1].get("text", "")), planned


def test_a_report_of_another_thing_after_a_change_is_still_read() -> None:
    assert [a["action"] for _, a in steps("delete the bike one, I sold the car")] == [
        "find",
        "delete",
        "complete",
    ]


@pytest.mark.parametrize("prompt", ["skipped the gym", "missed the dentist", "I postponed the haircut"])
def test_a_past_that_says_not_done_is_no_report(prompt: str) -> None:
    with pytest.raises(PlanningFailed):
        steps(prompt)
