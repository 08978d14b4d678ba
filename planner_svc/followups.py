"""What the rule planner knows of a thread's earlier turns, and how a follow-up's references
("it", "them", "the second one", "that", "the answer") resolve against it.

The executor sends a turn's planner request the thread's latest turns (PriorTurn: prompt, answer,
status, steps with outputs). From the succeeded steps of those turns this module keeps:

- the todos of the latest turn that added, changed or listed todos: what "it", "that one", "them"
  and "both" point at (the ones it added or changed; the ones it listed if it only listed), and
  what "the second one" counts in (the listing if it listed, else the added or changed ones);
- the todos the latest adding turn added ("what did I just add?");
- the results of the latest turn that computed anything: its calculator values that no later
  calculator step of that turn went on to use ("12 * 4" then "(48) + 5" leaves 53, not 48);
- the latest turn's answer ("what was the answer?" when nothing was computed).

Resolution never guesses: "it" with three candidate todos, "both" with three, "the fifth one"
after a listing of four, or any reference with nothing earlier to point at raises
PlanningFailed naming what it could refer to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentrt.core.refs import as_text
from agentrt.core.text import clip
from agentrt.core.values import value_to_py
from agentrt.v1 import planner_service_pb2, run_pb2
from planner_svc.planner import PlanningFailed

# A refusal lists at most this many candidates, each cut to this length (it travels in gRPC
# metadata, and the user reads it).
MAX_CANDIDATES = 8
MAX_CANDIDATE_CHARS = 60
_HOW_TO_SAY = 'say which one (by its name, its #id, or e.g. "the second one")'


@dataclass(frozen=True)
class Todo:
    id: int
    text: str

    def __str__(self) -> str:
        return f"#{self.id} {clip(self.text, MAX_CANDIDATE_CHARS)!r}"


@dataclass(frozen=True)
class Result:
    expression: str
    value: str  # as a template writes it: "48", "2.5"

    def __str__(self) -> str:
        return f"{self.expression} = {self.value}"


@dataclass(frozen=True)
class Context:
    """The earlier turns as references see them. `turns` is 0 for a run outside any thread and
    for a thread's first turn (`in_thread` tells them apart)."""

    turns: int = 0
    in_thread: bool = False  # the run is a thread's turn (its first, when `turns` is 0)
    todos: tuple[Todo, ...] = ()  # what "it" / "them" / "both" point at
    ordered: tuple[Todo, ...] = ()  # what "the second one" counts in
    todo_turn: int = 0
    added: tuple[Todo, ...] = ()
    added_turn: int = 0
    results: tuple[Result, ...] = ()
    result_turn: int = 0
    last_answer: str = ""
    last_turn: int = 0

    @classmethod
    def of(cls, history: Sequence[planner_service_pb2.PriorTurn], thread_turn: int = 0) -> Context:
        found: dict[str, Any] = {"turns": len(history), "in_thread": bool(history) or thread_turn > 0}
        for turn in reversed(history):  # newest first: each fact comes from the latest turn that has it
            steps = [
                s for s in turn.steps if s.status == run_pb2.STEP_STATUS_SUCCEEDED and s.HasField("output")
            ]
            if turn.answer and "last_turn" not in found:
                found.update(last_answer=turn.answer, last_turn=turn.turn)
            touched, listed, added = _todos_of(steps)
            if (touched or listed) and "todo_turn" not in found:
                found.update(todos=touched or listed, ordered=listed or touched, todo_turn=turn.turn)
            if added and "added_turn" not in found:
                found.update(added=added, added_turn=turn.turn)
            if (results := _results_of(steps)) and "result_turn" not in found:
                found.update(results=results, result_turn=turn.turn)
        return cls(**found)


