"""Discourse acts: a whole message that acts on the conversation itself rather than asking for
something new, planned against the discourse model (discourse.py):

- undo: "undo that", "oops, undo", "revert that" reverses the thread's last change not undone
  yet, each call by the inverse action its tool declares (an add by a delete, a done by a reopen,
  a delete by a restore), by id; refused when nothing was changed, or a change cannot be undone;
- a correction in the turn right after a change: "no, I meant almond milk, not oat milk", "sorry,
  I meant call mom", "sorry, the other one", "no, the second one": the last change undone and the
  corrected one made, in one plan; refused when what it corrects is not clear;
- the last change again on another thing: "and the other one too", "that one as well".

This module reads which act a message is; undo.py plans an undo (and "redo"), amends.py what a
correction or an "again" asks for. `act` answers None for any other message (the grammar reads
it). Every intent here names what it reverses and what a reference was read as, in its reasoning
and its answer.
"""

from __future__ import annotations

import re

from agentrt.core import toolrefs
from planner_svc import ellipsis, one_more, put_back, replies, taken_back, undo
from planner_svc.act_words import PIECES as _PIECES
from planner_svc.act_words import POLITE_REST as _POLITE_REST
from planner_svc.act_words import REQUEST as _REQUEST
from planner_svc.amends import (
    Act,
    action_said,
    again,
    correct,
    quoted,
    recomputed,
    refuse,
)
from planner_svc.discourse import Change, Discourse
from planner_svc.followups import todo_reference
from planner_svc.grammar.intent import Intent
from planner_svc.stages.remarks import asks_something

