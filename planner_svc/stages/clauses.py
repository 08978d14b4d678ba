"""Parsing one clause into an Intent: an explicit tool call, a recall question, results
combined, a todo request (with a computed text or an amount named in it) or arithmetic."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from planner_svc.grammar import arithmetic, normalize, todos
from planner_svc.grammar.intent import RESULT_TEXT, RESULTS, SUMMARY, Intent
from planner_svc.stages.common import _F
from planner_svc.stages.polite import _clean

_TODO_NOUN = r"(?:todo|to-do|to do|task|reminder|item)"

_EXPLICIT_TOOL = re.compile(
    r"^(?:use|call|run|invoke)\s+(?:the\s+)?(?:tool\s+)?(?P<tool>[a-z][a-z0-9_]*)(?:\s+tool)?\s+with\s+(?P<args>\{.*\})$",
    re.IGNORECASE | re.DOTALL,
)
# "what did I just add?", "what was the answer?": answered from the thread's history.
_RECALL = [
    (
        re.compile(
            r"^(?:what|which (?:todos?|tasks?|items?))\s+(?:did|have)\s+i\s+(?:just\s+|last\s+)?"
            r"(?:add(?:ed)?|put(?:\s+down)?|jot(?:ted)?\s+down|write\s+down|wrote\s+down)"
            rf"(?:\s+(?:to|on|in)\s+(?:my|the|your)\s+(?:{_TODO_NOUN}\s+)?list)?"
            r"(?:\s+(?:again|earlier|before|just\s+now|a\s+(?:minute|moment|second)\s+ago))?$",
            _F,
        ),
        "added",
    ),
    # "remind me what I added": what is left of it once "remind me" is set aside
    (
        re.compile(
            r"^what\s+(?:i|we)\s+(?:just\s+)?(?:added|put\s+(?:on|in)\s+(?:my|the)\s+list)(?:\s+(?:earlier|before))?$",
            _F,
        ),
        "added",
    ),
    (
        re.compile(rf"^what (?:was|is) the (?:last\s+)?(?:{_TODO_NOUN}|thing) i (?:just\s+)?added$", _F),
        "added",
    ),
    # "how many did I add?", "how many todos have I added so far": every add of the thread
    (
        re.compile(
            rf"^how\s+many(?:\s+(?:{_TODO_NOUN}s|things))?\s+(?:did|have)\s+(?:i|we)\s+(?:just\s+)?add(?:ed)?"
            r"(?:\s+(?:so\s+far|in\s+total|altogether|today|in\s+all))?$",
            _F,
        ),
        "added_count",
    ),
    # "sorry, what was it again?": whatever "it" is to the conversation, a todo or a result
    (
        re.compile(
            r"^(?:what|which\s+one)\s+(?:was|is)\s+(?:it|that)(?:\s+(?:one|todo|task|thing|number))?"
            r"(?:\s+again|\s+you\s+(?:just\s+)?(?:added|did|got))?$",
            _F,
        ),
        "it",
    ),
    # "wait what did I just mark as done?", "what did I just delete?" ("which ones did I tick off?"
    # asks for the done ones: a listing; the cleaned clause has lost its "just")
    (
        re.compile(
            r"^what\s+did\s+(?:i|you)\s+(?:just\s+|last\s+)?"
            r"(?:mark|tick|check|cross)(?:\s+off)?(?:\s+as)?(?:\s+(?:done|complete|completed|finished|off))?$",
            _F,
        ),
        "changed",
    ),
    (
        re.compile(
            r"^what\s+did\s+(?:i|you)\s+(?:just\s+|last\s+)?"
            r"(?:delete|remove|take\s+off|cross\s+out|get\s+rid\s+of)(?:\s+(?:from|off)\s+(?:my|the)\s+list)?$",
            _F,
        ),
        "removed",
    ),
    # "what was the first result again?", "what was the first number you gave me"
    (
        re.compile(
            r"^what (?:was|is) (?:the|that|your|my) (?:very\s+)?first"
            r" (?:answer|result|number|total|figure|one)"
            r"(?:\s+you\s+(?:gave|told|got)(?:\s+me)?)?(?:\s+again)?$",
            _F,
        ),
        "first_answer",
    ),
    # "what was the first thing I asked you to add?", "what did I add first?"
    (
        re.compile(
            rf"^(?:what (?:was|is) the (?:very\s+)?first (?:{_TODO_NOUN}|thing|one) (?:that\s+)?i\s+"
            r"(?:asked\s+you\s+to\s+add|added|had\s+you\s+add|put\s+(?:on|in)\s+(?:my|the)\s+list)"
            r"|what did i (?:ask you to )?add first)(?:\s+again)?$",
            _F,
        ),
        "first_added",
    ),
    (
        re.compile(
            r"^what (?:was|were) (?:the|that|your) (?:last\s+)?(?:answer|result|number|total|figure)s?"
            r"\s+you\s+(?:gave|told|got)(?:\s+me)?(?:\s+(?:earlier|before|just\s+now))?$",
            _F,
        ),
        "answer",
    ),
    (
        re.compile(
            r"^(?:what (?:was|were) (?:the|that|your) (?:last\s+)?(?:answer|result|number|total|figure)s?"
            r"|what(?:'s| is) (?:the|that) (?:answer|result)(?: again)?"
            r"|what did you (?:just\s+)?(?:say|answer|get)(?:\s+for\s+(?:that|it|this))?"
            # "remind me what the answer was", "what number did you get", "and the answer was?"
            r"|what (?:the|that) (?:answer|result|total|number) was"
            r"|what (?:number|answer|result) did you (?:get|say)"
            r"|(?:the|your) (?:answer|result) was)(?:\s+again)?$",
            _F,
        ),
        "answer",
    ),
]


def _recall(clause: str) -> Intent | None:
    for pattern, kind in _RECALL:
        if pattern.match(clause):
            return Intent(clause, "", {}, f'"{clause}" asks about an earlier turn', recall=kind)
    return None


def _explicit(clause: str) -> Intent | None:
    match = _EXPLICIT_TOOL.match(clause)
    if not match:
        return None
    try:
        arguments = json.loads(match.group("args"))
    except json.JSONDecodeError:
        return None
    if not isinstance(arguments, dict):
        return None
    tool = match.group("tool")
    reasoning = f'"{clause}" names tool {tool} and its arguments explicitly'
    return Intent(clause, tool, arguments, reasoning, f"{tool} returned {{{{out}}}}", explicit=True)


# ("did the laundry!" reports; only "did" with who did it asks: "did I pay the rent")
_QUESTION = re.compile(
    # ("did both", "did them all": a report, when nothing follows the todos meant; "did it" may
    # be a question's start)
    r"^(?:did(?!\s+(?:the|my|our|all|both)\s(?!.*\b(?:get|go|happen|come|work)\b)"
    r"|\s+(?:both|them\s+both|all\s+of\s+them|them\s+all|all\s+(?:two|three|four|five|\d))"
    r"(?:\s+(?:already|today|now|too|as\s+well|lol|haha))*[.!]*$)"
    r"|is|was|were|has|have|are|do|does|had)\b(?!\s+not\b)",
    _F,
)
_REQUEST = re.compile(r"\b(?:can|could|would|will)\s+(?:you|u)\b|\bplease\b|\bpls\b|\bmind\b", _F)
# "mind adding X?": the request in the gerund, as a command.
_GERUNDS = {"adding": "add", "putting": "put", "removing": "remove", "deleting": "delete", "marking": "mark",
            "crossing": "cross", "ticking": "tick", "checking": "check", "showing": "show", "listing": "list",
            "calculating": "calculate", "clearing": "clear", "counting": "count"}  # fmt: skip


# What to do with the list, said as how to do it: the "how" is the request.
_BY_MEANS = re.compile(
    r"^(?:tidy|clean|sort|organi[sz]e|declutter|trim|prune|update|fix)(?:\s+(?:up|out))?\s+(?:my|the)\s+"
    r"(?:todo\s+|to-do\s+)?(?:list|todos|tasks)\s+by\s+(?P<how>\w+ing\s.+)$",
    re.IGNORECASE,
)


def parse_clause(clause: str) -> Intent | None:
    cleaned = _clean(clause)
    if not cleaned:
        return None
    if m := _BY_MEANS.match(cleaned):  # "tidy up my list by deleting the ticked-off items"
        cleaned = m.group("how")
    first, _, rest = cleaned.partition(" ")
    if first.lower() in _GERUNDS:
        cleaned = f"{_GERUNDS[first.lower()]} {rest}".strip()
    # A question ("laundry done?", "did I pay the rent?") may read or compute, never report a todo done.
    question = bool(_QUESTION.match(cleaned)) or (
        clause.rstrip().endswith("?") and not _REQUEST.search(clause)  # "can you tick it off?" asks for it
    )
    return (
        _explicit(cleaned)
        or _recall(cleaned)
        or _added_as(cleaned)
        or _results_combined(cleaned)
        or _amount_in_text(_computed_add(todos.parse(cleaned, question)))
        or arithmetic.parse(cleaned)
    )


# "add it to my list as pay rent", "add that amount as a todo to pay Jamie": the todo is those
# words and the earlier result ("pay rent 760"), the result bound as any is (_bind_result)
_ADDED_AS = re.compile(
    r"^(?:add|put)\s+(?P<ref>it|that|this|(?:that|this|the)\s+(?:amount|sum|figure|number|result|answer|total))\s+"
    rf"(?:(?:to|on|onto|in)\s+(?:my|the)\s+(?:{_TODO_NOUN}\s+)?list\s+)?as\s+"
    rf"(?:an?\s+(?:new\s+)?{_TODO_NOUN}\s+)?(?:to\s+|called\s+|saying\s+)?(?P<x>.+)$",
    _F,
)
_NOT_WORDS_OF_A_TODO = re.compile(
    rf"^(?:well|too|is|it is|(?:an?\s+|one\s+)?(?:new\s+|separate\s+|single\s+)?"
    rf"(?:{_TODO_NOUN}|one|entry|thing)"
    r"(?:\s+(?:please|pls|too|as\s+well|for\s+me))?)$",
    _F,
)


def _added_as(cleaned: str) -> Intent | None:
    if not (m := _ADDED_AS.match(cleaned)) or _NOT_WORDS_OF_A_TODO.match(x := m.group("x").strip(" .!")):
        return None
    if todos.quoted_in(cleaned, x):
        x = x.strip("'\"")
    ref = " ".join(m.group("ref").lower().split())
    return Intent(
        cleaned,
        "todo_store",
        {"action": "add", "text": f"{x} {RESULT_TEXT}"},
        f'"{cleaned}" adds {x!r} with {ref!r}, an earlier result',
        SUMMARY,
        refers=ref,
    )


def _results_combined(cleaned: str) -> Intent | None:
    """ "add the two together", "add them up": the results before it combined, never a todo of
    those words (quoted, they are one: "add 'them up' to my list")."""
    calculation = arithmetic.parse(cleaned)
    if calculation is None or not RESULTS.search(str(calculation.arguments.get("expression", ""))):
        return None
    return None if normalize.quoted_spans(cleaned) else calculation


# "that amount", "this sum", "the same amount", "that much": an earlier result named inside a
# todo's words. Only these: "the total" or "that number" are as often a todo's own words ("check
# the total of the invoice", "call that number back").
_AMOUNT_REFERENCE = re.compile(
    r"\b(?:that|this|the\s+same)\s+(?:amount|sum|figure)\b|\bthat\s+(?:much|many)\b"
    # "leave that tip", "put down that deposit": a sum of money just computed, pointed at
    # (the word kept: "leave 12 tip")
    r"|\b(?P<d>that|this)\s+(?P<noun>tip|deposit|difference)\b",
    re.IGNORECASE,
)


# "transfer that to the holiday fund", "pay Jamie that", "withdraw this in cash": what money is
# moved is an amount. Read as the earlier result only when there is one (else the person's words).
_MOVED_AMOUNT = re.compile(
    r"\b(?:pay|transfer|withdraw|deposit|repay|pay\s+back|lend|invest|save|put\s+aside|set\s+aside|budget|move"
    r"|leave|give|send|tip|donate|owe|collect|request|split)"
    # (to whom, between: "pay Jamie that", "tip the driver that", "pay back Lee the total")
    r"(?:\s+(?!(?:that|this|it)\b)(?:(?:the|my|our|his|her|their)\s+)?[\w'-]+)?"
    r"\s+(?P<ref>that|this|it|the\s+total(?=\s*$))"
    r"(?=\s+(?:to|into|in|for|from|on|at|by|back|before|each|as|aside|away)\b|\s*$)"
    # "set that aside each month", "put it away for the trip"
    r"|\b(?:set|put|stash|tuck)\s+(?P<kept>that|this|it)\s+(?:aside|away)\b",
    re.IGNORECASE,
)


def _amount_in_text(intent: Intent | None) -> Intent | None:
    """ "add a todo to pay Jamie that amount": the todo names the amount an earlier result is
    ("pay Jamie 24"), never the words "that amount". Bound like any result reference
    (_bind_result): to a result computed earlier in the message, else the thread's one latest
    result; refused when there is none or several. Quoted, the words are the todo's name."""
    if intent is None or intent.tool != "todo_store" or set(intent.arguments) != {"action", "text"}:
        return intent
    text = intent.arguments["text"]
    if intent.arguments["action"] != "add" or not isinstance(text, str) or RESULT_TEXT in text:
        return intent
    found = _AMOUNT_REFERENCE.search(text)
    moved = _MOVED_AMOUNT.search(text) if found is None else None
    if (found is None and moved is None) or todos.quoted_in(intent.clause, text):
        return intent
    if found is not None:
        start, end = found.span("d") if found.group("noun") else found.span()
    else:
        start, end = moved.span("ref" if moved.group("ref") else "kept")  # type: ignore[union-attr]
    return replace(
        intent,
        arguments={"action": "add", "text": text[:start] + RESULT_TEXT + text[end:]},
        reasoning=f"{intent.reasoning} ({text[start:end]!r} read as an earlier result)",
        refers=text[start:end].lower(),
        as_said=dict(intent.arguments) if moved is not None else None,
    )


