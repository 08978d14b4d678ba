"""Other readings of a message, computed from its words alone: a report and an "it" command
about it as one plain command, and the parts of a text to read alone before it whole."""

from __future__ import annotations

import re
from collections.abc import Callable

from planner_svc import followups
from planner_svc.grammar import lexicon, todos
from planner_svc.grammar.intent import Intent
from planner_svc.planner import PlanningFailed
from planner_svc.stages import clauses
from planner_svc.stages.common import _F
from planner_svc.stages.cover import _cover
from planner_svc.stages.polite import _clean
from planner_svc.stages.remarks import (
    _SETTING_THE_SCENE,
    _aside,
    _reads_only,
    _talk_after_question,
    asks_something,
    starts_as_a_request,
)
from planner_svc.stages.why_said import _CALLED_OFF, _why_deleted

# "kitchen is spotless now, mark it off", "haircut's cancelled, remove it": a report, then a
# command whose "it" is what the report is about. The report's subject names the todo (todo_store
# finds it by its words, or refuses); the command says what to do with it.
_ABOUT_IT = re.compile(
    r"^(?P<report>[^,;.!?]+?)(?:\s*(?:[,;.!]+|\s-)\s*|\s+(?=(?:you|ya)\s+can\s|so\s+(?:that|it)\s))(?:so\s+)?"
    r"(?:(?:you|ya)\s+can\s+|pls\s+|please\s+)?"
    r"(?:(?P<done>(?:mark|tick|check|cross|strike)(?:\s+(?:it|that|em|them|that\s+one))?(?:\s+off)?"
    r"(?:\s+(?:as\s+)?(?:done|complete|completed|finished))?(?:\s+(?:on|in)\s+(?:my|the)\s+(?:todo\s+)?list)?"
    # "rang the vet, that's handled", "had my haircut so that one can go down as done"
    r"|(?:that|it)(?:'s|\s+is)\s+(?:handled|done|sorted|taken\s+care\s+of|dealt\s+with)"
    r"|(?:that|it)(?:\s+one)?\s+can\s+(?:go\s+down|be\s+marked|be\s+ticked|count)\s+as\s+done)"
    r"|(?P<gone>(?:remove|delete|bin|drop|ditch|scrap|nuke|axe|trash)(?:\s+(?:it|that|em|them|that\s+one))?"
    r"|get\s+(?:it|that|em|them)\s+off\s+(?:the|my)\s+list|take\s+(?:it|that|em|them)\s+off(?:\s+(?:the|my)\s+list)?)"
    # "the dentist one isn't actually done, mark it undone", "i haven't paid rent yet, untick it"
    r"|(?P<back>(?:mark|set|put)\s+(?:it|that|that\s+one)\s+(?:back\s+)?(?:as\s+)?(?:undone|not\s+done|open|incomplete"
    r"|unfinished)|(?:untick|uncheck|reopen)(?:\s+(?:it|that|that\s+one))?))"
    r"(?:\s+(?:pls|please|thanks|thx|cheers))?\s*[.!]*$",
    _F,
)
_REPORT_LEAD = re.compile(
    r"^(?:(?:i\s+am|i'm|im|we\s+are|we're)\s+not\s+doing|(?:i|we)\s+(?:do\s+not|don't|dont)\s+need"
    r"|no\s+need\s+for|(?:i\s+|we\s+)?(?:had|got)\s+(?:my|our|the)|(?:the|my|our))\s+",
    _F,
)
_REPORT_TAIL = re.compile(
    r"(?:'s|\s+(?:is|are|was|were|went|has\s+been|have\s+been|not))\b.*$"
    r"|\s+(?:any\s?more|after\s+all|this\s+morning|yesterday|today|now|already)$",
    _F,
)
# "once I finish the report, mark it done": what is not done yet is no report of it.
_CONDITION_LEAD = re.compile(
    r"^(?:once|when|whenever|if|after|before|as\s+soon\s+as|unless|until|till|while|in\s+case)\b", _F
)
_REQUEST_LEAD = re.compile(
    r"^(?:add|put|new|create|delete|remove|mark|tick|check|cross|show|list|tell|count|clear|what|how|why|when"
    r"|is|are|can|could|would|will|do|does|did|should|please|don't|do\s+not|not|"
    + "|".join(re.escape(v).replace("\\ ", r"\s+") for v in sorted(lexicon.DELETE_VERBS, key=len)[::-1])
    + r")\b",
    _F,
)


