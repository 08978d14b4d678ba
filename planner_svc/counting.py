"""Which todos of the set the person last saw together (discourse.View.group) an ordinal, a span,
"the other", "the next", "the rest", "all but X" or "the ones I just added" picks: counted as
the person saw them, and refused when that is not one answer (a todo of the set deleted since,
a todo added after a listing, a count that does not fit). followups.py reads the phrase."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from planner_svc.discourse import Thing, View, named
from planner_svc.planner import PlanningFailed


class Counted(Protocol):
    """What an ordinal or a span says (followups.TodoReference): where it counts, and in how many."""

    @property
    def index(self) -> int | None: ...  # 1-based; -1 the last
    @property
    def span(self) -> int | None: ...  # the first N (> 0) or the last N (< 0)
    @property
    def of_count(self) -> int | None: ...  # "the first of those two": the set has that many


def counted_in(what: str, reference: Counted, view: View) -> list[Thing]:
    """An ordinal or a span over the set last seen together. When todos of that set were deleted
    since, it is counted as seen and as it is now: the same todos, or refused as unclear ("list",
    "delete the first one", "mark the 2nd done": the 2nd listed, or the 2nd left?)."""
    group = view.group
    if not group:
        raise unresolved(f"{what} counts in todos seen together, and none were: name the todo")
    if len(group) == 1 and view.earlier and reference.index is not None and reference.of_count is None:
        # "list", then "add call movers", then "the 2nd one": the listing's 2nd and the list's 2nd
        # as it now is (the listing, then the add) are one todo; "the last one" is not
        now = tuple(t for t in (*view.earlier, *group) if t not in view.gone)  # and a delete since
        seen = _counted(what, reference, view.earlier, view.group_turn)
        if seen != (as_now := _counted(what, reference, now, view.group_turn)):
            raise unresolved(
                f"{what} counts in the todos seen together ({named(view.earlier)}) or in the list as it "
                f"is since turn {view.group_turn} added {named(group)}: say which",
                (*seen, *as_now),
            )
        return seen
    picked = _counted(what, reference, group, view.group_turn)
    touched = view.touched
    if len(touched) > 1 and set(touched) < set(group):
        # "mark the last two done" of a listing of four, then "delete the first one": the listing's
        # first, or the first of those two? The same todo, or refused
        try:
            among = _counted(what, reference, touched, view.group_turn)
        except PlanningFailed:
            among = picked  # "the 3rd one" of two just changed: the listing's, only
        if among != picked:
            raise unresolved(
                f"{what} counts in the {len(group)} seen together at turn {view.group_turn} ({named(group)}) "
                f"or in the {len(touched)} changed just now ({named(touched)}): say which",
                (*picked, *among),
            )
    if not view.gone:
        return picked
    left = tuple(t for t in group if t not in view.gone)
    try:
        now = _counted(what, reference, left, view.group_turn) if left else []
    except PlanningFailed:  # "the 3rd one" with two left: the 3rd as seen, if it is still there
        now = [] if set(picked) & view.gone else picked
    if now != picked:
        gone = named([t for t in group if t in view.gone])
        raise unresolved(
            f"{what} counts in the todos seen together at turn {view.group_turn} ({named(group)}), and "
            f"{gone} {'was' if len(view.gone) == 1 else 'were'} deleted since: as seen that is "
            f"{named(picked)}, as the list is now {named(now) or 'none'}; say which",
            (*picked, *now),
        )
    return picked


def _counted(what: str, reference: Counted, group: Sequence[Thing], turn: int) -> list[Thing]:
    if reference.span is not None:
        n = abs(reference.span)
        if n > len(group):
            raise unresolved(
                f"{what} means {n} todos of the {len(group)} seen together (turn {turn}): "
                f"{named(group)}; say which"
            )
        return list(group[:n] if reference.span > 0 else group[-n:])
    assert reference.index is not None
    if reference.of_count is not None and reference.of_count != len(group):
        raise unresolved(
            f"{what} counts in {reference.of_count} todos, but the last seen together (turn "
            f"{turn}) were {len(group)}: {named(group)}; say which"
        )
    if len(group) == 1 and reference.index != -1:
        # "the first one" picks one of several: after one todo alone, which others are meant? ("the
        # last one" is the latest, which it is)
        raise unresolved(
            f"{what} picks one of several todos, but turn {turn} named one alone "
            f"({named(group)}); name the todo"
        )
    position = len(group) if reference.index == -1 else reference.index
    if not 1 <= position <= len(group):
        raise unresolved(
            f"{what} points at todo number {position} of the {len(group)} seen together (turn "
            f"{turn}): {named(group)}"
        )
    return [group[position - 1]]


def just_added(what: str, count: int | None, view: View) -> list[Thing]:
    """What the latest adding turn added, as many as said; refused when the adds of the turns
    before it were seen with them ("add A", "add B and C": "the ones I just added" is two or three?)."""
    added = list(view.added)
    if not added or (count is not None and count != len(added)):
        raise unresolved(
            f"{what} means {'one todo' if count == 1 else f'{count} todos' if count else 'the todos'} "
            "the latest adding turn added, and it added "
            f"{named(added) or 'none'}: say which"
        )
    if count is None and view.adds_only and set(added) < set(view.focus):
        raise unresolved(
            f"{what} could be the {len(added)} todos the latest turn added ({named(added)}) or all "
            f"{len(view.focus)} added in the turns up to it ({named(view.focus)}): say which"
        )
    return added


def all_but(what: str, name: str, view: View) -> list[Thing]:
    """The todos of the listing just seen but the one `name` names (by its words): refused when
    the latest turn that named todos listed none, or the name fits not exactly one of them."""
    if not view.listed or len(view.group) < 2:
        raise unresolved(
            f"{what} means every todo but one, and the list was not the last thing seen: list the todos "
            "first, or name the ones you mean"
        )
    if not re.search(r"[a-z]", name):
        raise unresolved(f"{what}: {name!r} names no todo by its words (a number is no name): say which")
    named_ = [t for t in view.group if has_words(t.text, name)]
    if len(named_) != 1:
        raise unresolved(
            f"{what}: {name!r} fits {len(named_) or 'none'} of the {len(view.group)} listed (turn "
            f"{view.group_turn}): {named(view.group)}; say which"
        )
    return [t for t in view.group if t != named_[0]]


def has_words(text: str, name: str) -> bool:
    """Whether `text` has every word of `name` (a plural as its singular, "the" and "my" aside)."""
    have = re.findall(r"[^\W_]+", text.lower())
    wanted = [w for w in re.findall(r"[^\W_]+", name.lower()) if w not in ("the", "my", "a", "an")]
    return bool(wanted) and all(
        any(h == w or (len(w) > 3 and h == w.rstrip("s")) or h.rstrip("s") == w for h in have) for w in wanted
    )


def the_rest(what: str, view: View) -> list[Thing]:
    """Of those seen together, the ones the latest turn did not touch (it touched some of them)."""
    just = view.touched if view.touched else view.focus
    rest = [t for t in view.group if t not in just]
    if len(view.group) > 1 and just and set(just) < set(view.group) and rest:
        return rest
    raise unresolved(
        f"{what} means the todos seen together other than those just done something with; the last seen "
        f"together were {named(view.group) or 'none'}: name the todos"
    )


def the_next(what: str, view: View) -> Thing:
    """Of those seen together, the one after the one the latest turn touched (in their order)."""
    just = view.touched if len(view.touched) == 1 else view.focus
    if len(just) == 1 and just[0] in view.group and (at := view.group.index(just[0])) + 1 < len(view.group):
        return view.group[at + 1]
    raise unresolved(
        f"{what} means the todo after the one just done something with, of those seen together; the last "
        f"seen together were {named(view.group) or 'none'}: name the todo"
    )


def the_other(what: str, view: View) -> Thing:
    """Of two seen together, the one the latest turn did not touch."""
    just = view.touched if len(view.touched) == 1 else view.focus
    if len(view.group) == 2 and len(just) == 1 and just[0] in view.group:
        return next(t for t in view.group if t != just[0])
    raise unresolved(
        f"{what} means the other of two todos, one just done something with; the last seen together "
        f"were {named(view.group) or 'none'}: name the todo",
        # ("paid the rent" of three, "and the other one": one of the two not just touched)
        tuple(t for t in view.group if t not in just) if len(just) == 1 and just[0] in view.group else (),
    )


def unresolved(message: str, candidates: Sequence[Thing] = ()) -> PlanningFailed:
    """A reference that resolves to nothing, or to more than it can mean: refused, saying why
    (and naming, as `candidates`, the todos its readings pick: one of those a reply may pick)."""
    return PlanningFailed(
        f"could not resolve a reference: {message}",
        reason="UNPLANNABLE",
        candidates=tuple(dict.fromkeys(candidates)),
    )
