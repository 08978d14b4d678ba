"""Shaping understood intents into steps: todos named in a row as one step, the names a plan
completes or deletes found first, expansions, and the check against the catalog and max_steps."""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.followups import PRONOUNS
from planner_svc.grammar import arithmetic
from planner_svc.grammar.intent import Intent
from planner_svc.stages.common import _cannot_plan


def _merged(intents: list[Intent]) -> list[Intent]:
    """Clauses in a row that complete (or delete) todos by name, as one intent naming them all
    ("I called mom and walked the dog"): todo_store then changes all of them or none, so a name
    that fits no todo never leaves the others half done."""
    out: list[Intent] = []
    for intent in intents:
        if out and _reported_then_deleted(out[-1], intent):
            # "it's done, remove it", "booked the hotel so delete that": the report says why it
            # goes; done first would change nothing the delete leaves (as "report's done, you can
            # delete it" is read). The todo the report names, deleted.
            report = out[-1]
            named = {"text": report.arguments["text"]} if "text" in report.arguments else {}
            out[-1] = replace(
                intent,
                clause=f"{report.clause}; {intent.clause}",
                arguments={**intent.arguments, **named},
                todos=None if named else intent.todos,
                reasoning=f"{report.reasoning}; {intent.reasoning}" if named else intent.reasoning,
            )
            continue
        if out and _said_again(out[-1], intent):
            # "actually I just paid it, mark it done": the report, and the command said of it
            out[-1] = replace(out[-1], clause=f"{out[-1].clause}; {intent.clause}")
            continue
        named = _named_todos(intent)
        before = _named_todos(out[-1]) if out else None
        if (
            named is not None
            and before is not None
            and out[-1].arguments["action"] == intent.arguments["action"]
            and isinstance(before[0], int) == isinstance(named[0], int)
        ):
            last = out[-1]
            out[-1] = replace(
                last,
                clause=f"{last.clause}; {intent.clause}",
                arguments={"action": last.arguments["action"]},
                reasoning=f"{last.reasoning}; {intent.reasoning}",
                each=(*before, *named),
            )
        else:
            out.append(intent)
    return out


# A command to mark done, not a report that it is: "mark it done and delete it" asks for both.
_DONE_COMMAND = re.compile(r"^\W*(?:mark|tick|check|cross|complete|finish|set|close)\b", re.IGNORECASE)


def _reported_then_deleted(before: Intent, intent: Intent) -> bool:
    """Whether `before` reports "it" done and `intent` deletes "it" ("it's done, remove it")."""
    said_of_it = before.arguments == {"action": "complete"} and (
        before.todos is not None and before.todos.count == 1 and before.todos.words in PRONOUNS
    )
    named = set(before.arguments) == {"action", "text"} and before.arguments["action"] == "complete"
    return (
        before.tool == intent.tool == "todo_store"
        and (said_of_it or named)
        and intent.arguments == {"action": "delete"}
        and intent.todos is not None
        and intent.todos.count == 1
        and intent.todos.words in PRONOUNS
        and not _DONE_COMMAND.match(before.clause)
    )


def _said_again(before: Intent, intent: Intent) -> bool:
    """Whether `intent` makes the change `before` makes to "it", to "it" again."""
    return (
        before.tool == intent.tool == "todo_store"
        and before.arguments == intent.arguments
        and before.todos is not None
        and intent.todos is not None
        and before.todos.count == intent.todos.count == 1
        and before.todos.words in PRONOUNS
        and intent.todos.words in PRONOUNS
    )


_CHANGES = frozenset(["add", "complete", "delete", "delete_all"])


