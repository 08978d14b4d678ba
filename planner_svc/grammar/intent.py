"""What a frame makes of one clause: an Intent (a tool call, or an answer from the history)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from planner_svc.followups import TodoReference

# Placeholders the frames emit; stages/binding._bind binds them to the latest earlier calculator step.
RESULT_VALUE = "{{result}}"
RESULT_TEXT = "{{result_text}}"
# ... and, in an answer, how that result reads: "the result", or its value when it is a history's.
RESULT_WORD = "{{result_word}}"
# Every earlier result of this plan, joined by an operator ("{{results:+}}": "add them up"), and
# how many there are ("{{results:count}}": "average them"); stages/binding._bind writes them out.
RESULTS_JOINED = "{{{{results:{}}}}}"
RESULTS_COUNT = "{{results:count}}"
RESULTS = re.compile(r"\{\{results:([^}]+)\}\}")  # either, in an expression
# The answer of a todo_store step: the tool's own sentence.
SUMMARY = "{{out.summary}}"


@dataclass(frozen=True)
class Intent:
    """One understood clause: the tool call it maps to and why."""

    clause: str
    tool: str
    arguments: dict[str, Any]
    reasoning: str
    # How this step's outcome reads, with {{out.<field>}} for its own output (see answer_template).
    answer: str = ""
    # The words that refer to an earlier result ("that", "the answer"), if the clause uses one.
    refers: str = ""
    # Which earlier todos the clause means ("it", "both"), bound to ids by _bind.
    todos: TodoReference | None = None
    # A question answered from the thread's history alone ("added", "answer", "it"): no tool, no step.
    recall: str = ""
    # Several todos named by text ("delete buy stamps and pay rent") or by id ("remove #2 and
    # #4"): one step per todo (_bind).
    each: tuple[str | int, ...] = ()
    # The call must be confirmed by a person, even in a rule plan (PlanStep.confirm): its words
    # sweep ("delete all my todos").
    confirm: bool = False
    # What follows this step, using its result: a second calculation (expression with RESULT,
    # and its answer: "the total with a 20% tip" is the tip, then the bill plus the tip, so the
    # answer says both), or another intent ("add the sum of 250 and 175 as a todo" adds the sum).
    then: tuple[str, str] | Intent | None = None
    # How many clauses this one counts as when rules.plan chooses how to split a prompt (it
    # prefers the split with the most): more than one for a statement read with its pronoun.
    weight: int = 1
    # The user named the tool and its arguments ("use todo_store with {...}"): the call is sent as
    # written, never merged with another or checked first (stages/shaping._merged, _names_checked_first).
    explicit: bool = False
    # The words as said, planned when the result a reference in them may mean is not there ("add
    # transfer that to Alex" after a sum: the sum; with none computed, "that" is the person's).
    as_said: dict[str, Any] | None = None
    # The todo's name starts with how many ("add 3 apples"): beside a calculation, or in a thread
    # that has one, "add 15 ..." may as well add to a sum (rules.plan refuses it there).
    quantity: bool = False
