"""The rule planner's grammar (planner_svc/grammar): normalization, the arithmetic frames with the
values the calculator gives, the todo frames, and what stays refused."""

import pytest

from planner_svc import rules
from planner_svc.grammar import normalize
from planner_svc.planner import PlanningFailed
from tools_svc import calculator

TOOLS = {"calculator", "todo_store"}


def calls(prompt: str) -> list[tuple[str, dict]]:
    return [(i.tool, i.arguments) for i in rules.plan(prompt, TOOLS)]


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("remnid me to buy a card", "remind me to buy a card"),
        ("what is still open on my todo lsit", "what is still open on my todo list"),
        ("whats 100 minus 37? then mutliply by 3", "what is 100 minus 37? then multiply by 3"),
        ("u can add it", "you can add it"),
        # English words are never "corrected", whatever command word they are near.
        ("fix the stall", "fix the stall"),
        ("compete in the race", "compete in the race"),
        ("write me a peom", "write me a peom"),  # not one slip from any command word
        ("calculate 1,200 divided by 32", "calculate 1200 divided by 32"),
    ],
)
def test_tidy_corrects_only_misspelt_command_words(typed: str, read: str) -> None:
    assert normalize.tidy(typed) == read


@pytest.mark.parametrize(
    ("spoken", "digits"),
    [
        ("one hundred and twenty minus forty-five", "120 minus 45"),
        ("a couple dozen divided by 3", "24 divided by 3"),
        ("two and a half hours", "2.5 hours"),
        ("two point five times 4", "2.5 times 4"),
        ("total of $45.50, $12.25 and 8 dollars", "total of 45.50, 12.25 and 8"),
        ("one two three", "1 2 3"),  # three numbers, not one
        ("two and three", "2 and 3"),  # "and" joins a number only after hundred or thousand
    ],
)
def test_numbers_in_words_become_digits(spoken: str, digits: str) -> None:
    assert normalize.numeric(spoken) == digits


@pytest.mark.parametrize(
    ("prompt", "value", "answer"),
    [
        ("what's 80 increased by 15%?", 92, "80 increased by 15% is 92"),
        ("250 plus 15 percent", 287.5, "250 increased by 15% is 287.5"),
        ("decrease 200 by 10%", 180, "200 decreased by 10% is 180"),
        ("a $60 jacket is 30% off, how much do I pay", 42, "60 with 30% off is 42"),
        ("what percent is 30 of 120", 25, "30 is 25% of 120"),
        ("percentage change from 80 to 60", -25, "From 80 to 60 is a change of -25%"),
        ("whats an 18 percent tip on a 52 dollar bill", 9.36, "An 18% tip on 52 is 9.36"),
        ("split $120 between 4 people", 30, "120 split 4 ways is 30 each"),
        ("3 people split a $75 pizza, how much each", 25, "75 split 3 ways is 25 each"),
        ("7 squared", 49, "7 squared is 49"),
        ("2 to the 10th", 1024, "2 to the power of 10 is 1024"),
        ("cube root of 27", 3, "The cube root of 27 is 3"),
        ("4th root of 81", 3, "The 4th root of 81 is 3"),
        ("how many minutes in 3.5 hours", 210, "3.5 hours is 210 minutes"),
        ("seconds in a day", 86400, "1 day is 86400 seconds"),
        ("how many km is 10 miles", 16.09344, "10 miles is 16.09344 km"),
        ("what is 98.6 fahrenheit in celsius", 37, "98.6 °F is 37 °C"),
        ("how many centimeters is 5 feet 10 inches", 177.8, "5 feet 10 inches is 177.8 centimeters"),
        ("round 12,345 to the nearest hundred", 12300, "12345 rounded to the nearest hundred is 12300"),
        ("what is twelve times four", 48, "12 * 4 = 48"),
        ("the difference between 1,024 and 768", 256, "The difference between 1024 and 768 is 256"),
        ("what's 1/3 of 90", 30, "1/3 of 90 is 30"),
        ("round 47.6 down", 47, "47.6 rounded down is 47"),
        ("45 minutes is what percent of an hour?", 75, "45 minutes is 75% of 1 hour"),
        (
            "i make 3200 a month and rent is 1200. what percentage of my income goes on rent",
            37.5,
            "1200 is 37.5% of 3200",
        ),
        # the talk after a question that only reads asks for nothing
        (
            "How many km is 10 miles? Training for the marathon, bit knackered",
            16.09344,
            "10 miles is 16.09344 km",
        ),
        (
            "if I drive 240 km in 3 hours what's my average speed",  # not the average of 240 and 3
            80,
            "240 km in 3 hours is an average speed of 80 km per hour",
        ),
        (
            "scores 70, 80, 90, what do I need on the next test to average 85",
            100,
            "To average 85 over 4, the next one must be 100",
        ),
    ],
)
def test_arithmetic_in_words_with_its_answer(prompt: str, value: float, answer: str) -> None:
    intents = rules.plan(prompt, TOOLS)
    (intent,) = intents
    assert intent.tool == "calculator"
    computed = calculator.evaluate(intent.arguments["expression"])
    assert computed == pytest.approx(value)
    template = rules.answer_template(intents)
    shown = str(computed).removesuffix(".0") if isinstance(computed, float) else str(computed)
    filled = template.replace("{{steps.s1.output.value}}", shown).replace(
        "{{steps.s1.output.expression}}", intent.arguments["expression"]
    )
    assert filled == answer


