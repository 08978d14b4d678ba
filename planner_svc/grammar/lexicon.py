"""The words of each intent, in one place: read from words.toml (data, with what each list is
for), they are the lists the frames (arithmetic/, todos/) build their patterns from, and the
words normalize.py corrects a misspelt word only to.

Adding a synonym to words.toml teaches every frame that uses the list, which is the point: a new
phrasing should need a word, not a new pattern."""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from typing import Any


def alternation(words: tuple[str, ...] | list[str]) -> str:
    """A regex alternation of `words`, longest first (so "check off" is tried before "check")."""
    escaped = (re.escape(w).replace(r"\ ", r"\s+").replace(" ", r"\s+") for w in words)
    return "(?:" + "|".join(sorted(escaped, key=len, reverse=True)) + ")"


_WORDS: dict[str, Any] = tomllib.loads(resources.files(__package__).joinpath("words.toml").read_text("utf-8"))
_TODOS, _ARITHMETIC, _NUMBERS, _TYPOS = (_WORDS[k] for k in ("todos", "arithmetic", "numbers", "typos"))

# --- todos ----------------------------------------------------------------------------------

TODO_NOUNS: tuple[str, ...] = tuple(_TODOS["nouns"])
TODO_NOUNS_PLURAL: tuple[str, ...] = tuple(_TODOS["nouns_plural"])
LIST_NOUNS: tuple[str, ...] = tuple(_TODOS["list_nouns"])
ADD_VERBS: tuple[str, ...] = tuple(_TODOS["add_verbs"])
COMPLETE_VERBS: tuple[str, ...] = tuple(_TODOS["complete_verbs"])
DELETE_VERBS: tuple[str, ...] = tuple(_TODOS["delete_verbs"])
CLEAR_VERBS: tuple[str, ...] = (*DELETE_VERBS, *_TODOS["clear_verbs"])
SHOW_VERBS: tuple[str, ...] = tuple(_TODOS["show_verbs"])
OPEN_WORDS: tuple[str, ...] = tuple(_TODOS["open_words"])
DONE_WORDS: tuple[str, ...] = tuple(_TODOS["done_words"])
CONDITIONS: tuple[str, ...] = tuple(_TODOS["conditions"])
NAMES_NOTHING: tuple[str, ...] = tuple(_TODOS["names_nothing"])
TODO_VERBS = frozenset([*_TODOS["everyday_verbs"], *_TODOS["more_verbs"], *_TODOS["command_like_verbs"]])
FIXED_PAIRS = frozenset(" ".join(p.split()) for p in _TODOS["fixed_pairs"])
ONE_THING_PAIRS = frozenset(_TODOS["one_thing_pairs"])
GROCERIES = frozenset(_TODOS["groceries"])
assert ONE_THING_PAIRS <= FIXED_PAIRS, "words.toml: a one-thing pair that is no fixed pair"
PAYABLES = frozenset(_TODOS["payables"])

# --- arithmetic -----------------------------------------------------------------------------

# name -> (kind, size in the kind's base unit, an exact decimal)
UNITS: dict[str, tuple[str, str]] = {
    name: (unit["kind"], unit["size"]) for unit in _ARITHMETIC["units"] for name in unit["names"]
}
TEMPERATURES: dict[str, str] = dict(_ARITHMETIC["temperatures"])
CURRENCY_WORDS: tuple[str, ...] = tuple(_ARITHMETIC["currency_words"])

# Number words (normalize.numeric turns them into digits).
SMALL_NUMBERS: dict[str, int] = dict(_NUMBERS["small"])
TENS: dict[str, int] = dict(_NUMBERS["tens"])
SCALES: dict[str, int] = dict(_NUMBERS["scales"])
ORDINALS: dict[str, int] = dict(_NUMBERS["ordinals"])

# --- typos and chat -------------------------------------------------------------------------

# Every word a command is made of: normalize.py corrects a word that is not English to one of
# these when it is one typing slip away ("remnid" -> "remind", "lsit" -> "list").
COMMAND_WORDS = frozenset(
    w
    for phrase in (
        *ADD_VERBS, *COMPLETE_VERBS, *DELETE_VERBS, *CLEAR_VERBS, *SHOW_VERBS, *OPEN_WORDS, *DONE_WORDS,
        *TODO_NOUNS, *TODO_NOUNS_PLURAL, *LIST_NOUNS, *SMALL_NUMBERS, *TENS, *SCALES, *ORDINALS,
        *[u for u in UNITS if len(u) > 3], *_TYPOS["command_words"],
    )
    for w in phrase.split()
)  # fmt: skip
# Words a typo may be one slip from more than one of, that mean the same: either will do.
SAME_MEANING = (frozenset(DONE_WORDS), frozenset(OPEN_WORDS), frozenset(DELETE_VERBS), frozenset(ADD_VERBS))
NAME_LIKE = frozenset(_TYPOS["name_like"])
MORE_ENGLISH = frozenset(_TYPOS["english"])
CHAT: dict[str, str] = dict(_TYPOS["chat"])
ASIDE_WORDS = frozenset(_WORDS["asides"]["words"])

# --- corrections ----------------------------------------------------------------------------

# Words of one kind (days, months, parts of a day): a correction that names one replaces the
# todo's one word of that kind.
CORRECTION_KINDS: tuple[frozenset[str], ...] = tuple(frozenset(k) for k in _WORDS["corrections"]["kinds"])