_NOT_A_SUBJECT = frozenset(
    ["it", "that", "this", "they", "them", "these", "those", "everything", "all", "i", "we", "you", "he"]
)


# What a report after its verb names: "the logbook", "their VAT return" (the subject, before the
# verb, is who did it: "the gym manager is handling ...")
_OBJECT = re.compile(
    r"(?<=\s)(?:the|my|our|his|her|their)\s+((?:(?!(?:is|are|was|were|now|anymore|any\s+more|after|so|too|this|today)\b)"
    r"[a-z][\w'-]*\s+){0,2}(?!(?:is|are|was|were|now|anymore|after|so|too|this|today)\b)[a-z][\w'-]*)",
    _F,
)
_NOT_DONE_SAID = re.compile(
    r"^(?:(?:actually|oops|oh|wait|sorry|hmm|ugh|no)[\s,]+)*(?:"
    # "the dentist one isn't actually done"
    r"(?P<x>(?:the|my)\s+[\w' -]+?)\s+(?:is|was|are|were)\s+not\s+(?:actually\s+|really\s+|quite\s+)?"
    r"(?:done|finished|complete|completed|sorted)(?:\s+(?:yet|after\s+all))?"
    # "i haven't paid rent yet", "I haven't actually sent the invoice"
    r"|i\s+(?:have|had|did)\s+not\s+(?:actually\s+|really\s+)?"
    r"(?P<y>[a-z]+(?:ed|id|ent|ought|aid|one)\s+[\w' -]+?)"
    r"(?:\s+(?:yet|after\s+all))?)$",
    _F,
)


def _about_it(tidied: str) -> str | None:
    """The message as one plain command when it is a report and an "it" command about it."""
    match = _ABOUT_IT.match(tidied)
    if not match:
        return None
    report = " ".join(match.group("report").split())
    if _REQUEST_LEAD.match(report) or _CONDITION_LEAD.match(report) or any(q in report for q in '?"{'):
        return None
    said = _report_alone(report) if not match.group("back") else None
    verb = "mark {} as done" if match.group("done") else "reopen {}" if match.group("back") else "delete {}"
    if said is not None:
        return verb.format(said)
    if match.group("back"):
        # "mark it undone" says it is not done: the report must say so too, of one thing
        not_done = _NOT_DONE_SAID.match(report)
        return verb.format(not_done.group("x") or not_done.group("y")) if not_done else None
    if not match.group("done") and len(objects := _OBJECT.findall(report)) == 1:
        # "office says they don't need the logbook after all, scrap it": what the report is
        # about, the one thing it names after its verb (the subject is who did it)
        return verb.format(objects[0])
    past = re.match(rf"(?:i\s+|we\s+)?(?:{todos.PAST}|{todos.SIMPLE_PAST})\s", report, _F)
    if not past and not _REPORT_LEAD.match(report) and re.match(r"(?:i|we|you|he|she|they)\b", report, _F):
        return None  # "I want pizza, delete it": what the person wants is no todo's name
    subject = report if past else _REPORT_TAIL.sub("", _REPORT_LEAD.sub("", report)).strip()
    words = subject.split()
    if not words or len(words) > 6 or subject.lower() in _NOT_A_SUBJECT:
        return None
    return verb.format(subject)


# "done!", "all done today!", "finished, finally": in a thread, a message that only says done is
# said of what the conversation has just made salient ("it", refused when that is not one todo;
# "all" of those seen together). Only a whole message: "add milk, done" closes its request.
_BARE_DONE = re.compile(
    r"^(?:(?:ok|okay|k|yay|woo+|yes|yep|phew|right|so|and|well|alright)[\s,!.]+)*"
    r"(?P<all>(?:all|both)\s+)?(?:done|finished|completed|sorted)"
    r"(?:\s+(?:now|already|today|at\s+last|finally|and\s+dusted|with\s+(?:it|that|them|those)))*"
    r"(?:[\s,!.]+(?:yay|woo+|finally|lol|haha|phew|thanks|thx))*[\s.!]*$",
    _F,
)


