"""The SQL every todo_store call runs, built once (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from tools_svc.schema import todo_owners, todos
from tools_svc.todos.spec import MAX_SCANNED

# The statements every call makes, built once: building one per call (and SQLAlchemy keying it
# for its compiled-statement cache) was ~15% of tools_svc's CPU on the compared work. Their
# parameters are not named after columns: an INSERT or UPDATE takes a parameter named after a
# column as a value to set, and refuses one in its WHERE.
COLUMNS = (todos.c.number, todos.c.text, todos.c.done)
# A deleted todo stays, marked, for RESTORABLE_S (the "restore" action, which undo calls), and is
# no todo to any other statement: every one of them reads the caller's todos through MINE.
MINE = sa.and_(todos.c.owner == sa.bindparam("caller"), todos.c.deleted_at.is_(None))
THE_ONE = sa.and_(MINE, todos.c.number == sa.bindparam("todo_number"))
INSERT = (
    todos.insert()
    .values(
        owner=sa.bindparam("caller"),
        number=sa.bindparam("todo_number"),
        text=sa.bindparam("todo_text"),
        created_at=sa.bindparam("now"),
    )
    .returning(*COLUMNS)
)
TALLY = sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(todos.c.done), 0)).where(MINE)
# Each statement that reads or deletes "the todos" once per state: all of them, or only the
# open or the done ones.
IN_STATE = {
    None: MINE,
    "open": sa.and_(MINE, todos.c.done == 0),
    "done": sa.and_(MINE, todos.c.done == 1),
}
COUNT = {state: sa.select(sa.func.count()).select_from(todos).where(w) for state, w in IN_STATE.items()}
PAGE = {
    state: sa.select(*COLUMNS)
    .where(w)
    .order_by(todos.c.number)
    .offset(sa.bindparam("offset"))
    .limit(sa.bindparam("limit"))
    for state, w in IN_STATE.items()
}
DELETE_ALL = {
    state: todos.update().where(w).values(deleted_at=sa.bindparam("now")) for state, w in IN_STATE.items()
}
GET = sa.select(*COLUMNS).where(THE_ONE)
# Open todos whose text is one of :texts (compared as same_text does), oldest first.
OPEN_WITH_TEXT = (
    sa.select(*COLUMNS)
    .where(MINE, todos.c.done == 0, sa.func.lower(todos.c.text).in_(sa.bindparam("texts", expanding=True)))
    .order_by(todos.c.number)
)
# The same for one text (almost every add): an expanding IN is rendered again at each execution.
OPEN_WITH_ONE_TEXT = (
    sa.select(*COLUMNS)
    .where(MINE, todos.c.done == 0, sa.func.lower(todos.c.text) == sa.bindparam("text"))
    .order_by(todos.c.number)
)
LATEST = sa.select(*COLUMNS).where(MINE).order_by(todos.c.number.desc()).limit(MAX_SCANNED)
# Completing twice keeps the first completion time: the operation is idempotent.
COMPLETE = (
    todos.update()
    .where(THE_ONE)
    .values(done=1, completed_at=sa.func.coalesce(todos.c.completed_at, sa.bindparam("now")))
)
DELETE = todos.update().where(THE_ONE).values(deleted_at=sa.bindparam("now"))
# Reopening clears the completion: done again later, it is done then.
REOPEN = todos.update().where(THE_ONE).values(done=0, completed_at=None)
# A deleted todo of the caller's, by number (what restore brings back).
_DELETED_ONE = sa.and_(
    todos.c.owner == sa.bindparam("caller"),
    todos.c.number == sa.bindparam("todo_number"),
    todos.c.deleted_at.is_not(None),
)
GET_DELETED = sa.select(*COLUMNS).where(_DELETED_ONE)
RESTORE = todos.update().where(_DELETED_ONE).values(deleted_at=None)
# Deleted todos past their time to be restored go for good (each delete sweeps its owner's).
PURGE = todos.delete().where(
    todos.c.owner == sa.bindparam("caller"),
    todos.c.deleted_at.is_not(None),
    todos.c.deleted_at < sa.bindparam("before"),
)


def mine(owner: str) -> Any:
    """The condition "a todo of `owner`'s, not deleted", for a statement built per call."""
    return sa.and_(todos.c.owner == owner, todos.c.deleted_at.is_(None))


def _reserve_statement(insert: Any) -> Any:
    """Take the next `count` numbers of an owner's list: its counter row (made by the owner's
    first add) goes up by `count`, and the new last number comes back. One statement, which
    holds the row until the transaction ends, so concurrent adds on PostgreSQL take turns;
    SQLite's write lock already does that. (ON CONFLICT ... RETURNING: SQLite 3.35+ and
    PostgreSQL.)"""
    upsert = insert(todo_owners).values(owner=sa.bindparam("caller"), last_number=sa.bindparam("count"))
    return upsert.on_conflict_do_update(
        index_elements=[todo_owners.c.owner],
        set_={"last_number": todo_owners.c.last_number + upsert.excluded.last_number},
    ).returning(todo_owners.c.last_number)


RESERVE = {"sqlite": _reserve_statement(sqlite.insert), "postgresql": _reserve_statement(postgresql.insert)}
