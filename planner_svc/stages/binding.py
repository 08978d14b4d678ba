"""Binding references: to an earlier step of the same plan first, else to the thread's
discourse model ("it", "that", "the second one"); a reference to several todos is a step each."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from planner_svc import recall, result_refs
from planner_svc.discourse import Discourse
from planner_svc.followups import TodoReference
from planner_svc.grammar import arithmetic
from planner_svc.grammar.intent import RESULT_TEXT, RESULT_VALUE, RESULT_WORD, RESULTS, RESULTS_COUNT, Intent
from planner_svc.planner import PlanningFailed
from planner_svc.stages.common import _cannot_plan, _literal, step_id


def _bind(intents: list[Intent], context: Discourse) -> list[Intent]:
    """Bind every reference: to the latest earlier step of this plan that can be meant, else to
    the thread's history (`context`). A reference to several todos becomes one step per todo, and
    a question about an earlier turn an answer with no step."""
    bound: list[Intent] = []
    last_calc: str | None = None  # step id of the latest calculator step
    calcs: list[str] = []  # ... and of every calculator step so far ("add them up")
    last_todo: tuple[str, Intent] | None = None  # ... and of the latest todo_store step
    steps = 0  # tool intents bound so far: the next one is step s<steps + 1>
    for parsed in intents:
        try:
            if parsed.recall:
                recalled = {
                    "added": recall.recall_added,
                    "added_count": recall.recall_added_count,
                    "answer": recall.recall_answer,
                    "it": recall.recall_it,
                    "changed": recall.recall_changed,
                    "removed": recall.recall_removed,
                    "first_answer": recall.recall_first_answer,
                    "first_added": recall.recall_first_added,
                }[parsed.recall](context)
                made = [replace(parsed, answer=_literal(recalled))]
            elif parsed.todos is not None:
                made = _bind_todos(parsed, last_todo, context)
            elif parsed.each:
                # One step for them all: todo_store changes every todo named, or none (a name that
                # fits no todo leaves the others as they were, and the request is refused whole).
                key = "id" if isinstance(parsed.each[0], int) else "text"
                several = {f"{key}s": list(parsed.each)} if len(parsed.each) > 1 else {key: parsed.each[0]}
                made = [replace(parsed, arguments={**parsed.arguments, **several}, each=())]
            elif RESULTS.search(str(parsed.arguments.get("expression", ""))):
                folded = _folded(parsed, bound, calcs, steps)
                if folded is not None:
                    # the calculations it combines become its parts: one step, one result
                    del bound[-len(calcs) :]
                    steps -= len(calcs)
                    calcs = []
                made = [folded or _bind_results(parsed, calcs)]
            else:
                made = [_bind_result(parsed, last_calc, context)]
        except PlanningFailed as exc:
            raise _cannot_plan(str(exc), understood=intents, not_understood=[parsed.clause]) from None
        for intent in made:
            bound.append(intent)
            if intent.tool:
                steps += 1
                position = step_id(steps)
                if intent.tool == "calculator":
                    last_calc = position
                    # ", rounded down" after a sum is that sum, rounded: one result, not two
                    again = calcs and RESULT_VALUE in str(parsed.arguments.get("expression", ""))
                    calcs[-1:] = [position] if again else [*calcs[-1:], position]
                elif intent.tool == "todo_store":
                    last_todo = (position, intent)
    return bound


def _folded(intent: Intent, bound: list[Intent], calcs: list[str], steps: int) -> Intent | None:
    """ "what's 3*4 and 5*6, add the two together": when the results it combines are the plan's
    last steps and plain calculations (nothing else reads them), one calculation of the whole,
    "(3*4) + (5*6)": the turn has one result, the one the person asked for, and a later "halve
    it" means it. None when any part reads another step's output."""
    if len(calcs) < 2 or calcs != [step_id(n) for n in range(steps - len(calcs) + 1, steps + 1)]:
        return None
    parts = bound[-len(calcs) :]
    expressions = [str(p.arguments.get("expression", "")) for p in parts]
    if any(
        p.tool != "calculator" or p.then is not None or "{{" in e or not e
        for p, e in zip(parts, expressions, strict=True)
    ):
        return None
    expression = _written_out(intent.arguments["expression"], [f"({e})" for e in expressions])
    return replace(
        intent,
        clause=", ".join([*(p.clause for p in parts), intent.clause]),
        arguments={**intent.arguments, "expression": expression},
        reasoning=f"{intent.reasoning} (of {', '.join(expressions)}, computed as one)",
        answer=f"{expression} = {{{{out.value}}}}",
    )


def _written_out(expression: str, values: list[str]) -> str:
    """`expression` with "{{results:+}}" as `values` joined by "+" and "{{results:count}}" as how
    many there are."""

    def written(m: re.Match[str]) -> str:
        return str(len(values)) if m.group() == RESULTS_COUNT else f" {m.group(1)} ".join(values)

    return RESULTS.sub(written, expression)


