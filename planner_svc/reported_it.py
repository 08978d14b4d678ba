"""A report, then an "it" command about it, on a thread: "the electrician rang me first so mark
that one as done", "flights got sorted by my sister, so delete it". The report is no request of
its own (no rule reads it), so "it" is the one todo of those the conversation could mean whose
words the report says ("electrician": #2 'call the electrician', not #1 'call the plumber').

Refused (None: the message stays not understood) when the report says the words of none of them,
or of several, or when "it" means one todo and the report names another: a report that may be
about something else is never a guess about which todo to change."""

from __future__ import annotations

import re

from planner_svc.amends import answering, by_id, quoted, refuse
from planner_svc.discourse import Discourse, Thing, named
from planner_svc.followups import TodoReference
from planner_svc.grammar.intent import SUMMARY, Intent
from planner_svc.planner import PlanningFailed
from planner_svc.stages import clauses
from planner_svc.stages.remarks import starts_as_a_request

_F = re.IGNORECASE
# The report, then the command on "it" / "that one" (the command alone is read by the grammar).
_REPORT_THEN_IT = re.compile(
    r"^(?P<report>[^?]+?)(?:\s*[,;.!]+\s*|\s+(?=so\s))(?:so\s+)?(?:(?:pls|please|just|you\s+can|can\s+you)\s+)?"
    r"(?P<command>(?:mark|tick|check|cross|strike|delete|remove|bin|drop|ditch|scrap|take|reopen|untick|uncheck"
    r"|put)\s+(?:it|that|that\s+one|this\s+one)\b[^,;.!?]*?"
    r"|(?:that|it|this)(?:\s+one)?(?:'s|\s+is)\s+(?:done|sorted|handled|finished))"
    r"(?:\s+(?:pls|please|thanks|thx|then|too))?\s*[.!]*$",
    _F,
)
# (anywhere in the report: "ok so if I booked the hotel, delete that")
_CONDITION = re.compile(
    r"\b(?:if|once|when|whenever|unless|until|till|as\s+soon\s+as|in\s+case|after|before|maybe|might|may)\b",
    _F,
)
_NEGATED = re.compile(r"\b(?:not|no|never|nobody|nothing)\b|n't\b", _F)
# Words that carry no name: a report's own words for what happened, and the small words.
_NOT_A_NAME = frozenset(
  [
    "the", "a", "an", "my", "our", "his", "her", "their", "it", "that", "this", "one", "so", "and", "but",
    "or", "to", "of", "for", "on", "in", "at", "by", "with", "from", "i", "we", "you", "he", "she", "they",
    "me", "us", "him", "them", "was", "were", "is", "are", "be", "been", "has", "have", "had", "got",
    "get", "did", "do", "done", "not", "no", "yes", "just", "now", "today", "already", "again", "still",
    "first", "finally", "week", "tonight", "yesterday", "tomorrow", "morning", "anyway", "actually", "oh",
    "wait", "ugh", "hmm", "ok", "okay", "sorted", "rang", "called", "went", "am", "doing", "going", "will",
    "would",
  ]
)  # fmt: skip


def _stems(text: str) -> set[str]:
    """A text's words that may name something, as stems (at most five letters: "flights" and
    "flight", "electrician" and "electricians")."""
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in _NOT_A_NAME}


def plan(message: str, discourse: Discourse) -> list[Intent] | None:
    """The command on the one todo the report names, or None (the message stays refused)."""
    if not discourse.turns or not (m := _REPORT_THEN_IT.match(message.strip())):
        return None
    command = m.group("command")
    if re.match(r"(?:that|it|this)", command, _F):
        command = "mark it as done"  # "that one's done"
    if (changed := _change_asked(command)) is None or not _a_report(m.group("report")):
        return None
    asked, action = changed
    if clauses.parse_clause(m.group("report")) is not None:
        return None  # a request of its own: the rules read the message whole
    said = _stems(m.group("report"))
    if not said:
        return None
    candidates = _could_mean(asked.todos, discourse, asked.tool)
    named_here = [t for t in candidates if said & _stems(t.text)]
    if len(named_here) != 1:
        return None
    (meant,) = named_here
    if action == "complete" and _NEGATED.search(m.group("report")):
        return None  # "couldn't reach the plumber, mark it done": which one is done, then?
    why = f"'it' read as {meant}, the one the report names"
    (intent,) = by_id(message, asked.tool, action, (meant,), why)
    return [answering(intent, f"{quoted(command)} read as {named((meant,))}: " + SUMMARY)]


