"""Writing a todo's name as the user said it (their spelling, digits and case) rather than as
normalisation left it."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

from planner_svc.grammar import lexicon, normalize
from planner_svc.grammar.intent import Intent


def _places_said(name: str, prompt: str) -> list[str]:
    """Where `name` stands in `prompt` as _said_pattern reads it (the first two places, which is
    as many as _as_said tells apart). In an ASCII prompt, a name whose places are all words (each
    as itself, or as one of tidy's spellings) is looked for as those words (_said_runs); any other
    compiles its pattern. A pattern compiled for each new name cost more than all the rest of its
    plan, and a todo's name is new to the planner more often than not."""
    places = _said_places(name.split())
    if prompt.isascii() and _only_words(places):
        return _said_runs(places, prompt, limit=2)
    pattern = re.compile(rf"(?<!\w){_said_pattern(name)}(?!\w)", re.IGNORECASE)
    return [m.group() for m in itertools.islice(pattern.finditer(prompt), 2)]


def _said_places(words: list[str]) -> list[list[tuple[str, ...]]]:
    """`words` as the user may have written them, place by place: a word or words tidy spells out
    (_SPELT_OUT) may be any of the forms tidy read as them, or themselves (a run of words, one or
    more spaces apart), in that order; any other word is one way, itself. _said_pattern writes
    these as a pattern; _said_runs looks for them as they are."""
    places: list[list[tuple[str, ...]]] = []
    k = 0
    while k < len(words):
        for size in (3, 2, 1):
            said = " ".join(words[k : k + size]).lower()
            if k + size <= len(words) and said in _SPELT_OUT:
                places.append([(form,) for form in _SPELT_OUT[said]] + [tuple(words[k : k + size])])
                k += size
                break
        else:
            places.append([(words[k],)])
            k += 1
    return places


def _only_words(places: list[list[tuple[str, ...]]]) -> bool:
    """Whether _said_pattern finds `places` as nothing but their words: all ASCII, and no word of
    its own (one way) that the pattern widens (a number tidy may have taken a thousands separator
    from, a dash)."""
    return all(word.isascii() for ways in places for way in ways for word in way) and not any(
        "-" in ways[0][0] or _FOUR_DIGITS.search(ways[0][0]) for ways in places if len(ways) == 1
    )


_FOUR_DIGITS = re.compile(r"\d{4,}")


def _said_runs(places: list[list[tuple[str, ...]]], text: str, limit: int) -> list[str]:
    """Up to `limit` places in `text` (ASCII) where `places` stand, as re.finditer finds the
    pattern they stand for: leftmost first, each after the last; any case; one or more spaces
    between places; neither end inside a word; each place's ways tried in order."""
    lowered = text.lower()
    ways = [[tuple(word.lower() for word in way) for way in place] for place in places]
    openings = {way[0] for way in ways[0]}  # a place is found only where one of these is
    found: list[str] = []
    at = 0
    while len(found) < limit:
        at = min((i for opening in openings if (i := lowered.find(opening, at)) >= 0), default=-1)
        if at < 0:
            break
        if (at and _in_word(lowered[at - 1])) or (end := _said_at(ways, 0, lowered, at)) is None:
            at += 1
        else:
            found.append(text[at:end])
            at = end
    return found


def _said_at(places: list[list[tuple[str, ...]]], i: int, text: str, at: int) -> int | None:
    """Where the places from the i-th on end when they start at `at` in `text` (lower case),
    backtracking over each place's ways as the pattern's alternation does; None if nowhere. (A
    stack, not recursion: a name of a thousand words is a thousand places deep.)"""
    stack = [(i, at, iter(places[i]))]
    while stack:
        i, at, ways = stack[-1]
        for way in ways:
            end = _way_ends(way, text, at)
            if end is None:
                continue
            if i + 1 == len(places):
                if end == len(text) or not _in_word(text[end]):
                    return end
                continue
            following = _past_spaces(text, end)
            if following > end:
                stack.append((i + 1, following, iter(places[i + 1])))
                break  # the next place from here; back to this place's next way when it fails
        else:
            stack.pop()
    return None


def _way_ends(way: tuple[str, ...], text: str, at: int) -> int | None:
    """Where one way of a place (its words, spaces between) ends when it starts at `at`."""
    end = at
    for k, word in enumerate(way):
        if k:
            start = end
            end = _past_spaces(text, end)
            if end == start:
                return None
        if not text.startswith(word, end):
            return None
        end += len(word)
    return end


def _past_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _in_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # (ASCII: what \w matches)


# What tidy spells out that a todo's name keeps as the user wrote it: "don't" read as "do not"
# to understand the request is "don't" again in the todo ("add don't forget the keys").
def _spelt_out() -> dict[str, list[str]]:
    """Each word or words tidy writes (lexicon.CHAT: "do not", "calculate") and what the user may
    have written for it ("don't", "dont", "calc")."""
    spelt: dict[str, list[str]] = {}
    for short, long in lexicon.CHAT.items():
        if (short != long and long.replace(" ", "") != short.replace("'", "")) or "'" in short:
            spelt.setdefault(long, []).append(short)
    return spelt


_SPELT_OUT = _spelt_out()


def _said_pattern(text: str) -> str:
    """A pattern for `text` in the prompt it came from: its words, each word tidy wrote as itself
    or what the user may have written for it (a contraction, a chat spelling), any spacing. (A
    command word's typo stays corrected: "lsit" in a name is "list".)"""
    out = []
    for ways in _said_places(text.split()):
        if len(ways) > 1:  # a spelling of tidy's: any of its forms, or the words themselves
            out.append("(?:" + "|".join(r"\s+".join(re.escape(w) for w in way) for way in ways) + ")")
            continue
        # "1200" was "1,200" (tidy drops thousands separators): either is the user's
        # and a dash was any dash ("Q3 report — send to Ana"): tidy writes each as "-"
        word = _FOUR_DIGITS.sub(lambda m: _thousands(m.group()), re.escape(ways[0][0]))
        out.append(word.replace("\\-", "[-\u2013\u2014]"))
    return r"\s+".join(out)


def _thousands(digits: str) -> str:
    head = len(digits) % 3 or 3
    groups = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return ",?".join(groups)


def _as_said(intent: Intent, prompt: str) -> Intent:
    """A todo_store call whose names are in the user's own words where tidy changed them (a
    contraction spelt out, "I'm" as "i am"): the todo is what they wrote, not how it was read.
    Found once in the prompt, or left as it is."""
    if intent.tool != "todo_store" or intent.explicit:
        return intent
    arguments = dict(intent.arguments)
    plain = normalize.plain_quotes(prompt)
    for key in ("text", "texts"):
        value = arguments.get(key)
        names = value if isinstance(value, list) else [value]
        said = []
        for name in names:
            if isinstance(name, str) and name and "{{" not in name:
                found = _places_said(name, plain)
                said.append(" ".join(found[0].split()) if len(found) == 1 else name)
            else:
                said.append(name)
        if value is not None:
            arguments[key] = said if isinstance(value, list) else said[0]
    return replace(intent, arguments=arguments) if arguments != intent.arguments else intent
