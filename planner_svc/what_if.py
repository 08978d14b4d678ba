"""A word problem asked again with one of its numbers changed, the rest left unsaid: "there are
7 of us and the bill is 231, how much each?", then "and if there were 5 of us?"; "if I save 45
a week, how much after 12 weeks?", then "and after 20 weeks?" / "what if I saved 40 a week
instead?". The number said replaces the one number of the earlier request that the same words
follow ("of us", "a week", "weeks") or, with none after it, the same word comes before ("after
20"); the request so changed is read again by the grammar (stages/cover.py, never the whole
planner), and only when the request as it was reads as the very sum that turn computed.

Refused, naming the numbers it could replace, when it could replace several ("and for 10?" after
"250 g for 4 people, how much for 6 people?") or none; None when the message is no such follow-up
or nothing was computed (the other rules' refusal stands). Percentages asked again alone ("and
20%?") are ellipsis.py's.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import replace

from planner_svc.amends import quoted, refuse
from planner_svc.discourse import Discourse
from planner_svc.grammar import arithmetic
from planner_svc.grammar.intent import Intent
from planner_svc.planner import PlanningFailed
from planner_svc.stages.cover import _cover
from planner_svc.stages.tidy import _tidy

_F = re.IGNORECASE
_WHAT_IF = re.compile(
    r"^(?:(?:ok|okay|so|hmm+|and|but|oh|right)[\s,]+)*"
    r"(?:what\s+if|and\s+if|if|what\s+about|how\s+about|and\s+what\s+about|and\s+(?P<at>with|for|after|at|over|in))"
    r"\s+(?P<body>[^?!;,]+?)(?:,?\s+instead)?[\s?.!]*$",
    _F,
)
_NUMBER = re.compile(r"(?<![\w.])[$£€]?(?P<n>\d+(?:\.\d+)?)(?:%|\s*percent)?(?![\w.%])", _F)
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?", _F)
# Words that ask something or change the list: never a number's new value alone.
_ASKS_MORE = re.compile(
    r"\b(?:add|delete|remove|mark|todo|todos|task|tasks|list|done|plus|minus|times|divided|more|less|another|extra"
    r"|double|half|halve|triple|split|tip|tax|vat|off|discount)\b",
    _F,
)
# Words that say nothing of which number ("what if it were 300", "if there were 5")
_SAYS_NOTHING = frozenset(
    ["it", "was", "were", "is", "are", "be", "there", "we", "i", "had", "have", "the", "a", "an", "instead",
     "then", "only", "just", "us", "of", "me"]
)  # fmt: skip


def asked_again(message: str, discourse: Discourse) -> list[Intent] | None:
    m = _WHAT_IF.match(message.strip())
    if not discourse.sums or not (m or arithmetic.asks_in_unit(message)):
        return None
    turn, _, results = discourse.sums[-1]
    if discourse.not_done_before is not None and discourse.not_done_before[0] > turn:
        return None  # the turn before was not done: it may be the sum this follows
    if len(results) != 1 or (asked := _request_of(discourse)) is None:
        return None  # several results, or the request is not read as the sum it computed
    (result,) = results
    if m is None or arithmetic.asks_in_unit(message):
        # "how many weeks is 91 days?", then "and in hours?": the amount, in the unit asked now
        if (in_unit := arithmetic.again_in(asked, message)) is None:
            return None
        why = f"{quoted(message)} asks turn {turn}'s amount ({quoted(asked)}) in another unit"
        return [replace(in_unit, clause=message, reasoning=why)]
    try:
        found = _substituted(m, asked)
    except _Several as several:
        raise refuse(
            f"{quoted(message)} changes a number of turn {turn}'s request ({quoted(asked)}), and the "
            f"numbers it could replace are {several}: say the sum again"
        ) from None
    if found is None:
        return None
    changed, new, old = found
    made = _sum(changed)
    if made is None or made.arguments.get("expression") == result.expression:
        return None
    why = f"{quoted(message)} asks turn {turn}'s sum again ({result}) with {new} in place of {old}"
    return [
        replace(made, clause=message, reasoning=why, answer=f"With {new} in place of {old}: {made.answer}")
    ]


class _Several(Exception):
    """The numbers of a request that a number said could replace (several, or none)."""


def _request_of(discourse: Discourse) -> str | None:
    """The latest sum's request as it was read: its own words when they read as that sum, or the
    request before it with the number its follow-up changed ("and after 20 weeks?", then "what if
    I saved 40 a week instead": 40 a week for 20 weeks). None when neither reads as the sum."""
    # Only the latest sum asked in words of its own, and the follow-ups since: each reread once
    start = len(discourse.sums) - 1
    while start > 0 and _WHAT_IF.match(_tidy(discourse.sums[start][1].strip())):
        start -= 1
    request = None
    for _, prompt, results in discourse.sums[start:]:
        text = _tidy(prompt.strip())
        if len(results) != 1:
            request = None
        elif _expression(text) == results[0].expression:
            request = text
        elif request is not None and (m := _WHAT_IF.match(text)):
            try:
                found = _substituted(m, request)
            except _Several:
                found = None
            request = found[0] if found and _expression(found[0]) == results[0].expression else None
        else:
            request = None
    return request


def _substituted(m: re.Match[str], asked: str) -> tuple[str, str, str] | None:
    """`asked` with the number the follow-up `m` says in place of the one it replaces: (the
    request changed, the number said, the number replaced); None when it says no one number."""
    body = m.group("body")
    numbers = list(_NUMBER.finditer(body))
    if len(numbers) != 1 or _ASKS_MORE.search(body) or "%" in body:
        return None
    (said,) = numbers
    told = {w.lower()[:4] for w in _WORD.findall(asked)}
    if any(w.lower()[:4] not in told for w in _WORD.findall(body) if w.lower() not in _SAYS_NOTHING):
        return None  # "if 2 of us leave", "what if I withdraw 10 a week": more than a number changed
    after = _words_after(body, said.end())
    before = _word_before(body, said.start()) or (m.group("at") or "").lower()
    if not after and (not before or before in _SAYS_NOTHING):
        return None  # "what if it were 300": which number, nothing says
    fits = [
        n
        for n in _NUMBER.finditer(asked)
        if (after and _same(_words_after(asked, n.end())[: len(after)], after))
        or (not after and _word_before(asked, n.start()) == before)
    ]
    if len(fits) != 1:
        raise _Several(", ".join(n.group(0) for n in fits) or "none")
    (old,) = fits
    changed = f"{asked[: old.start('n')]}{said.group('n')}{asked[old.end('n') :]}"
    return changed, said.group("n"), old.group("n")


def _sum(text: str) -> Intent | None:
    """The one calculation `text` reads as (by the grammar alone), else None."""
    with contextlib.suppress(PlanningFailed):
        intents = _cover(text, text, None)
        if len(intents) == 1 and intents[0].tool == "calculator" and not intents[0].refers:
            return intents[0]
    return None


def _expression(text: str) -> str | None:
    """The expression of the one calculation `text` reads as, else None."""
    made = _sum(text)
    return None if made is None else str(made.arguments.get("expression", ""))


def _words_after(text: str, at: int) -> list[str]:
    """The (at most two) words right after a number, lowercase, up to the end of its clause."""
    clause = re.split(r"[,.;!?]", text[at:], maxsplit=1)[0]
    return [w.lower() for w in _WORD.findall(clause)[:2]]


def _word_before(text: str, at: int) -> str:
    found = _WORD.findall(re.split(r"[,.;!?]", text[:at])[-1])
    return found[-1].lower() if found else ""


def _same(these: list[str], those: list[str]) -> bool:
    """Word by word the same, a plural the same as its singular ("weeks", "week")."""
    return len(these) == len(those) and all(
        a.rstrip("s") == b.rstrip("s") for a, b in zip(these, those, strict=True)
    )
