"""The discourse model of a thread: what the conversation has made salient, turn by turn, read
from the earlier turns' succeeded steps through each tool's declared references (ToolReferences,
agentrt/core/toolrefs.py), never from a tool known by name.

For each tool whose outputs name things (todo_store's todos, a provider's contacts), a View:

- `focus`: what "it", "that one" and "them" point at: the things the latest turn that named any
  added or changed; the adds of consecutive adding turns together ("add A", "add B": both, so
  "it" is unclear); else what it listed.
- `group`: the set the person last saw together, in the order seen, which ordinals, "both", "the
  last two" and "them all" count in: a listing; the adds of one turn when it added several (one
  answer named them together), else of consecutive adding turns, in the order added; or the
  things one turn changed together. A turn that changed one
  thing leaves the group as it was ("mark the first one done", then "delete the second one").
- `touched`: what the latest turn that named things added or changed ("the other one" is the
  group's other).
- `added`: what the latest adding turn added ("what did I just add?").

And for the thread: the results of the latest turn that computed any ("halve it"), the latest
answer, whether the turn just before was not done (then "it" may mean what that turn named), and
the changes turn by turn with the action that reverses each ("undo that"; an undo that reverses
the change before it cancels it, so "undo" twice goes two changes back).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentrt.core import toolrefs
from agentrt.core.annotations import action_of
from agentrt.core.text import clip
from agentrt.core.values import value_to_py
from agentrt.v1 import planner_service_pb2, run_pb2, tool_pb2

MAX_CANDIDATE_CHARS = 60
# A message names at most this many things (it travels in gRPC metadata, and a person reads it).
MAX_NAMED = 8
MAX_ASKED_WHICH = 20  # candidates a refusal named that a reply can pick from


@dataclass(frozen=True)
class Thing:
    """Something a turn named, as the person saw it: its id is the naming tool's."""

    kind: str
    id: int | str
    text: str
    tool: str
    # How the turn that named it left it (toolrefs.Entity.state): what an undo's guard carries.
    state: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        return f"#{self.id} {clip(self.text, MAX_CANDIDATE_CHARS)!r}"


@dataclass(frozen=True)
class Call:
    """A change one step made to the things it names, and the action that reverses it."""

    tool: str
    action: str
    inverse: str  # "" when it cannot be undone
    effect: int
    things: tuple[Thing, ...]
    guard: str = ""  # the inverse's argument for the things as this call left them ("" none)


@dataclass(frozen=True)
class Change:
    """The changes one turn made, in order, and what the person said in that turn."""

    turn: int
    calls: tuple[Call, ...]
    prompt: str = ""

    def describe(self) -> str:
        """ "turn 5 (add #6 'eggs', #7 'flour')": the turn and its calls, as a person reads them."""
        return f"turn {self.turn} ({'; '.join(f'{c.action} {named(c.things)}' for c in self.calls)})"


@dataclass(frozen=True)
class Result:
    expression: str
    value: str  # as a template writes it: "48", "2.5"

    def __str__(self) -> str:
        return f"{self.expression} = {self.value}" if self.expression else self.value


@dataclass(frozen=True)
class View:
    """What one tool's things are to the conversation (see the module's docstring)."""

    focus: tuple[Thing, ...] = ()
    focus_turn: int = 0
    group: tuple[Thing, ...] = ()
    group_turn: int = 0
    touched: tuple[Thing, ...] = ()
    added: tuple[Thing, ...] = ()
    added_turn: int = 0
    adds_only: bool = False  # the focus turn only added (the next adding turn joins its adds)
    listed: bool = False  # the latest turn that named any of them listed them: the group is that listing
    # The group's things deleted since it was seen (and not restored): counting in the group as
    # seen and in the group as it is now can then pick different todos.
    gone: frozenset[Thing] = frozenset()
    # When the group is one todo alone that a turn added after a set seen together ("list", then
    # "add call movers"): that set, which an ordinal still counts in with the add after it.
    earlier: tuple[Thing, ...] = ()


