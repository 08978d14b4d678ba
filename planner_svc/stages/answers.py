"""The plan's answer template: each step's sentence, bound to its output."""

from __future__ import annotations

from planner_svc.grammar.intent import Intent
from planner_svc.stages.common import step_id


def _listed_after(intent: Intent, later: list[Intent]) -> bool:
    """Whether `intent` deletes todos and a later step lists the list, or completes todos and a
    later step lists the open ones (where the completed ones are no more)."""
    action = intent.arguments.get("action")
    return intent.tool == "todo_store" and any(
        i.tool == "todo_store"
        and i.arguments.get("action") == "list"
        and (
            action in ("delete", "delete_all")
            or (action == "complete" and i.arguments.get("state") == "open")
        )
        for i in later
    )


def answer_template(intents: list[Intent]) -> str:
    """The run's answer: each step's answer, its {{out.x}} bound to that step's output, as
    sentences ("Added 'buy milk' (#3). You have 3 todos: ...")."""
    parts: list[str] = []
    steps = 0
    for k, intent in enumerate(intents):
        steps += bool(intent.tool)
        if not intent.tool:  # answered from the history: the answer is the text itself
            parts.append(intent.answer)
        elif _listed_after(intent, intents[k + 1 :]):
            # "delete the done ones and show me what's left": the list that follows is the
            # answer; naming what went as well reads as if it were still there
            action = intent.arguments.get("action")
            parts.append(
                f"Todos deleted: {{{{steps.{step_id(steps)}.output.deleted_count}}}}."
                if action == "delete_all"
                else "Marked done."
                if action == "complete"
                else "Deleted."
            )
        elif intent.answer:
            here = step_id(steps)
            parts.append(
                intent.answer.replace("{{out}}", f"{{{{steps.{here}.output}}}}").replace(
                    "{{out.", f"{{{{steps.{here}.output."
                )
            )
    if len(parts) == 1:
        return parts[0]
    # A tool's summary is a whole sentence already; the other answers end where their value does.
    return " ".join(p if p.endswith((".", "!", "?", "summary}}")) else p + "." for p in parts)