def _bare_done(tidied: str) -> str | None:
    """The message as a plain command when it only says done; None otherwise."""
    if not (said := _BARE_DONE.match(tidied.strip())):
        return None
    which = {"all": "them all", "both": "both"}.get((said.group("all") or "").strip().lower(), "it")
    return f"mark {which} as done"


def _report_alone(report: str) -> str | None:
    """The todo a report names when the rules read the report alone as one done todo ("finally
    got my taxes done" names "taxes")."""
    try:
        intents = _cover(report, report)
    except PlanningFailed:
        return None
    if len(intents) != 1 or intents[0].arguments.get("action") != "complete":
        return None
    text = intents[0].arguments.get("text")
    return text if isinstance(text, str) and text else None


# "what's 15% of 80 and 10% of 50, added up?": the calculations before it, then their sum.
_COMBINED = re.compile(
    r"(?:\s*,\s*|\s+)(?:(?:all|both)\s+)?(?:added\s+(?:up|together)|summed(?:\s+up)?|combined|in\s+total"
    r"|altogether|all\s+together)\s*[?.!]*$",
    _F,
)


# "... and the hotel is 85 a night for 3 nights. What's the total for the holiday?": a question
# after the sums that asks for all of them together (with one sum before it, that one's total).
_TOTAL_ASKED = re.compile(
    r"\s*[.?!,;]\s*(?:so\s+|and\s+|then\s+)?(?:what\s+(?:is|would\s+be|will\s+be)\s+(?:the|my|our)\s+"
    r"(?:grand\s+)?(?:total|overall\s+(?:cost|total))(?:\s+(?:for|of)\s+[a-z' ]{1,40})?"
    r"|how\s+much\s+(?:is\s+(?:that|it)\s+)?(?:in\s+total|altogether|all\s+together|overall)"
    r"|how\s+much\s+(?:will|would|does|is)\s+(?:it|that|this|the\s+[a-z]+)\s+(?:all\s+)?(?:cost|come\s+to)"
    r"(?:\s+(?:in\s+total|altogether))?)\s*[?.!]*$",
    _F,
)


def _calculates_only(intents: list[Intent]) -> bool:
    return bool(intents) and all(i.tool == "calculator" for i in intents)


def _combined_reading(text: str) -> tuple[str, Callable[[list[Intent]], bool]] | None:
    """A message whose last words sum what it computes, read as its calculations and "add them
    up" (kept only when that is all arithmetic: "add milk and eggs together" is a todo, and
    "what's 5 + 7 in total" has one result, nothing to sum)."""
    found = _COMBINED.search(text) or _TOTAL_ASKED.search(text)
    if found is None or found.start() == 0:
        return None
    return f"{text[: found.start()]}, then add them up", _calculates_only


# "hotel is 80 a night, what's 80 times 3?": a price or an amount said first, then the sum on it.
_AMOUNT_SAID = re.compile(
    r"^(?:the\s+|my\s+|our\s+|a\s+|an\s+)?[a-z][\w' -]{0,40}?"
    r"\s+(?:is|are|was|were|costs?|came\s+to|comes\s+to)"
    r"\s+(?:about\s+|around\s+)?[$€£]?(?P<n>\d+(?:\.\d+)?)(?:\s*(?:dollars?|euros?|pounds?|bucks))?"
    r"(?:\s+(?:a|an|per|each)\s+[a-z]+)?(?:\s+(?:before|without|excluding|pre)[\s-]+(?:the\s+)?(?:tip|tax|vat|gst))?$",
    _F,
)
# "dinner was 84 before tip. what's a 20% tip on that?": "that" is the amount just said
# (only as what a sum works on: "how much is that each" asks for the sum's own result)
_THAT_AMOUNT = re.compile(
    r"\b(?P<by>on|of|off|from|to|split|halve|double|triple)\s+(?:that|it|this)\b(?!\s+(?:is|was|'s)\b)", _F
)


