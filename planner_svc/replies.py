"""A reply to the question a refused turn asked: "mark it done" was refused ("'it' could be any
of #1 'email the landlord', #2 'email the accountant': say which one"), and the next message
answers it ("the landlord one", "both then", "the second", "sorry, the bank one"). The reply
is the refused request with the todos it names now: the request's action, read from its words by
the grammar (never the whole planner again), done to what the reply designates.

Only a bare designation after a refused turn is a reply: a reference ("both", "the second one",
"the other one", "the first and the last") or a name said as one ("the landlord one", "the
'pay rent' one"). A reference resolves as the refused turn would have had it resolved; a name
picks among the todos the refused turn could mean by their words (the todos a tool's refusal
named, `Discourse.asked_which`, when the thread saw them all), planned by id; else the tool
looks it up together with the refused name (and refuses one that fits several todos or none).
"""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.amends import answering, by_id, quoted, refuse
from planner_svc.discourse import Discourse, Thing, View, named
from planner_svc.followups import PRONOUNS, TodoReference, looks_like_a_reference, todo_reference
from planner_svc.grammar.intent import SUMMARY, Intent
from planner_svc.planner import PlanningFailed
from planner_svc.stages import clauses
from planner_svc.stages.polite import _clean

_F = re.IGNORECASE
_LEAD = (
    r"(?:(?:ok|okay|oh|ah|sorry|oops|um+|er+|hmm+|well|i\s+mean|i\s+meant|meant|and|no|yes|yeah"
    # "not the milk one, the bread one": the one not meant, said before the one meant
    r"|not\s+(?:the|my)\s+[\w'-]+(?:\s+[\w'-]+){0,2}?\s+(?:one|todo|task|thing)(?:\s+but)?)[\s,.!-]+)*"
)
_TAIL = r"(?:[\s,.!-]+(?:then|i\s+mean|i\s+meant|sorry|please|pls|thanks|thx|obviously|of\s+course))*[\s.!?]*"
_REPLY = re.compile(rf"^{_LEAD}(?P<x>[^,.;!?]+?){_TAIL}$", _F)
# "the landlord one", "the 'pay rent' one", "my dentist thing": a name said as a todo's
_NAMED_ONE = re.compile(r"^(?:the|my)\s+(?!other\b)[\w'\" -]+?\s+(?:one|todo|task|thing|item)$", _F)
# "the one for jen", "the one about the lease": which one, by a word it says
_ONE_FOR = re.compile(r"^(?:the|that)\s+one\s+(?:for|about|with|to|from|re|at)\s+(?P<x>\S.*)$", _F)
# A name said alone ("haircut", "the books", "mom's"): a few words, none a request's or a pronoun.
_BARE_NAME = re.compile(
    r"(?:the\s+|my\s+)?(?!(?:it|that|this|them|those|these|one|yes|no|ok|okay|sure|done|undo|add|delete|mark"
    r"|remove|what|how)\b)[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}",
    _F,
)
# Words for every todo a refused name fitted ("both", "all of them"), not which of them.
_ALL_OF_THOSE = frozenset(
    ["both", "both of them", "both of those", "all of them", "them all", "all of those", "all"]
)
_SEVERAL_NAMES = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*", _F)
# How each change a refused request asked for is said again of the reply's todos, for the grammar.
_SAID = {"complete": "mark {} as done", "delete": "delete {}", "reopen": "reopen {}"}