def _bind_results(intent: Intent, calcs: list[str]) -> Intent:
    """ "calculate 3*4 and 5*6, then add them up": "them" is every result of this plan before it,
    two at least (one is "it"; and a thread's earlier results are not "them": which ones?)."""
    if len(calcs) < 2:
        raise PlanningFailed(
            f"{intent.clause!r} means earlier results, but this message computes "
            f"{'one' if calcs else 'none'} before it: say the numbers"
        )
    values = [f"({{{{steps.{c}.output.value}}}})" for c in calcs]
    expression = _written_out(intent.arguments["expression"], values)
    why = f"{intent.reasoning} (the results of {', '.join(calcs)})"
    return replace(intent, arguments={**intent.arguments, "expression": expression}, reasoning=why)


def _bind_result(intent: Intent, last_calc: str | None, context: Discourse) -> Intent:
    """Result placeholders bound to the latest earlier calculator step, else the history's result."""
    arguments = intent.arguments
    text = " ".join(str(v) for v in arguments.values())
    if RESULT_VALUE not in text and RESULT_TEXT not in text:
        return intent
    if last_calc is not None:
        value = f"{{{{steps.{last_calc}.output.value}}}}"
        # "add the answer as a todo": the todo is the answer ("42"), as the people who wrote the
        # eval's requests, asked what they expect, all wrote it.
        described, word = value, "the result"
        why = f"uses {last_calc}'s result"
    elif (
        intent.as_said is not None
        and context.not_done_before is None
        and (
            not context.result_turn
            # "remind me to pay it": the sum only when no todo was named since it was computed
            # ("add electric bill", then "remind me to pay it / that": the bill, the person's words)
            or (intent.refers == "it" and context.result_turn != context.latest_turn)
            or context.view(intent.tool).focus_turn > context.result_turn
        )
    ):
        # "add transfer that to Alex" with nothing computed: "that" is the person's own word
        # (unless the turn before was not done: it may have been the sum "that" means)
        return replace(intent, arguments=intent.as_said, refers="", as_said=None)
    else:
        earlier = result_refs.result(intent.refers or "the result", context)
        if intent.refers == arithmetic.TOTAL_REFERENCE and "%" in earlier.expression:
            # "split the total" after "a 20% tip on 45": the tip alone, or the bill with it?
            raise PlanningFailed(
                f"'the total' after {earlier} from turn {context.result_turn}: that is a percentage, and "
                "whether the total is it alone or with what it is of is not said: say the amount to split"
            )
        value, described, word = _literal(earlier.value), _literal(earlier.value), _literal(earlier.value)
        why = f"{(intent.refers or 'the result')!r} is {earlier} from turn {context.result_turn}"
    arguments = {
        k: v.replace(RESULT_VALUE, value).replace(RESULT_TEXT, described) if isinstance(v, str) else v
        for k, v in arguments.items()
    }
    return replace(
        intent,
        arguments=arguments,
        reasoning=f"{intent.reasoning} ({why})",
        answer=intent.answer.replace(RESULT_WORD, word),
    )


_WHOLE_LIST = frozenset(["it all", "them all", "all of it", "all of them", "that all", "those all"])