def _names_checked_first(intents: list[Intent]) -> list[Intent]:
    """The plan, opened by a todo_store find of every todo a later step completes or deletes by
    name after an earlier step has changed the list ("add eggs, then mark the dentist done"): a
    name that fits no todo then fails the run before anything changed, so a refused request has
    changed nothing. A name of a todo the plan itself adds is not checked (it is not there yet),
    nor an id after an add (it may be the added one's)."""
    changed, adds, added = False, False, set()
    texts: list[str] = []
    ids: list[int] = []
    clauses: list[str] = []
    for intent in intents:
        if intent.tool != "todo_store":
            continue
        action = intent.arguments.get("action")
        if changed and (names := _named_todos(intent)) is not None:
            # an id after an add may be the added todo's ("add bread; then mark todo 1 done")
            fresh = [n for n in names if (not adds if isinstance(n, int) else not (_words(n) & added))]
            texts += [n for n in fresh if isinstance(n, str)]
            ids += [n for n in fresh if isinstance(n, int)]
            clauses += [intent.clause] if fresh else []
        if action == "add":
            adds = True
            for text in intent.arguments.get("texts", [intent.arguments.get("text")]):
                added |= _words(text) if isinstance(text, str) else set()
        changed = changed or action in _CHANGES
    # "both bills": every todo a name fits, so many of them, checked on its own
    every = [
        Intent(
            intent.clause,
            "todo_store",
            {**intent.arguments, "action": "find"},
            f"checks that {intent.arguments['text']!r} names "
            f"{intent.arguments.get('matching', 'some')} todos before the plan changes the list",
        )
        for k, intent in enumerate(intents)
        if ("matching" in intent.arguments or "every" in intent.arguments)
        and any(i.tool == "todo_store" and i.arguments.get("action") in _CHANGES for i in intents[:k])
    ]
    checks = [
        Intent(
            "; ".join(clauses),
            "todo_store",
            {"action": "find", **({f"{key}s": names} if len(names) > 1 else {key: names[0]})},
            f"checks that {', '.join(map(repr, names))} each name one todo before the plan changes the list",
        )
        for key, names in (("text", texts), ("id", ids))
        if names
    ]
    return [*every, *checks, *intents]


def _words(text: str) -> set[str]:
    """A name's words that say which todo (not "the", "a", "to"): for matching names loosely."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in _FILLER_NAME}


_FILLER_NAME = frozenset(
    ["the", "and", "for", "with", "one", "todo", "task", "item", "that", "this", "off", "done"]
)


def _named_todos(intent: Intent) -> tuple[str | int, ...] | None:
    """The todos a complete or delete names by text or id (none by reference), or None."""
    arguments = intent.arguments
    if (
        intent.tool != "todo_store"
        or intent.explicit
        or arguments.get("action") not in ("complete", "delete")
        or intent.todos is not None
        or intent.refers
        or intent.then is not None
        or intent.recall
        or intent.confirm
    ):
        return None
    if intent.each:
        return intent.each
    if set(arguments) == {"action", "text"} and isinstance(arguments["text"], str):
        return (arguments["text"],)
    if set(arguments) == {"action", "id"} and isinstance(arguments["id"], int):
        return (arguments["id"],)
    return None


def _expanded(intents: list[Intent]) -> list[Intent]:
    """Each intent, and right after it the calculation it asks to be followed by (Intent.then)."""
    out: list[Intent] = []
    for intent in intents:
        if intent.refers == arithmetic.TOTAL_REFERENCE and out and (total := arithmetic.total_after(out[-1])):
            out.append(total)  # "tip 20% on 65. then split the total": the bill and the tip first
        # (Intent is frozen: one without a follow-up is appended as it is, not copied.)
        out.append(intent if intent.then is None else replace(intent, then=None))
        if isinstance(intent.then, Intent):
            out.append(intent.then)
        elif intent.then is not None:
            expr, answer = intent.then
            follow = arithmetic.calculation(intent.clause, expr, "the result", answer)
            out.append(follow)
    return out


def _checked(intents: list[Intent], available_tools: set[str], max_steps: int) -> list[Intent]:
    """`intents`, if the catalog has their tools and they fit in max_steps."""
    missing = sorted({i.tool for i in intents if i.tool} - available_tools)
    if missing:
        known = ", ".join(sorted(available_tools)) or "none"
        raise _cannot_plan(
            f"understood the prompt, but the tool catalog lacks {', '.join(missing)} (available: {known})",
            understood=intents,
        )
    steps = sum(1 for i in intents if i.tool)
    if max_steps and steps > max_steps:
        raise _cannot_plan(
            f"the prompt needs {steps} steps but max_steps is {max_steps}",
            understood=intents,
            reason="MAX_STEPS_EXCEEDED",
        )
    return intents
