"""The deterministic rule planner: the orchestrator of its stages (planner_svc/stages/), and the
only module that plans a text.

The pipeline: normalise (stages/tidy.py, polite.py) -> a discourse act on the thread (acts.py:
undo, a correction of the last change) -> the readings of the message (stages/corrections.py,
readings.py: a self-correction's tail, a report and its "it" command, a part before the whole)
-> for each reading in order: segment (segment.py), cover (cover.py: clauses parsed by
clauses.py, remarks.py sets aside what asks for nothing, shaping.py makes steps), bind
(binding.py, against the discourse model) and check; the first reading kept is the plan. No
stage calls back into this module (tests/unit/test_planner_pipeline.py).

A prompt is split into clauses at "then", ";", the end of a sentence, "and" and commas; every
clause must match a rule (arithmetic or todos). "then", ";" and a full stop always end a clause.
Where "and" or a comma could also belong inside one clause ("add 3 and 4", "buy milk and eggs"),
the split with the most clauses that all parse wins, so "add a todo to buy milk and show me all
my tasks" is two steps and "add 3 and 4" is one. Each rule also says how its step's outcome
reads: together they are the plan's answer_template ("20% of 150 = {{steps.s1.output.value}}").
A prompt with any clause no rule understands is refused with a message naming what was and was
not understood: the rule planner never guesses.

Any tool in the catalog, including tools registered by providers, can be planned explicitly
with "use TOOL with {JSON arguments}", e.g. 'use convert_units with {"value": 5, "from_unit":
"km", "to_unit": "mi"}'. Separators inside the JSON do not split the prompt.

"the result" (or "the answer", "that", and "it" in arithmetic) refers to the most recent earlier
calculator step and becomes a step reference: "calculate 2+3, then add a todo with the result"
adds the todo "2+3 = 5", "calculate 2+3 then multiply the result by 4" computes (5) * 4.
Todos work the same way: "add a todo to buy milk, then mark it as done" completes the todo the
first step adds.

A turn of a thread is planned with the thread's discourse model (discourse.py): with no earlier
step in the prompt to point at, "that" and "the answer" are the last result ("now double it",
"add that as a todo"), "it", "them", "both", "the second one" and "the other one" the todos the
conversation made salient (followups.py), and "what did I just add?" / "what was the answer?"
are answered from the history alone (a plan with no steps, only its answer). "undo that" and a
correction in the next turn are planned against the thread's last change (acts.py). A reference
that could mean more than one thing, or has nothing to point at, is refused with what it could
refer to; on a thread, a report no rule reads then "mark that one done" is the one of those it
could mean whose words the report says (reported_it.py), and "done!" alone is said of "it".
"""

from __future__ import annotations

import contextlib

from agentrt.core.values import dict_to_struct
from agentrt.v1 import plan_pb2
from planner_svc import acts, reported_it, what_if
from planner_svc.discourse import Discourse
from planner_svc.grammar import todos
from planner_svc.grammar.intent import RESULT_TEXT, RESULT_VALUE, RESULT_WORD, Intent
from planner_svc.planner import PlanningFailed, PlanRequest
from planner_svc.stages.answers import answer_template
from planner_svc.stages.binding import _bind
from planner_svc.stages.clauses import _OPERATION
from planner_svc.stages.closings import _strip_polite_suffix
from planner_svc.stages.common import MAX_PIECES, _cannot_plan, _quote, step_id
from planner_svc.stages.corrections import (
    _ADDS,
    _CORRECTION,
    _RETRACTED,
    _TAG_QUESTION,
    _UNDONE,
    _Correction,
    _correction,
    _may_take_back,
)
from planner_svc.stages.cover import _cover
from planner_svc.stages.polite import _clean
from planner_svc.stages.readings import _about_it, _bare_done, _part_readings
from planner_svc.stages.said import _as_said
from planner_svc.stages.segment import _split
from planner_svc.stages.shaping import _checked
from planner_svc.stages.tidy import _SIGNED, _tidy

__all__ = ["RESULT_TEXT", "RESULT_VALUE", "RESULT_WORD", "Intent", "RulePlanner", "answer_template", "plan"]


