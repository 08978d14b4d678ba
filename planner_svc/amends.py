"""What a correction of the thread's last change makes of it (acts.py reads the act): the undo
of the change and the change meant instead ("no, I meant almond milk, not oat milk": a word put
right, the end said again, a day or a number of the same kind; "sorry, the other one"), the last
change made again to another thing ("and the other one too"), a sum computed again with a number
put right ("45 not 54"); and the steps every act is made of: by id, with the guard the tool
declares, each naming what it reverses. Which words of an added todo a correction puts right is
put_right.py's."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from agentrt.core.text import clip
from planner_svc import put_right
from planner_svc.discourse import Call, Change, Discourse, Thing, named
from planner_svc.followups import todo_reference
from planner_svc.grammar import arithmetic
from planner_svc.grammar.intent import SUMMARY, Intent
from planner_svc.grammar.todos import starts_a_task
from planner_svc.planner import PlanningFailed

_F = re.IGNORECASE
_ARTICLE = re.compile(r"^(?:the|my|a|an|that|this)\s+", _F)

# How an inverse action reads once done, for the answer ("Undid turn 2 (add #1 'buy milk'):
# deleted #1 'buy milk'."); an action not here reads as itself.
DONE = {"delete": "deleted", "reopen": "reopened", "restore": "restored", "complete": "completed"}


@dataclass(frozen=True)
class Act:
    """What a message does to the conversation: undo, correct (to x, not y) or again (to x)."""

    kind: str  # undo, correct, again
    x: str = ""
    y: str = ""


def guarded(intents: list[Intent], call: Call) -> list[Intent]:
    """Each inverse step with the thing as the change left it, where the tool declares an argument
    for that: the tool refuses to reverse a change to something changed since (in another thread,
    by another client), rather than undo what someone else did."""
    if not call.guard:
        return intents
    return [
        replace(i, arguments={**i.arguments, call.guard: [dict(t.state)]}) if t.state else i
        for i, t in zip(intents, call.things, strict=True)
    ]


_A_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")
_NUMBER_SAID = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*(?P<pct>%|percent)?$", _F)


def recomputed(message: str, found: Act, discourse: Discourse, change: Change | None) -> list[Intent] | None:
    """ "what's 54 times 12", then "no sorry, I meant 45 not 54": the turn before's sum again, the
    number put right. None when the turn before computed nothing or the correction is no number
    for a number (a todo's correction, read on); refused when which number it replaces is unclear."""
    said, was = _NUMBER_SAID.match(found.x), _NUMBER_SAID.match(found.y)
    if said is None or not discourse.result_turn or discourse.result_turn != discourse.latest_turn:
        return None
    if change is not None and change.turn == discourse.latest_turn:
        return None  # the turn changed todos too: the correction is read as of them
    if len(discourse.results) != 1:
        raise refuse(
            f"{quoted(message)} corrects turn {discourse.result_turn}, which computed several results"
        )
    result = discourse.results[0]
    found = list(_A_NUMBER.finditer(result.expression))
    numbers = [n.group() for n in found]
    old = was.group("n") if was is not None else (numbers[0] if len(set(numbers)) == 1 else "")
    if not old or numbers.count(old) != 1:
        raise refuse(
            f"{quoted(message)} corrects {result}, and which of its numbers {said.group('n')!r} replaces is "
            f"not said (or it is said more than once): say the sum again"
        )
    at = found[numbers.index(old)]
    expression = result.expression[: at.start()] + said.group("n") + result.expression[at.end() :]
    again = arithmetic.parse(f"calculate {expression}")
    if again is None:
        raise refuse(f"{quoted(message)}: {expression!r} is no sum I can compute; say it again in full")
    why = f"{quoted(message)} puts {result} right: {old} -> {said.group('n')}"
    return [
        replace(
            again,
            clause=message,
            reasoning=why,
            answer=f"Corrected {old} to {said.group('n')}: {again.answer}",
        )
    ]


def _single(message: str, change: Change) -> Call:
    if len(change.calls) != 1:
        raise refuse(
            f"{quoted(message)} corrects turn {change.turn}, which made {len(change.calls)} changes "
            f"({change.describe()}): say which to put right (or undo it and ask again)"
        )
    return change.calls[0]


def correct(message: str, found: Act, change: Change, discourse: Discourse) -> list[Intent]:
    call = _single(message, change)
    if len(call.things) != 1:
        raise refuse(
            f"{quoted(message)} corrects turn {change.turn}, which changed {len(call.things)} at once "
            f"({change.describe()}): undo it and say again what you meant"
        )
    (was,) = call.things
    if not call.inverse:
        raise refuse(f"the last change ({change.describe()}) cannot be undone, so it cannot be corrected")
    why = f"puts right {change.describe()}"
    (undo,) = guarded(by_id(message, call.tool, call.inverse, (was,), why), call)
    if (meant_action := action_said(found.x)) is not None:
        # "I meant done, not deleted": the same todo, the other change
        said_not = action_said(found.y) if found.y else call.action
        if said_not != call.action or call.action in (meant_action, "add"):
            raise refuse(
                f"{quoted(message)} says which change was meant, but turn {change.turn} made another "
                f"({change.describe()}): say it in full"
            )
        (redo,) = by_id(message, call.tool, meant_action, (was,), f"in place of {call.action}")
        return [
            answering(
                undo, f"Undid turn {change.turn}'s change to {was}: {DONE.get(call.inverse, call.inverse)}."
            ),
            answering(redo, SUMMARY),
        ]
    reference = todo_reference(found.x)
    if reference is not None:
        # "sorry, the other one": the same change, to the thing the reference means
        said_not = todo_reference(found.y) if found.y else None
        if call.action == "add" or (found.y and (said_not is None or said_not.count != 1)):
            # ("not that one, the first one": "that one" is the one just changed, as it must be)
            raise refuse(f"{quoted(message)}: which change it means instead is not clear; say it in full")
        (meant,) = _one(message, reference.resolve(discourse, call.tool))
        if meant == was:
            raise refuse(f"{found.x!r} is {was}, the one turn {change.turn} changed already: name the todo")
        (redo,) = by_id(message, call.tool, call.action, (meant,), f"{found.x!r} read as {meant}")
        return [
            answering(
                undo, f"Undid turn {change.turn}'s change to {was}: {DONE.get(call.inverse, call.inverse)}."
            ),
            answering(redo, f"{found.x!r} read as {meant}: " + SUMMARY),
        ]
    if call.action != "add" and (number := _TODO_NUMBER.fullmatch(found.x.strip())):
        # "actually I meant number 3": the same change, to the todo with that number
        meant_id = int(number["n"])
        if meant_id == was.id:
            raise refuse(f"{found.x!r} is {was}, the one turn {change.turn} changed already: name the todo")
        redo = Intent(
            message, call.tool, {"action": call.action, "id": meant_id}, f"{why}: #{meant_id}", SUMMARY
        )
        check = Intent(
            message,
            call.tool,
            {"action": "find", "id": meant_id},
            f"checks that #{meant_id} is a todo before the correction changes the list",
        )
        undone = f"Undid turn {change.turn}'s change to {was}: {DONE.get(call.inverse, call.inverse)}."
        return [check, answering(undo, undone), redo]
    if call.action == "add":
        text = _replaced(message, was, found)
        redo = Intent(
            message,
            call.tool,
            {"action": "add", "text": text},
            f"{quoted(message)} adds {text!r} in place of {was}",
            SUMMARY,
        )
    else:
        if found.y and not _words(found.y) & _words(was.text) and not _the_one_changed(found.y):
            raise refuse(
                f"{quoted(message)} says not {found.y!r}, but turn {change.turn} changed {was}: say which "
                "change to put right"
            )
        name = _ONE_AFTER.sub("", _ARTICLE.sub("", found.x).strip())
        redo = Intent(
            message,
            call.tool,
            {"action": call.action, "text": name},
            f"{quoted(message)} {call.action}s {name!r} in place of {was}",
            SUMMARY,
        )
        # The name is checked before the undo: one that fits no todo, or several, fails the run
        # before anything changed (a correction is both changes or neither).
        check = Intent(
            message,
            call.tool,
            {"action": "find", "text": name},
            f"checks that {name!r} names one todo before the correction changes the list",
        )
        return [
            check,
            answering(
                undo, f"Undid turn {change.turn}'s change to {was}: {DONE.get(call.inverse, call.inverse)}."
            ),
            redo,
        ]
    return [
        answering(
            undo, f"Undid turn {change.turn}'s change to {was}: {DONE.get(call.inverse, call.inverse)}."
        ),
        redo,
    ]


def again(message: str, words: str, change: Change, discourse: Discourse) -> list[Intent]:
    """ "and the other one too": the last change, made to what the reference means."""
    call = _single(message, change)
    reference = todo_reference(words)
    assert reference is not None
    if call.action == "add":
        raise refuse(f"{quoted(message)}: turn {change.turn} added, and what to add again is not clear")
    (meant,) = _one(message, reference.resolve(discourse, call.tool))
    if meant in call.things:
        raise refuse(f"{words!r} is {meant}, which turn {change.turn} changed already: name the todo")
    (intent,) = by_id(message, call.tool, call.action, (meant,), f"{words!r} read as {meant}")
    return [answering(intent, f"{words!r} read as {meant}: " + SUMMARY)]


def _replaced(message: str, was: Thing, found: Act) -> str:
    """The corrected text of an add: `was` with y put right to x, or x whole."""
    x = found.x.strip(" \"'")
    if not found.y:
        if (put := put_right.said_again(was.text, x)) is not None:
            return put
        if not starts_a_task(x):
            # "no, I meant almond milk" after "add buy oat milk": which words it replaces is a guess
            raise refuse(
                f"{quoted(message)} corrects {was}, and which of its words {x!r} replaces is not said: "
                f'say the todo in full, or "{x}, not ..."'
            )
        return x
    put, y = put_right.part_put_right(was.text, x, found.y)
    if put is None:
        raise refuse(
            f"{quoted(message)} says not {y!r}, but turn's add was {was}, which does not say it: say the "
            "todo in full"
        )
    return put


# A change said as a correction says it ("I meant done, not deleted", "complete it, not delete it").
_ACTIONS_SAID = (
    (
        "complete",
        re.compile(
            r"(?:(?:mark|marked|tick|ticked|check|checked|cross|crossed)\s+(?:it|that|them|that\s+one)\s+"
            r"(?:as\s+)?(?:done|complete|completed|finished|off)|(?:mark|marked)\s+(?:it\s+)?(?:as\s+)?done"
            r"|(?:tick|ticked|check|checked|cross|crossed)\s+(?:it\s+)?off|complete|completed|complete\s+it"
            r"|done|finished|finish\s+it|(?:as\s+)?done)",
            _F,
        ),
    ),
    (
        "delete",
        re.compile(
            r"(?:delete|deleted|remove|removed|bin|binned|drop|dropped|scrap|scrapped)(?:\s+(?:it|that|them|that\s+one))?"
            r"|gone|get\s+rid\s+of\s+(?:it|that)",
            _F,
        ),
    ),
    ("reopen", re.compile(r"reopen(?:ed)?(?:\s+(?:it|that))?|not\s+done|undone|open(?:\s+again)?", _F)),
)


def action_said(words: str) -> str | None:
    """The change `words` say, whole ("done", "delete it", "mark it as done"), or None."""
    said = " ".join(words.lower().strip(" .!,").split())
    return next((action for action, pattern in _ACTIONS_SAID if pattern.fullmatch(said)), None)


# "number 3", "no. 3", "#3": a todo by its number
_TODO_NUMBER = re.compile(r"(?:(?:the\s+)?(?:number|no\.?|todo|task)\s*|#)(?P<n>\d{1,9})", _F)
_ONE_AFTER = re.compile(r"\s+(?:one|thing|todo|task|item)$", _F)


def _the_one_changed(words: str) -> bool:
    """ "not that one, the milk one": the one the change changed, pointed at."""
    reference = todo_reference(words)
    return (
        reference is not None
        and reference.count == 1
        and reference.words in ("that one", "this one", "it", "that")
    )


def by_id(message: str, tool: str, action: str, things: tuple[Thing, ...], why: str) -> list[Intent]:
    """One step per thing, by id (as every reference the planner binds: stages/binding._bind_todos)."""
    return [
        Intent(message, tool, {"action": action, "id": t.id}, f"{quoted(message)} {why}: {action} {t}")
        for t in things
    ]


def answering(intent: Intent, answer: str) -> Intent:
    return Intent(intent.clause, intent.tool, intent.arguments, intent.reasoning, answer)


def _one(message: str, things: list[Thing]) -> list[Thing]:
    if len(things) != 1:
        raise refuse(f"{quoted(message)} means one todo, and {len(things)} fit: {named(tuple(things))}")
    return things


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[^\W_]+", text.lower()) if w not in ("the", "a", "an", "my", "to")}


def quoted(text: str) -> str:
    return repr(clip(text, 80))


def refuse(message: str) -> PlanningFailed:
    return PlanningFailed(
        f"could not do what the message asks of the conversation: {message}", reason="UNPLANNABLE"
    )
