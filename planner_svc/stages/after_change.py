"""What follows a change to a todo after a comma, read for what it asks: talk about why it was
changed ("remove the umbrella one, forecast says sunny"), what was done to the one named ("delete
the bike one, I sold the bike"), or one more thing named ("..., also the boots"), which is never
talk to skip. (remarks.py reads what asks for nothing after any request; these are its cases
after a change.)"""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon, todos
from planner_svc.grammar.intent import Intent
from planner_svc.stages.common import _F
from planner_svc.stages.polite import _clean

# After a change to a todo and a comma, words no rule reads ("remove the umbrella one, forecast
# says sunny", "delete the gym one, membership expired on its own") say why: skipped, when they
# have none of the words of a request, a count, a correction or a question (those are refused as
# not understood: a request missed would be worse than a refusal).
_NOT_TALK = re.compile(
    rf"^(?:{'|'.join(sorted(lexicon.TODO_VERBS))}|and|also|then|plus|but|or|so|keep|leave|wait|sorry|no|nope|undo"
    r"|actually|oops|make|mark|tick|check|cross|put|add|delete|remove|do|don't|dont|not|never|just|only)\b"
    r"|\b(?:need|needs|want|wants|should|must|have\s+to|has\s+to|please|pls|plz|can|could|would|remind|todos?"
    r"|to-do|tasks?|list|items?|instead|rather|also|too|as\s+well|first|second|third|fourth|fifth|last|other|another"
    r"|latter|former|next|add|delete|remove|mark|done|finished|complete|undo|reopen|untick|show|tell|count|what|how"
    r"|which|when|where|who|except|but|not|isn't|aren't|wasn't|don't|didn't|meant|mean|correct|wrong|if|unless)\b"
    r"|[0-9?%$\u00a3\u20ac#\"]",
    _F,
)


def talk_after_change(intents: list[Intent], separator: str, piece: str) -> bool:
    """Whether `piece`, after a comma that follows a change to named todos and read by no rule,
    is only talk about it (the caller checks that no rule reads it)."""
    said = _clean(piece)
    return (
        bool(intents)
        and "," in separator
        and intents[-1].tool == "todo_store"
        # (after a done, the words may report another: "bought eggs, mom called")
        and intents[-1].arguments.get("action") in ("delete", "reopen")
        and 2 <= len(said.split()) <= 10
        and not _NOT_TALK.search(said)
        # (_clean drops a last "too", which asks for one more)
        and not _ONE_MORE.search(piece.strip())
    )


# "delete the bike one, I sold the bike": what was done to the one the request named, said in
# the past with its words (all of them among the name's), is why; never a todo of its own
_DID_TO_THING = re.compile(
    r"^(?:(?:i|we)\s+)?(?:already\s+|just\s+|finally\s+)?"
    rf"(?:{todos.PAST}|{todos.SIMPLE_PAST})\s+(?:(?:the|my|our|that|this)\s+)?(?P<what>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){{0,2}})"
    r"(?:\s+(?:already|today|yesterday|lol|haha))*$",
    _F,
)


def did_to_the_one_named(request: Intent, said: str) -> bool:
    named = request.arguments.get("text")
    if request.arguments.get("action") not in ("delete", "complete", "reopen") or not isinstance(named, str):
        return False
    told = _DID_TO_THING.match(said)
    return told is not None and set(told.group("what").lower().split()) <= set(named.lower().split())


_ONE_MORE = re.compile(r"^\W*(?:and|also|plus)\b|\b(?:too|as\s+well)\W*$", _F)
# A thing named, no sentence: "the boots" (not "the trip's off", "my membership ran out")
_THING_ALONE = re.compile(
    r"(?!my\s+(?:bad|mistake|fault|apologies|god|goodness|gosh)\b)"
    rf"(?:the|my|our|his|her|their)\s+(?!.*\b(?:{todos.PAST}|{todos.SIMPLE_PAST})\b)(?:[a-z-]+\s+)?[a-z-]+",
    _F,
)


def one_more_named(intents: list[Intent], piece: str) -> bool:
    """Whether `piece`, after a change to a todo, names one more ("remove the umbrella one, also
    the boots"): never a remark to skip (after a read, "the done ones too" may widen it)."""
    return (
        bool(intents)
        and intents[-1].tool == "todo_store"
        and intents[-1].arguments.get("action") in ("delete", "complete", "reopen")
        and bool(_ONE_MORE.search(piece.strip()) or _THING_ALONE.fullmatch(_clean(piece)))
    )
