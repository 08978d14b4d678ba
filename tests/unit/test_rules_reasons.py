"""Single messages from batch al of issue 58: why a request is asked is never a request of its
own, lists said without commas, and sums whose words were read wrong (a price for a count, a
rounding that is no rise, a tip added)."""

import pytest

from planner_svc import rules
from planner_svc.planner import PlanningFailed

TOOLS = {"calculator", "todo_store"}


def steps(prompt: str) -> list[tuple[str, dict]]:
    return [(i.tool, i.arguments) for i in rules.plan(prompt, TOOLS)]


@pytest.mark.parametrize(
    ("prompt", "planned"),
    [
        # after because/since: why, whatever it tells (it was read as a todo reported done)
        ("add order new glasses since I sat on mine lol", [("add", "order new glasses")]),
        ("add order new glasses because I sat on mine", [("add", "order new glasses")]),
        ("delete call mom because I called her already", [("delete", "call mom")]),
        # after a comma: what I did to the one named
        ("mark buy stamps as not done, I bought the wrong ones", [("reopen", "buy stamps")]),
        ("delete call mom, I already called her", [("delete", "call mom")]),
        ("nuke the dentist thing, I rescheduled online already", [("delete", "dentist")]),
        ("ok the fridge is clean, that was gross", [("complete", "clean fridge")]),
        ("Just to let you know, I've paid the council tax.", [("complete", "paid the council tax")]),
        ("I marked pay rent as done by mistake, it's not paid yet", [("reopen", "pay rent")]),
    ],
)
def test_why_is_never_a_request_of_its_own(prompt: str, planned: list[tuple[str, str]]) -> None:
    assert [(a["action"], a["text"]) for _, a in steps(prompt)] == planned


def test_a_report_after_another_request_is_still_read_when_it_names_a_todo() -> None:
    # (no pronoun, no "already" after a delete: a second thing done, checked before any change)
    assert [a["action"] for _, a in steps("delete gym, I did the laundry")] == ["find", "delete", "complete"]


@pytest.mark.parametrize(
    ("prompt", "texts"),
    [
        ("add laundry, dishes, vacuum", ["laundry", "dishes", "vacuum"]),
        ("add milk eggs and cheese", ["milk", "eggs", "cheese"]),
        ("add bread butter and jam", ["bread", "butter", "jam"]),
        # "and do ..." is a chore when a thing follows it, not a question
        ("add go for a run and do my stretches", ["go for a run", "do my stretches"]),
        # two tasks beside a chore by its name
        (
            "add car wash and renew car insurance and buy cat food",
            ["car wash", "renew car insurance", "buy cat food"],
        ),
    ],
)
def test_lists_said_without_commas_or_with_a_chore_among_them(prompt: str, texts: list[str]) -> None:
    assert steps(prompt) == [("todo_store", {"action": "add", "texts": texts})]


@pytest.mark.parametrize(
    "prompt", ["add salt and pepper", "add dish soap and sponges", "add call mom, dad and grandma"]
)
def test_a_thing_whose_name_has_and_stays_one(prompt: str) -> None:
    assert [a.get("text") for _, a in steps(prompt)] == [prompt.removeprefix("add ")]


@pytest.mark.parametrize(
    ("prompt", "expressions"),
    [
        ("we paid 48 for 3 pizzas, how much was each pizza?", ["48 / 3"]),
        ("bill is 73.40, add 20% tip", ["20% of 73.40", "73.40 + ({{steps.s1.output.value}})"]),
        (
            "bill is 73.40, add 20% tip and round up to the next whole dollar",
            ["20% of 73.40", "73.40 + ({{steps.s1.output.value}})", "ceil(({{steps.s2.output.value}}))"],
        ),
        (
            "what's 20% of 73.40 and round up to the next whole dollar",
            ["20% of 73.40", "ceil(({{steps.s1.output.value}}))"],
        ),
        ("how much do I add as a 20% tip on 50", ["20% of 50"]),
        ("I went from 92kg to 85kg, what percent did I lose?", ["(92 - 85) / 92 * 100"]),
        ("I work 7.5 hours a day, 5 days a week. how many hours a week is that", ["7.5 * 5"]),
    ],
)
def test_sums_whose_words_were_read_wrong(prompt: str, expressions: list[str]) -> None:
    assert [a["expression"] for _, a in steps(prompt)] == expressions


@pytest.mark.parametrize(
    "prompt",
    [
        # a week's hours asked for a month: never the week's answer
        "I work 7.5 hours a day, 5 days a week. how many hours a month is that",
    ],
)
def test_a_question_for_another_period_is_refused(prompt: str) -> None:
    with pytest.raises(PlanningFailed):
        rules.plan(prompt, TOOLS)