_OPERATION = re.compile(r"[-+*/%^(]")


def _computed_add(intent: Intent | None) -> Intent | None:
    """ "add the sum of 250 and 175 as a todo": the todo is the sum (425), not those words. Only
    when the whole text is arithmetic with an operation in it ("add 42 to my list" adds "42")."""
    if intent is None or intent.tool != "todo_store" or set(intent.arguments) != {"action", "text"}:
        return intent
    if intent.arguments["action"] != "add":
        return intent
    calculation = arithmetic.parse(intent.arguments["text"])
    if calculation is None or calculation.refers:
        # "add the result of 97 * 68 to my list": the result, not those words
        said = re.sub(
            r"^(?:the\s+)?(?:result|answer|value)\s+(?:of|to|for)\s+", "", intent.arguments["text"], flags=_F
        )
        if said != intent.arguments["text"]:
            calculation = arithmetic.parse(said)
    if calculation is not None and calculation.refers:
        # "add the result plus 2 to my list": a sum on an earlier result, never those words as a
        # todo; not planned as a sum either (refused: say the sum, then add the result). Quoted,
        # they are the todo's name as written.
        return intent if todos.quoted_in(intent.clause, intent.arguments["text"]) else None
    if calculation is None or calculation.then is not None:
        return intent
    if not _OPERATION.search(calculation.arguments["expression"].lstrip("-")):
        return intent
    adding = replace(
        intent,
        arguments={"action": "add", "text": RESULT_TEXT},
        reasoning=f'"{intent.clause}" adds the result as a todo',
        refers="the result",
    )
    return replace(calculation, clause=intent.clause, then=adding)
