"""Discourse acts: a whole message that acts on the conversation itself rather than asking for
something new, planned against the discourse model (discourse.py):

- undo: "undo that", "oops, undo", "revert that" reverses the thread's last change not undone
  yet, each call by the inverse action its tool declares (an add by a delete, a done by a reopen,
  a delete by a restore), by id; refused when nothing was changed, or a change cannot be undone;
- a correction in the turn right after a change: "no, I meant almond milk, not oat milk", "sorry,
  I meant call mom", "sorry, the other one", "no, the second one": the last change undone and the
  corrected one made, in one plan; refused when what it corrects is not clear;
- the last change again on another thing: "and the other one too", "that one as well".

`act` answers None for any other message (the grammar reads it). Every intent here names what it
reverses and what a reference was read as, in its reasoning and its answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from agentrt.core.text import clip
from planner_svc.discourse import Call, Change, Discourse, Thing, named
from planner_svc.followups import todo_reference
from planner_svc.grammar import arithmetic, lexicon
from planner_svc.grammar.intent import SUMMARY, Intent
from planner_svc.grammar.todos import starts_a_task
from planner_svc.planner import PlanningFailed
from planner_svc.stages.remarks import asks_something

_F = re.IGNORECASE
# What may open an act without changing it: "oops, undo that", "no wait, I meant ...".
_OPENING = (
    r"(?:(?:oh|ok|okay|oops|whoops|hmm+|actually|wait|no|nope|sorry|ugh|argh|my\s+bad|er+|um+|please|pls"
    r"|can\s+you|could\s+you|(?:that's\s+|that\s+is\s+)?(?:the\s+)?wrong\s+one)[\s,.!-]*)*"
)
_CLOSING = r"(?:[\s,]+(?:please|pls|thanks|thank\s+you))?[\s.!?]*"
_UNDO = re.compile(
    rf"^{_OPENING}(?:(?:undo|revert|reverse|roll\s+back)"
    r"(?:\s+(?:that|this|it|the\s+last\s+(?:change|one|thing|action|step)|what\s+you\s+(?:just\s+)?did"
    r"|my\s+last\s+(?:change|action|request)|the\s+last\s+thing\s+(?:i|you)\s+did))?"
    # "scratch that", "cancel that", "take that back": the last thing said, taken back ("cancel it"
    # may be the todo itself, done or deleted: not an undo)
    r"|(?:scratch|cancel)\s+that|take\s+(?:that|it)\s+back|(?:go\s+)?back\s+to\s+how\s+it\s+was)"
    rf"{_CLOSING}$",
    _F,
)
# "I meant X", "I meant X, not Y", "make that X", "it should have been X" (after a marker, or alone)
_MEANT = re.compile(
    rf"^{_OPENING}(?:(?:i\s+)?meant|make\s+(?:that|it)|(?:it|that)\s+should\s+(?:have\s+been|be)"
    r"|change\s+(?:that|it)\s+to)\s+(?P<x>.+?)(?:\s*[,;]?\s+(?:and\s+)?not\s+(?P<y>.+?))?"
    rf"{_CLOSING}$",
    _F,
)
# "no, not oat milk, almond milk"
_NOT_THIS = re.compile(rf"^{_OPENING}not\s+(?P<y>.+?)\s*[,;]\s*(?P<x>.+?){_CLOSING}$", _F)
# "sorry, the other one", "no, the second one": a marker, then a reference alone
_MARKED = re.compile(
    r"^(?:(?:no|nope|sorry|oops|whoops|wait|actually|my\s+bad)[\s,.!-]+)+(?P<x>.+?)"
    rf"(?:\s+(?:instead|i\s+meant?))?{_CLOSING}$",
    _F,
)
# "and the other one too", "that one as well", "the other one too please"
_TOO = re.compile(
    r"^(?:(?:and|also|now|ok|okay)[\s,]+)*(?P<x>.+?)\s+(?:too|as\s+well|also)" + _CLOSING + "$", _F
)
# "no sorry, almond milk not oat milk", "oh wait, 20% not 15": a marker first, then X, not Y
_X_NOT_Y = re.compile(
    r"^(?:(?:oh|no|nope|sorry|oops|whoops|wait|actually|ugh|my\s+bad)[\s,.!-]+)+"
    # (never a sentence of its own: "no wait, I have not posted them yet")
    r"(?!(?:i|we|you|he|she|they|it|that|this)\b)(?P<x>[^,.;!?]+?)\s*,?\s+not\s+"
    rf"(?P<y>[^,.;!?]+?){_CLOSING}$",
    _F,
)
# "and the other one", "and that other one too actually": the last change, to the other one
_AND_OTHER = re.compile(
    r"^(?:(?:and|also|now|ok|okay)[\s,]+)+(?P<x>(?:the|that)\s+other(?:\s+one)?)"
    rf"(?:\s+(?:too|as\s+well|also))?(?:\s+actually)?{_CLOSING}$",
    _F,
)
_PIECES = re.compile(r"\s*(?:[,;.!]+|\s-\s)\s*")

# What a correction puts right is a name or a reference, not a request of its own ("I meant, add
# call mom too" asks for something: the grammar reads it).
_REQUEST = re.compile(
    r"^(?:add|put|create|delete|remove|mark|tick|check|cross|complete|finish|show|list|clear|calculate"
    r"|what|how|undo|please|can|could|to)\b",
    _F,
)
# "I meant call mom too": one more, not one in place of another
_ALSO = re.compile(r"\b(?:too|as\s+well|also)\W*$", _F)
_ARTICLE = re.compile(r"^(?:the|my|a|an|that|this)\s+", _F)

# How an inverse action reads once done, for the answer ("Undid turn 2 (add #1 'buy milk'):
# deleted #1 'buy milk'."); an action not here reads as itself.
_DONE = {"delete": "deleted", "reopen": "reopened", "restore": "restored", "complete": "completed"}


@dataclass(frozen=True)
class _Act:
    kind: str  # undo, correct, again
    x: str = ""
    y: str = ""


def act(message: str, discourse: Discourse, available_tools: set[str]) -> list[Intent] | None:
    """The plan of `message` when it is a discourse act; None when it is not one."""
    found = _read(message.strip())
    if found is None:
        return None
    if found.kind == "undo":
        return _undo(message, discourse, available_tools)
    change = _just_changed(message, discourse)
    if found.kind == "correct" and (recomputed := _recomputed(message, found, discourse, change)) is not None:
        return recomputed
    if change is None:
        return None  # no change in the turn before: not a correction of one (the grammar reads it)
    if found.kind == "again":
        return _again(message, found.x, change, discourse)
    return _correct(message, found, change, discourse)


def _read(message: str) -> _Act | None:
    """The act `message` is, read whole, else read without the pieces that ask for nothing ("hmm
    wait, undo that, the buyer backed out"); None when it is none."""
    if (found := _read_whole(message)) is not None:
        return found
    pieces = [p for p in _PIECES.split(message) if p]
    asking = [p for p in pieces if _OPENER.fullmatch(p) or asks_something(p) or _read_whole(p) is not None]
    if len(asking) == len(pieces) or not any(not _OPENER.fullmatch(p) for p in asking):
        return None
    return _read_whole(", ".join(asking))


_OPENER = re.compile(_OPENING.replace("*)*", "*)+"), _F)  # a piece that only opens an act ("oh wait")


def _read_whole(message: str) -> _Act | None:
    if _UNDO.match(message):
        return _Act("undo")
    if (m := _MEANT.match(message)) and not _REQUEST.match(m.group("x")) and not _ALSO.search(m.group("x")):
        return _Act("correct", m.group("x").strip(), (m.group("y") or "").strip())
    if m := _NOT_THIS.match(message):
        return _Act("correct", m.group("x").strip(), m.group("y").strip())
    if (m := _X_NOT_Y.match(message)) and not _REQUEST.match(m.group("x")):
        return _Act("correct", m.group("x").strip(), m.group("y").strip())
    if m := _AND_OTHER.match(message):
        return _Act("again", m.group("x").strip())
    if (m := _TOO.match(message)) and (ref := todo_reference(m.group("x"))) and (ref.other or ref.count == 1):
        return _Act("again", m.group("x").strip())
    if (m := _MARKED.match(message)) and todo_reference(m.group("x")) is not None:
        return _Act("correct", m.group("x").strip())
    return None


def _undo(message: str, discourse: Discourse, available_tools: set[str]) -> list[Intent]:
    change = discourse.last_change(_asked_undo)
    if change is None:
        where = (
            "this run is not part of a thread"
            if not discourse.in_thread
            else "this is the thread's first turn"
            if not discourse.turns
            else "no earlier turn of this thread changed anything (or every change was undone)"
        )
        raise _refuse(
            f"{_quoted(message)} asks to undo the last change, but {where}: there is nothing to undo"
        )
    before = discourse.not_done_before
    if before is not None and change.turn != before[0] and not _UNDO.match(before[1].strip()):
        # "delete the frob" failed, then "undo that": the failed request, or the change before it?
        raise _refuse(
            f"turn {before[0]} ({clip(before[1], 80)!r}) was not done, so 'that' may mean it; the last "
            f"change was {change.describe()}: say undo again to undo that"
        )
    intents = []
    for call in reversed(change.calls):
        if not call.inverse:
            raise _refuse(
                f"the last change ({change.describe()}) cannot be undone: {call.tool} declares no action "
                f"that reverses {call.action!r}"
            )
        if call.tool not in available_tools:
            raise _refuse(
                f"undoing {change.describe()} needs {call.tool}, which the catalog does not have now"
            )
        intents += _guarded(
            _by_id(message, call.tool, call.inverse, call.things, f"undoes {change.describe()}"), call
        )
    done = "; ".join(f"{_DONE.get(c.inverse, c.inverse)} {named(c.things)}" for c in reversed(change.calls))
    # One sentence for the whole undo, on its first step: what it reverses, and how.
    return [
        _answering(i, f"Undid {change.describe()}: {done}." if n == 0 else "") for n, i in enumerate(intents)
    ]


def _guarded(intents: list[Intent], call: Call) -> list[Intent]:
    """Each inverse step with the thing as the change left it, where the tool declares an argument
    for that: the tool refuses to reverse a change to something changed since (in another thread,
    by another client), rather than undo what someone else did."""
    if not call.guard:
        return intents
    return [
        replace(i, arguments={**i.arguments, call.guard: [dict(t.state)]}) if t.state else i
        for i, t in zip(intents, call.things, strict=True)
    ]


_NUMBER_SAID = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*(?P<pct>%|percent)?$", _F)


def _recomputed(
    message: str, found: _Act, discourse: Discourse, change: Change | None
) -> list[Intent] | None:
    """ "what's 54 times 12", then "no sorry, I meant 45 not 54": the turn before's sum again, the
    number put right. None when the turn before computed nothing or the correction is no number
    for a number (a todo's correction, read on); refused when which number it replaces is unclear."""
    said, was = _NUMBER_SAID.match(found.x), _NUMBER_SAID.match(found.y)
    if said is None or not discourse.result_turn or discourse.result_turn != discourse.latest_turn:
        return None
    if change is not None and change.turn == discourse.latest_turn:
        return None  # the turn changed todos too: the correction is read as of them
    if len(discourse.results) != 1:
        raise _refuse(
            f"{_quoted(message)} corrects turn {discourse.result_turn}, which computed several results"
        )
    result = discourse.results[0]
    numbers = re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])", result.expression)
    old = was.group("n") if was is not None else (numbers[0] if len(set(numbers)) == 1 else "")
    if not old or numbers.count(old) != 1:
        raise _refuse(
            f"{_quoted(message)} corrects {result}, and which of its numbers {said.group('n')!r} replaces is "
            f"not said (or it is said more than once): say the sum again"
        )
    at = re.search(rf"(?<![\d.]){re.escape(old)}(?![\d.])", result.expression)
    assert at is not None
    expression = result.expression[: at.start()] + said.group("n") + result.expression[at.end() :]
    again = arithmetic.parse(f"calculate {expression}")
    if again is None:
        raise _refuse(f"{_quoted(message)}: {expression!r} is no sum I can compute; say it again in full")
    why = f"{_quoted(message)} puts {result} right: {old} -> {said.group('n')}"
    return [
        replace(
            again,
            clause=message,
            reasoning=why,
            answer=f"Corrected {old} to {said.group('n')}: {again.answer}",
        )
    ]


