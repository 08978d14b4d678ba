"""Which todo a call names: by number, by its place on the list, by its whole text or a part of
it, or (words.py) by its words in any form; and the errors that say none or several do."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from agentrt.core import wordforms
from agentrt.core.errors import ToolError
from tools_svc.schema import todos
from tools_svc.todos.spec import MAX_LISTED_MATCHES, MAX_SUGGESTED, SUMMARY_TEXT_CHARS
from tools_svc.todos.statements import COLUMNS, COUNT, GET, LATEST, mine
from tools_svc.todos.words import by_words, circumstance_cuts, look_alikes, said_whole


def one_text(rows: list[Any]) -> bool:
    """Whether the matching todos are one errand written again (the same text): then the open one
    is meant. Different todos ("buy milk" done, "buy milk for Anna" open) are a real choice."""
    return len({same_text(r[1]) for r in rows}) == 1


def same_text(text: str) -> str:
    """A todo's text as compared for "already there": case and runs of spaces do not matter."""
    return " ".join(text.split()).lower()


def named_as(which: int | str) -> str:
    return f"#{which}" if isinstance(which, int) else quoted(which)


def number_at(conn: Connection, owner: str, place: int) -> int:
    """The number of the todo at `place` of `owner`'s whole list, in list's order (by number):
    1 the first, -1 the last."""
    order = todos.c.number if place > 0 else todos.c.number.desc()
    found = conn.execute(
        sa.select(todos.c.number).where(mine(owner)).order_by(order).offset(abs(place) - 1).limit(1)
    ).scalar()
    if found is None:
        total = conn.execute(COUNT[None], {"caller": owner}).scalar_one()
        which = (
            f"{place}{_ordinal(place)}"
            if place > 0
            else ("last" if place == -1 else f"{-place}{_ordinal(-place)} from the end")
        )
        raise ToolError(f"there is no {which} todo: the list has {total}", reason="TODO_NOT_FOUND")
    return int(found)


def _ordinal(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def find_number(
    conn: Connection,
    owner: str,
    which: int | str | None,
    *,
    open_first: bool,
    state: str | None = None,
    as_said: bool = True,
) -> int:
    """The number of the todo `which` names in `owner`'s list: a number, or a text that one todo
    has (any case), or that only one todo contains as whole words, or else whose words (in any form: "walked"
    is "walk", "groceries" "grocery") only one todo has among its latest MAX_SCANNED. Completing
    prefers open todos: "buy milk" completes the open one when an older one is already done.
    A `state` narrows the todos a text may name ("the finished 'water the plants'"); with no
    text, it names the one todo in that state ("the done one")."""
    if isinstance(which, int):
        return which
    in_state = [] if state is None else [todos.c.done == (1 if state == "done" else 0)]
    if which is None:
        return _only(conn, owner, state or "open", in_state)
    needle = _needle(which)
    for whole, condition in ((True, _lowered() == needle), (False, _contains(needle))):
        rows = _rows_where(conn, owner, condition, in_state)
        if open_first and one_text(rows) and any(not r[2] for r in rows):
            rows = [r for r in rows if not r[2]]
        # a part of one todo's text, and the words of another in some form ("the ironing": "do
        # the ironing" and "iron Tom's suit"): a choice for the person, not a guess
        if (
            len(rows) == 1
            and not whole
            and (others := [r for r in _widening(conn, owner, needle, state) if r[0] != rows[0][0]])
        ):
            raise _several(
                sorted([*rows, *others], key=lambda r: r[0]),
                f"match {quoted(which)}",
                "by more of its text",
            )
        if len(rows) == 1:
            return int(rows[0][0])
        if rows:
            raise _several(rows, f"match {quoted(which)}", "by more of its text")
    if (found := _the_one(_by_words_in(conn, owner, needle, state), which, open_first)) is not None:
        return found
    if (found := _the_one(_by_words_in(conn, owner, needle, state, slips=True), which, False)) is not None:
        return found
    # "vet appt booked" for "schedule vet appointment", "sent the email" for "email the landlord":
    # the verb that reports it done is not the todo's; the rest must name it by every word it says
    # (no particle left out, no slip: "took the bins out" is not "buy bin bags")
    told, verb = _without_how_done(needle) or ("", "")
    strictly = _by_words_in(conn, owner, told, state, strict=True) if told else []
    if strictly and all(_another_things_kind(r[1], told, verb) for r in strictly):
        strictly = []  # "printer's fixed": no report of "buy printer paper" done
    if (found := _the_one(strictly, which, open_first)) is not None:
        return found
    for head in circumstance_cuts(needle):
        # "picked up my prescription at boots": the todo by the words before where, when or what
        # about, when every todo they fit says nothing the message did not ("call mom about the
        # party" is not "called mom about the car")
        rows = _by_words_in(conn, owner, head, state)
        # (every word of the todo before the cut: "delete my email to Sam" is no "email Sam"; but
        # a report of a task done may say where after its thing: "returned the books to the
        # library" is "return library books" done)
        whole = [r for r in rows if said_whole(r[1], head) or (open_first and said_whole(r[1], needle))]
        if len(rows) > 1 and len(whole) < len(rows):
            # "pay rent for april" beside "pay rent" and "pay rent for march": the words after the
            # cut may be what tells them apart; a choice for the person
            raise _several(rows, f"match {quoted(which)}", "by more of its text")
        if (found := _the_one(whole, which, open_first)) is not None:
            return found
    first, _, rest = needle.partition(" ")
    if as_said and first in _ALREADY_THERE and rest:
        # "delete the old dentist one (and add the new one)": the one already on the list, when no
        # todo says "old"; then the rest must name it alone, as any name does (once: "old old old
        # ..." is not looked up once per word)
        try:
            return find_number(conn, owner, rest, open_first=open_first, state=state, as_said=False)
        except ToolError as error:
            if error.reason != "TODO_NOT_FOUND":
                raise
    raise _no_match(conn, owner, which, needle, state)


# "milk and eggs", "conditioner & razors", "phone bill + bin bags": names joined in one text.
_JOINED = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*[&+]\s*)", re.IGNORECASE)
MAX_JOINED = 4