@dataclass(frozen=True)
class Discourse:
    """The earlier turns as references see them. `turns` is 0 for a run outside any thread and
    for a thread's first turn (`in_thread` tells them apart)."""

    turns: int = 0
    in_thread: bool = False
    latest_turn: int = 0  # the number of the turn right before this one
    views: dict[str, View] = field(default_factory=dict)
    results: tuple[Result, ...] = ()
    result_turn: int = 0
    # Each turn that computed a result, oldest first: (its number, what the person said, its results)
    # ("and after 20 weeks?" is read again with what it followed: what_if.py).
    sums: tuple[tuple[int, str, tuple[Result, ...]], ...] = ()
    # The thread's first results ("the first answer", "that first number"), beside its latest.
    first_results: tuple[Result, ...] = ()
    first_result_turn: int = 0
    last_answer: str = ""
    last_turn: int = 0
    # The turn just before, when it was not done (refused or failed): (its number, its words).
    not_done_before: tuple[int, str] | None = None
    changes: tuple[Change, ...] = ()  # oldest first
    # The things the turn just before, not done, was refused among ("2 todos match 'called the
    # bank': #3 ..., #5 ...": its tool's error names them as "candidates"), in the order named:
    # what a reply ("the second", "the mortgage one") picks from.
    asked_which: tuple[Thing, ...] = ()

    def view(self, tool: str) -> View:
        return self.views.get(tool, View())

    def last_change(self, asked_undo: Callable[[str], bool]) -> Change | None:
        """The latest change not undone since. A turn that asked to undo (`asked_undo` of its words)
        and reverses the change before it, exactly, takes that change off, so the next undo reaches
        the one before; a delete that happens to reverse an add is a change of its own ("delete
        both" after adding two: "undo" then restores them)."""
        kept: list[Change] = []
        for change in self.changes:
            if kept and asked_undo(change.prompt) and _reverses(change, kept[-1]):
                kept.pop()
            elif (
                len(kept) > 1 and asked_undo(change.prompt) and _reverses(change, _joined(kept[-2], kept[-1]))
            ):
                del kept[-2:]  # "undo twice": both
            else:
                kept.append(change)
        return kept[-1] if kept else None

    @classmethod
    def of(
        cls,
        history: Sequence[planner_service_pb2.PriorTurn],
        thread_turn: int = 0,
        tools: Iterable[tool_pb2.Tool] = (),
    ) -> Discourse:
        catalog = {t.name: t for t in tools}
        views: dict[str, View] = {}
        found: dict[str, Any] = {}
        changes: list[Change] = []
        sums: list[tuple[int, str, tuple[Result, ...]]] = []
        seen: dict[tuple[str, Any], Thing] = {}
        for turn in history:  # oldest first: each turn moves what is salient on
            steps = [
                s for s in turn.steps if s.status == run_pb2.STEP_STATUS_SUCCEEDED and s.HasField("output")
            ]
            meanings = [
                (s.tool, action_of(s.arguments) or "", _meaning(catalog.get(s.tool), s)) for s in steps
            ]
            seen.update(((t.tool, t.id), t) for tool, _, m in meanings for t in _things(m, tool))
            for tool in dict.fromkeys(tool for tool, _, m in meanings if m.entities):
                mine = [(a, m) for t, a, m in meanings if t == tool and m.entities]
                views[tool] = _moved(views.get(tool, View()), mine, turn.turn, tool)
            calls = tuple(
                Call(tool, action, m.inverse_action, m.effect, _things(m, tool), m.guard_argument)
                for tool, action, m in meanings
                if m.effect in (toolrefs.ADDED, toolrefs.CHANGED, toolrefs.REMOVED) and m.entities
            )
            if calls:
                changes.append(Change(turn.turn, _merged(calls), turn.prompt))
            if results := _results([m for _, _, m in meanings]):
                found.update(results=results, result_turn=turn.turn)
                sums.append((turn.turn, turn.prompt, results))
                found.setdefault("first_results", results)
                found.setdefault("first_result_turn", turn.turn)
            if turn.answer:
                found.update(last_answer=turn.answer, last_turn=turn.turn)
        last = history[-1] if history else None
        not_done = (
            (last.turn, last.prompt)
            if last is not None and last.status in (run_pb2.RUN_STATUS_FAILED, run_pb2.RUN_STATUS_CANCELLED)
            else None
        )
        return cls(
            asked_which=_asked_which(last, seen) if not_done is not None and last is not None else (),
            turns=len(history),
            in_thread=bool(history) or thread_turn > 0,
            latest_turn=last.turn if last is not None else 0,
            views=views,
            not_done_before=not_done,
            changes=tuple(changes),
            sums=tuple(sums),
            **found,
        )


def _asked_which(
    turn: planner_service_pb2.PriorTurn, seen: dict[tuple[str, Any], Thing]
) -> tuple[Thing, ...]:
    """The things a failed turn's step was refused among (its error's "candidates": ids, in the
    order named), each as the thread last saw it; one it never saw has no text here (its name
    is the tool's to check, not the planner's)."""
    for step in turn.steps:
        said = step.error.metadata.get("candidates", "") if step.HasField("error") else ""
        ids = [int(i) if i.isdigit() else i for i in said.split(",") if i][:MAX_ASKED_WHICH]
        if len(ids) > 1:
            return tuple(seen.get((step.tool, i)) or Thing("", i, "", step.tool) for i in ids)
    return ()


def named(things: Sequence[Thing]) -> str:
    """ "#1 'buy milk', #2 'call mom'": the things as a message names them, at most MAX_NAMED."""
    shown = ", ".join(str(t) for t in things[:MAX_NAMED])
    return shown + (f" and {len(things) - MAX_NAMED} more" if len(things) > MAX_NAMED else "")