def test_a_total_with_a_tip_is_the_tip_then_the_total() -> None:
    intents = rules.plan("total with a 15% tip on 60", TOOLS)
    assert [i.arguments["expression"] for i in intents] == ["15% of 60", "60 + ({{steps.s1.output.value}})"]
    assert rules.answer_template(intents) == (
        "A 15% tip on 60 is {{steps.s1.output.value}}. The total is {{steps.s2.output.value}}."
    )


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("what do I still have to do", [("todo_store", {"action": "list", "state": "open"})]),
        ("which todos are done?", [("todo_store", {"action": "list", "state": "done"})]),
        ("what havent i done yet", [("todo_store", {"action": "list", "state": "open"})]),
        ("how many task i have still open?", [("todo_store", {"action": "count", "state": "open"})]),
        ("how many things have I done?", [("todo_store", {"action": "count", "state": "done"})]),
        (
            "add milk, eggs and bread to my list",
            [("todo_store", {"action": "add", "texts": ["milk", "eggs", "bread"]})],
        ),
        (
            "remind me to call the bank and to book flights",
            [("todo_store", {"action": "add", "texts": ["call the bank", "book flights"]})],
        ),
        # A task named by its verb alone joins a list of tasks; among things it is one todo's words.
        (
            "add renew passport, book flights and pack",
            [("todo_store", {"action": "add", "texts": ["renew passport", "book flights", "pack"]})],
        ),
        (
            "add wash, dry and fold the laundry",
            [("todo_store", {"action": "add", "text": "wash, dry and fold the laundry"})],
        ),
        ("cross off buy milk", [("todo_store", {"action": "complete", "text": "buy milk"})]),
        # Chatter to the listener is no part of the todo; a dash is the one the user typed.
        (
            "add grab Sam's charger from the office when you get a sec",
            [("todo_store", {"action": "add", "text": "grab Sam's charger from the office"})],
        ),
        ("add buy eggs pretty please", [("todo_store", {"action": "add", "text": "buy eggs"})]),
        (
            "add Q3 report — send to Ana by 5pm to my list",
            [("todo_store", {"action": "add", "text": "Q3 report — send to Ana by 5pm"})],
        ),
        (
            "put call Jen on the list — sorry, I meant call Jess",
            [("todo_store", {"action": "add", "text": "call Jess"})],
        ),
        # "add it" after a sum is the list's, not the sum's (it was doubled)
        (
            "sqrt of 144? add it",
            [
                ("calculator", {"expression": "sqrt(144)"}),
                ("todo_store", {"action": "add", "text": "{{steps.s1.output.value}}"}),
            ],
        ),
        # whether a todo is still to do: the list answers, nothing changes
        ("is the dentist thing still open?", [("todo_store", {"action": "list"})]),
        ("have I done the laundry yet?", [("todo_store", {"action": "list"})]),
        ("finished number 3", [("todo_store", {"action": "complete", "id": 3})]),
        # a place on the list, with nothing before it: found when the step runs
        ("the second one on my list is done", [("todo_store", {"action": "complete", "position": 2})]),
        ("delete the last item on my list", [("todo_store", {"action": "delete", "position": -1})]),
        ("How much todos I finish already?", [("todo_store", {"action": "count", "state": "done"})]),
        ("scratch the last item", [("todo_store", {"action": "delete", "position": -1})]),
        ("remove buy milk from my list now", [("todo_store", {"action": "delete", "text": "buy milk"})]),
        ("clean up the done stuff", [("todo_store", {"action": "delete_all", "state": "done"})]),
        ("done with #2", [("todo_store", {"action": "complete", "id": 2})]),
        ("finished #1 and #3", [("todo_store", {"action": "complete", "ids": [1, 3]})]),
        (
            "add book the airport parking, pay electric bill (PG&E)",  # "&" inside a word splits nothing
            [
                (
                    "todo_store",
                    {"action": "add", "texts": ["book the airport parking", "pay electric bill (PG&E)"]},
                )
            ],
        ),
        # an earlier result, however it is called, is added as the result: never as those words
        *(
            (
                f"split 96 between 4 people and add {said} to my list",
                [
                    ("calculator", {"expression": "96 / 4"}),
                    ("todo_store", {"action": "add", "text": "{{steps.s1.output.value}}"}),
                ],
            )
            for said in (
                "the per-person amount",
                "each person's share",
                "what you got",
                "the cost per person",
            )
        ),
        ("add the phone number to my list", [("todo_store", {"action": "add", "text": "the phone number"})]),
        ("scratch the Rome hotel off", [("todo_store", {"action": "delete", "text": "Rome hotel"})]),
        ("wipe my whole list, starting fresh", [("todo_store", {"action": "delete_all"})]),
        (
            "add pay electric bill. actually I just paid it, mark it done",
            [
                ("todo_store", {"action": "add", "text": "pay electric bill"}),
                ("todo_store", {"action": "complete", "id": {"$ref": "steps.s1.output.todo.id"}}),
            ],
        ),
        ("remove the gym thing", [("todo_store", {"action": "delete", "text": "gym"})]),
        ("tick off the dentist one", [("todo_store", {"action": "complete", "text": "dentist"})]),
        ("call mom is done", [("todo_store", {"action": "complete", "text": "call mom"})]),
        ("get rid of the dentist todo", [("todo_store", {"action": "delete", "text": "dentist"})]),
        ("delete todo number 3", [("todo_store", {"action": "delete", "id": 3})]),
        ("cross off todos 2 and 3", [("todo_store", {"action": "complete", "ids": [2, 3]})]),
        # A statement names the todo its pronoun means; "both" wants exactly two.
        (
            "walked the dog already, check it off",
            [("todo_store", {"action": "complete", "text": "walked the dog"})],
        ),
        (
            "I did the dishes and took out the trash, cross both off",
            # one step: todo_store completes both or neither
            [("todo_store", {"action": "complete", "texts": ["dishes", "took out the trash"]})],
        ),
        (
            "I have to renew my car insurance, add that to my todos",
            [("todo_store", {"action": "add", "text": "renew my car insurance"})],
        ),
        (
            "delete buy stamps and pay rent",
            [("todo_store", {"action": "delete", "texts": ["buy stamps", "pay rent"]})],
        ),
        (
            "what's 6 times 7? add the answer as a todo",
            [
                ("calculator", {"expression": "6 * 7"}),
                (
                    "todo_store",
                    {"action": "add", "text": "{{steps.s1.output.value}}"},
                ),
            ],
        ),
        (
            "Could you please put 'call the plumber' on my to-do list? Thanks!",
            [("todo_store", {"action": "add", "text": "call the plumber"})],
        ),
    ],
)
def test_todo_phrasings(prompt: str, expected: list) -> None:
    assert calls(prompt) == expected


