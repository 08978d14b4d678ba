"""Questions a thread answers from its own history, with no tool: "what did I just add?", "how
many did I add?", "what was it?", "what did I mark done?", "what was the answer?" (the discourse
model's salient things, turned into a sentence; refused when no earlier turn has one)."""

from __future__ import annotations

from agentrt.core import toolrefs
from agentrt.core.text import clip
from planner_svc.discourse import MAX_NAMED, Discourse, View, named
from planner_svc.followups import nothing_earlier


def recall_added(discourse: Discourse) -> str:
    """What the latest adding turn added (of any tool's things), as a sentence."""
    view = max(discourse.views.values(), key=lambda v: v.added_turn, default=View())
    if not view.added_turn:
        raise nothing_earlier("'what did I add'", "an added todo", discourse, "added a todo")
    if len(view.added) == 1:
        return f"You added {view.added[0]} (turn {view.added_turn})."
    return f"You added {len(view.added)} todos (turn {view.added_turn}): {named(view.added)}."


def recall_added_count(discourse: Discourse) -> str:
    """How many things the thread's turns added (whatever happened to them since), as a sentence."""
    added = [
        thing
        for change in discourse.changes
        for call in change.calls
        if call.effect == toolrefs.ADDED
        for thing in call.things
    ]
    if not added:
        raise nothing_earlier("'how many did I add'", "an added todo", discourse, "added a todo")
    unique = tuple(dict.fromkeys(added))
    todos = "todo" if len(unique) == 1 else "todos"
    return f"You added {len(unique)} {todos} in this conversation: {named(unique)}."


def recall_it(discourse: Discourse) -> str:
    """What "it" is to the conversation: the latest turn's result, or the things the latest turn
    that named any added, changed or listed (all of them when several: it is a question)."""
    view = max(discourse.views.values(), key=lambda v: v.focus_turn, default=View())
    if discourse.result_turn and discourse.result_turn >= view.focus_turn:
        return recall_answer(discourse)
    if not view.focus_turn:
        raise nothing_earlier(
            "'what was it'", "a todo or a result", discourse, "named a todo or computed anything"
        )
    if len(view.focus) == 1:
        return f"It was {view.focus[0]} (turn {view.focus_turn})."
    return f"Turn {view.focus_turn} named {len(view.focus)} todos: {named(view.focus)}."


_PAST = {
    "complete": "marked done", "reopen": "marked not done", "delete": "deleted", "delete_all": "deleted",
    "restore": "restored", "add": "added",
}  # fmt: skip


def recall_changed(discourse: Discourse) -> str:
    """What the latest turn that changed things (marked them done, say) changed, as a sentence."""
    return _recall_effect(discourse, toolrefs.CHANGED, "'what did I mark'", "changed")


def recall_removed(discourse: Discourse) -> str:
    """What the latest turn that removed things removed, as a sentence."""
    return _recall_effect(discourse, toolrefs.REMOVED, "'what did I delete'", "deleted")


def _recall_effect(discourse: Discourse, effect: int, what: str, verb: str) -> str:
    for change in reversed(discourse.changes):
        calls = [c for c in change.calls if c.effect == effect]
        if calls:
            done = "; ".join(f"{_PAST.get(c.action, c.action)} {named(c.things)}" for c in calls)
            return f"In turn {change.turn}: {done}."
    raise nothing_earlier(what, f"a {verb} todo", discourse, f"{verb} a todo")


def recall_answer(discourse: Discourse) -> str:
    """The latest result, or when nothing was computed the latest answer, as a sentence."""
    if discourse.result_turn:
        shown = " and ".join(str(r) for r in discourse.results[:MAX_NAMED])
        return f"The answer was {shown} (turn {discourse.result_turn})."
    if discourse.last_turn:
        return f"My last answer (turn {discourse.last_turn}) was: {clip(discourse.last_answer, 400)}"
    raise nothing_earlier("'what was the answer'", "an answer", discourse, "answered")


def recall_first_answer(discourse: Discourse) -> str:
    """The thread's first result ("what was the first answer again?"), as a sentence."""
    if not discourse.first_result_turn:
        raise nothing_earlier("'what was the first answer'", "a result", discourse, "computed anything")
    shown = " and ".join(str(r) for r in discourse.first_results[:MAX_NAMED])
    return f"The first answer was {shown} (turn {discourse.first_result_turn})."


def recall_first_added(discourse: Discourse) -> str:
    """What the thread's first adding turn added ("what did I add first?"), as a sentence."""
    for change in discourse.changes:
        added = tuple(t for c in change.calls if c.effect == toolrefs.ADDED for t in c.things)
        if added:
            return f"First you added {named(added)} (turn {change.turn})."
    raise nothing_earlier("'what did I add first'", "an added todo", discourse, "added a todo")
