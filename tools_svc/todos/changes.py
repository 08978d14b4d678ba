"""What the changing actions do to the caller's list: add, complete, reopen, delete, restore,
delete_all; each in the transaction of the call (store.py), each answered with a sentence."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy.engine import Connection

from agentrt.core.errors import ToolError
from agentrt.server.db import execute
from tools_svc.todos.naming import as_todo, find_number, get_todo, named_as, quoted, same_text
from tools_svc.todos.spec import MAX_ADD, RESTORABLE_S, SUMMARY_TODOS
from tools_svc.todos.statements import (
    COMPLETE,
    DELETE,
    DELETE_ALL,
    GET,
    GET_DELETED,
    INSERT,
    OPEN_WITH_ONE_TEXT,
    OPEN_WITH_TEXT,
    PAGE,
    PURGE,
    REOPEN,
    RESERVE,
    RESTORE,
)


def add_texts(conn: Connection, owner: str, texts: list[str]) -> list[dict[str, Any]]:
    """Add each text, except one an open todo has already (any case and spacing: "add buy milk"
    twice is one todo), which comes back as it is, marked `already`."""
    found: dict[str, dict[str, Any] | None] = {same_text(t): None for t in texts}
    if len(found) == 1:
        open_with_text = execute(conn, OPEN_WITH_ONE_TEXT, {"caller": owner, "text": next(iter(found))})
    else:
        open_with_text = conn.execute(OPEN_WITH_TEXT, {"caller": owner, "texts": list(found)})
    for row in open_with_text.all():
        found[same_text(row[1])] = found[same_text(row[1])] or {**as_todo(row), "already": True}
    new = [t for t in dict.fromkeys(t.strip() for t in texts) if found[same_text(t)] is None]
    if new:
        last = execute(conn, RESERVE[conn.dialect.name], {"caller": owner, "count": len(new)}).scalar_one()
        now = time.time()
        for number, text in enumerate(new, start=last - len(new) + 1):
            row = execute(
                conn, INSERT, {"caller": owner, "todo_number": number, "todo_text": text, "now": now}
            ).one()
            found[same_text(text)] = as_todo(row)
    out, seen = [], set()
    for text in texts:
        if (key := same_text(text)) not in seen:
            seen.add(key)
            out.append(found[key])
    return out


def delete_all(conn: Connection, owner: str, state: str | None) -> dict[str, Any]:
    """Delete every todo (in `state`): how many, the first few by name, and (up to MAX_ADD) the
    todos themselves, for restore."""
    # Which ones, so that restore can bring them back (undo): at most MAX_ADD, restore's own bound.
    gone = conn.execute(PAGE[state], {"caller": owner, "offset": 0, "limit": MAX_ADD + 1}).all()
    now = time.time()
    deleted = conn.execute(DELETE_ALL[state], {"caller": owner, "now": now}).rowcount
    which = {None: "", "open": " open", "done": " done"}[state]
    if not deleted:
        return {"deleted_count": 0, "summary": f"There were no{which} todos to delete."}
    _purge(conn, owner, now)
    named = gone[:SUMMARY_TODOS]
    names = ", ".join(quoted(r[1]) for r in named)
    more = f" and {deleted - len(named)} more" if deleted > len(named) else ""
    noun = "todo" if deleted == 1 else "todos"
    restorable = {"deleted": [as_todo(r) for r in gone]} if len(gone) <= MAX_ADD else {}
    return {
        "deleted_count": deleted,
        **restorable,
        "summary": f"Deleted {deleted}{which} {noun}: {names}{more}.",
    }


def add_many(conn: Connection, owner: str, texts: list[str]) -> dict[str, Any]:
    todos_ = add_texts(conn, owner, texts)
    added = [t for t in todos_ if not t.get("already")]
    there = [t for t in todos_ if t.get("already")]
    parts = []
    if added:
        names = ", ".join(quoted(t["text"]) for t in added[:SUMMARY_TODOS])
        more = f" and {len(added) - SUMMARY_TODOS} more" if len(added) > SUMMARY_TODOS else ""
        parts.append(f"Added {len(added)} {'todo' if len(added) == 1 else 'todos'}: {names}{more}.")
    if there:
        names = ", ".join(f"{quoted(t['text'])} (#{t['id']})" for t in there[:SUMMARY_TODOS])
        more = f" and {len(there) - SUMMARY_TODOS} more" if len(there) > SUMMARY_TODOS else ""
        parts.append(f"Already on your list: {names}{more}.")
    return {"todos": todos_, "summary": " ".join(parts)}


def change_many(
    conn: Connection, owner: str, action: str, which: list[int | str], state: str | None = None
) -> dict[str, Any]:
    """Complete, reopen or delete every todo `which` names, or none: each is found before any
    changes ("mark A and B done" with no B leaves A open), and two names of one todo are an error
    (which one was meant twice is not known). Restore is restore_many: its todos are deleted ones."""
    if action == "restore":
        return restore_many(conn, owner, [w for w in which if isinstance(w, int)])
    numbers = [find_number(conn, owner, w, open_first=action == "complete", state=state) for w in which]
    for k, number in enumerate(numbers):
        if number in numbers[:k]:
            first = which[numbers.index(number)]
            raise ToolError(
                f"{named_as(first)} and {named_as(which[k])} are the same todo (#{number}); "
                "name each todo once",
                reason="AMBIGUOUS_TODO",
            )
    for number in numbers:
        get_todo(conn, owner, number)  # an id no todo has is refused before anything changes
    change = CHANGES[action]
    changed = [change(conn, owner, number) for number in numbers]
    return {"todos": changed, "summary": _summary(_DONE_TO_MANY[action], changed)}


def restore_many(conn: Connection, owner: str, numbers: list[int]) -> dict[str, Any]:
    """Bring back every deleted todo of `numbers`, or none (one that is on the list already counts
    as restored: restoring twice is restoring once)."""
    found = [(number, *_restorable(conn, owner, number)) for number in numbers]  # all, before any changes
    for number, _, deleted_ in found:
        if deleted_:
            conn.execute(RESTORE, {"caller": owner, "todo_number": number})
    restored = [todo for _, todo, _ in found]
    return {"todos": restored, "summary": _summary("Restored {todos}", restored)}


def _summary(verb: str, changed: list[dict[str, Any]]) -> str:
    names = ", ".join(quoted(t["text"]) for t in changed[:SUMMARY_TODOS])
    more = f" and {len(changed) - SUMMARY_TODOS} more" if len(changed) > SUMMARY_TODOS else ""
    todos_ = f"{len(changed)} todo{'' if len(changed) == 1 else 's'}"
    return verb.format(todos=todos_) + f": {names}{more}."


def added(todo: dict[str, Any]) -> dict[str, Any]:
    if todo.get("already"):
        return {"todo": todo, "summary": f"{quoted(todo['text'])} is already on your list (#{todo['id']})."}
    return {"todo": todo, "summary": f"Added {quoted(todo['text'])} (#{todo['id']})."}


def completed(todo: dict[str, Any]) -> dict[str, Any]:
    return {"todo": todo, "summary": f"Marked {quoted(todo['text'])} as done."}


def deleted(todo: dict[str, Any]) -> dict[str, Any]:
    return {"deleted": todo, "summary": f"Deleted {quoted(todo['text'])}."}


def reopened(todo: dict[str, Any]) -> dict[str, Any]:
    return {"todo": todo, "summary": f"Marked {quoted(todo['text'])} as not done."}


def restored(todo: dict[str, Any]) -> dict[str, Any]:
    return {"todo": todo, "summary": f"Restored {quoted(todo['text'])} (#{todo['id']})."}


# What one call to each action does to one todo, and its sentence for several.
ONE = {"complete": completed, "reopen": reopened, "delete": deleted, "restore": restored}
_DONE_TO_MANY = {
    "complete": "Marked {todos} done",
    "reopen": "Marked {todos} as not done",
    "delete": "Deleted {todos}",
}


def complete_one(conn: Connection, owner: str, number: int) -> dict[str, Any]:
    get_todo(conn, owner, number)
    conn.execute(COMPLETE, {"caller": owner, "todo_number": number, "now": time.time()})
    return get_todo(conn, owner, number)


def reopen_one(conn: Connection, owner: str, number: int) -> dict[str, Any]:
    get_todo(conn, owner, number)
    conn.execute(REOPEN, {"caller": owner, "todo_number": number})
    return get_todo(conn, owner, number)


def delete_one(conn: Connection, owner: str, number: int) -> dict[str, Any]:
    todo = get_todo(conn, owner, number)
    now = time.time()
    conn.execute(DELETE, {"caller": owner, "todo_number": number, "now": now})
    _purge(conn, owner, now)
    return todo


def restore_one(conn: Connection, owner: str, number: int) -> dict[str, Any]:
    """The deleted todo `number` back on the list as it was (its id, text and state); one on the
    list already is left as it is. Never another owner's: theirs is one that does not exist."""
    todo, deleted_ = _restorable(conn, owner, number)
    if deleted_:
        conn.execute(RESTORE, {"caller": owner, "todo_number": number})
    return todo