def find_numbers(
    conn: Connection, owner: str, which: int | str | None, *, open_first: bool, state: str | None = None
) -> list[int]:
    """The todo `which` names, or (when no todo has that name) the todos its joined names name,
    one each ("mark milk and eggs done" with no todo "milk and eggs": "buy milk" and "buy eggs").
    A name of the joined ones that is not one todo, or two that are the same todo, is the first
    error (the whole name's: nothing is guessed)."""
    try:
        return [find_number(conn, owner, which, open_first=open_first, state=state)]
    except ToolError as error:
        if error.reason != "TODO_NOT_FOUND" or not isinstance(which, str):
            raise
        parts = [p for p in _JOINED.split(which.strip()) if p]
        if not 2 <= len(parts) <= MAX_JOINED or any(not re.search(r"[^\W\d_]{3}", p) for p in parts):
            raise
        try:
            numbers = [find_number(conn, owner, p, open_first=open_first, state=state) for p in parts]
        except ToolError:
            raise error from None
        if len(set(numbers)) != len(numbers):
            raise
        return numbers


def _the_one(rows: list[Any], which: str, open_first: bool) -> int | None:
    """The number of the one todo of `rows` (the open one of a text written again, when
    completing); None when there is none; several are an error naming them."""
    if open_first and one_text(rows) and any(not r[2] for r in rows):
        rows = [r for r in rows if not r[2]]
    if len(rows) == 1:
        return int(rows[0][0])
    if rows:
        raise _several(rows, f"match {quoted(which)}", "by more of its text")
    return None


def _another_things_kind(text: str, told: str, verb: str) -> bool:
    """Whether a report's one word left (`told`, its `verb` dropped) is, in the todo's `text`, the
    word before the thing it acts on ("printer" of "buy printer paper"), and the report's verb
    is not the todo's: what was done was done to another thing."""
    words, said = text.lower().split(), told.lower().replace("'s", "").split()
    if len(said) != 1 or len(words) < 3 or said[0] not in words[1:-1]:
        return False
    verb = verb.lower()
    return words[0] not in {verb, *wordforms.base_forms(verb)}


# Words that say a todo is the one already on the list, not part of its name (unless a todo has
# them: find_number tries the whole name first).
_ALREADY_THERE = frozenset(["old", "existing", "original", "previous", "current"])


# A past that says a todo was not done, or undone: never dropped as how it was done.
_NOT_HOW_DONE = frozenset(
    ["skipped", "missed", "cancelled", "canceled", "postponed", "delayed", "rescheduled", "forgot",
     "forgotten", "failed", "abandoned", "dropped", "deleted", "removed", "added", "moved", "need",
     "needed", "wanted", "expired", "arrived", "ended", "happened", "changed", "started", "stopped",
     "died", "crashed", "closed", "broke", "broken", "leaked", "lost", "left"]
)  # fmt: skip


