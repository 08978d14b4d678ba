"""The rule planner sees raw user text on the planner's event loop: any prompt up to the maximum
length must plan or be refused quickly, with work that grows linearly with the prompt.

Two measures, neither a wall-clock constant. The rules' patterns: time on one clause of the
same shape at 1,000 and at 8,000 characters (linear work gives a ratio of about 8, quadratic 64,
cubic 512; the old polite-suffix pattern took ~112 s at 1,612 characters). The planner's search
over runs of clauses: the characters it hands to the rules, counted.
"""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner_svc import rules
from planner_svc.planner import PlanningFailed
from planner_svc.stages import clauses, common, cover, polite

TOOLS = {"calculator", "todo_store", "weather"}
MAX_CHARS = 8000
SMALL_CHARS = 1000
# 8x the length: linear work is ~8x the time. Three times that absorbs noise on a loaded machine
# and still refuses anything quadratic (64x).
MAX_GROWTH = 24.0
# Below this, timings are noise; both sides are far under any user-visible delay.
NOISE_S = 0.004
# Quadratic work fails every measure; a stall on a loaded machine rarely lasts three.
MEASURES = 3

TOKENS = [
    " ",
    "  ",
    "\t",
    "\n",
    ",",
    ", ",
    ".",
    "!",
    "?",
    ";",
    " and ",
    " then ",
    ", then ",
    "and",
    "then",
    "please",
    "thanks",
    "thank you",
    "kindly ",
    "can you ",
    "1",
    "42",
    "3.5",
    "-",
    "+",
    "*",
    "/",
    "%",
    "(",
    ")",
    "^",
    " x ",
    "plus",
    " times ",
    "{",
    "}",
    '"',
    "'",
    ":",
    "add a todo to ",
    "add ",
    "todo",
    "task",
    "show my todos",
    "mark todo 2 done",
    "delete todo ",
    "calculate ",
    "what is ",
    "the result",
    " it",
    "that",
    "use weather with ",
    '{"city": "a, b and c"}',
    "x",
    "é",
    "²",
]


def clause_time(clause: str) -> float:
    """Best of three, so a scheduling hiccup does not count as the rules' time."""
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        clauses.parse_clause(clause)
        best = min(best, time.perf_counter() - started)
    return best


def repeated(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def assert_linear(unit: str) -> None:
    """Every rule pattern, on one clause made of `unit` repeated, at 1,000 and 8,000 characters.

    A loaded machine can stall either measure (a CI neighbour, a garbage collection), so a ratio
    out of bounds is measured again, up to MEASURES times in all: superlinear work is out of
    bounds on every measure, noise is not."""
    # Wrapped in words, as in the reported prompt: stripping cannot make the hostile part vanish.
    seen = []
    for _ in range(MEASURES):
        small = clause_time(f"calculate 1{repeated(unit, SMALL_CHARS)}x")
        large = clause_time(f"calculate 1{repeated(unit, MAX_CHARS)}x")
        if large <= MAX_GROWTH * small + NOISE_S:
            return
        seen.append(f"{small * 1e3:.2f} ms at {SMALL_CHARS} chars, {large * 1e3:.2f} ms at {MAX_CHARS}")
    raise AssertionError(f"rules on {unit!r} repeated, {MEASURES} measures: " + "; ".join(seen))


def examined_chars(prompt: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """Characters the planner hands to the rules while planning `prompt`. It tries runs of
    clauses, so this is where a quadratic search would show; counted, so it cannot be noisy."""
    seen = [0]
    parse = clauses.parse_clause

    def counting(clause: str) -> rules.Intent | None:
        seen[0] += len(clause)
        return parse(clause)

    monkeypatch.setattr(cover, "parse_clause", counting)  # the cover stage tries the runs of clauses
    try:
        rules.plan(prompt, TOOLS, 100)
    except PlanningFailed:
        pass
    finally:
        monkeypatch.setattr(cover, "parse_clause", parse)
    return seen[0]


def test_the_count_sees_the_clauses_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    assert examined_chars("add milk and eggs, then show my list", monkeypatch) >= len("add milk and eggs")


# Every piece is part of at most K(K+1)/2 runs of at most K pieces.
MAX_EXAMINED_PER_CHAR = common.MAX_CLAUSE_PIECES * (common.MAX_CLAUSE_PIECES + 1) // 2


@pytest.mark.parametrize(
    "unit",
    [
        " ",  # the polite-suffix pattern was cubic on runs of spaces
        "\t\n",
        ".",  # and quadratic on runs of dots
        ", ",
        "please ",
        "x" * 120 + " and ",  # 60 unknown clauses: every run of them is tried
        "add a todo to " + "y" * 110 + " and ",
        "-",  # unary minus: the parser's recursion
        "(",
        "1+",
        "calculate 1 x ",
        'use weather with {"city": "',
    ],
)
def test_known_hostile_shapes_are_parsed_in_linear_time(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_linear(unit)
    prompt = repeated(unit, MAX_CHARS)
    assert examined_chars(prompt, monkeypatch) <= MAX_EXAMINED_PER_CHAR * len(prompt)


@pytest.mark.parametrize(
    "prompt", ["calculate 1" + " " * 1600 + "x", "calculate" + " " * 4000 + "\n" + "x" * 3000]
)
def test_the_reported_prompts_are_refused_with_a_bounded_message(prompt: str) -> None:
    with pytest.raises(PlanningFailed) as info:
        rules.plan(prompt, TOOLS, 100)
    assert len(str(info.value)) < 2000


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=8).map("".join))
def test_any_repeated_shape_is_parsed_in_linear_time(unit: str) -> None:
    assert_linear(unit)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=400).map("".join))
