"""How a correction's words put an added todo's text right ("buy oat milk", then "no, I meant
almond milk", "for mom", "3 lightbulbs", "almond milk, not oat"): the words it replaces, found
in the text by what they are (the end said again, the phrase from its one "for", a word of the
same kind, a slip put right, or the part it says not). None when which words is not said:
amends.py refuses then, never guessing."""

from __future__ import annotations

import re

from agentrt.core import wordforms
from planner_svc.grammar import lexicon

_F = re.IGNORECASE
_ARTICLE = re.compile(r"^(?:the|my|a|an|that|this)\s+", _F)


def said_again(text: str, x: str) -> str | None:
    """`text` with the words `x` says again put in their place; None when which is not said."""
    for way in (_end_said_again, _phrase_said_again, _same_kind, _slip_put_right):
        if (put := way(text, x)) is not None:
            return put
    return None


def part_put_right(text: str, x: str, said_not: str) -> tuple[str | None, str]:
    """`text` with the part `said_not` names put right to `x` ("almond milk, not oat": "oat milk"
    put right), and that part; None when the text does not say it."""
    y = _ARTICLE.sub("", said_not.strip(" \"'"))
    if (lead := re.match(r"(?:for|at|on|in|by|to|with)\s", x, _F)) and not y.lower().startswith(
        lead.group().lower()
    ):
        y = lead.group() + y  # "for 8, not 6" after "a table for 6": "for 6" is what is put right
    last = x.rsplit(maxsplit=1)[-1].lower() if x.split() else ""
    if (after := re.search(rf"(?<!\w){re.escape(y)}\s+(?P<w>\w+)", text, _F)) and after["w"].lower() == last:
        y = f"{y} {after['w']}"  # "almond milk, not oat" after "buy oat milk": "oat milk" is put right
    pattern = re.compile(rf"(?<!\w){re.escape(y)}(?!\w)", _F)
    if not pattern.search(text):
        return None, y
    return pattern.sub(lambda _: _ARTICLE.sub("", x), text, count=1), y


def _phrase_said_again(text: str, x: str) -> str | None:
    """ "buy a birthday present for dad", then "no, for mom": the phrase that ends the todo, said
    again from its one "for" (to, with, at, ...) with other words, put in its place."""
    said = x.split()
    if len(said) < 2 or said[0].lower() not in _PHRASE_STARTS:
        return None
    words = text.split()
    at = [k for k, w in enumerate(words) if w.lower() == said[0].lower()]
    if len(at) != 1 or len(words) - at[0] != len(said) or at[0] == 0:
        return None
    return " ".join([*words[: at[0]], *said])


_PHRASE_STARTS = frozenset(["for", "with", "at", "on", "from", "about", "before", "after"])


def _end_said_again(text: str, x: str) -> str | None:
    """ "buy oat milk", then "I meant almond milk": the end of the todo said again with one word
    changed ("buy 2 lightbulbs" -> "3 lightbulbs"), put in its place; None otherwise."""
    said, words = x.split(), text.split()
    if len(said) < 2 or len(said) > len(words):
        return None
    end = words[-len(said) :]
    changed = [k for k, (a, b) in enumerate(zip(end, said, strict=True)) if a.lower() != b.lower()]
    if len(changed) != 1 or changed[0] == len(said) - 1:
        return None  # the last word says what the thing is: it must be the same
    return " ".join([*words[: -len(said)], *said])


def _slip_put_right(text: str, x: str) -> str | None:
    """ "buy new sheos", then "I meant shoes": one word of the todo typed with a slip, said again
    right, put in its place. (A word said in place of another, "buy bread" then "I meant
    sourdough", is refused: which word it replaces, or whether it adds to one, is a guess.)"""
    said = x.split()
    if len(said) != 1 or not said[0].isalpha():
        return None
    words = text.split()
    slipped = [
        k for k, w in enumerate(words) if len(w) >= 4 and wordforms.one_slip(said[0].lower(), w.lower())
    ]
    if len(slipped) != 1:
        return None
    return " ".join([*words[: slipped[0]], said[0], *words[slipped[0] + 1 :]])


_KIND_WORD = re.compile(r"^(?:(?:on|in|at|for|by)\s+)?(?P<w>[a-z]+|\d+(?:\.\d+)?)$", _F)
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


def _same_kind(text: str, x: str) -> str | None:
    """ "call grandma on sunday", then "I meant saturday": a day, a month, a part of a day or a
    number, put in place of the todo's one word of that kind; None when it has none or several."""
    said = _KIND_WORD.match(x.strip())
    if said is None:
        return None
    word = said.group("w").lower()
    if _NUMBER.match(word):

        def fits(w: str) -> bool:
            return bool(_NUMBER.match(w))
    else:
        kind = next((k for k in lexicon.CORRECTION_KINDS if word in k), None)
        if kind is None:
            return None

        def fits(w: str) -> bool:
            return w.lower() in kind

    words = re.findall(r"[^\W_]+(?:\.\d+)?", text)
    places = [w for w in words if fits(w)]
    if len(places) != 1 or places[0].lower() == word:
        return None
    return re.sub(rf"(?<![\w.]){re.escape(places[0])}(?![\w.])", said.group("w"), text, count=1)