_F = re.IGNORECASE
# What may open an act without changing it: "oops, undo that", "no wait, I meant ...".
_OPENING = (
    r"(?:(?:oh|ok|okay|oops|whoops|hm+|lol(?=[\s,.!-])|k(?=[\s,.!-])|actually|wait|no|nope|sorry|ugh|argh|my\s+bad|er+|um+|please|pls"
    r"|can\s+you|could\s+you|(?:that's\s+|that\s+is\s+)?(?:the\s+)?wrong\s+one)[\s,.!-]*)*"
)
_CLOSING = r"(?:[\s,]+(?:please|pls|thanks|thank\s+you|sorry|my\s+bad|lol|haha|oops))*[\s.!?]*"
_UNDO = re.compile(
    rf"^{_OPENING}(?:(?:undo|revert|reverse|roll\s+back)"
    r"(?:\s+(?:that|this|it|the\s+last\s+(?:change|one|thing|action|step)|what\s+you\s+(?:just\s+)?did"
    r"|my\s+last\s+(?:change|action|request)|the\s+last\s+thing\s+(?:i|you)\s+did))?"
    # "scratch that", "cancel that", "take that back": the last thing said, taken back ("cancel it"
    # may be the todo itself, done or deleted: not an undo)
    r"|(?:scratch|cancel)\s+that|take\s+(?:that|it)\s+back|(?:go\s+)?back\s+to\s+how\s+it\s+was)"
    # "undo again": after an undo, the change before it (each undo takes back one more)
    r"(?:\s+(?:again|once\s+more|one\s+more\s+time))?"
    rf"{_CLOSING}$",
    _F,
)
# "undo twice", "undo the last two changes": the last change and the one before it
_UNDO_TWICE = re.compile(
    rf"^{_OPENING}(?:undo(?:\s+(?:that|it))?\s+(?:twice|two\s+times|2\s+times|x\s*2)"
    # (not "undo the last two": after a change of two todos, those two, most likely)
    rf"|undo\s+(?:the|my)\s+last\s+(?:two|2)\s+(?:changes|steps|actions)){_CLOSING}$",
    _F,
)
# "redo", "undo the undo": the last change was an undo, made again
_REDO = re.compile(
    rf"^{_OPENING}(?:redo(?:\s+(?:that|it|the\s+last\s+(?:change|one)))?|undo\s+(?:the|that|my|your)\s+undo)"
    rf"(?:\s+(?:then|again))?{_CLOSING}$",
    _F,
)
# "I meant X", "I meant X, not Y", "make that X", "it should have been X" (after a marker, or alone)
_MEANT = re.compile(
    rf"^{_OPENING}(?:(?:i\s+)?meant|i\s+said|make\s+(?:that|it)|(?:(?:it|that)\s+)?should\s+(?:have\s+been|be)"
    r"|change\s+(?:that|it)\s+to)\s+(?P<x>(?:[^.;!?]|\.(?=\d))+?)(?:\s*[,;]?\s+(?:and\s+)?not\s+(?P<y>.+?))?"
    rf"(?:\s+instead)?{_CLOSING}$",
    _F,
)
# "no, not oat milk, almond milk"
_NOT_THIS = re.compile(
    rf"^{_OPENING}not\s+(?P<y>.+?)\s*(?:[,;]|\s[-\u2013\u2014])\s*(?P<x>.+?){_CLOSING}$", _F
)
# "sorry, the other one", "no, the second one": a marker, then a reference alone
_MARKED = re.compile(
    r"^(?:(?:no|nope|sorry|oops|whoops|wait|actually|my\s+bad|correction:?|(?:that's\s+|that\s+is\s+)?(?:the\s+)?wrong\s+one"
    r"|not\s+that\s+one)[\s,.!\u2013\u2014-]+)+(?P<x>.+?)"
    rf"(?:\s+(?:instead|i\s+meant?))?{_CLOSING}$",
    _F,
)
# "almond milk, not oat": X, not Y said alone (a sentence of its own is no X)
_X_COMMA_NOT_Y = re.compile(
    r"^(?!(?:i|we|you|he|she|they|it|that|this)\b)(?P<x>[^,.;!?]+?)\s*,\s*not\s+(?P<y>[^,.;!?]+?)"
    rf"{_CLOSING}$",
    _F,
)
# At most this many words in a correction said bare after a marker ("no wait, almond milk"): a
# name put right, not a request of its own.
MAX_BARE_WORDS = 5
# "and the other one too", "that one as well", "the other one too please"
_TOO = re.compile(
    r"^(?:(?:and|also|now|ok|okay)[\s,]+)*(?P<x>.+?)\s+(?:too|as\s+well|also)" + _CLOSING + "$", _F
)
# "no sorry, almond milk not oat milk", "oh wait, 20% not 15": a marker first, then X, not Y
_X_NOT_Y = re.compile(
    r"^(?:(?:oh|no|nope|sorry|oops|whoops|wait|actually|ugh|my\s+bad)[\s,.!-]+)+"
    # (never a sentence of its own: "no wait, I have not posted them yet")
    r"(?!(?:i|we|you|he|she|they|it|that|this|oh|no|nope|sorry|oops|whoops|wait|actually|ugh)\b)"
    r"(?P<x>[^,.;!?]+?)\s*,?\s+not\s+"
    rf"(?P<y>[^,.;!?]+?){_CLOSING}$",
    _F,
)
# "and the other one", "and that other one too actually": the last change, to the other one
_AND_OTHER = re.compile(
    r"^(?:(?:and|also|now|ok|okay)[\s,]+)+(?P<x>(?:the|that)\s+(?:other|first|second|third|fourth|fifth|last|next"
    r"|\d{1,2}(?:st|nd|rd|th))"
    r"(?:\s+one)?)"
    rf"(?:\s+(?:too|as\s+well|also))?(?:\s+actually)?{_CLOSING}$",
    _F,
)

# "I meant call mom too": one more, not one in place of another
_ALSO = re.compile(r"\b(?:too|as\s+well|also)\W*$", _F)


# "oh wait, put it back": a delete or a done reversed (after an add, what "back" means is unclear)
_PUT_BACK = re.compile(
    rf"^{_OPENING}(?:put|bring|add)\s+(?:it|that|them|that\s+one|those)\s+back(?:\s+on(?:\s+the|\s+my)?\s+list)?"
    rf"{_CLOSING}$",
    _F,
)