def _todos_of(steps: list[run_pb2.StepState]) -> tuple[tuple[Todo, ...], tuple[Todo, ...], tuple[Todo, ...]]:
    """(added or changed, listed, added) todos of one turn's succeeded todo_store steps, in order."""
    touched: list[Todo] = []
    listed: list[Todo] = []
    added: list[Todo] = []
    for step in steps:
        if step.tool != "todo_store":
            continue
        output = value_to_py(step.output)
        if not isinstance(output, dict):
            continue
        action = _action(step)
        if action == "list":
            listed = _todo_list(output.get("todos"))
            continue
        if action == "find":  # a plan's check of its names: nothing touched
            continue
        todos = [t for t in (_todo(output.get("todo")), _todo(output.get("deleted"))) if t]
        todos += _todo_list(output.get("todos"))
        touched += todos
        if action == "add":
            added += todos
    return tuple(_unique(touched)), tuple(listed), tuple(_unique(added))


def _action(step: run_pb2.StepState) -> str:
    field = step.arguments.fields.get("action")
    return field.string_value if field is not None else ""


def _todo(value: Any) -> Todo | None:
    if not isinstance(value, dict):
        return None
    todo_id, text = value.get("id"), value.get("text")
    if not isinstance(todo_id, int | float) or isinstance(todo_id, bool) or not isinstance(text, str):
        return None
    return Todo(int(todo_id), text)


def _todo_list(value: Any) -> list[Todo]:
    return [t for t in map(_todo, value) if t] if isinstance(value, list) else []


def _unique(todos: list[Todo]) -> list[Todo]:
    seen: set[int] = set()
    return [t for t in todos if not (t.id in seen or seen.add(t.id))]  # type: ignore[func-returns-value]


def _results_of(steps: list[run_pb2.StepState]) -> tuple[Result, ...]:
    """A turn's calculator results that no later calculator step of the turn used: the rule
    planner writes an earlier result into a later expression as "(value)"."""
    made: list[Result] = []
    for step in steps:
        if step.tool != "calculator":
            continue
        output = value_to_py(step.output)
        if not isinstance(output, dict) or "value" not in output:
            continue
        made.append(Result(str(output.get("expression", "")), as_text(output["value"])))
    return tuple(
        r
        for n, r in enumerate(made)
        if not any(f"({r.value})" in later.expression for later in made[n + 1 :])
    )


# --- references to todos ------------------------------------------------------------------------

_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_NOUN = r"(?:one|todo|to-do|task|item|reminder|entry)"
_SINGULAR = re.compile(
    rf"^(?:it|that|this|(?:that|this|the) {_NOUN}|the same (?:one|{_NOUN})"
    rf"|the (?:one|{_NOUN}) i (?:just )?added)$"
)
_PLURAL = re.compile(
    r"^(?:them|they|those|these|them all|they all|all of them|all of those|all those|all these"
    rf"|(?:those|these|the) {_NOUN}s)$"
)
_BOTH = re.compile(rf"^(?:both|both of them|both {_NOUN}s|the two|the two of them|(?:these|those) two)$")
_ALL_N = re.compile(rf"^all (?P<n>\d+|{'|'.join(_COUNTS)})(?: of them| {_NOUN}s)?$")
_ORDINAL = re.compile(
    rf"^(?:the )?(?:(?P<word>{'|'.join(_ORDINALS)}|last)|(?P<n>\d+)(?:st|nd|rd|th))"
    rf"(?: {_NOUN})?(?: (?:on|in|of) (?:the|my) (?:todo |to-do )?list)?$"
)


@dataclass(frozen=True)
class TodoReference:
    """Which earlier todos a phrase points at: one, all, exactly `count`, or the `index`th
    (1-based; -1 is the last)."""

    words: str
    count: int | None = None  # None: any number (them); 1: exactly one (it)
    index: int | None = None

    def resolve(self, context: Context) -> list[Todo]:
        what = f"{self.words!r}"
        if not context.todo_turn:
            raise _nothing(what, "a todo", context, "added, changed or listed a todo")
        if self.index is not None:
            todos = context.ordered
            position = len(todos) if self.index == -1 else self.index
            if not 1 <= position <= len(todos):
                raise _refuse(
                    f"{what} points at todo number {position} of turn {context.todo_turn}, which had "
                    f"only {len(todos)}: {_candidates(todos)}"
                )
            return [todos[position - 1]]
        todos = list(context.todos)
        if self.count is not None and len(todos) != self.count:
            if self.count == 1:
                raise _refuse(
                    f"{what} could be any of the {len(todos)} todos of turn {context.todo_turn}: "
                    f"{_candidates(todos)}; {_HOW_TO_SAY}"
                )
            raise _refuse(
                f"{what} means {self.count} todos, but turn {context.todo_turn} had {len(todos)}: "
                f"{_candidates(todos)}; say which (by name or #id)"
            )
        return todos