def _asked_undo(words: str) -> bool:
    """Whether a turn's words asked to undo (its change then cancels the one before it)."""
    return bool(_UNDO.match(words.strip()))


def _just_changed(message: str, discourse: Discourse) -> Change | None:
    """The change of the turn right before this one, if it made one."""
    change = discourse.last_change(_asked_undo)
    if change is None or not discourse.turns or change.turn != discourse.latest_turn:
        return None
    return change


def _single(message: str, change: Change) -> Call:
    if len(change.calls) != 1:
        raise _refuse(
            f"{_quoted(message)} corrects turn {change.turn}, which made {len(change.calls)} changes "
            f"({change.describe()}): say which to put right (or undo it and ask again)"
        )
    return change.calls[0]


def _correct(message: str, found: _Act, change: Change, discourse: Discourse) -> list[Intent]:
    call = _single(message, change)
    if len(call.things) != 1:
        raise _refuse(
            f"{_quoted(message)} corrects turn {change.turn}, which changed {len(call.things)} at once "
            f"({change.describe()}): undo it and say again what you meant"
        )
    (was,) = call.things
    if not call.inverse:
        raise _refuse(f"the last change ({change.describe()}) cannot be undone, so it cannot be corrected")
    why = f"puts right {change.describe()}"
    (undo,) = _guarded(_by_id(message, call.tool, call.inverse, (was,), why), call)
    reference = todo_reference(found.x)
    if reference is not None:
        # "sorry, the other one": the same change, to the thing the reference means
        said_not = todo_reference(found.y) if found.y else None
        if call.action == "add" or (found.y and (said_not is None or said_not.count != 1)):
            # ("not that one, the first one": "that one" is the one just changed, as it must be)
            raise _refuse(f"{_quoted(message)}: which change it means instead is not clear; say it in full")
        (meant,) = _one(message, reference.resolve(discourse, call.tool))
        if meant == was:
            raise _refuse(f"{found.x!r} is {was}, the one turn {change.turn} changed already: name the todo")
        (redo,) = _by_id(message, call.tool, call.action, (meant,), f"{found.x!r} read as {meant}")
        return [
            _answering(
                undo, f"Undid turn {change.turn}'s change to {was}: {_DONE.get(call.inverse, call.inverse)}."
            ),
            _answering(redo, f"{found.x!r} read as {meant}: " + SUMMARY),
        ]
    if call.action == "add":
        text = _replaced(message, was, found)
        redo = Intent(
            message,
            call.tool,
            {"action": "add", "text": text},
            f"{_quoted(message)} adds {text!r} in place of {was}",
            SUMMARY,
        )
    else:
        if found.y and not _words(found.y) & _words(was.text):
            raise _refuse(
                f"{_quoted(message)} says not {found.y!r}, but turn {change.turn} changed {was}: say which "
                "change to put right"
            )
        name = _ARTICLE.sub("", found.x).strip()
        redo = Intent(
            message,
            call.tool,
            {"action": call.action, "text": name},
            f"{_quoted(message)} {call.action}s {name!r} in place of {was}",
            SUMMARY,
        )
    return [
        _answering(
            undo, f"Undid turn {change.turn}'s change to {was}: {_DONE.get(call.inverse, call.inverse)}."
        ),
        redo,
    ]


