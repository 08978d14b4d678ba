"""One todo of the last change taken back: "bought both", then "oh wait, I didn't get the eggs
actually" or "no, not the eggs, they were sold out". The turn before changed several todos; the
message names one of them and says it was not meant (or not done): that one's change reversed by
the inverse action its tool declares, by id and guarded, the others left as they are. A name that
fits none of the changed todos, or several, is refused naming them; acts.py finds the change."""

from __future__ import annotations

import re
from dataclasses import replace

from agentrt.core import toolrefs
from planner_svc.amends import DONE, answering, by_id, guarded, quoted, refuse
from planner_svc.counting import has_words
from planner_svc.discourse import Change, named
from planner_svc.grammar.intent import Intent

_F = re.IGNORECASE
_OPEN = r"(?:(?:oh|ok|okay|oops|whoops|hm+|actually|wait|no|nope|sorry|ugh|argh|my\s+bad|er+|um+)[\s,.!-]*)*"
_CLOSE = r"(?:[\s,]+(?:actually|after\s+all|yet|though|sorry|my\s+bad|lol|oops))*[\s.!?]*"
# What says why, after the todo taken back: a sentence of its own ("they were sold out", "it's
# tomorrow"), never another name (that is a correction: "not the eggs, the milk", acts.py).
_WHY = (
    r"(?:[\s,.;-]+(?:(?:they|it|she|he|we|i|that|there)(?:'[a-z]+)?\s.*|(?:they|it|that|there)'s\s.*"
    r"|(?:sold\s+out|out\s+of\s+stock|closed|not\s+yet|still\s+(?:need|to\s+do|open)).*))?"
)
_NOT_THAT_ONE = re.compile(rf"^{_OPEN}not\s+(?P<y>[^,.;!?]+?){_CLOSE}{_WHY}$", _F)
# "I didn't get the eggs", "we haven't paid the gas one yet": a report of one of them, denied
_DID_NOT = re.compile(
    rf"^{_OPEN}(?:i|we)\s+(?:did\s+not|didn't|didnt|have\s+not|haven't|havent|never)\s+(?:actually\s+|really\s+)?"
    r"(?:get|got|buy|bought|do|done|finish|finished|pay|paid|call|called|send|sent|book|booked|pick\s+up"
    r"|picked\s+up|make|made|fix|fixed|clean|cleaned|return|returned|order|ordered|post|posted)\s+"
    rf"(?P<y>[^,.;!?]+?){_CLOSE}{_WHY}$",
    _F,
)
_ARTICLE = re.compile(r"^(?:the|my)\s+", _F)
_ONE = re.compile(r"\s+(?:one|todo|task|thing|item)$", _F)
# ("not that one", "not it": the whole change rejected, acts.py; "not yet": a state, no name)
_NO_NAME = re.compile(r"^(?:that|this|it|them|those|these|yet|now|really|sure|done|both|all)(?:\s+one)?$", _F)


def said_not(message: str) -> tuple[str, bool] | None:
    """The name of the todo `message` takes back ("the eggs"), and whether it denies a report of
    it ("I didn't get the eggs"); None when it takes back none."""
    denied = _DID_NOT.match(message.strip())
    m = denied or _NOT_THAT_ONE.match(message.strip())
    if m is None:
        return None
    name = _ONE.sub("", _ARTICLE.sub("", " ".join(m["y"].split())))
    return None if not name or _NO_NAME.match(name) else (name, denied is not None)


def take_back(
    message: str, said: tuple[str, bool], change: Change, available_tools: set[str]
) -> list[Intent] | None:
    """The step that reverses `change` for the one todo the name fits; None when the change was
    to one todo and the message only said "not" it (which one was meant is still to say: acts.py
    reads it as a rejection). "I didn't get the milk" after "got the milk" takes it back."""
    name, denied = said
    changed = [(call, t) for call in change.calls for t in call.things]
    if denied and any(call.effect != toolrefs.CHANGED for call, _ in changed):
        return None  # "I didn't get the milk" denies it done, never a delete or an add
    if len(changed) < 2 and not denied:
        return None
    fits = [(call, t) for call, t in changed if has_words(t.text, name)]
    if len(fits) != 1:
        raise refuse(
            f"{quoted(message)} takes back {name!r} of {change.describe()}, and "
            f"{len(fits) or 'none'} of those fit: say which (or undo it all)"
        )
    call, thing = fits[0]
    if not call.inverse:
        raise refuse(f"{change.describe()} cannot be undone: {call.tool} declares no action reversing it")
    if call.tool not in available_tools:
        raise refuse(f"undoing {change.describe()} needs {call.tool}, which the catalog does not have now")
    one = replace(call, things=(thing,))
    (step,) = guarded(by_id(message, call.tool, call.inverse, (thing,), f"takes back {thing}"), one)
    left = [t for _, t in changed if t != thing]
    said = (
        f"Took back turn {change.turn}'s change to {thing}: {DONE.get(call.inverse, call.inverse)}; "
        f"{named(tuple(left))} left as {'it is' if len(left) == 1 else 'they are'}."
    )
    return [answering(step, said)]
