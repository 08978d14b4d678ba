"""Undo and redo: the thread's last change reversed, each call by the inverse action its tool
declares (an add by a delete, a done by a reopen, a delete by a restore), by id and guarded (the
todos as the change left them); "redo" ("undo the undo") reverses an undo. acts.py reads which
act a message is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from agentrt.core.text import clip
from planner_svc.amends import DONE, answering, by_id, guarded, quoted, refuse
from planner_svc.discourse import Change, Discourse, named
from planner_svc.grammar.intent import Intent


def undo(
    message: str,
    discourse: Discourse,
    available_tools: set[str],
    asked_undo: Callable[[str], bool],
    times: int = 1,
) -> list[Intent]:
    """ "undo that": the thread's last change not undone yet, reversed; refused when there is none,
    or the turn before was not done (then "that" may mean it). `times` 2 ("undo twice"): that
    change and the one before it, the latest first, in one plan; refused unless there are two."""
    change = discourse.last_change(asked_undo)
    if times == 2 and change is not None:
        earlier = replace(discourse, changes=tuple(c for c in discourse.changes if c is not change))
        if (before_it := earlier.last_change(asked_undo)) is None:
            raise refuse(
                f"{quoted(message)} asks to undo two changes, but only {change.describe()} is left to undo"
            )
        first = undo(message, discourse, available_tools, asked_undo)
        return first + _reversed(message, before_it, available_tools)
    if change is None:
        where = (
            "this run is not part of a thread"
            if not discourse.in_thread
            else "this is the thread's first turn"
            if not discourse.turns
            else "no earlier turn of this thread changed anything (or every change was undone)"
        )
        raise refuse(f"{quoted(message)} asks to undo the last change, but {where}: there is nothing to undo")
    before = discourse.not_done_before
    if before is not None and change.turn != before[0] and not asked_undo(before[1]):
        # "delete the frob" failed, then "undo that": the failed request, or the change before it?
        raise refuse(
            f"turn {before[0]} ({clip(before[1], 80)!r}) was not done, so 'that' may mean it; the last "
            f"change was {change.describe()}: say undo again to undo that"
        )
    return _reversed(message, change, available_tools)


def redo(
    message: str, discourse: Discourse, available_tools: set[str], asked_undo: Callable[[str], bool]
) -> list[Intent]:
    """ "redo": the thread's last change, when it was an undo, reversed (what it undid, again)."""
    last = discourse.changes[-1] if discourse.changes else None
    before = discourse.not_done_before
    if last is not None and before is not None and last.turn != before[0]:
        # "undo", "mark it done" (refused), "redo it": the refused request, or the undo?
        raise refuse(
            f"turn {before[0]} ({clip(before[1], 80)!r}) was not done, so 'it' may mean it; the last "
            f"change was {last.describe()}: say redo again to redo that"
        )
    if last is None or not asked_undo(last.prompt) or discourse.last_change(asked_undo) == last:
        raise refuse(
            f"{quoted(message)} asks to make again what an undo took back, but the last change of this "
            f"thread was {last.describe() if last else 'none'}, not an undo: there is nothing to redo"
        )
    return _reversed(message, last, available_tools, redo=True)


def _reversed(message: str, change: Change, available_tools: set[str], *, redo: bool = False) -> list[Intent]:
    """The calls that reverse `change` (each by its inverse action, the last first), guarded."""
    intents = []
    for call in reversed(change.calls):
        if not call.inverse:
            raise refuse(
                f"the last change ({change.describe()}) cannot be undone: {call.tool} declares no action "
                f"that reverses {call.action!r}"
            )
        if call.tool not in available_tools:
            raise refuse(
                f"undoing {change.describe()} needs {call.tool}, which the catalog does not have now"
            )
        intents += guarded(
            by_id(message, call.tool, call.inverse, call.things, f"undoes {change.describe()}"), call
        )
    done = "; ".join(f"{DONE.get(c.inverse, c.inverse)} {named(c.things)}" for c in reversed(change.calls))
    # One sentence for the whole undo, on its first step: what it reverses, and how.
    said = (
        f"Took back the undo of {change.describe()}: {done}."
        if redo
        else f"Undid {change.describe()}: {done}."
    )
    return [answering(i, said if n == 0 else "") for n, i in enumerate(intents)]
