"""The rule planner's shortcuts agree with what they stand in for.

A todo is added in the user's own words (said._as_said): its name is looked for in the prompt
as _said_pattern's pattern reads it. For names of words in an ASCII prompt, the planner finds the
places without compiling that pattern (said._said_runs); these tests hold it to the compiled
pattern itself, the oracle, on names and prompts made to be awkward: tidy's spellings ("n" for
"and", "don't" for "do not"), forms that are prefixes of others ("pls", "plse"), any case, runs of
spaces and newlines, words glued to letters, digits or underscores, and names said twice.

A message is searched for taking itself back (corrections._RETRACTED) only when its last two letters
could end such words (corrections._may_take_back): never skipped where the pattern would match."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from planner_svc.stages import corrections, said

SPELT = sorted(said._SPELT_OUT)
PLAIN = ["milk", "call", "mom", "x", "pl", "wat", "an", "a_b", "it's", "2", "(eggs)", "1200", "a-b"]
GLUE = ["", " ", "  ", "\t", " \n", ", ", "_", "x", "1", " and ", ". ", "("]


def oracle(name: str, prompt: str) -> list[str]:
    pattern = rf"(?<!\w){said._said_pattern(name)}(?!\w)"
    return [m.group() for m in re.finditer(pattern, prompt, re.IGNORECASE)][:2]


@st.composite
def name_and_prompt(draw: st.DrawFn) -> tuple[str, str]:
    words = draw(st.lists(st.sampled_from(SPELT + PLAIN), min_size=1, max_size=5))
    parts = [draw(st.sampled_from(["", "add ", "please ", "x", "_"]))]
    for _ in range(draw(st.integers(1, 2))):
        written = []
        for word in words:
            forms = said._SPELT_OUT.get(word, [])
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
    assert said._places_said(name, prompt) == oracle(name, prompt)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aAnNdD_01 \t\n.,'(-\u00e9", max_size=30), st.data())
def test_any_text(prompt: str, data: st.DataObject) -> None:
    tokens = prompt.split()
    if tokens:
        start = data.draw(st.integers(0, len(tokens) - 1))
        name = " ".join(tokens[start : start + data.draw(st.integers(1, 3))])
    else:
        name = data.draw(st.sampled_from(SPELT + PLAIN))
    assert said._places_said(name, prompt) == oracle(name, prompt)


def test_without_a_pattern_for_plain_words() -> None:
    # the fast path is taken for names of words (tidy's spellings included) in an ASCII prompt
    assert said._only_words(said._said_places(["buy", "milk", "and", "eggs"]))
    assert said._only_words(said._said_places(["do", "not", "forget", "the", "keys"]))
    # and not where the pattern says more than words: a number's separators, a dash
    assert not said._only_words(said._said_places(["pay", "1200"]))
    assert not said._only_words(said._said_places(["check-in"]))
    assert said._places_said("buy milk and eggs", "add Buy  Milk n eggs to my list") == ["Buy  Milk n eggs"]
    assert said._places_said("do not forget", "add don't forget, then don't  forget") == [
        "don't forget",
        "don't  forget",
    ]


RETRACTING = [
    *("add milk", "wait", "no", "nooo", "nah", "nahh", "nope", "never", "mind", "nevermind", "nvm", "forget"),
    *(
        "it",
        "that",
        "about",
        "scratch",
        "cancel",
        "not",
        "yet",
        "now",
        "today",
        "do",
        "don't",
        "dont",
        "just",
    ),
    *(
        "kidding",
        "jk",
        "JK",
        "leave",
        "keep",
        "then",
        "actually",
        "please",
        "pls",
        "sorry",
        "lol",
        "oh",
        "hmm",
    ),
    *("um", "oops", "haha", "lmao", "hold", "hang", "on", "really", "NOT", "Not", "todos", "call mom"),
    # letters IGNORECASE matches with an ASCII one: long s, Kelvin sign, dotless and dotted i
    *("\u017forry", "\u212ak", "\u0131t", "\u0130T"),
]


@settings(max_examples=600, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(RETRACTING),
            st.sampled_from(
                [" ", ", ", ". ", "! ", "? ", " - ", "; ", "  ", "\n", ",", "...", "!!", " ?", ""]
            ),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_never_skips_a_message_that_takes_itself_back(parts: list[tuple[str, str]]) -> None:
    text = "".join(word + sep for word, sep in parts)
    if not corrections._may_take_back(text):
        assert corrections._RETRACTED.search(text) is None


# Every way the pattern's alternatives end, after a request.
TAKEN_BACK = [
    *("never mind", "nevermind", "nvm", "forget it", "forget that", "forget about it", "scratch that"),
    *("cancel that", "ignore that", "disregard that", "not yet", "not now", "not today", "do not", "don't"),
    *("dont", "just kidding", "jk", "leave it", "keep it", "forget it then", "forget it actually"),
    *("forget it please", "forget it pls", "forget it sorry", "forget it lol", "oh wait no", "wait nah"),
    *("hmm nope", "lol nooo", "wait, no, sorry", "no", "nahh", "nope", "wait", "hold on", "hang on"),
    *("no, wait", "no lol", "no actually", "not", "not really"),
]


def _cased(text: str) -> list[str]:
    odd = text.replace("s", "\u017f").replace("k", "\u212a").replace("i", "\u0131")
    return [text, text.upper(), text.title(), odd, odd.replace("\u0131", "\u0130")]


def test_each_way_of_taking_back_is_searched() -> None:
    for words in TAKEN_BACK:
        for spelt in _cased(words):
            for closing in ("", ".", "!!", " ?", " \n", " . ! "):
                text = f"add milk, {spelt}{closing}"
                if corrections._RETRACTED.search(text):
                    assert corrections._may_take_back(text), text
    assert corrections._RETRACTED.search("called mom NOT") and corrections._may_take_back("called mom NOT")


def test_takes_back_still_refused() -> None:
    assert corrections._may_take_back("add milk, nah forget it.")
    assert corrections._may_take_back("add milk - NOPE!! ")
    assert not corrections._may_take_back("add a todo to buy milk, then list my todos")
