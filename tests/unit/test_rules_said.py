"""A todo is added in the user's own words (rules._as_said): its name is looked for in the prompt
as _said_pattern's pattern reads it. For names of words in an ASCII prompt, the planner finds the
places without compiling that pattern (rules._said_runs); these tests hold it to the compiled
pattern itself, the oracle, on names and prompts made to be awkward: tidy's spellings ("n" for
"and", "don't" for "do not"), forms that are prefixes of others ("pls", "plse"), any case, runs of
spaces and newlines, words glued to letters, digits or underscores, and names said twice."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from planner_svc import rules

SPELT = sorted(rules._SPELT_OUT)
PLAIN = ["milk", "call", "mom", "x", "pl", "wat", "an", "a_b", "it's", "2", "(eggs)", "1200", "a-b"]
GLUE = ["", " ", "  ", "\t", " \n", ", ", "_", "x", "1", " and ", ". ", "("]


def oracle(name: str, prompt: str) -> list[str]:
    pattern = rf"(?<!\w){rules._said_pattern(name)}(?!\w)"
    return [m.group() for m in re.finditer(pattern, prompt, re.IGNORECASE)][:2]


@st.composite
def name_and_prompt(draw: st.DrawFn) -> tuple[str, str]:
    words = draw(st.lists(st.sampled_from(SPELT + PLAIN), min_size=1, max_size=5))
    parts = [draw(st.sampled_from(["", "add ", "please ", "x", "_"]))]
    for _ in range(draw(st.integers(1, 2))):
        written = []
        for word in words:
            forms = rules._SPELT_OUT.get(word, [])
            written.append(draw(st.sampled_from([word, *forms])))
        text = draw(st.sampled_from([" ", "  ", "\t", "\n "])).join(written)
        upper = draw(st.lists(st.booleans(), min_size=len(text), max_size=len(text)))
        parts.append("".join(c.upper() if up else c for c, up in zip(text, upper, strict=True)))
        parts.append(draw(st.sampled_from(GLUE)))
    return " ".join(words), "".join(parts)


@settings(max_examples=400, deadline=None)
@given(name_and_prompt())
def test_found_where_the_pattern_finds_it(case: tuple[str, str]) -> None:
    name, prompt = case
    assert rules._places_said(name, prompt) == oracle(name, prompt)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aAnNdD_01 \t\n.,'(-\u00e9", max_size=30), st.data())
def test_any_text(prompt: str, data: st.DataObject) -> None:
    tokens = prompt.split()
    if tokens:
        start = data.draw(st.integers(0, len(tokens) - 1))
        name = " ".join(tokens[start : start + data.draw(st.integers(1, 3))])
    else:
        name = data.draw(st.sampled_from(SPELT + PLAIN))
    assert rules._places_said(name, prompt) == oracle(name, prompt)


def test_without_a_pattern_for_plain_words() -> None:
    # the fast path is taken for names of words (tidy's spellings included) in an ASCII prompt
    assert rules._said_places(["buy", "milk", "and", "eggs"]) is not None
    assert rules._said_places(["do", "not", "forget", "the", "keys"]) is not None
    # and not where the pattern says more than words: a number's separators, a dash
    assert rules._said_places(["pay", "1200"]) is None
    assert rules._said_places(["check-in"]) is None
    assert rules._places_said("buy milk and eggs", "add Buy  Milk n eggs to my list") == ["Buy  Milk n eggs"]
    assert rules._places_said("do not forget", "add don't forget, then don't  forget") == [
        "don't forget",
        "don't  forget",
    ]
