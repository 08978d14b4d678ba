"""Segmenting a tidied prompt into pieces at separators ("then", ";", a sentence's end, "and",
commas), never inside a protected span (a JSON object, a quoted name, parentheses)."""

from __future__ import annotations

import re

from planner_svc import followups
from planner_svc.grammar import arithmetic, normalize
from planner_svc.stages.common import _F

# (?<!\s): a separator starts where a run of whitespace starts. Every alternative begins with
# optional whitespace, so a match inside the run is never needed, and trying one at each of its
# positions would be quadratic in the run's length. "?" and "!" end a sentence like ".".
_SEPARATORS = re.compile(
    r"(?<!\s)(\s*,\s*(?:and\s+)?then\s+|\s*[;.?!]+\s+(?:(?:and\s+)?then\s+)?|\s*;\s*|\s+and\s+then\s+"
    r"|\s+then\s+|\s+and\s+|\s*,\s*|\s+(?:because|bc|b/c|cos|coz|cuz)\s+"
    # "add order extra chairs since the guest list grew": why, a clause of its own
    r"|\s+since\s+(?=(?:the|my|i|we|it|he|she|they|our|his|her|their|there|you|mum|mom|dad)\b)"
    # "my sister's birthday is next week so add 'buy gift for Lena'": "so" before a request
    r"|\s+so\s+(?=(?:please\s+|just\s+|(?:you|u)\s+can\s+|can\s+you\s+|could\s+you\s+)*(?:add|put|delete|remove|mark|tick|check"
    r"|cross"
    r"|show|list|tell|clear|erase|scrap)\b)"
    # "add 'follow up with Marco' - he still hasn't paid": a spaced dash after a quoted name
    r"|(?<=['\"])\s+-\s+"
    # "add clean the bathroom - guests coming saturday": a spaced dash before who is doing what
    r"|\s+[-\u2013\u2014]\s+(?=(?:the\s+|my\s+|our\s+)?[a-z]+s\s+(?:(?:are|were)\s+)?[a-z]+ing\b)"
    # "ugh I keep forgetting - add water the plants": a spaced dash before a request
    r"|\s+[-\u2013\u2014]\s+(?=(?:please\s+|pls\s+|just\s+|can\s+you\s+|could\s+you\s+)*(?:add|put|delete|remove|mark|tick"
    r"|cross|show|list|tell|clear|erase|scrap|wipe|empty)\b)"
    # "gym is 29.99 a month what's that over a year", "whats 19 plus 23 add it as a todo": a
    # question or request about what was just said, with no comma before it (a space kept as its
    # separator: the clause before it ends there, or the cover joins the two again)
    r"|(?<=[\w%])(?=\s+(?:what's|whats|what\s+is|how\s+much\s+is|how\s+many)\s+(?:that|this|it)\b)\s+"
    r"|(?<=\d)(?=\s+add\s+(?:it|that|this|the\s+(?:result|answer|total))\b)\s+"
    # "clear done & add buy bread": "&" before a request, as "and"
    r"|\s+&\s+(?=(?:please\s+|pls\s+|just\s+|then\s+)*(?:add|put|delete|remove|mark|tick|cross|show|list|tell"
    r"|clear|erase|scrap)\b))",
    _F,
)
_STRONG_SEPARATOR = re.compile(r"then|[;.?!]", _F)
_LIST_HEADER = re.compile(r"\b(?:add|put|new|todos?|to-dos?)\b[^.;?!]*?(?::|\s-\s)[^.?!]*$", _F)
_QUESTION_TAIL = arithmetic.QUESTION_TAIL
_ABBREVIATION = re.compile(r"\b(?:dr|mr|mrs|ms|st|jr|sr|vs|etc|prof|no|e\.g|i\.e)$", _F)


def _protected_spans(text: str) -> list[tuple[int, int]]:
    """Spans of top-level {...} JSON objects (and the strings inside them), where a comma or
    "and" is part of the arguments rather than a clause separator, and of quoted names, kept as
    written (tidy leaves them be) and whole (no clause ends inside one)."""
    objects = _json_spans(text)
    quoted = [(a, b) for a, b in normalize.quoted_spans(text) if not any(s < b and a < e for s, e in objects)]
    taken = objects + quoted
    # an emoji _emoji_end kept as a word (between its marks)
    kept = [(m.start(), m.end()) for m in _KEPT_EMOJI.finditer(text)] if "\ue002" in text else []
    taken += [(a, b) for a, b in kept if not any(s < b and a < e for s, e in taken)]
    # "buy batteries (AA, not AAA)": a comma in parentheses is the todo's, not a clause's end.
    bracketed = [(a, b) for a, b in _paren_spans(text) if not any(s < b and a < e for s, e in taken)]
    taken += bracketed
    # "mark the first and the last done": the "and" joins two positions of one reference
    positions = [(m.start(), m.end()) for m in followups.POSITIONS_SAID.finditer(text)]
    return sorted(taken + [(a, b) for a, b in positions if not any(s < b and a < e for s, e in taken)])


def _paren_spans(text: str) -> list[tuple[int, int]]:
    """Spans of balanced top-level (...) groups of at most 200 characters."""
    if "(" not in text:  # most prompts: no walk through them a character at a time
        return []
    spans, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "(":
            if depth == 0:
                start = index
            depth += 1
        elif char == ")" and depth:
            depth -= 1
            if depth == 0 and index - start <= 200:
                spans.append((start, index + 1))
    return spans


def _json_spans(text: str) -> list[tuple[int, int]]:
    if "{" not in text:  # most prompts: no walk through them a character at a time
        return []
    spans, depth, start, in_string, escaped = [], 0, 0, False, False
    for index, char in enumerate(text):
        if in_string:
            escaped = char == "\\" and not escaped
            if char == '"' and not escaped:
                in_string = False
            continue
        if char == '"' and depth:
            in_string = True
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, index + 1))
    if depth:
        spans.append((start, len(text)))
    return spans


_KEPT_EMOJI = re.compile("\ue002[^\ue003]*\ue003")


def _split(prompt: str) -> tuple[list[str], list[str]]:
    """Split at clause separators outside JSON objects: (pieces, separators between them)."""
    protected = _protected_spans(prompt)
    pieces, separators, last = [], [], 0
    for match in _SEPARATORS.finditer(prompt):
        if any(start <= match.start() < end for start, end in protected):
            continue
        if "." in match.group() and _ABBREVIATION.search(prompt, max(0, match.start() - 5), match.start()):
            continue  # "call Dr. Smith": the full stop of an abbreviation does not end a sentence
        pieces.append(prompt[last : match.start()])
        separators.append(match.group())
        last = match.end()
    pieces.append(prompt[last:])
    return pieces, separators


_STOP = re.compile(r"[.!;]|\s-\s")