def act(message: str, discourse: Discourse, available_tools: set[str]) -> list[Intent] | None:
    """The plan of `message` when it is a discourse act; None when it is not one."""
    if (replied := replies.reply(message, discourse)) is not None:
        return replied
    if (asked_again := ellipsis.again(message, discourse)) is not None:
        return asked_again
    if (change := _just_changed(message, discourse)) and (more := one_more.one_more(message, change)):
        return more
    if (back := put_back.put_back(message, discourse, available_tools)) is not None:
        return back
    if _do_not(message, discourse):
        return undo.undo(message, discourse, available_tools, _asked_undo)
    if _UNDO_TWICE.match(message.strip()):
        return undo.undo(message, discourse, available_tools, _asked_undo, times=2)
    if _REDO.match(message.strip()):
        return undo.redo(message, discourse, available_tools, _asked_undo)
    if (
        (said_not := taken_back.said_not(message)) is not None
        and (change := _just_changed(message, discourse, correcting=True))
        and (back := taken_back.take_back(message, said_not, change, available_tools)) is not None
    ):
        return back  # "bought both", then "wait, I didn't get the eggs": that one of the change reversed
    found = _read(message.strip())
    if found is None:
        return None
    if found.kind == "undo":
        last = discourse.last_change(_asked_undo) if found.x == "put back" else None
        if last is not None and any(c.effect == toolrefs.ADDED for c in last.calls):
            raise refuse(
                f"{quoted(message)} asks to put back what was removed or ticked off, but the last change was "
                f"{last.describe()}: say what to do"
            )
        return undo.undo(message, discourse, available_tools, _asked_undo)
    change = _just_changed(message, discourse, correcting=found.kind == "correct")
    if found.kind == "correct" and (sum_again := recomputed(message, found, discourse, change)) is not None:
        return sum_again
    if change is None:
        return None  # no change in the turn before: not a correction of one (the grammar reads it)
    if found.kind == "again":
        return again(message, found.x, change, discourse)
    return correct(message, found, change, discourse)


# "wait no, don't delete it (, I still need to call him)": the change just made, not wanted
_DO_NOT_IT = re.compile(
    rf"^{_OPENING}(?:do\s+not|don't|dont)\s+(?P<change>(?:delete|remove|mark|tick|check|cross|complete|finish)"
    r"\s+(?:it|that|that\s+one|this\s+one)(?:\s+(?:off|done|as\s+done|complete|completed))?)"
    r"(?P<rest>\s*(?:[,.;!]|\s-\s).*)?$",
    _F,
)


def _do_not(message: str, discourse: Discourse) -> bool | None:
    """True when "don't delete it" asks to undo the change of the turn just before (that change
    was this action, of one todo); None when the message is no such thing (more follows that
    asks for something: the other rules read it); refused when the turn before made another."""
    if not (m := _DO_NOT_IT.match(message.strip())):
        return None
    rest = [p for p in _PIECES.split(m.group("rest") or "") if p.strip()]
    if any(asks_something(p) and not _STILL_NEED.match(p) and not _POLITE_REST.fullmatch(p) for p in rest):
        return None
    change = _just_changed(message, discourse)
    said = action_said(m.group("change"))
    if change is None or said is None or any(c.action != said or len(c.things) != 1 for c in change.calls):
        raise refuse(
            f"{quoted(message)} says not to {m.group('change')}, but the turn before "
            f"{'made no change' if change is None else 'made ' + change.describe()}: say what to do"
        )
    return True


def _read(message: str) -> Act | None:
    """The act `message` is, read whole, else read without the pieces that ask for nothing ("hmm
    wait, undo that, the buyer backed out"); None when it is none."""
    if (found := _read_whole(message)) is not None:
        return found
    pieces = [p for p in _PIECES.split(message) if p]
    rest = [p for p in pieces if not _OPENER.fullmatch(p)]
    if 0 < len(rest) < len(pieces) and (found := _read_whole(", ".join(rest))) and found.kind == "correct":
        return found  # "ugh sorry, doctor. not bank": what opens it aside, "doctor, not bank"
    asking = [
        p
        for p in pieces
        if _OPENER.fullmatch(p)
        or (asks_something(p) and not _NO_NEED.fullmatch(p) and not _STILL_NEED.match(p))
        or _read_whole(p) is not None
    ]
    if len(asking) == len(pieces) or not any(not _OPENER.fullmatch(p) for p in asking):
        return None
    return _read_whole(", ".join(asking))


# "I meant delete it, I don't need it anymore": why, asking for nothing more
_NO_NEED = re.compile(
    r"(?:i|we)\s+(?:do\s+not|don't|dont|no\s+longer)\s+(?:really\s+)?need\s+(?:it|that|them|this)(?:\s+any\s?more)?"
    r"(?:\s+(?:after\s+all|now))?[\s.!]*",
    _F,
)
# "put it back, still need to ask about carpool": why it is wanted back, asking for nothing more
_STILL_NEED = re.compile(r"(?:i\s+|we\s+)?still\s+(?:need|want|have)\s+(?:to\s+)?\S", _F)
_OPENER = re.compile(_OPENING.replace("*)*", "*)+"), _F)  # a piece that only opens an act ("oh wait")