def _amount_said_first(
    pieces: list[str], separators: list[str]
) -> tuple[str, Callable[[list[Intent]], bool]] | None:
    """The sum after an amount said first, kept when it is all arithmetic and uses that amount
    (the amount says where the number came from; a sum on other numbers leaves it unexplained)."""
    if len(pieces) < 2 or not (said := _AMOUNT_SAID.match(_clean(pieces[0]))):
        return None
    amount = said.group("n")

    def uses_it(intents: list[Intent]) -> bool:
        return _calculates_only(intents) and any(
            re.search(rf"(?<![\d.]){re.escape(amount)}(?![\d.]|\.\d)", str(i.arguments.get("expression", "")))
            for i in intents
        )

    rest = "".join(p + sep for p, sep in zip(pieces[1:], [*separators[1:], ""], strict=True))
    if len(_THAT_AMOUNT.findall(rest)) == 1 and amount not in rest:
        rest = _THAT_AMOUNT.sub(lambda m: f"{m.group('by')} {amount}", rest)
    return rest, uses_it


def _numbers_said_first(
    pieces: list[str], separators: list[str]
) -> tuple[str, Callable[[list[Intent]], bool]] | None:
    """ "I drove 312 km on 24 litres, what's 312 divided by 24": what the numbers are, then the sum
    on them, kept when it is all arithmetic and uses every number told (it explains them all)."""
    if len(pieces) < 2 or not (told := re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])", pieces[0])):
        return None
    if asks_something(re.sub(r"\d+(?:\.\d+)?", "", _clean(pieces[0]))) or clauses.parse_clause(
        _clean(pieces[0])
    ):
        return None  # the first piece asks something of its own

    def uses_them(intents: list[Intent]) -> bool:
        expression = " ".join(str(i.arguments.get("expression", "")) for i in intents)
        return _calculates_only(intents) and all(
            re.search(rf"(?<![\d.]){re.escape(n)}(?![\d.]|\.\d)", expression) for n in told
        )

    rest = "".join(p + sep for p, sep in zip(pieces[1:], [*separators[1:], ""], strict=True))
    return rest, uses_them


_CHANGES_NAMED = ("complete", "delete", "reopen")
# Words that point at todos: a piece with them says which todos are meant, never only why.
_POINTS_AT_TODOS = re.compile(
    r"\b(?:first|second|third|fourth|fifth|last|other|both|them|those|these|ones|\d+(?:st|nd|rd|th))\b", _F
)


def _reason_beside(pieces: list[str]) -> tuple[str, Callable[[list[Intent]], bool]] | None:
    """ "delete the last one, found a bag of sugar in the cupboard", "hmm no they never rang back.
    reopen it": one change of todos a reference names, beside pieces that only say why (a report
    of what was done, or words that ask for nothing): the change alone. None when another piece
    asks for something, or several pieces change todos by reference."""
    if len(pieces) < 2:
        return None
    parsed = [clauses.parse_clause(cleaned) if (cleaned := _clean(p)) else None for p in pieces]
    commands = [
        k
        for k, i in enumerate(parsed)
        if i is not None and i.todos is not None and i.arguments.get("action") in _CHANGES_NAMED
    ]
    # "I've done that already, tick it off": one change said twice of the one todo meant
    said_again = len(commands) > 1 and all(
        parsed[c].todos.count == 1 and parsed[c].arguments == parsed[commands[-1]].arguments  # type: ignore[union-attr]
        for c in commands
    )
    if len(commands) != 1 and not said_again:
        return None
    k = commands[-1]
    command = parsed[k]
    assert command is not None
    for j, (piece, intent) in enumerate(zip(pieces, parsed, strict=True)):
        if j in commands:
            continue
        if intent is None:
            cleaned = _clean(piece)
            if (
                asks_something(cleaned)
                or _CONDITION_LEAD.match(cleaned)
                # "book a flight, delete that one": a request no rule reads, never why
                or starts_as_a_request(cleaned)
            ):
                return None  # "delete it, and can you add bread": a request of its own; "if ...": when
            if _POINTS_AT_TODOS.search(piece):
                return None  # "the first and the second, tick them off": which ones, not why
        elif (
            intent.tool != command.tool
            or intent.arguments.get("action") != "complete"
            or intent.answer != command.answer
        ):
            return None  # a report is a completion said of what was done; anything else is a request
    action = command.arguments["action"]

    def the_change_alone(intents: list[Intent]) -> bool:
        return bool(intents) and all(
            i.tool == command.tool and i.arguments.get("action") == action for i in intents
        )

    return pieces[k], the_change_alone


