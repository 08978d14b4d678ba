"""Single messages from batch an of issue 58: how a result is to be rounded, said at the end or
alone ("to the cent", "to the nearest degree", "to one decimal"); and word problems that were
answered wrong or not at all: a total over days, the change for a note, a percentage already in an
amount, the price of one of a count, the periods to save up."""

import pytest

from planner_svc import rules
from planner_svc.planner import PlanningFailed

TOOLS = {"calculator", "todo_store"}


def expressions(prompt: str) -> list[str]:
    return [i.arguments["expression"] for i in rules.plan(prompt, TOOLS)]


@pytest.mark.parametrize(
    ("prompt", "planned"),
    [
        ("oven 425F, what's that in celsius to the nearest degree", ["round((425 - 32) * 5 / 9)"]),
        ("a marathon is 26.2 miles, what's that in km to 1 decimal", ["round((26.2 * 1609.344) / 1000, 1)"]),
        ("what's 22/7 to two decimals", ["round(22/7, 2)"]),
        (
            "1000 at 4% interest compounded yearly for 3 years, how much at the end? to the cent",
            ["1000 * (1 + 4 / 100) ** 3", "round(({{steps.s1.output.value}}), 2)"],
        ),
        ("spent 63 on lunches over 7 days, how much per day on average", ["63 / 7"]),
        ("total was 37.85 and I paid with a 50, how much change should i get", ["50 - 37.85"]),
        ("it came to 13.20, I gave him a 20, how much change", ["20 - 13.20"]),
        ("price is 96 including 20% VAT. how much of it is VAT?", ["96 * 20 / (100 + 20)"]),
        ("paid 57.50 including a 15% tip. what was the bill before the tip", ["57.50 / (1 + 15 / 100)"]),
        ("gross is 360 incl 20% VAT, what's the net", ["360 / (1 + 20 / 100)"]),
        ("pack of 24 water bottles costs 6.96, how much per bottle", ["6.96 / 24"]),
        ("2.4kg of chicken cost 15.60, what's the price per kg", ["15.60 / 2.4"]),
        ("3 notebooks cost 7.35. how much would 8 cost?", ["7.35 / 3 * 8"]),
        (
            "I can put away 175 a month and need 2000. how many months until i have enough?",
            ["ceil(2000 / 175)"],
        ),
    ],
)
def test_what_batch_an_asked(prompt: str, planned: list[str]) -> None:
    assert expressions(prompt) == planned


@pytest.mark.parametrize(
    "prompt",
    [
        # sizes said with "x" are multiplied, never summed; a price per square metre is no side
        "painting 2 walls of 4m x 2.5m at 12 per square metre, total area?",
        # a price of tickets asked per person: another thing than those counted
        "4 tickets cost 100, how much per pet",
        # saved by the week, asked in months: not said how they relate
        "I save 50 a week and need 1000, how many months",
        # shares that are not equal: never read as a split
        "we're splitting 300 between the 3 of us but Sam pays double",
    ],
)
def test_what_is_not_read_is_refused(prompt: str) -> None:
    with pytest.raises(PlanningFailed):
        rules.plan(prompt, TOOLS)
