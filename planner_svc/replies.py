"""A reply to the question a refused turn asked: "mark it done" was refused ("'it' could be any
of #1 'email the landlord', #2 'email the accountant': say which one"), and the next message
answers it ("the landlord one", "both then", "the second", "sorry, the bank one"). The reply
is the refused request with the todos it names now: the request's action, read from its words by
the grammar (never the whole planner again), done to what the reply designates.

Only a bare designation after a refused turn is a reply: a reference ("both", "the second one",
"the other one", "the first and the last") or a name said as one ("the landlord one", "the
'pay rent' one"). A name is looked up as any name is (the todo tool refuses one that fits
several todos or none); a reference resolves as the refused turn would have had it resolved.
"""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.amends import answering, by_id, quoted
from planner_svc.discourse import Discourse, named
from planner_svc.followups import todo_reference
from planner_svc.grammar.intent import SUMMARY, Intent
from planner_svc.stages import clauses
from planner_svc.stages.polite import _clean

_F = re.IGNORECASE
_LEAD = (
    r"(?:(?:ok|okay|oh|ah|sorry|oops|um+|er+|hmm+|well|i\s+mean|i\s+meant|meant|and|no|yes|yeah)[\s,.!-]+)*"
)
_TAIL = r"(?:[\s,.!-]+(?:then|i\s+mean|i\s+meant|sorry|please|pls|thanks|thx|obviously|of\s+course))*[\s.!?]*"
_REPLY = re.compile(rf"^{_LEAD}(?P<x>[^,.;!?]+?){_TAIL}$", _F)
# "the landlord one", "the 'pay rent' one", "my dentist thing": a name said as a todo's
_NAMED_ONE = re.compile(r"^(?:the|my)\s+(?!other\b)[\w'\" -]+?\s+(?:one|todo|task|thing|item)$", _F)
# How each change a refused request asked for is said again of the reply's todos, for the grammar.
_SAID = {"complete": "mark {} as done", "delete": "delete {}", "reopen": "reopen {}"}
_PRONOUNS = frozenset({"it", "that", "this", "that one", "this one", "them", "those", "these"})


def reply(message: str, discourse: Discourse) -> list[Intent] | None:
    """The plan of `message` when it answers the refused turn before it; None when it is not a
    reply (the other rules read it)."""
    if discourse.not_done_before is None or not (m := _REPLY.match(message.strip())):
        return None
    x = " ".join(m.group("x").split())
    reference = todo_reference(x)
    if reference is not None and reference.words in _PRONOUNS:
        return None  # "it" answers no "which one"
    if reference is None and not _NAMED_ONE.match(x):
        return None
    turn, words = discourse.not_done_before
    asked = clauses.parse_clause(cleaned) if (cleaned := _clean(words)) else None
    if asked is None or (action := asked.arguments.get("action")) not in _SAID:
        return None  # the refused turn asked no change of a todo the reply could name
    if asked.todos is None and "text" not in asked.arguments:
        return None
    said = clauses.parse_clause(_SAID[action].format(x))
    if said is None or said.tool != asked.tool or said.arguments.get("action") != action:
        return None
    why = f"answers turn {turn} ({quoted(words)})"
    if said.todos is None:  # a name: looked up as any name is
        return [replace(said, clause=message, reasoning=f"{quoted(message)} {why}: {said.reasoning}")]
    # the refused turn is the one being answered, not a turn that may have named something else
    things = tuple(said.todos.resolve(replace(discourse, not_done_before=None), said.tool))
    intents = by_id(message, said.tool, action, things, f"{why}, read as {named(things)}")
    read = f"{x!r} read as {named(things)}, as turn {turn} asked: "
    return [answering(i, read + SUMMARY if n == 0 else SUMMARY) for n, i in enumerate(intents)]