@pytest.mark.parametrize(
    ("prompt", "planned"),
    [
        (
            "also add two more: book dentist, order contact lenses",
            ("add", ["book dentist", "order contact lenses"]),
        ),
        (
            "add vacuum living room, clean bathroom, and take out recycling. saturday chores ugh",
            (
                "add",
                ["vacuum living room", "clean bathroom", "take out recycling"],
            ),
        ),
        ("remind me: add book dentist cleaning", ("add", "book dentist cleaning")),
        ("and add dish soap while you're at it", ("add", "dish soap")),
        ("add water the plants then", ("add", "water the plants")),
        ("mrk the grocerys one done", ("complete", "grocery")),
        ("ok mark the electric bill done, venmo'd her", ("complete", "electric bill")),
    ],
)
def test_what_is_said_around_a_request_is_not_part_of_it(prompt: str, planned: tuple[str, object]) -> None:
    ((_, arguments),) = steps(prompt)
    assert (arguments["action"], arguments.get("texts", arguments.get("text"))) == planned


@pytest.mark.parametrize(
    ("prompt", "expressions"),
    [
        # a number's decimals are its own ("68.4kg" is no 68 and a remark)
        ("I was 68.4kg and now 71.2kg, how many percent did i gain", ["(71.2 - 68.4) / 68.4 * 100"]),
        ("rent is 1850 split between 3 of us, how much each to the nearest penny", ["round(1850 / 3, 2)"]),
    ],
)
def test_decimals_and_pennies(prompt: str, expressions: list[str]) -> None:
    assert [a["expression"] for _, a in steps(prompt)] == expressions


@pytest.mark.parametrize(
    "prompt",
    [
        # amounts of a month, asked for a year: no sum of them answers it (it answered the month's)
        "netflix 10.99, spotify 11.99, disney 7.99 a month - how much a year all together??",
        # a pay of a month, asked for a year, and a percentage that takes nothing off it: which
        # of the three numbers the year is of is not said
        "my pay is 2300 a month and rent is 900, 15% of it goes to savings, how much a year",
        # how many are bought is no price to take 25% off
        "6 bottles of wine at 8.40 each, 25% off when u buy 6. total?",
    ],
)
def test_a_sum_whose_words_are_not_all_read_is_refused(prompt: str) -> None:
    with pytest.raises(PlanningFailed):
        rules.plan(prompt, TOOLS)


def test_why_in_brackets_is_no_part_of_a_name_but_a_detail_is() -> None:
    assert steps("add order more contact lenses (down to my last pair)") == [
        ("todo_store", {"action": "add", "text": "order more contact lenses"})
    ]
    assert steps("add buy batteries (AA, not AAA)") == [
        ("todo_store", {"action": "add", "text": "buy batteries (AA, not AAA)"})
    ]


def test_one_of_two_things_is_no_number() -> None:
    assert steps("spent 45 on one and 38 on the other, total?") == [("calculator", {"expression": "45 + 38"})]
    assert steps("what is one plus one") == [("calculator", {"expression": "1 + 1"})]


@pytest.mark.parametrize(
    ("prompt", "expression", "answer"),
    [
        ("46 guests and each table seats 8, how many tables do we hire", "ceil(46 / 8)", "tables of 8"),
        (
            "130 kids on the trip, each bus seats 40, how many buses do we need",
            "ceil(130 / 40)",
            "buses of 40",
        ),
        (
            "a box has 24 cans and I need 100 cans for the party. how many boxes do I buy?",
            "ceil(100 / 24)",
            "boxes of 24",
        ),
    ],
)
def test_how_many_groups_are_needed_rounds_up(prompt: str, expression: str, answer: str) -> None:
    (intent,) = rules.plan(prompt, TOOLS)
    assert intent.arguments == {"expression": expression}
    assert answer in intent.answer


@pytest.mark.parametrize(
    ("prompt", "expressions"),
    [
        ("gym is 29.99 a month what's that over a year", ["29.99 * 12"]),
        ("its 22 degrees C what is that in F", ["22 * 9 / 5 + 32"]),
        ("whats 19 plus 23 add it as a todo", ["19 + 23", None]),
    ],
)
def test_a_question_about_what_was_just_said_with_no_comma_before_it(
    prompt: str, expressions: list[str | None]
) -> None:
    assert [a.get("expression") for _, a in steps(prompt)] == expressions


@pytest.mark.parametrize(
    "prompt",
    [
        "got paid 612 for 48 hours, whats that an hour",
        "got paid 640 for 40 hours of work. whats my hourly rate",
    ],
)
def test_a_pay_for_so_many_hours_asked_by_the_hour(prompt: str) -> None:
    ((_, arguments),) = steps(prompt)
    assert arguments["expression"].endswith(" / 48") or arguments["expression"] == "640 / 40"
