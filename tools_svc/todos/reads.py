"""What the reading actions answer: list (a page), count, and find (the todos a call names,
changing nothing)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

from agentrt.server.db import execute
from tools_svc.todos.naming import as_todo, cut, find_numbers, get_todo, quoted
from tools_svc.todos.spec import SUMMARY_TODOS
from tools_svc.todos.statements import COUNT, PAGE, TALLY


def list_page(
    conn: Connection, owner: str, state: str | None, offset: int, limit: int
) -> tuple[list[dict[str, Any]], int, int]:
    """(a page of the todos in `state`, how many are in it, how many todos there are in all)."""
    count = execute(conn, COUNT[state], {"caller": owner}).scalar_one()
    total = count if state is None else execute(conn, COUNT[None], {"caller": owner}).scalar_one()
    rows = execute(conn, PAGE[state], {"caller": owner, "offset": offset, "limit": limit})
    return [as_todo(r) for r in rows], count, total


def found(
    conn: Connection, owner: str, which: list[int | str | None], state: str | None = None
) -> dict[str, Any]:
    """The todos `which` names, each found as complete finds it; an error if one is not one todo."""
    named = [
        get_todo(conn, owner, n)
        for w in which
        for n in find_numbers(conn, owner, w, open_first=True, state=state)
    ]
    names = ", ".join(quoted(t["text"]) for t in named[:SUMMARY_TODOS])
    more = f" and {len(named) - SUMMARY_TODOS} more" if len(named) > SUMMARY_TODOS else ""
    return {
        "todos": named,
        "summary": f"Found {len(named)} {'todo' if len(named) == 1 else 'todos'}: {names}{more}.",
    }


def tally(conn: Connection, owner: str, state: str | None) -> dict[str, Any]:
    """The tally (count: in `state`; open and done always), and a sentence answering for `state`."""
    total, done = conn.execute(TALLY, {"caller": owner}).one()
    total, done = int(total), int(done)
    counts = {"open": total - done, "done": done}
    count = total if state is None else counts[state]
    noun = "todo" if count == 1 else "todos"
    if state is None:
        detail = f" ({total - done} open, {done} done)" if done else ""
        summary = f"You have {total} {noun}{detail}."
    elif state == "open":
        summary = f"You have {count} open {noun} ({total} in all)."
    else:
        summary = f"You have done {count} {noun} ({total} in all)."
    return {"count": count, **counts, "summary": summary}


def list_summary(page: list[dict[str, Any]], count: int, offset: int, state: str | None, total: int) -> str:
    which = {None: "", "open": " open", "done": " done"}[state]
    if total == 0:
        return "Your todo list is empty."
    if count == 0:
        return f"You have no{which} todos ({total} in all)."
    shown = [
        f"{t['id']}. {cut(t['text'])}{' (done)' if t['done'] and state is None else ''}"
        for t in page[:SUMMARY_TODOS]
    ]
    rest = count - offset - len(shown)
    more = f"; and {rest} more" if rest > 0 else ""
    noun = "todo" if count == 1 else "todos"
    return f"You have {count}{which} {noun}: " + "; ".join(shown) + more + "."
