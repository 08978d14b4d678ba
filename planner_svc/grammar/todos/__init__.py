"""Todo frames: a clause that asks something of the todo list becomes a todo_store call. `parse`
tries each family in turn (the submodules of this package); the rule planner reads its clauses
through it."""

from __future__ import annotations

from dataclasses import replace

from planner_svc.grammar.intent import Intent
from planner_svc.grammar.todos.todo_add_words import ADD_FIRST
from planner_svc.grammar.todos.todo_adding import _add, listed_first
from planner_svc.grammar.todos.todo_by_text import _NOT_ALL_JUST, _by_text
from planner_svc.grammar.todos.todo_clearing import _ALL_AGAIN, _ALL_OF_THEM, _clear
from planner_svc.grammar.todos.todo_ids import _by_id
from planner_svc.grammar.todos.todo_items import a_task, quoted_in
from planner_svc.grammar.todos.todo_questions import _question, also_added, narrowed, widens
from planner_svc.grammar.todos.todo_reports import _mentioned, pronoun_action, starts_a_task
from planner_svc.grammar.todos.todo_words import PAST, SIMPLE_PAST

__all__ = [
    "ADD_FIRST",
    "PAST",
    "SIMPLE_PAST",
    "a_task",
    "also_added",
    "listed_first",
    "narrowed",
    "parse",
    "pronoun_action",
    "quoted_in",
    "starts_a_task",
    "widens",
]


def parse(clause: str, question: bool = False) -> Intent | None:
    """The todo_store call(s) `clause` asks for, or None. A `question` ("laundry done?") is never
    read as a report that something was done."""
    if (m := _NOT_ALL_JUST.match(clause)) and (narrowed := parse(f"{m['verb']} {m['x']}", question)):
        return replace(narrowed, clause=clause)
    # "delete all of them, every single one": all of them, said twice
    if (
        (again := _ALL_AGAIN.match(clause))
        and (whole := parse(again.group("sweep"), question)) is not None
        and (
            whole.arguments.get("action") == "delete_all"
            or (whole.todos and whole.todos.words in _ALL_OF_THEM)
        )
        and "state" not in whole.arguments
    ):
        return replace(whole, clause=clause)
    return (
        _question(clause)
        or _clear(clause)
        or _by_id(clause)
        or (None if question else _mentioned(clause))
        or _add(clause)
        or _by_text(clause, question)
    )