def _read_whole(message: str) -> Act | None:
    if _UNDO.match(message):
        return Act("undo")
    if _PUT_BACK.match(message):
        return Act("undo", "put back")
    if (
        (m := _MEANT.match(message))
        and action_said(m.group("x"))
        and (not m.group("y") or action_said(m.group("y")))
    ):
        return Act(
            "correct", m.group("x").strip(), (m.group("y") or "").strip()
        )  # "I meant delete it, not done"
    if (m := _MEANT.match(message)) and not _REQUEST.match(m.group("x")) and not _ALSO.search(m.group("x")):
        return Act("correct", m.group("x").strip(), (m.group("y") or "").strip())
    if m := _NOT_THIS.match(message):
        if _UNDO.match(m.group("x")):
            return Act("undo")  # "actually not yet, undo": why, then the undo
        return Act("correct", m.group("x").strip(), m.group("y").strip())
    if (m := _X_NOT_Y.match(message)) and not _REQUEST.match(m.group("x")) and not _OPENER.fullmatch(m["x"]):
        # ("ugh sorry, not bank": "sorry" opens the act, it names nothing)
        return Act("correct", m.group("x").strip(), m.group("y").strip())
    if m := _AND_OTHER.match(message):
        return Act("again", m.group("x").strip())
    if (
        (m := _TOO.match(message))
        and (ref := todo_reference(m.group("x")))
        and (ref.other or ref.count == 1 or ref.index is not None)
    ):
        return Act("again", m.group("x").strip())
    if (m := _X_COMMA_NOT_Y.match(message)) and _bare_name(m.group("x")):
        return Act("correct", m.group("x").strip(), m.group("y").strip())
    if (m := _MARKED.match(message)) and todo_reference(m.group("x")) is not None:
        return Act("correct", m.group("x").strip())
    if (m := _MARKED.match(message)) and _bare_name(m.group("x")):
        return Act("correct", m.group("x").strip())  # "no wait, almond milk", "my bad, almond milk"
    return None


# What makes words a sentence or a report rather than a name ("that one's done already", "bin
# that, my mate's doing it"): a pronoun, a verb of being, a state, a comma.
_SAYS_SOMETHING = re.compile(
    r"\b(?:i|we|you|he|she|they|it|that|this|them|those|these|is|are|was|were|be|been|done|finished"
    r"|sorted|already|yet|now|doing|did|does|have|has|had)\b|'s\b|,",
    _F,
)


def _bare_name(words: str) -> bool:
    """A name said bare (a few words, none of a request, a sum or a reference): what a marker
    before it puts right in the last change ("no wait, almond milk")."""
    words = words.strip()
    return (
        0 < len(words.split()) <= MAX_BARE_WORDS
        and not _SAYS_SOMETHING.search(words)
        and not _REQUEST.match(words)
        and not asks_something(words)
        and not _ALSO.search(words)
        and todo_reference(words) is None
        and not _OPENER.fullmatch(words)  # ("ugh sorry, not bank": no name said)
    )


def _asked_undo(words: str) -> bool:
    """Whether a turn's words asked to undo (its change then cancels the one before it)."""
    if _UNDO_TWICE.match(words.strip()):
        return True  # two changes back (Discourse.last_change takes both off)
    return (found := _read(words.strip())) is not None and found.kind == "undo"


def _just_changed(message: str, discourse: Discourse, *, correcting: bool = False) -> Change | None:
    """The change of the turn right before this one, if it made one; `correcting`: or of the turn
    before that, when the one between was a correction of it that was not done ("delete wash dog",
    "not that one" (which one, then?), "I meant wash curtains")."""
    change = discourse.last_change(_asked_undo)
    if change is None or not discourse.turns:
        return None
    if change.turn == discourse.latest_turn:
        return change
    before = discourse.not_done_before
    if (
        correcting
        and before is not None
        and before[0] == discourse.latest_turn == change.turn + 1
        and (_REJECTED.match(before[1]) or ((asked := _read(before[1].strip())) and asked.kind == "correct"))
    ):
        return change
    return None


# "not that one", "wrong one", "no!": the last change rejected, the right one not said yet
_REJECTED = re.compile(
    r"^\W*(?:(?:no|nope|oops|sorry|wait|ugh|hmm|uh)[\s,.!]+)*(?:not\s+(?:that|this|the\s+right)(?:\s+one)?"
    r"|(?:that'?s\s+|that\s+is\s+)?(?:the\s+)?wrong\s+one|that'?s\s+(?:wrong|not\s+it)|no+|nope)[\s.!]*$",
    _F,
)