def _without_how_done(needle: str) -> tuple[str, str] | None:
    """`needle` without the past at its start or end that reports it done ("sent the email",
    "flowers ordered"), when words that can name a todo are left, and that past; else None."""
    words = needle.split()
    if len(words) < 2:
        return None
    for at, rest in ((0, words[1:]), (-1, words[:-1])):
        word = words[at]
        past = word in wordforms.IRREGULAR or (word.endswith("ed") and len(word) > 4)
        if past and word not in _NOT_HOW_DONE and any(len(w) > 2 for w in rest):
            return " ".join(rest), word
    return None


def every_named(
    conn: Connection, owner: str, which: str, matching: int | None, state: str | None
) -> list[int]:
    """The numbers of the todos `which` names, as a part of their text or by their words, when they
    are exactly `matching` ("both bills": two), or (None) however many they are, up to
    MAX_LISTED_MATCHES ("all the milk ones"); else an error naming those it fits."""
    needle = _needle(which)
    rows = {int(r[0]): r for r in _by_words_in(conn, owner, needle, state)}
    in_state = [] if state is None else [todos.c.done == (1 if state == "done" else 0)]
    for r in _rows_where(conn, owner, _contains(needle), in_state):
        rows[int(r[0])] = r
    if not rows:
        raise _no_match(conn, owner, which, needle, state)
    if matching is None:
        if len(rows) > MAX_LISTED_MATCHES:  # each query stops at MAX_LISTED_MATCHES + 1: there may be more
            fits = sorted(rows.values(), key=lambda r: r[0])[: MAX_LISTED_MATCHES + 1]
            raise _several(fits, f"match {quoted(which)}", "by more of its text")
        return sorted(rows)
    if len(rows) == 1:
        (only,) = rows.values()
        raise ToolError(
            f"only one todo matches {quoted(which)} (#{only[0]} {quoted(only[1])}), not {matching}; "
            "say which todos (by id, or by their text)",
            reason="AMBIGUOUS_TODO",
        )
    if len(rows) != matching:
        fits = sorted(rows.values(), key=lambda r: r[0])[: MAX_LISTED_MATCHES + 1]
        raise _several(fits, f"match {quoted(which)}, not {matching}", "by its text")
    return sorted(rows)


def _rows_where(conn: Connection, owner: str, condition: Any, in_state: list[Any]) -> list[Any]:
    """The caller's first MAX_LISTED_MATCHES + 1 todos (by number) that meet `condition`."""
    return conn.execute(
        sa.select(*COLUMNS)
        .where(mine(owner), condition, *in_state)
        .order_by(todos.c.number)
        .limit(MAX_LISTED_MATCHES + 1)
    ).all()


def _no_match(conn: Connection, owner: str, which: str, needle: str, state: str | None) -> ToolError:
    which_state = "" if state is None else f"{state} "
    return not_found(conn, owner, f"no {which_state}todo matches {quoted(which)}", needle)


def _lowered() -> Any:
    """A todo's text as a needle is: case, runs of spaces and hyphens do not matter ("pay-rent"
    finds "Pay rent")."""
    return sa.func.replace(sa.func.lower(todos.c.text), "-", " ")


def _needle(which: str) -> str:
    return " ".join(which.replace("-", " ").split()).lower()


def _contains(needle: str) -> Any:
    """A todo's text has `needle` as whole words: "new" is not a part of "renew passport"; and a
    word with its "'s" is that word ("the grandma one" is in "call grandma's neighbour" too)."""
    spaced = sa.func.replace(sa.literal(" ") + _lowered() + sa.literal(" "), "'s ", " ")
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return spaced.like("%" + f" {escaped} ".replace("'s ", " ") + "%", escape="\\")


def _by_words_in(
    conn: Connection, owner: str, needle: str, state: str | None, *, slips: bool = False, strict: bool = False
) -> list[Any]:
    """by_words, of the todos in `state` (all of them for None)."""
    found = by_words(conn, owner, needle, slips=slips, strict=strict)
    return [r for r in found if state is None or bool(r[2]) == (state == "done")]