def plan(
    prompt: str, available_tools: set[str], max_steps: int = 0, context: Discourse | None = None
) -> list[Intent]:
    """Plan `prompt` into intents, or raise PlanningFailed saying what was understood.
    `context`: what the thread's earlier turns did (references bind to it); none for a one-shot run."""
    _clean.cache_clear()
    _strip_polite_suffix.cache_clear()
    tidied = _SIGNED.sub("", _tidy(prompt.strip()).strip())
    retracted = _RETRACTED.search(tidied) if _may_take_back(tidied) else None
    if retracted is None and (undone := _UNDONE.search(tidied)) and _ADDS.search(tidied[: undone.start()]):
        retracted = undone
    if retracted:
        taken_back = _quote(retracted.group(0).strip(" ,.;!?-"))
        raise _cannot_plan(
            f"the message takes back what it asks ({taken_back}): nothing was done; say the request "
            "again if you still want it"
        )
    if tag := _TAG_QUESTION.search(tidied):
        raise _cannot_plan(
            f"the message asks whether something is so ({_quote(tag.group(0).strip(' ,.;!-'))}): nothing "
            'was changed; to check a todo ask "did I ...?", or say what you did plainly'
        )
    if (acted := acts.act(tidied, context or Discourse(), available_tools)) is not None:
        intents = _checked(acted, available_tools, max_steps)
    elif corrected := list(_CORRECTION.finditer(tidied)):
        intents = _plan_correction(
            _correction(tidied, corrected[-1]), prompt, available_tools, max_steps, context
        )
    elif (listed := todos.listed_first(tidied)) is not None:
        intents = _checked([listed], available_tools, max_steps)
    elif context is not None and context.turns and (plain := _bare_done(tidied)) is not None:
        intents = _planned(plain, prompt, available_tools, max_steps, context)  # "done!": it is done
    elif context is not None and (named := reported_it.several(tidied, context)) is not None:
        # "I got the tomatoes and the basil, mark them done": "them" are the ones reported
        intents = _checked(named, available_tools, max_steps)
    else:
        try:
            intents = _planned(tidied, prompt, available_tools, max_steps, context)
        except PlanningFailed as failed:
            # Only what no other rule read: a report and an "it" command about it. In a thread,
            # "it" is one of the todos an earlier turn named: the one the report names.
            if context is not None and context.turns:
                named = reported_it.plan(tidied, context) or what_if.asked_again(tidied, context)
                if named is None:
                    raise
                return [_as_said(i, prompt) for i in _checked(named, available_tools, max_steps)]
            if (plain := _about_it(tidied)) is None:
                raise
            try:
                intents = _planned(plain, prompt, available_tools, max_steps, context)
            except PlanningFailed:
                raise failed from None
    if any(i.quantity for i in intents) and (
        any(i.tool == "calculator" for i in intents) or (context is not None and context.turns)
    ):
        counted = next(i for i in intents if i.quantity)
        raise _cannot_plan(
            f"{_quote(counted.clause)} may add a number to a sum or put a todo with a number on the list: "
            "nothing was done; say which (quote the todo: add '3 apples')"
        )
    return [_as_said(i, prompt) for i in intents]


def _plan_correction(
    correction: _Correction, prompt: str, available_tools: set[str], max_steps: int, context: Discourse | None
) -> list[Intent]:
    """What the message says after its last correction, when that is a request whole ("24 times
    16", "mark return library books done"); a part to put in place of another ("no wait, oat
    milk", "make that 20 percent") is refused: which part it replaces is a guess."""
    head, tail = correction.head, correction.tail
    try:
        intents = _planned(tail, prompt, available_tools, max_steps, context) if tail else []
    except PlanningFailed:
        intents = []
        if correction.named is not None:
            with contextlib.suppress(PlanningFailed):
                intents = _planned(correction.named, prompt, available_tools, max_steps, context)
    whole = bool(intents) and all(
        i.tool != "calculator" or _OPERATION.search(str(i.arguments.get("expression", "")).rstrip("% "))
        for i in intents
    )
    if not whole and correction.replaced is not None:
        with contextlib.suppress(PlanningFailed):  # the replaced request is refused like any other
            intents, whole = _planned(correction.replaced, prompt, available_tools, max_steps, context), True
    if not whole:
        raise _cannot_plan(
            f"the message corrects itself ({_quote(head)} ... {_quote(tail)}), and what it corrects to is "
            "not a request of its own: say the request once, as you mean it"
        )
    return intents


def _planned(
    tidied: str, prompt: str, available_tools: set[str], max_steps: int, context: Discourse | None
) -> list[Intent]:
    """One text planned: first the readings of a part of it (_part_readings), each kept only when
    its plan is what that reading needs; else the text whole (_read). Each reading goes through the
    stages once (cover, bind, check): no stage plans again."""
    pieces, separators = _split(tidied)
    if len(pieces) > MAX_PIECES:
        raise _cannot_plan(f"the prompt has too many parts to plan (more than {MAX_PIECES} clauses)")
    for part, keep in _part_readings(pieces, separators):
        with contextlib.suppress(PlanningFailed):
            if keep(intents := _read(part.strip(), prompt, available_tools, max_steps, context)):
                return intents
    return _read(tidied, prompt, available_tools, max_steps, context, split=(pieces, separators))


def _read(
    tidied: str,
    prompt: str,
    available_tools: set[str],
    max_steps: int,
    context: Discourse | None,
    *,
    split: tuple[list[str], list[str]] | None = None,
) -> list[Intent]:
    """One reading through the stages: its cover (the clauses understood), its references bound,
    checked against the catalog and max_steps."""
    planned = _cover(tidied, prompt, split)
    return _checked(_bind(planned, context or Discourse()), available_tools, max_steps)


class RulePlanner:
    """The rule planner as a member of the chain: each understood clause is one step, run in the
    order the user wrote them ("add ..., then show ..." must see the add)."""

    name = "rules"

    async def plan(self, request: PlanRequest) -> plan_pb2.Plan:
        if request.replan is not None:
            raise _cannot_plan("the rule planner cannot revise a failed plan")
        context = Discourse.of(request.history, request.thread_turn, request.tools)
        intents = plan(request.prompt, {t.name for t in request.tools}, request.max_steps, context)
        steps = [
            plan_pb2.PlanStep(
                id=step_id(n),
                tool=intent.tool,
                arguments=dict_to_struct(intent.arguments),
                depends_on=[step_id(n - 1)] if n > 1 else [],
                reasoning=intent.reasoning,
                confirm=intent.confirm,
            )
            for n, intent in enumerate((i for i in intents if i.tool), start=1)
        ]
        return plan_pb2.Plan(steps=steps, planner=self.name, answer_template=answer_template(intents))