@pytest.mark.parametrize(
    ("prompt", "state"),
    [
        ("delete all my todos", None),
        ("clear my list", None),
        ("start fresh, delete every single todo", None),
        ("remove everything I've finished", "done"),
        ("delete the completed ones", "done"),
        ("get rid of all finsihed tasks", "done"),
    ],
)
def test_emptying_the_list_is_one_call_a_person_confirms(prompt: str, state: str | None) -> None:
    (intent,) = rules.plan(prompt, TOOLS)
    assert intent.arguments == {"action": "delete_all", **({"state": state} if state else {})}
    assert intent.confirm


def test_a_listing_then_them_all_is_every_todo_listed() -> None:
    intents = rules.plan("show me what's done, then delete those", TOOLS)
    assert [i.arguments for i in intents] == [
        {"action": "list", "state": "done"},
        {"action": "delete_all", "state": "done"},
    ]
    assert [i.confirm for i in intents] == [False, True]
    with pytest.raises(PlanningFailed, match="one at a time"):
        rules.plan("list my todos, then mark them as done", TOOLS)


@pytest.mark.parametrize(
    "prompt",
    [
        "delete the todo",  # which one?
        "mark it as done",  # nothing earlier to point at
        "add to my list",  # names nothing
        "add it to the list",
        "add a meeting with Tom to my calendar on Friday at 3pm",  # not the todo list
        "remind me to take the pizza out in 20 minutes",  # a timer, not a todo
        "I need to buy milk",  # a statement, not a request to add
        "add milk? bread",  # after a change, what follows is never skipped as talk
        "clear my stuff",  # which stuff? (the done stuff is the done todos)
        "delete the lot",  # all of them, loosely: never the todo with "lot" in it
        "delete my finished todo",  # "finished" names no todo
        "what is the weather",
        "how many calories are in an egg",
        "how many euros is 100 dollars right now",
        "whats the population of canada times 2",
        "thanks!",
    ],
)
def test_still_refused(prompt: str) -> None:
    with pytest.raises(PlanningFailed):
        rules.plan(prompt, TOOLS)