def _widening(conn: Connection, owner: str, needle: str, state: str | None) -> list[Any]:
    """The todos beside a part match that make it a choice: those with its words in some form
    ("the ironing": "iron Tom's suit"), or with a slip of one of them ("pick up": "pck up kids")."""
    found = {int(r[0]): r for r in _by_words_in(conn, owner, needle, state)}
    for r in look_alikes(conn, owner, needle):
        if state is None or bool(r[2]) == (state == "done"):
            found.setdefault(int(r[0]), r)
    return [found[n] for n in sorted(found)]


def _only(conn: Connection, owner: str, state: str, in_state: list[Any]) -> int:
    """The one todo in `state` ("remove the done one"): none, or several, is an error naming them."""
    rows = conn.execute(
        sa.select(*COLUMNS)
        .where(mine(owner), *in_state)
        .order_by(todos.c.number)
        .limit(MAX_LISTED_MATCHES + 1)
    ).all()
    if len(rows) == 1:
        return int(rows[0][0])
    if not rows:
        raise not_found(conn, owner, f"no todo is {state}")
    raise _several(rows, f"are {state}", "by its text")


def _several(rows: list[Any], what: str, how: str) -> ToolError:
    """AMBIGUOUS_TODO naming the todos (rows of at most MAX_LISTED_MATCHES + 1) that fit."""
    listed = "; ".join(f"#{r[0]} {quoted(r[1])}" for r in rows[:MAX_LISTED_MATCHES])
    many = len(rows) > MAX_LISTED_MATCHES
    how_many = f"more than {MAX_LISTED_MATCHES}" if many else str(len(rows))
    # The ids named, in the order named, for whoever asks which ("the second", next turn); only
    # when they are all of them (with more, which are meant is not among them for sure).
    candidates = {} if many else {"candidates": ",".join(str(r[0]) for r in rows)}
    return ToolError(
        f"{how_many} todos {what}: {listed}{' and more' if many else ''}; say which (by id, or {how})",
        reason="AMBIGUOUS_TODO",
        metadata=candidates,
    )


def not_found(conn: Connection, owner: str, what: str, needle: str = "") -> ToolError:
    """TODO_NOT_FOUND, naming the caller's todos nearest to `needle` (by shared words), else its
    latest open ones, and what to do next."""
    rows = conn.execute(LATEST, {"caller": owner}).all()
    if not rows:
        return ToolError(f"{what}: the todo list is empty", reason="TODO_NOT_FOUND")
    wanted = stems(needle)
    shared = {int(r[0]): len(wanted & stems(r[1])) for r in rows}
    near = sorted((r for r in rows if shared[int(r[0])]), key=lambda r: (-shared[int(r[0])], r[2], r[0]))
    shown = near or sorted(rows, key=lambda r: (r[2], -r[0]))
    listed = ", ".join(f"#{r[0]} {quoted(r[1])}{' (done)' if r[2] else ''}" for r in shown[:MAX_SUGGESTED])
    which = "the closest are" if near else "the latest are"
    # The closest, in the order named, for whoever answers with one of them ("the second one",
    # "the Mario one", next turn): offered as a choice as AMBIGUOUS_TODO's candidates are. The
    # latest are no choice (nothing said fitted them).
    closest = {"candidates": ",".join(str(r[0]) for r in shown[:MAX_SUGGESTED])} if len(near) > 1 else {}
    return ToolError(
        f"{what}; {which} {listed}. Try again with one of these (its id, or its text), "
        "or list the todos to see them all",
        reason="TODO_NOT_FOUND",
        metadata=closest,
    )


def stems(text: str) -> set[str]:
    """A text's words as comparable stems: lower case, at most 4 letters ("groceries" and
    "grocery" share "groc"), words of one or two letters ("a", "to") left out."""
    return {w[:4] for w in re.findall(r"[^\W_]+", text.lower()) if len(w) > 2}


def cut(text: str) -> str:
    return text if len(text) <= SUMMARY_TEXT_CHARS else text[: SUMMARY_TEXT_CHARS - 1] + "…"


def quoted(text: str) -> str:
    return f"'{cut(text)}'"


def get_todo(conn: Connection, owner: str, number: int) -> dict[str, Any]:
    # Another principal's todo is one that does not exist: the same answer, so a caller cannot
    # even learn which numbers others have used.
    row = conn.execute(GET, {"caller": owner, "todo_number": number}).first()
    if row is None:
        raise not_found(conn, owner, f"todo {number} does not exist")
    return as_todo(row)


def as_todo(row: Any) -> dict[str, Any]:
    return {"id": row[0], "text": row[1], "done": bool(row[2])}