def _change_asked(command: str) -> tuple[Intent, str] | None:
    """The change of todos a reference names that `command` asks for, and its action; None for
    anything else."""
    asked = clauses.parse_clause(command)
    action = asked.arguments.get("action") if asked is not None else None
    if asked is None or asked.todos is None or action not in ("complete", "delete", "reopen"):
        return None
    return asked, str(action)


def _a_report(report: str) -> bool:
    """Whether the words before the change may say what was done: not a request of their own
    ("book a flight, delete that one": never the hotel todo its words fit), and nothing that is
    not so yet ("if I finish it, mark it done")."""
    return not starts_as_a_request(report) and not _CONDITION.search(report)


def _could_mean(reference: TodoReference, discourse: Discourse, tool: str) -> tuple[Thing, ...]:
    """The todos "it" may mean: the one it resolves to, else those it could be any of."""
    try:
        return tuple(reference.resolve(discourse, tool))
    except PlanningFailed:
        view = discourse.view(tool)
        return view.focus if len(view.focus) > 1 else view.group if len(view.group) > 1 else ()


# The report, then a change of "them" ("I got the tomatoes and the basil, mark them done").
_REPORT_THEN_THEM = re.compile(
    r"^(?P<report>[^?]+?)(?:\s*[,;.!]+\s*|\s+(?=so\s))(?:so\s+)?(?:(?:pls|please|just|you\s+can|can\s+you)\s+)?"
    r"(?P<command>(?:mark|tick|check|cross|strike|delete|remove|bin|drop|ditch|scrap|take|reopen|untick|uncheck)"
    r"\s+(?:them|those|these|both|them\s+all|them\s+both|all\s+of\s+them|both\s+of\s+them)\b[^,;.!?]*?)"
    r"(?:\s+(?:pls|please|thanks|thx|then|too))?\s*[.!]*$",
    _F,
)
# One thing a report names, of several it lists ("the tomatoes and the basil", "milk, eggs").
_REPORT_PARTS = re.compile(r"\s*(?:,|;|&|\band\b|\bplus\b)\s*", _F)
_OF_ALL = re.compile(r"\b(?:everything|all|every\s+one|each|both|the\s+lot|them|those|these)\b", _F)


def several(message: str, discourse: Discourse) -> list[Intent] | None:
    """A report naming todos, then a change of "them": the change of each todo the report names.
    None when the report names none of those "them" could mean or names all of them (the rules
    read the message as usual: the same todos either way); refused when a part of the report
    fits none or several of them, or when "them" itself means nothing here."""
    if not discourse.turns or not (m := _REPORT_THEN_THEM.match(message.strip())):
        return None
    report = m.group("report")
    if (changed := _change_asked(m.group("command"))) is None or not _a_report(report):
        return None
    asked, action = changed
    if _OF_ALL.search(report):
        return None  # "got everything at the store, mark them all done": said of all of them
    parsed = clauses.parse_clause(report)
    if parsed is not None and (parsed.tool != asked.tool or parsed.arguments.get("action") != "complete"):
        return None  # a request of its own: the rules read the message whole
    candidates = _could_mean(asked.todos, discourse, asked.tool)
    stems = {t: _stems(t.text) for t in candidates}
    parts = [said for p in _REPORT_PARTS.split(report) if (said := _stems(p))]
    if not parts or not any(p & stems[t] for p in parts for t in candidates):
        return None
    meant: list[Thing] = []
    for part in parts:
        fits = [t for t in candidates if part & stems[t]]
        if len(fits) != 1:
            raise refuse(
                f"{quoted(m.group('command'))} may mean {named(candidates)}, or only those {quoted(report)} "
                "names, and a part of it fits "
                + ("none of them" if not fits else f"{named(fits)}")
                + ": say which todos"
            )
        if fits[0] not in meant:
            meant.append(fits[0])
    if len(meant) == len(candidates):
        return None  # every one of them: the rules' reading is the same
    if action == "complete" and _NEGATED.search(report):
        return None
    why = f"'them' read as {named(tuple(meant))}, the ones the report names"
    return [
        answering(i, f"{quoted(m.group('command'))} read as {named(tuple(meant))}: " + SUMMARY)
        for i in by_id(message, asked.tool, str(action), tuple(meant), why)
    ]