def _restorable(conn: Connection, owner: str, number: int) -> tuple[dict[str, Any], bool]:
    """(the todo `number`, whether it is deleted), or TODO_NOT_FOUND when the caller has no such
    todo, deleted or not (or its time to be restored has passed)."""
    row = conn.execute(GET_DELETED, {"caller": owner, "todo_number": number}).first()
    if row is not None:
        return as_todo(row), True
    return get_todo(conn, owner, number), False


def _purge(conn: Connection, owner: str, now: float) -> None:
    conn.execute(PURGE, {"caller": owner, "before": now - RESTORABLE_S})


CHANGES = {"complete": complete_one, "reopen": reopen_one, "delete": delete_one, "restore": restore_one}


def unchanged(conn: Connection, owner: str, action: str, left: list[dict[str, Any]]) -> None:
    """Refuse (TODO_CHANGED) an undo whose todo changed since the change it reverses: each of
    `left` (a todo as that change left it) must still be as it was, or already as `action` leaves
    it (a retried undo, or the same undo made elsewhere: nothing to refuse). A todo that is gone
    is left to the change itself to say."""
    after = {"complete": True, "reopen": False}.get(action)  # a delete leaves none: any state differs
    for was in left:
        row = conn.execute(GET, {"caller": owner, "todo_number": was["id"]}).first()
        if row is None or "done" not in was:
            continue
        now = as_todo(row)
        if now["done"] != was["done"] and now["done"] != after:
            state = "done" if now["done"] else "open"
            raise ToolError(
                f"{quoted(now['text'])} (#{now['id']}) changed since: it is {state} now, so the change is "
                "not undone (nothing was changed); say what you want done with it",
                reason="TODO_CHANGED",
            )