def test_any_prompt_plans_or_is_refused_with_a_clear_error(prompt: str) -> None:
    prompt = prompt[:MAX_CHARS]
    seen = [0]
    parse = clauses.parse_clause

    def counting(clause: str) -> rules.Intent | None:
        seen[0] += len(clause)
        return parse(clause)

    cover.parse_clause = counting  # type: ignore[assignment]  # hypothesis and function fixtures don't mix
    try:
        outcome: list[rules.Intent] | PlanningFailed = rules.plan(prompt, TOOLS, 100)
    except PlanningFailed as refused:
        outcome = refused
    finally:
        cover.parse_clause = parse  # type: ignore[assignment]
    assert seen[0] <= MAX_EXAMINED_PER_CHAR * max(len(prompt), 1)
    if isinstance(outcome, PlanningFailed):
        refused = outcome
        clear = (
            "could not plan",
            "the prompt",
            "understood the prompt",
            "'",
            "could not resolve a reference",
        )
        assert str(refused).startswith(clear), repr(prompt)
        assert len(str(refused)) < 4000
        return
    assert outcome and all(i.tool in TOOLS for i in outcome)


def test_refusals_quote_understood_arguments_once() -> None:
    with pytest.raises(PlanningFailed) as info:
        rules.plan("calculate 2+2 and then book me a flight", TOOLS, 100)
    assert "Understood: 'calculate 2+2' -> calculator expression='2+2'. I can do" in str(info.value)


@pytest.mark.parametrize(
    ("clause", "cleaned"),
    [
        ("please , add 3 and 4", "add 3 and 4"),
        ("Please,   could you\tadd 3 and 4 ,  thanks!", "add 3 and 4"),
        ("and then show my todos please.", "show my todos"),
        ("displease", "displease"),  # a polite word only as a word of its own
    ],
)
def test_polite_words_are_trimmed_as_before_whitespace_was_collapsed(clause: str, cleaned: str) -> None:
    assert polite._clean(clause) == cleaned


def test_a_name_of_a_thousand_words_is_kept_as_said_without_recursing() -> None:
    # said.py found where a name's words were said by recursing once per word: RecursionError
    intents = rules.plan("mark " + "x " * 1000 + "done", TOOLS)
    assert intents[0].arguments["text"] == " ".join(["x"] * 1000)