def _again(message: str, words: str, change: Change, discourse: Discourse) -> list[Intent]:
    """ "and the other one too": the last change, made to what the reference means."""
    call = _single(message, change)
    reference = todo_reference(words)
    assert reference is not None
    if call.action == "add":
        raise _refuse(f"{_quoted(message)}: turn {change.turn} added, and what to add again is not clear")
    (meant,) = _one(message, reference.resolve(discourse, call.tool))
    if meant in call.things:
        raise _refuse(f"{words!r} is {meant}, which turn {change.turn} changed already: name the todo")
    (intent,) = _by_id(message, call.tool, call.action, (meant,), f"{words!r} read as {meant}")
    return [_answering(intent, f"{words!r} read as {meant}: " + SUMMARY)]


def _replaced(message: str, was: Thing, found: _Act) -> str:
    """The corrected text of an add: `was` with y put right to x, or x whole."""
    x = found.x.strip(" \"'")
    if not found.y and (again := _end_said_again(was.text, x)) is not None:
        return again
    if not found.y and (kind := _same_kind(was.text, x)) is not None:
        return kind
    if not found.y:
        if not starts_a_task(x):
            # "no, I meant almond milk" after "add buy oat milk": which words it replaces is a guess
            raise _refuse(
                f"{_quoted(message)} corrects {was}, and which of its words {x!r} replaces is not said: "
                f'say the todo in full, or "{x}, not ..."'
            )
        return x
    y = _ARTICLE.sub("", found.y.strip(" \"'"))
    if (lead := re.match(r"(?:for|at|on|in|by|to|with)\s", x, _F)) and not y.lower().startswith(
        lead.group().lower()
    ):
        y = lead.group() + y  # "for 8, not 6" after "a table for 6": "for 6" is what is put right
    pattern = re.compile(rf"(?<!\w){re.escape(y)}(?!\w)", _F)
    if not pattern.search(was.text):
        raise _refuse(
            f"{_quoted(message)} says not {y!r}, but turn's add was {was}, which does not say it: say the "
            "todo in full"
        )
    return pattern.sub(lambda _: _ARTICLE.sub("", x), was.text, count=1)