def _topic_first(pieces: list[str]) -> tuple[str, Callable[[list[Intent]], bool]] | None:
    """ "the third one, delete it, I already cancelled online", "that other one, bin it": which
    todos, said first, then the change with a pronoun for them: the change said of them (the
    pronoun means what the first piece points at, not what the conversation last touched)."""
    if len(pieces) < 2 or (reference := followups.todo_reference(first := _clean(pieces[0]))) is None:
        return None
    if reference.words in followups.PRONOUNS:
        return None
    changes = []
    for j, piece in enumerate(pieces[1:], start=1):
        intent = clauses.parse_clause(cleaned) if (cleaned := _clean(piece)) else None
        if intent is not None and intent.todos is not None and intent.todos.words in followups.PRONOUNS:
            changes.append((j, cleaned, intent.todos.words))
    if len(changes) != 1:
        return None
    j, cleaned, pronoun = changes[0]
    said = re.sub(rf"\b{re.escape(pronoun)}\b", lambda _: first, cleaned, count=1, flags=_F)
    if rest := [*pieces[1:j], *pieces[j + 1 :]]:
        return _reason_beside([said, *rest])
    action = clauses.parse_clause(said)

    def the_change(intents: list[Intent]) -> bool:
        return (
            action is not None
            and bool(intents)
            and all(i.arguments.get("action") == action.arguments.get("action") for i in intents)
        )

    return said, the_change


def _part_readings(
    pieces: list[str], separators: list[str]
) -> list[tuple[str, Callable[[list[Intent]], bool]]]:
    """The parts of a text to read alone before it whole, each with what its plan must be to be
    kept: the question before talk ("how many miles is 42 km? Training for the marathon": when it
    only reads, whatever the talk meant changes nothing); the request after a scene set first
    ("before I start on the delete-spam job, what's still open?", only a reading request); the
    request after why it is asked ("party's off, delete both party ones", only deletes that the
    why explains); the calculations before a last "added up" (_combined_reading)."""
    readings: list[tuple[str, Callable[[list[Intent]], bool]]] = []
    whole = "".join(p + sep for p, sep in zip(pieces, [*separators, ""], strict=True))
    # "Hi, the Harpers cancelled, delete all the Harper ones": a greeting first is no part
    while len(pieces) > 2 and (_aside(pieces[0]) or not _clean(pieces[0])):
        pieces, separators = pieces[1:], separators[1:]
    if (combined := _combined_reading(whole)) is not None:
        readings.append(combined)
    if (after := _amount_said_first(pieces, separators)) is not None:
        readings.append(after)
    if (after := _numbers_said_first(pieces, separators)) is not None:
        readings.append(after)
    if (reasoned := _reason_beside(pieces)) is not None:
        readings.append(reasoned)
    if (topic := _topic_first(pieces)) is not None:
        readings.append(topic)
    if (asked := _talk_after_question(pieces, separators)) is not None:
        head = "".join(p + sep for p, sep in zip(pieces[:asked], separators[:asked], strict=True))
        readings.append((head, _reads_only))
    if len(pieces) < 2 or "," not in separators[0]:
        return readings
    first = _clean(pieces[0])
    rest = "".join(p + sep for p, sep in zip(pieces[1:], [*separators[1:], ""], strict=True))
    if _SETTING_THE_SCENE.match(first):
        readings.append((rest, _reads_only))
    elif _CALLED_OFF.match(first):

        def explained(intents: list[Intent]) -> bool:
            changes = [i for i in intents if i.arguments.get("action") != "find"]
            return bool(changes) and _why_deleted(changes[:1], first)

        readings.append((rest, explained))
    return readings