def todo_reference(phrase: str) -> TodoReference | None:
    """The reference `phrase` makes to earlier todos ("it", "both of them", "the second one"),
    or None when it is not a reference (a todo's name, say)."""
    words = " ".join(phrase.lower().strip(" \"'").split())
    if _SINGULAR.match(words):
        return TodoReference(words, count=1)
    if _PLURAL.match(words):
        return TodoReference(words)
    if _BOTH.match(words):
        return TodoReference(words, count=2)
    if m := _ALL_N.match(words):
        n = m.group("n")
        return TodoReference(words, count=_COUNTS.get(n) or int(n))
    if m := _ORDINAL.match(words):
        word, n = m.group("word"), m.group("n")
        index = -1 if word == "last" else _ORDINALS[word] if word else int(n)
        return TodoReference(words, index=index) if index else None
    return None


# --- references to results and recall -----------------------------------------------------------


def result(words: str, context: Context) -> Result:
    """The earlier result `words` ("that", "the answer") points at."""
    what = f"{words!r}"
    if not context.result_turn:
        raise _nothing(what, "a result", context, "computed anything")
    if len(context.results) > 1:
        listed = ", ".join(str(r) for r in context.results[:MAX_CANDIDATES])
        raise _refuse(
            f"{what} could be any of the {len(context.results)} results of turn {context.result_turn}: "
            f'{listed}; say which (e.g. "add 5 to 48")'
        )
    return context.results[0]


def recall_added(context: Context) -> str:
    """What the latest adding turn added, as a sentence."""
    if not context.added_turn:
        raise _nothing("'what did I add'", "an added todo", context, "added a todo")
    todos = context.added
    if len(todos) == 1:
        return f"You added {todos[0]} (turn {context.added_turn})."
    return f"You added {len(todos)} todos (turn {context.added_turn}): {_candidates(todos)}."


def recall_answer(context: Context) -> str:
    """The latest result, or when nothing was computed the latest answer, as a sentence."""
    if context.result_turn:
        shown = " and ".join(str(r) for r in context.results[:MAX_CANDIDATES])
        return f"The answer was {shown} (turn {context.result_turn})."
    if context.last_turn:
        return f"My last answer (turn {context.last_turn}) was: {clip(context.last_answer, 400)}"
    raise _nothing("'what was the answer'", "an answer", context, "answered")


def _candidates(todos: Sequence[Todo]) -> str:
    shown = ", ".join(str(t) for t in todos[:MAX_CANDIDATES])
    return shown + (f" and {len(todos) - MAX_CANDIDATES} more" if len(todos) > MAX_CANDIDATES else "")


def _nothing(what: str, kind: str, context: Context, verb: str) -> PlanningFailed:
    if not context.turns and context.in_thread:
        return _refuse(
            f"{what} refers to {kind} from earlier, but this is the thread's first turn: there is "
            "nothing earlier to refer to yet (say what you mean in full)"
        )
    if not context.turns:
        return _refuse(
            f"{what} refers to {kind} from earlier, but this run is not part of a thread: there is "
            "nothing earlier to refer to (send it to a thread to follow up on earlier turns, or "
            "say what you mean in full)"
        )
    return _refuse(f"{what} refers to {kind} from earlier, but no earlier turn of this thread {verb}")


def _refuse(message: str) -> PlanningFailed:
    return PlanningFailed(f"could not resolve a reference: {message}", reason="UNPLANNABLE")