def _end_said_again(text: str, x: str) -> str | None:
    """ "buy oat milk", then "I meant almond milk": the end of the todo said again with one word
    changed ("buy 2 lightbulbs" -> "3 lightbulbs"), put in its place; None otherwise."""
    said, words = x.split(), text.split()
    if len(said) < 2 or len(said) > len(words):
        return None
    end = words[-len(said) :]
    changed = [k for k, (a, b) in enumerate(zip(end, said, strict=True)) if a.lower() != b.lower()]
    if len(changed) != 1 or changed[0] == len(said) - 1:
        return None  # the last word says what the thing is: it must be the same
    return " ".join([*words[: -len(said)], *said])


_KIND_WORD = re.compile(r"^(?:(?:on|in|at|for|by)\s+)?(?P<w>[a-z]+|\d+(?:\.\d+)?)$", _F)
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


def _same_kind(text: str, x: str) -> str | None:
    """ "call grandma on sunday", then "I meant saturday": a day, a month, a part of a day or a
    number, put in place of the todo's one word of that kind; None when it has none or several."""
    said = _KIND_WORD.match(x.strip())
    if said is None:
        return None
    word = said.group("w").lower()
    if _NUMBER.match(word):

        def fits(w: str) -> bool:
            return bool(_NUMBER.match(w))
    else:
        kind = next((k for k in lexicon.CORRECTION_KINDS if word in k), None)
        if kind is None:
            return None

        def fits(w: str) -> bool:
            return w.lower() in kind

    words = re.findall(r"[^\W_]+(?:\.\d+)?", text)
    places = [w for w in words if fits(w)]
    if len(places) != 1 or places[0].lower() == word:
        return None
    return re.sub(rf"(?<![\w.]){re.escape(places[0])}(?![\w.])", said.group("w"), text, count=1)


def _by_id(message: str, tool: str, action: str, things: tuple[Thing, ...], why: str) -> list[Intent]:
    """One step per thing, by id (as every reference the planner binds: stages/binding._bind_todos)."""
    return [
        Intent(message, tool, {"action": action, "id": t.id}, f"{_quoted(message)} {why}: {action} {t}")
        for t in things
    ]


def _answering(intent: Intent, answer: str) -> Intent:
    return Intent(intent.clause, intent.tool, intent.arguments, intent.reasoning, answer)


def _one(message: str, things: list[Thing]) -> list[Thing]:
    if len(things) != 1:
        raise _refuse(f"{_quoted(message)} means one todo, and {len(things)} fit: {named(tuple(things))}")
    return things


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[^\W_]+", text.lower()) if w not in ("the", "a", "an", "my", "to")}


def _quoted(text: str) -> str:
    return repr(clip(text, 80))


def _refuse(message: str) -> PlanningFailed:
    return PlanningFailed(
        f"could not do what the message asks of the conversation: {message}", reason="UNPLANNABLE"
    )
