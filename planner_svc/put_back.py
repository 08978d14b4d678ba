"""A deleted todo put back by its name: "put the gym one back", "bring back the milk", "restore
call mom". The thread's changes say which todos it removed (by the action each tool declares
reverses a removal: restore for todo_store) and which came back since; the name picks one of
those still gone by its words, planned by id. A name that fits none of them, or several, is
refused naming them: a deleted todo is never looked up by its text (the tool restores by id
only), and never guessed."""

from __future__ import annotations

import re

from agentrt.core import toolrefs
from planner_svc.amends import answering, by_id, quoted, refuse
from planner_svc.counting import has_words
from planner_svc.discourse import Discourse, Thing, named
from planner_svc.grammar.intent import SUMMARY, Intent

_F = re.IGNORECASE
_PUT_NAMED_BACK = re.compile(
    r"^(?:(?:oh|ok|okay|oops|actually|wait|no|sorry|ugh|hmm+|then|and|so|please|pls|can\s+you|could\s+you)[\s,.!-]+)*"
    r"(?:(?:put|bring|get)\s+(?P<x>.+?)\s+back|(?:put|bring|get)\s+back\s+(?P<y>.+?)|(?:restore|undelete|recover)\s+(?P<z>.+?))"
    r"(?:\s+on(?:to)?(?:\s+the|\s+my)?\s+(?:todo\s+)?list|\s+again|\s+please|\s+pls|\s+then)*[\s.!?]*$",
    _F,
)
# ("put it back", "restore that": the last change, undone, acts.py; "restore everything": no name)
_NO_NAME = re.compile(
    r"^(?:it|that|this|them|those|these|that\s+one|this\s+one|everything|all(?:\s+of\s+them)?|the\s+last\s+\w+)$",
    _F,
)
_ONE = re.compile(r"^(?:the|my)\s+(?P<x>.+?)\s+(?:one|todo|task|thing|item)$", _F)


def put_back(message: str, discourse: Discourse, available_tools: set[str]) -> list[Intent] | None:
    """The plan that restores the deleted todo `message` names; None when it names none (another
    rule reads it)."""
    if not (m := _PUT_NAMED_BACK.match(message.strip())):
        return None
    name = " ".join((m["x"] or m["y"] or m["z"]).split())
    if _NO_NAME.match(name):
        return None
    name = one.group("x") if (one := _ONE.match(name)) else re.sub(r"^(?:the|my)\s+", "", name, flags=_F)
    gone = _still_gone(discourse)
    if not gone:
        return None  # nothing deleted in this thread: not ours to read ("restore the old photos")
    fits = [(t, inverse) for t, inverse in gone if has_words(t.text, name)]
    if len(fits) != 1:
        raise refuse(
            f"{quoted(message)} asks to put back a deleted todo named {name!r}, and "
            f"{len(fits) or 'none'} of those this thread deleted fit: "
            f"{named(tuple(t for t, _ in fits or gone))}; say which"
        )
    thing, inverse = fits[0]
    if thing.tool not in available_tools:
        raise refuse(f"putting back {thing} needs {thing.tool}, which the catalog does not have now")
    why = f"puts back the deleted {thing}"
    return [
        answering(i, f"Put back {thing}: " + SUMMARY)
        for i in by_id(message, thing.tool, inverse, (thing,), why)
    ]


def _still_gone(discourse: Discourse) -> list[tuple[Thing, str]]:
    """The things the thread's changes removed and did not bring back since, oldest first, each
    with the action that brings it back."""
    gone: dict[tuple[str, int | str], tuple[Thing, str]] = {}
    for change in discourse.changes:
        for call in change.calls:
            for thing in call.things:
                key = (thing.tool, thing.id)
                if call.effect == toolrefs.REMOVED and call.inverse:
                    gone[key] = (thing, call.inverse)
                else:
                    gone.pop(key, None)  # back again (restored, or changed: on the list)
    return list(gone.values())