def _meaning(tool: tool_pb2.Tool | None, step: run_pb2.StepState) -> toolrefs.StepMeaning:
    return toolrefs.read_step(tool, step.arguments, value_to_py(step.output))


def _things(meaning: toolrefs.StepMeaning, tool: str) -> tuple[Thing, ...]:
    return tuple(Thing(e.kind, e.id, e.text, tool, e.state) for e in meaning.entities)


def _unique(things: Iterable[Thing]) -> tuple[Thing, ...]:
    return tuple(dict.fromkeys(things))


def _moved(view: View, meanings: list[tuple[str, toolrefs.StepMeaning]], turn: int, tool: str) -> View:
    """`view` after a turn whose steps of this tool named things (`meanings`, in order)."""
    shown: tuple[Thing, ...] = ()
    added: list[Thing] = []
    changed: list[Thing] = []
    removed: list[Thing] = []
    for _, meaning in meanings:
        things = _things(meaning, tool)
        if meaning.effect == toolrefs.SHOWN:
            shown = things  # the turn's last listing is what the person saw last
        elif meaning.effect == toolrefs.ADDED:
            added += things
        elif meaning.effect == toolrefs.CHANGED:
            changed += things
        elif meaning.effect == toolrefs.REMOVED:
            removed += things
    if not (shown or added or changed or removed):
        return view  # it named things without doing anything to them (a check): nothing moves
    # What is gone is what a turn touched only when it touched nothing else ("delete it": that one;
    # a correction that deletes one and adds another: the one added)
    changed = changed or ([] if added else removed)
    touched = _unique([*added, *changed])
    adds_only = bool(added) and not changed and not removed and not shown
    if touched:
        focus = _unique([*view.focus, *added]) if adds_only and view.adds_only else touched
    else:
        focus = shown
    if shown:
        group, group_turn = shown, turn
    elif adds_only and set(added) <= view.gone:
        # a delete undone ("delete mouthwash", "undo"): back in the set it was seen in, in its place
        group, group_turn = view.group, view.group_turn
    elif adds_only and len(added) > 1:
        group, group_turn = _unique(added), turn  # one answer named them together: that set
    elif adds_only or (len(touched) > 1 and not set(touched) <= set(view.group)):
        group, group_turn = focus, turn
    else:
        # One changed, or several of the set seen together ("first two done" of a listing of
        # four): the person still counts in that set ("the last one" is the listing's last)
        group, group_turn = view.group, view.group_turn
    kept = group_turn == view.group_turn and group == view.group
    gone = (view.gone if kept else frozenset()) - set(added)  # a restore brings one back
    earlier = view.earlier if kept else ()
    gone |= set(removed) & {*group, *earlier}
    if not kept and len(group) == 1 and adds_only and len(view.group) > 1 and not view.gone:
        earlier = tuple(t for t in view.group if t not in view.gone and t not in group)
    return View(
        focus=focus,
        focus_turn=turn,
        group=group,
        group_turn=group_turn,
        touched=touched,
        added=_unique(added) if added else view.added,
        added_turn=turn if added else view.added_turn,
        adds_only=adds_only,
        listed=bool(shown) and not touched,
        gone=gone,
        earlier=earlier,
    )


def _merged(calls: tuple[Call, ...]) -> tuple[Call, ...]:
    """Consecutive calls of one tool and action as one ("mark both done" is one change of two
    todos, planned as a step per todo): undone together, in the order they were made."""
    out: list[Call] = []
    for call in calls:
        if out and (out[-1].tool, out[-1].action, out[-1].inverse) == (call.tool, call.action, call.inverse):
            things = _unique([*out[-1].things, *call.things])
            out[-1] = Call(call.tool, call.action, call.inverse, call.effect, things, call.guard)
        else:
            out.append(call)
    return tuple(out)


def _results(meanings: list[toolrefs.StepMeaning]) -> tuple[Result, ...]:
    """A turn's results that no later step of the turn went on to use: the rule planner writes
    an earlier result into a later expression as "(value)" ("12 * 4" then "(48) + 5" is 53)."""
    made = [Result(m.result_of, m.result) for m in meanings if m.result is not None]
    return tuple(
        r
        for n, r in enumerate(made)
        if not any(f"({r.value})" in later.expression for later in made[n + 1 :])
    )


def _reverses(change: Change, before: Change) -> bool:
    """Whether `change` is exactly the undo of `before`: on each thing before changed, the inverse
    of what before did to it, and nothing else."""
    if not all(c.inverse for c in before.calls):
        return False
    undone = {(c.tool, c.inverse, t.id) for c in before.calls for t in c.things}
    return {(c.tool, c.action, t.id) for c in change.calls for t in c.things} == undone


def _joined(first: Change, then: Change) -> Change:
    """Two changes as one (what "undo twice" reverses)."""
    return Change(then.turn, (*first.calls, *then.calls), then.prompt)