def _bind_todos(intent: Intent, last_todo: tuple[str, Intent] | None, context: Discourse) -> list[Intent]:
    """A complete or delete of earlier todos: one step per todo meant, by id. The todos an earlier
    step of this plan adds or completes are meant when there is one (by reference to its output:
    their ids are not known yet), else the ones the history says."""
    reference = intent.todos
    assert reference is not None
    action = intent.arguments["action"]
    view = context.view(intent.tool)
    earlier = bool(view.focus_turn or view.group_turn)  # a turn of the thread named todos
    if last_todo is not None and (everything := _all_listed(intent, reference, *last_todo)) is not None:
        return [everything]
    if (
        last_todo is not None
        and action in ("delete", "complete")
        and last_todo[1].arguments.get("action") == action
        and "text" in last_todo[1].arguments
        and reference.count == 1
        and reference.index is None
    ):
        # "forget about the concert tickets, it's sold out. take it off": the todo the step before
        # already deletes, asked again (not a second todo: the step names one)
        return []
    if last_todo is None and not earlier and reference.words in _WHOLE_LIST and action == "delete":
        # "wipe it all, I'm starting fresh" with nothing before it: "it all" can only be the list.
        why = f"{intent.reasoning}: nothing was named before {reference.words!r}, so the whole list"
        return [replace(intent, arguments={"action": "delete_all"}, reasoning=why, todos=None, confirm=True)]
    if last_todo is not None and {action, last_todo[1].arguments.get("action")} in _UNDOING_EACH_OTHER:
        # "I bought the milk, untick it": done, then not done, in one breath: which is meant?
        raise PlanningFailed(
            f"{reference.words!r} is the todo {last_todo[0]} {last_todo[1].arguments.get('action')}s, and "
            f"{intent.clause!r} undoes that in the same message: say which you mean",
            reason="UNPLANNABLE",
        )
    if last_todo is not None:
        ids: list[Any] = [{"$ref": path} for path in _pick(reference, *_todos_made_by(*last_todo))]
        whats = [f"the todo {last_todo[0]} makes"] * len(ids)
    elif (
        reference.index is not None
        and not earlier
        and (
            reference.words.endswith("list")
            # "scratch the last item": the list's last; "the last one" says "of those" (none here)
            or (reference.index == -1 and not reference.words.endswith(("one", "ones")))
        )
    ):
        # "the second one on my list", "the last item on the list" with nothing before it: a place
        # on the whole list, found by todo_store when the step runs (ids have gaps; places do not).
        place = "the last" if reference.index == -1 else f"number {reference.index}"
        why = f"{intent.reasoning}: the todo at place {place} of the list"
        return [
            replace(
                intent, arguments={"action": action, "position": reference.index}, reasoning=why, todos=None
            )
        ]
    elif (
        reference.index is not None
        and reference.index > 0
        and not earlier
        and not reference.words.endswith(("one", "ones"))
    ):
        # "mark the third todo as done" with nothing listed before: the todo numbered 3, as every
        # listing shows it ("3. pay rent"); a number no todo has is refused by todo_store. "The
        # first one" says "one of those": with nothing before it, there are none (refused below).
        ids, whats = [reference.index], [f"the todo numbered {reference.index}"]
    else:
        things = reference.resolve(context, intent.tool)
        whats = [f"{reference.words!r} read as {t}" for t in things]
        # The answer says how the reference was read, before what changed: a person sees at once
        # which todo "it" was taken to be.
        read = f"Reading {reference.words!r} as {', '.join(str(t) for t in things)}: "
        return [
            replace(
                intent,
                arguments={"action": action, "id": thing.id},
                reasoning=f"{intent.reasoning}: {what}",
                todos=None,
                answer=(read if n == 0 else "") + intent.answer,
            )
            for n, (thing, what) in enumerate(zip(things, whats, strict=True))
        ]
    return [
        replace(
            intent,
            arguments={"action": action, "id": todo_id},
            reasoning=f"{intent.reasoning}: {what}",
            todos=None,
        )
        for todo_id, what in zip(ids, whats, strict=True)
    ]


# Actions that reverse each other: one said of "it" right after the other is a contradiction
_UNDOING_EACH_OTHER = ({"complete", "reopen"},)


def _all_listed(intent: Intent, reference: TodoReference, step: str, earlier: Intent) -> Intent | None:
    """ "list my todos, then clear them all", "show me what's done, then delete those": every todo
    the listing showed, which is every todo (in its state) there is: one delete_all, confirmed."""
    listing = earlier.arguments
    if (
        listing.get("action") not in ("list", "count")
        or reference.count is not None
        or reference.index is not None
    ):
        return None
    if intent.arguments.get("action") != "delete":
        raise PlanningFailed(
            f"{reference.words!r} means every todo {step} lists, but I can only "
            f"{intent.arguments.get('action')} todos one at a time: name them"
        )
    state = {"state": listing["state"]} if "state" in listing else {}
    return replace(
        intent,
        arguments={"action": "delete_all", **state},
        reasoning=f"{intent.reasoning}: every todo {step} lists (a person confirms it)",
        todos=None,
        confirm=True,
    )


def _todos_made_by(step: str, intent: Intent) -> tuple[str, list[str]]:
    """(what the step is, output paths of the ids of the todos it adds or completes, in order)."""
    arguments = intent.arguments
    if arguments.get("action") == "add" and isinstance(arguments.get("texts"), list):
        return f"step {step}", [f"steps.{step}.output.todos.{n}.id" for n in range(len(arguments["texts"]))]
    if arguments.get("action") in ("add", "complete"):
        return f"step {step}", [f"steps.{step}.output.todo.id"]
    raise PlanningFailed(
        f"it is not clear which todos the reference means: the step before it ({step}) "
        f"{arguments.get('action', 'uses')}s todos whose number is not known until it runs; name the todo"
    )


def _pick(reference: TodoReference, step: str, paths: list[str]) -> list[str]:
    """The paths `reference` means among those a step of this plan makes."""
    if reference.index is not None:
        position = len(paths) if reference.index == -1 else reference.index
        if len(paths) == 1:
            # "mark the first todo done and delete the last one": a place picks one of several,
            # and the step makes one todo, so the words mean other todos (the list's?): unclear
            raise PlanningFailed(
                f"{reference.words!r} picks one of several todos, but {step} makes only one; name the todo"
            )
        if not 1 <= position <= len(paths):
            raise PlanningFailed(
                f"{reference.words!r} points at todo {position}, but {step} makes {len(paths)}"
            )
        return [paths[position - 1]]
    if reference.count is not None and reference.count != len(paths):
        raise PlanningFailed(
            f"{reference.words!r} means {reference.count} todo(s), but {step} makes {len(paths)}; "
            "name the todo"
        )
    return paths
