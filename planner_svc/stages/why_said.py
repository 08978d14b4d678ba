"""Why a request was asked, said beside it: a reason after a delete ("delete all my todos, trip
is cancelled"), after "because" ("add order new glasses since I sat on mine"), or what I did to
the one named ("delete call mom, I already called her"). Such a piece is never a change of its own.
remarks.py says what else a piece that asks for nothing may be."""

from __future__ import annotations

import re

from planner_svc.grammar import todos
from planner_svc.grammar.intent import Intent
from planner_svc.stages.after_change import did_to_the_one_named
from planner_svc.stages.common import _F
from planner_svc.stages.polite import _clean
from planner_svc.stages.remarks import _COMMENT, _TOLD, _remark

_CALLED_OFF = re.compile(
    r"^(?:the\s+|my\s+|our\s+)?[\w' -]+?(?:'s|\s+(?:is|are|was|were|got|has\s+been|have\s+been))\s+"
    r"(?:now\s+)?(?:cancell?ed|called\s+off|off|postponed|over|not\s+happening)$"
    # a headline: "exams cancelled", "trip called off" (after a delete: why, not a todo reported done)
    r"|^(?:the\s+|my\s+|our\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+(?:cancell?ed|called\s+off|postponed)$"
    r"|^(?:(?:my|our|the)\s+)?plans\s+(?:have\s+)?changed$|^(?:a\s+)?change\s+of\s+plans?$"
    r"|^(?:it\s+is\s+|it's\s+)?(?:not|no\s+longer)\s+needed(?:\s+any\s?more)?$",
    _F,
)


def _why_deleted(intents: list[Intent], piece: str) -> bool:
    """Whether `piece`, after the todos deleted by the last of `intents`, says why ("drop 'book
    flights', the trip is canceled"): the reason for the delete, not a report of another todo."""
    if not (
        bool(intents)
        and intents[-1].tool == "todo_store"
        and intents[-1].arguments.get("action") in ("delete", "delete_all")
    ):
        return False
    said = _clean(piece)
    if _CALLED_OFF.match(said):
        return True
    # "..., she's coming to visit us instead", "..., turns out it's valid till 2030": a remark
    # about it, even with the "instead" or the year that may not be in one elsewhere (after an add,
    # "instead" may correct it; a number may be a sum's)
    bare = _A_YEAR.sub("then", re.sub(r"\s+instead$", "", said, flags=_F))
    return bare != said and (_remark(bare) or bool(_COMMENT.fullmatch(bare)))


_A_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


# The words before a piece that say it is why ("because", "since" before a subject: segment.py).
_WHY_SEPARATOR = re.compile(r"^\s*(?:because|bc|b/c|cos|coz|cuz|since)\s*$", _F)


def _why_told(intents: list[Intent], separator: str, piece: str) -> bool:
    """Whether `piece`, after a request and "because" ("add order new glasses since I sat on mine
    lol"), says why it was asked: a sentence with its subject first (_TOLD). Never a change of its
    own, whatever it tells ("I sat on mine" is no report of a todo done)."""
    said = _clean(piece)
    if not intents:
        return False
    if _WHY_SEPARATOR.match(separator):
        return bool(_TOLD.match(said))
    # "mark buy stamps as not done, I bought the wrong ones", "delete call mom, I already called
    # her": after a comma, what I did to one the request named (a pronoun, "the wrong ones") says
    # why; it names no todo of its own to report done
    if "," not in separator or intents[-1].tool != "todo_store":
        return False
    # "nuke the dentist thing, I rescheduled online already": after a delete, done already is why
    deleted = intents[-1].arguments.get("action") in ("delete", "delete_all")
    return (
        bool(_I_DID_TO_IT.match(said))
        or (deleted and bool(_DID_ALREADY.match(said)))
        or did_to_the_one_named(intents[-1], said)
    )


_DID_ALREADY = re.compile(
    r"^(?:i|we)\s+(?:already\s+)?[a-z]+(?:ed|ought|aught|id|one)\b(?:\s+[\w']+){0,5}?\s+already$", _F
)
_T_PASTS = (
    "sent|spent|lent|left|built|bent|meant|dealt|felt|kept|slept|swept|wept|burnt|learnt|dreamt|spelt|lost|met"
    "|sat|shot|lit|forgot|went|brought|caught"
)
_I_DID_TO_IT = re.compile(
    # ("venmo'd her", "paid him", "found mine": the subject left out)
    # (a past in -t is one of _T_PASTS: "list them", "visit her" are requests; one spelt like
    # its present, "put", "cut", only after "I" or "we")
    r"^(?:(?:(?:i|we)\s+)?(?:already\s+|just\s+|actually\s+|accidentally\s+)?"
    rf"(?:[a-z]+(?:ed|'d|ought|aught)|{_T_PASTS}|paid|did|got|{todos.SIMPLE_PAST})"
    r"|(?:i|we)\s+(?:already\s+|just\s+|actually\s+|accidentally\s+)?(?:put|cut|set|hit|let|shut|quit|read))\b"
    r"(?:\s+[\w']+){0,4}?\s+(?:her|him|them|it|mine|ours|the\s+wrong\s+ones?|the\s+wrong\s+\w+|one)"
    r"(?:\s+(?:already|again|yesterday|today|earlier|by\s+mistake|lol|haha|this\s+morning"
    r"|last\s+(?:night|week|month|year)))*$",
    _F,
)