def reply(message: str, discourse: Discourse) -> list[Intent] | None:
    """The plan of `message` when it answers the refused turn before it; None when it is not a
    reply (the other rules read it)."""
    if discourse.not_done_before is None or not (m := _REPLY.match(message.strip())):
        return None
    x = " ".join(m.group("x").split())
    if one_for := _ONE_FOR.match(x):
        if todo_reference(one_for["x"]) is not None or looks_like_a_reference(one_for["x"]):
            return None  # "the one about the first": no name said
        x = one_for.group("x")  # "the one for jen": the todo that says jen
    reference = todo_reference(x)
    if reference is not None and reference.words in PRONOUNS:
        return None  # "it" answers no "which one"
    bare = reference is None and not _NAMED_ONE.match(x)
    if bare and (not _BARE_NAME.fullmatch(x) or clauses.parse_clause(x) is not None):
        # ("haircut", "the books": a name alone, only among the todos asked about; "called the
        # electrician" is a report of its own)
        return None
    turn, words = discourse.not_done_before
    asked = clauses.parse_clause(cleaned) if (cleaned := _clean(words)) else None
    if asked is None or (action := asked.arguments.get("action")) not in _SAID:
        return None  # the refused turn asked no change of a todo the reply could name
    said = clauses.parse_clause(_SAID[action].format(x))
    if said is None or said.tool != asked.tool or said.arguments.get("action") != action:
        return None
    why = f"answers turn {turn} ({quoted(words)})"
    now = replace(discourse, not_done_before=None)  # the refused turn is the one answered
    if asked.todos is not None:
        candidates, readings = _unclear(asked.todos, now, asked.tool)
        if candidates is None and said.todos is None:
            # refused for what the turn before it left unclear: a name said now is one of those seen
            view = now.view(asked.tool)
            candidates = view.group if len(view.group) > 1 else view.focus if len(view.focus) > 1 else None
        if candidates is None:
            return None  # the refused turn's reference was not unclear: refused for another reason
        if said.todos is not None:
            things = tuple(said.todos.resolve(now, said.tool))
            if readings and things != _picked(said, candidates, now):
                # asked "#2 as listed, or #3 now?", "the second one" is the second of the list or
                # of the two named: picked only when both are one todo
                return None
        else:  # "the landlord one" ("milk and eggs"): the ones of those it could mean whose words these are
            things = _picked(said, candidates, now)
            if things is None:
                return None
        if not set(things) <= set(candidates):
            return None  # not one of those the refused turn could mean
    elif (
        "text" in asked.arguments
        and (among := _asked_among(now, asked.tool))
        and (
            (said.todos is not None and said.todos.words not in _ALL_OF_THOSE)
            or (said.todos is None and all(t.text for t in among))
        )
        and (picked := _picked(said, among, now)) is not None
    ):
        # "I called the bank" fitted two, the tool named them: "the second", "the mortgage one"
        # pick among those, in the order named
        things = picked
        if said.todos is not None and (listed := _picked(said, _in_list_order(among), now)) != picked:
            # the closest were named by how near they are: "the first" may count them so, or as the
            # list has them; refused naming both readings
            raise refuse(
                f"{quoted(message)} may count the todos turn {turn} named in the order named "
                f"({named(picked)}) or as the list has them ({named(listed or ())}): say which by its words"
            )
    elif "text" in asked.arguments and said.todos is None and "text" in said.arguments:
        # "delete the call one" fitted two; "the bank one" ("the slides"): the todo both say, by
        # all their words (the tool finds it only among those the first name fitted)
        first = str(asked.arguments["text"])
        more = [
            w for w in str(said.arguments.get("text", "")).split() if w.lower() not in first.lower().split()
        ]
        text = " ".join([first, *more]) if more else first
        arguments = {"action": action, "text": text}
        return [Intent(message, said.tool, arguments, f"{quoted(message)} {why}: {action} {text!r}", SUMMARY)]
    elif "text" in asked.arguments and said.todos is not None and said.todos.words in _ALL_OF_THOSE:
        # "got the milk" fitted two; "both": every todo the name fits, as many as said (the tool
        # checks there are exactly that many, and changes none otherwise)
        first = str(asked.arguments["text"])
        how_many = {"matching": said.todos.count} if said.todos.count else {"every": True}
        arguments = {"action": action, "text": first, **how_many}
        return [
            Intent(
                message, said.tool, arguments, f"{quoted(message)} {why}: {action} every {first!r}", SUMMARY
            )
        ]
    else:
        return None
    intents = by_id(message, said.tool, action, things, f"{why}, read as {named(things)}")
    read = f"{x!r} read as {named(things)}, as turn {turn} asked: "
    return [answering(i, read + SUMMARY if n == 0 else SUMMARY) for n, i in enumerate(intents)]


def _in_list_order(things: tuple[Thing, ...]) -> tuple[Thing, ...]:
    """`things` as the list has them: by number (a name, not a number, keeps its place)."""
    if not all(isinstance(t.id, int) for t in things):
        return things
    return tuple(sorted(things, key=lambda t: int(t.id)))


def _asked_among(discourse: Discourse, tool: str) -> tuple[Thing, ...]:
    return tuple(t for t in discourse.asked_which if t.tool == tool)


def _picked(said: Intent, among: tuple[Thing, ...], discourse: Discourse) -> tuple[Thing, ...] | None:
    """What a reply picks among the things a refusal named: a reference counted in them (in the
    order named), or a name that fits one of them by its words (each of several names)."""
    if said.todos is not None:
        view = View(
            focus=among, group=among, focus_turn=discourse.latest_turn, group_turn=discourse.latest_turn
        )
        seen = replace(discourse, views={**discourse.views, said.tool: view})
        try:
            return tuple(said.todos.resolve(seen, said.tool))
        except PlanningFailed:
            return None
    text = str(said.arguments.get("text", ""))
    names = said.arguments.get("texts") or [text]
    if not said.arguments.get("texts") and sum(_has_words(t.text, text) for t in among) != 1:
        names = _SEVERAL_NAMES.split(text)
    picked = [[t for t in among if _has_words(t.text, str(name))] for name in names]
    if any(len(p) != 1 for p in picked) or len({p[0] for p in picked}) != len(picked):
        return None
    return tuple(p[0] for p in picked)


def _unclear(
    reference: TodoReference, discourse: Discourse, tool: str
) -> tuple[tuple[Thing, ...] | None, bool]:
    """The todos an unclear reference could mean ("it" after two adds), or None when it is clear
    (or points at nothing): then it was not what the refused turn was refused for. True when
    they are the readings its refusal named ("the last one": #2 as listed, or #3 now)."""
    try:
        reference.resolve(discourse, tool)
    except PlanningFailed as unclear:
        if len(unclear.candidates) > 1:
            return tuple(unclear.candidates), True
        view = discourse.view(tool)
        return (view.focus if len(view.focus) > 1 else view.group if len(view.group) > 1 else None), False
    return None, False


def _has_words(text: str, name: str) -> bool:
    """Whether `text` has every word of `name`, a word perhaps with another ending ("bill" and
    "bills", "email" and "emailing"): the stem said is the start of a word there."""
    have = re.findall(r"[^\W_]+", text.lower())
    wanted = [w for w in re.findall(r"[^\W_]+", name.lower()) if w not in ("the", "my", "a", "an")]

    def found(word: str) -> bool:
        stem = word[:-1] if len(word) > 4 and word.endswith("s") else word
        return any(h == word or (len(stem) >= 3 and h.startswith(stem)) for h in have)

    return bool(wanted) and all(map(found, wanted))
