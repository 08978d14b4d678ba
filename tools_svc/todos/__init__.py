"""The `todo_store` tool: a persistent todo list in the tools database (shared by replicas).

Each principal has a list of its own (the caller, `current_call().principal`), numbered from 1
on its own: alice's first todo is #1 and so is bob's. Every action reads and changes only the
caller's list, so another principal's todo is one that does not exist (TODO_NOT_FOUND).

Where things are: spec.py (the schema and description the catalog publishes), store.py (a call,
dispatched by its action), reads.py (list, count, find), changes.py (add, complete, reopen,
delete, restore, delete_all), naming.py and words.py (which todo a call names), statements.py
(the SQL).
"""

from tools_svc.todos.spec import (
    ACTION_ANNOTATIONS,
    ANNOTATIONS,
    DESCRIPTION,
    INPUT_SCHEMA,
    MAX_LISTED_MATCHES,
    REFERENCES,
)
from tools_svc.todos.store import TodoStore

__all__ = [
    "ACTION_ANNOTATIONS",
    "ANNOTATIONS",
    "DESCRIPTION",
    "INPUT_SCHEMA",
    "MAX_LISTED_MATCHES",
    "REFERENCES",
    "TodoStore",
]
