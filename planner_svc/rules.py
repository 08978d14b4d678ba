"""The deterministic rule planner.

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

A turn of a thread is planned with the thread's earlier turns (followups.py): with no earlier
step in the prompt to point at, "that" and "the answer" are the last result ("now double it",
"add that as a todo"), "it", "them", "both" and "the second one" the todos the last todo turn
added, changed or listed ("mark it as done"), and "what did I just add?" / "what was the
answer?" are answered from the history alone (a plan with no steps, only its answer). A
reference that could mean more than one thing, or has nothing to point at, is refused with what
it could refer to.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from agentrt.core.arithmetic import FUNCTIONS, PERCENT_OF, PERCENT_SIGN
from agentrt.core.text import clip
from agentrt.core.values import dict_to_struct
from agentrt.v1 import plan_pb2
from planner_svc import followups
from planner_svc.followups import Context, TodoReference, todo_reference
from planner_svc.planner import PlanningFailed, PlanRequest

MAX_PIECES = 64
# Refusals quote what was and was not understood, at most this much of it.
MAX_ECHOED = 8
MAX_ECHO_CHARS = 120
# One clause spans at most this many pieces ("buy milk, eggs and bread" is three). Trying every
# run of pieces would make planning quadratic in the prompt's length.
MAX_CLAUSE_PIECES = 16
# The calculator's own limit on an expression; a longer one is not planned as arithmetic.
MAX_EXPRESSION_CHARS = 500
# Spoken operators shrink when normalized ("multiplied by" -> "*"): a clause longer than this
# cannot become an expression within MAX_EXPRESSION_CHARS.
MAX_SPOKEN_ARITHMETIC_CHARS = 5 * MAX_EXPRESSION_CHARS

# Placeholders the clause rules emit; plan() binds them to the latest earlier calculator step.
RESULT_VALUE = "{{result}}"
RESULT_TEXT = "{{result_text}}"
# ... and, in an answer, how that result reads: "the result", or its value when it is a history's.
RESULT_WORD = "{{result_word}}"


def step_id(position: int) -> str:
    """Id of the step planned from the clause at 1-based `position`."""
    return f"s{position}"


@dataclass(frozen=True)
class Intent:
    """One understood clause: the tool call it maps to and why."""

    clause: str
    tool: str
    arguments: dict[str, Any]
    reasoning: str
    # How this step's outcome reads, with {{out.<field>}} for its own output (see answer_template).
    answer: str = ""
    # The words that refer to an earlier result ("that", "the answer"), if the clause uses one.
    refers: str = ""
    # Which earlier todos the clause means ("it", "both"), bound to ids by _bind.
    todos: TodoReference | None = None
    # A question answered from the thread's history alone ("added", "answer"): no tool, no step.
    recall: str = ""


def _cannot_plan(
    message: str,
    understood: list[Intent] | None = None,
    not_understood: list[str] | None = None,
    reason: str = "UNPLANNABLE",
) -> PlanningFailed:
    """The prompt (or part of it) matches no rule: what was and was not understood."""
    return PlanningFailed(
        message, reason=reason, understood=understood or [], not_understood=not_understood or []
    )


CAPABILITIES = (
    'I can do arithmetic ("calculate (10 + 5) * 2", "what\'s 20% of 150", "the average of 3, 9 and 12", '
    '"square root of 144") and todos ("add a todo to buy milk", "add todos: eggs, flour and milk", '
    '"what\'s on my list", "how many todos do I have", "mark the buy milk todo as done", '
    '"remove the dentist todo"), any catalog tool as \'use TOOL with {"arg": ...}\', joined by "and", '
    '"then" or ", then", or in sentences.'
)

_F = re.IGNORECASE
_NUM = r"(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|RESULT)"
# Two or more numbers: "3, 9 and 12", "3 and 4", "3, 9, 12", "3 plus 9 plus 12".
_NUM_LIST = rf"{_NUM}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s+plus\s+){_NUM})+"
_LIST_ITEM = re.compile(_NUM)
_RESULT_WORD_HINTS = ("it", "that", "result", "answer", "value", "number")  # substrings of _RESULT_WORDS
_RESULT_WORDS = re.compile(r"\b(?:the|that|this)\s+(?:result|answer|value|number)\b|\bthat\b|\bit\b", _F)
_TODO_NOUN = r"(?:todo|to-do|to do|task|reminder|item)"
# (?<!\s): a separator starts where a run of whitespace starts. Every alternative begins with
# optional whitespace, so a match inside the run is never needed, and trying one at each of its
# positions would be quadratic in the run's length.
_SEPARATORS = re.compile(
    r"(?<!\s)(\s*,\s*(?:and\s+)?then\s+|\s*[;.]\s+(?:(?:and\s+)?then\s+)?|\s*;\s*|\s+and\s+then\s+"
    r"|\s+then\s+|\s+and\s+|\s*,\s*)",
    _F,
)
_STRONG_SEPARATOR = re.compile(r"then|[;.]", _F)
_ABBREVIATION = re.compile(r"\b(?:dr|mr|mrs|ms|st|jr|sr|vs|etc|prof|no|e\.g|i\.e)$", _F)
# Applied to clauses whose whitespace is already collapsed to single spaces (see _clean).
_POLITE_PREFIX = re.compile(
    r"^(?:(?:please|kindly|now|also|next|first|finally|and|actually|ok|okay|oh|great|alright|so)(?: ?,)? "
    r"|(?:can|could|would|will) you )+",
    _F,
)
_POLITE_WORDS = ("thank you", "thanks", "please")

_WORD_OPERATORS = [
    (re.compile(r"\bmultiplied by\b", _F), "*"),
    (re.compile(r"\btimes\b", _F), "*"),
    (re.compile(r"\bdivided by\b", _F), "/"),
    (re.compile(r"\bover\b", _F), "/"),
    (re.compile(r"\bplus\b", _F), "+"),
    (re.compile(r"\bminus\b", _F), "-"),
    (re.compile(r"\bto the power of\b", _F), "**"),
    (re.compile(r"\bmod(?:ulo)?\b", _F), "%"),
    (re.compile(r"\s*\bper ?cent\b", _F), "%"),
]
# What the calculator reads that the character check below should not: numbers in scientific
# notation, function names, and "of" after a percent sign ("20% of 150").
_SCIENTIFIC = re.compile(r"\d+(?:\.\d+)?[eE][+-]?\d+")
_FUNCTION_CALL = re.compile(rf"\b(?:{'|'.join(FUNCTIONS)})(?=\s*\()", _F)
_SPACED_PERCENT = re.compile(r"(?<=\d) %(?=\s*(?:of\b|$|[)+\-*/,]))", _F)
_DIGIT = re.compile(r"\d")
_EXPRESSION_CHARS = re.compile(r"(?:[\d\s.,+\-*/%()]|RESULT)+")

_CALC_VERB = re.compile(
    r"^(?:calculate|compute|evaluate|work out|solve|what(?:'s|s| is)|how much is)\s+"
    r"(?:the\s+(?:value|result)\s+of\s+)?(?P<expr>.+)$",
    _F,
)
_BINARY_WORDS = [
    (re.compile(rf"^(?:add|sum)\s+(?P<a>{_NUM})\s+(?:and|to|plus|with)\s+(?P<b>{_NUM})$", _F), "{a} + {b}"),
    (re.compile(rf"^(?:what is\s+)?the sum of\s+(?P<a>{_NUM})\s+and\s+(?P<b>{_NUM})$", _F), "{a} + {b}"),
    (re.compile(rf"^subtract\s+(?P<a>{_NUM})\s+from\s+(?P<b>{_NUM})$", _F), "{b} - {a}"),
    (re.compile(rf"^multiply\s+(?P<a>{_NUM})\s+(?:by|and|with|times)\s+(?P<b>{_NUM})$", _F), "{a} * {b}"),
    (re.compile(rf"^divide\s+(?P<a>{_NUM})\s+(?:by|over)\s+(?P<b>{_NUM})$", _F), "{a} / {b}"),
]

_WHAT = r"(?:(?:what(?:'s|s| is)|calculate|compute|work out|find|give me|tell me)\s+)?(?:the\s+)?"


def _numbers(text: str) -> list[str]:
    return _LIST_ITEM.findall(text)


def _spoken_list(numbers: list[str]) -> str:
    """3, 9 and 12"""
    return ", ".join(numbers[:-1]) + f" and {numbers[-1]}"


def _sum(m: re.Match[str]) -> tuple[str, str]:
    numbers = _numbers(m.group("list"))
    return " + ".join(numbers), f"The total of {_spoken_list(numbers)} is {{{{out.value}}}}"


def _average(m: re.Match[str]) -> tuple[str, str]:
    numbers = _numbers(m.group("list"))
    expr = f"({' + '.join(numbers)}) / {len(numbers)}"
    return expr, f"The average of {_spoken_list(numbers)} is {{{{out.value}}}}"


def _percent(m: re.Match[str]) -> tuple[str, str]:
    expr = f"{m.group('p')}% of {m.group('n')}"
    return expr, f"{expr} = {{{{out.value}}}}"


def _root(m: re.Match[str]) -> tuple[str, str]:
    return f"sqrt({m.group('n')})", f"The square root of {m.group('n')} is {{{{out.value}}}}"


def _absolute(m: re.Match[str]) -> tuple[str, str]:
    return f"abs({m.group('n')})", f"The absolute value of {m.group('n')} is {{{{out.value}}}}"


def _rounded(m: re.Match[str]) -> tuple[str, str]:
    digits = m.group("d")
    if digits is None:
        return f"round({m.group('n')})", f"{m.group('n')} rounded is {{{{out.value}}}}"
    places = "place" if digits == "1" else "places"
    expr = f"round({m.group('n')}, {digits})"
    return expr, f"{m.group('n')} rounded to {digits} decimal {places} is {{{{out.value}}}}"


def _scaled(word: str, factor: str, operator: str) -> Any:
    def build(m: re.Match[str]) -> tuple[str, str]:
        return f"{m.group('n')} {operator} {factor}", f"{word} {m.group('n')} is {{{{out.value}}}}"

    return build


# Everyday phrasings, each with its expression and how its answer reads. A number may be an
# earlier result ("half of the result"): RESULT, bound to the latest calculator step.
_MATH_PHRASES: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(rf"^{_WHAT}(?:sum|total)\s+of\s+(?P<list>{_NUM_LIST})$", _F), _sum),
    (re.compile(rf"^(?:add up|sum up|sum|total|add)\s+(?P<list>{_NUM_LIST})$", _F), _sum),
    (re.compile(rf"^{_WHAT}(?:average|mean)\s+(?:of\s+)?(?P<list>{_NUM_LIST})$", _F), _average),
    (re.compile(rf"^(?:average|mean)\s+(?P<list>{_NUM_LIST})$", _F), _average),
    (re.compile(rf"^{_WHAT}(?P<p>{_NUM})\s*(?:%|percent|per cent)\s+of\s+(?P<n>{_NUM})$", _F), _percent),
    (re.compile(rf"^{_WHAT}(?:square root|sqrt)\s+(?:of\s+)?(?P<n>{_NUM})$", _F), _root),
    (re.compile(rf"^{_WHAT}absolute value\s+of\s+(?P<n>{_NUM})$", _F), _absolute),
    (
        re.compile(
            rf"^round\s+(?P<n>{_NUM})(?:\s+to\s+(?P<d>\d{{1,2}})\s+(?:decimal\s+)?(?:places?|decimals?|digits?))?$",
            _F,
        ),
        _rounded,
    ),
    (re.compile(rf"^{_WHAT}half\s+(?:of\s+)?(?P<n>{_NUM})$", _F), _scaled("Half of", "2", "/")),
    (re.compile(rf"^(?:{_WHAT}double|twice)\s+(?P<n>{_NUM})$", _F), _scaled("Double", "2", "*")),
    (re.compile(rf"^{_WHAT}triple\s+(?P<n>{_NUM})$", _F), _scaled("Triple", "3", "*")),
]

# An earlier result, as a todo's text: "add that as a todo", "put the answer on my list".
_RESULT_REF = r"(?P<ref>(?:the|that|this)\s+(?:result|answer|value|number)|that|it|this)"
_A_TODO = rf"(?:(?:a|an|one|new|another)\s+)*{_TODO_NOUN}(?:\s+item)?"
_TODO_ADD_RESULT = [
    re.compile(
        rf"^(?:add|create|make|put|record|save)\s+{_A_TODO}\s+"
        rf"(?:with|containing|for|of|saying|that says|about)\s+{_RESULT_REF}$",
        _F,
    ),
    re.compile(
        rf"^(?:add|put|save|record|write)\s+{_RESULT_REF}\s+(?:down\s+)?(?:to|on|onto|in)\s+"
        rf"(?:my\s+|the\s+)?(?:{_TODO_NOUN}s?(?:\s+list)?|list)$",
        _F,
    ),
    re.compile(
        rf"^(?:add|put|save|record|keep|note|write)\s+{_RESULT_REF}\s+(?:down\s+)?as\s+{_A_TODO}$", _F
    ),
    re.compile(rf"^(?:make|turn)\s+{_RESULT_REF}\s+(?:into\s+)?{_A_TODO}$", _F),
]
_TODO_ADD = [
    re.compile(
        rf"^(?:add|create|make|put|insert|record|new)\s+(?:(?:a|an|one|new|another)\s+)*{_TODO_NOUN}"
        r"(?:\s+item)?(?:\s*[:\-]\s*|\s+(?:to|for|that says|saying|called|named|about)\s+|\s+)(?P<text>.+)$",
        _F,
    ),
    re.compile(
        rf"^(?:add|put)\s+(?P<text>.+?)\s+(?:to|on|onto)\s+(?:my\s+|the\s+)?(?:{_TODO_NOUN}s?(?:\s+list)?|list)$",
        _F,
    ),
    re.compile(r"^remind me to\s+(?P<text>.+)$", _F),
]
_TODO_LIST = re.compile(
    r"^(?:(?:show|list|display|get|view|print|see|give|read)(?:\s+me)?|what(?:'s|s| is| are)(?:\s+on)?)"
    rf"(?:\s+(?:all|of|my|the|current|open))*\s+(?:{_TODO_NOUN}s?(?:\s+list)?|list)$",
    _F,
)
_TODO_COUNT = re.compile(
    rf"^(?:how many|count(?: up)?|number of)(?:\s+(?:of\s+)?(?:my|the|all))*\s+(?:{_TODO_NOUN}s|things)"
    r"(?:\s+(?:do i have|have i got|are there|are left|do i have left|are (?:on|in) (?:my|the)"
    rf"(?:\s+{_TODO_NOUN})?\s+list|(?:do )?i (?:still )?have to do))?$",
    _F,
)
_NUMBER_WORDS = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
# "add todos: a, b and c", "add three tasks: x, y and z": a plural noun, then the list.
_TODO_ADD_MANY = re.compile(
    rf"^(?:add|create|make|new)\s+(?:(?:these|the following|some|(?P<n>\d+|{'|'.join(_NUMBER_WORDS)}))\s+)?"
    rf"(?:new\s+)?{_TODO_NOUN}s\s*(?::|-)\s*(?P<list>.+)$",
    _F,
)
_ITEM_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", _F)
# A todo named by its text: "the buy eggs todo", "the todo about flour", "buy eggs".
_DONE_WORDS = r"(?:done|complete|completed|finished)"
_BY_TEXT = (
    rf"(?:the\s+|my\s+)?(?:{_TODO_NOUN}\s+(?:about|called|named|to|for|saying)\s+(?P<t1>.+)"
    rf"|(?P<t2>.+?)\s+{_TODO_NOUN})"
)
_TODO_COMPLETE_TEXT = [
    re.compile(rf"^(?:mark|set)\s+{_BY_TEXT}\s+(?:as\s+)?{_DONE_WORDS}$", _F),
    re.compile(rf"^(?:mark|set)\s+(?:the\s+)?(?P<t3>.+?)\s+(?:as\s+)?{_DONE_WORDS}$", _F),
    re.compile(rf"^(?:complete|finish|check off|tick off|cross off)\s+{_BY_TEXT}$", _F),
]
_TODO_DELETE_TEXT = [
    re.compile(rf"^(?:delete|remove|drop|erase)\s+{_BY_TEXT}$", _F),
    re.compile(
        rf"^(?:delete|remove|drop|erase|take)\s+(?P<t3>.+?)\s+(?:off|from)\s+(?:my\s+|the\s+)?"
        rf"(?:{_TODO_NOUN}\s+)?list$",
        _F,
    ),
]
_TODO_COMPLETE = [
    re.compile(
        rf"^(?:mark|set)\s+(?:{_TODO_NOUN}\s*)?#?(?P<id>\d+)\s+(?:as\s+)?(?:done|complete|completed|finished)$",
        _F,
    ),
    re.compile(rf"^(?:complete|finish|check off|tick off|close)\s+{_TODO_NOUN}\s*#?(?P<id>\d+)$", _F),
]
_EXPLICIT_TOOL = re.compile(
    r"^(?:use|call|run|invoke)\s+(?:the\s+)?(?:tool\s+)?(?P<tool>[a-z][a-z0-9_]*)(?:\s+tool)?\s+with\s+(?P<args>\{.*\})$",
    re.IGNORECASE | re.DOTALL,
)
_TODO_DELETE = re.compile(rf"^(?:delete|remove|drop|erase)\s+{_TODO_NOUN}\s*#?(?P<id>\d+)$", _F)
# Verbs that take a reference to earlier todos ("it", "both", "the second one": see
# followups.todo_reference), besides the by-text patterns above ("mark it as done").
_TODO_COMPLETE_REF = [
    re.compile(r"^(?:complete|finish|check off|tick off|cross off|close)\s+(?P<r>.+)$", _F),
    re.compile(
        rf"^(?:cross|tick|check)\s+(?P<r>.+?)\s+off(?:\s+(?:my\s+|the\s+)?(?:{_TODO_NOUN}\s+)?list)?$", _F
    ),
    re.compile(rf"^(?P<r>.+?)(?:\s+(?:is|are)|'s)\s+(?:now\s+|all\s+)?{_DONE_WORDS}$", _F),
    re.compile(
        r"^i(?:'ve|\s+have)?\s+(?:just\s+|already\s+)?(?:finished|completed|done|did)\s+(?P<r>.+)$", _F
    ),
    re.compile(r"^i(?:'m|\s+am)\s+(?:done|finished)\s+with\s+(?P<r>.+)$", _F),
]
_TODO_DELETE_REF = [
    re.compile(r"^(?:delete|remove|drop|erase|get rid of|scrap|ditch)\s+(?P<r>.+)$", _F),
    re.compile(
        rf"^(?:take|remove)\s+(?P<r>.+?)\s+(?:off|from)\s+(?:my\s+|the\s+)?(?:{_TODO_NOUN}\s+)?list$", _F
    ),
]
# "what did I just add?", "what was the answer?": answered from the thread's history.
_RECALL = [
    (
        re.compile(
            r"^(?:what|which (?:todos?|tasks?|items?))\s+(?:did|have)\s+i\s+(?:just\s+|last\s+)?add(?:ed)?"
            rf"(?:\s+(?:to|on)\s+(?:my|the)\s+(?:{_TODO_NOUN}\s+)?list)?(?:\s+again)?$",
            _F,
        ),
        "added",
    ),
    (
        re.compile(rf"^what (?:was|is) the (?:last\s+)?(?:{_TODO_NOUN}|thing) i (?:just\s+)?added$", _F),
        "added",
    ),
    (
        re.compile(
            r"^(?:what (?:was|were) (?:the|that|your) (?:last\s+)?(?:answer|result)s?"
            r"|what(?:'s| is) (?:the|that) (?:answer|result)(?: again)?"
            r"|what did you (?:just\s+)?(?:say|answer|get))(?:\s+again)?$",
            _F,
        ),
        "answer",
    ),
]


def _clean(clause: str) -> str:
    """The clause with whitespace collapsed (rules then never meet runs of spaces or newlines,
    where backtracking patterns go quadratic or worse) and polite words trimmed. A JSON object
    (the arguments of "use TOOL with {...}") is kept byte for byte."""
    brace = clause.find("{")
    head, arguments = (clause, "") if brace < 0 else (clause[:brace], clause[brace:].strip())
    head = _POLITE_PREFIX.sub("", " ".join(head.split()))
    if arguments:
        return f"{head} {arguments}".strip()
    return _strip_polite_suffix(head)


def _strip_polite_suffix(text: str) -> str:
    """Drop trailing punctuation and a closing "please"/"thanks"/"thank you" (string operations,
    not a regex: a pattern anchored at the end is retried from every position)."""
    text = text.rstrip(" .!?")
    lowered = text.lower()
    for word in _POLITE_WORDS:
        if lowered.endswith(word) and (len(text) == len(word) or not text[-len(word) - 1].isalnum()):
            text = text[: -len(word)]
            break
    return text.rstrip(" ,.!?")


def _to_expression(text: str) -> str | None:
    """Normalize spoken arithmetic to an expression the calculator accepts, or None.
    A reference to an earlier result stays as RESULT_VALUE, in parentheses."""
    expr = text.replace("\u00d7", "*").replace("\u00f7", "/").replace("^", "**")  # x and division signs
    for pattern, symbol in _WORD_OPERATORS:
        expr = pattern.sub(f" {symbol} ", expr)
    expr = re.sub(r"(?<=[\d)])\s*x\s*(?=[\d(])", " * ", expr, flags=_F)
    expr = " ".join(expr.split())
    expr = _SPACED_PERCENT.sub("%", expr)  # "20 percent of" became "20 % of": write "20% of"
    if len(expr) > MAX_EXPRESSION_CHARS:
        return None  # the calculator would refuse it; parsing it could exhaust the parser
    check = _SCIENTIFIC.sub("1", expr)
    check = _FUNCTION_CALL.sub("f", check)
    # A percent sign (no operand after it) is dropped for the syntax check; "% of" is "times".
    check = PERCENT_SIGN.sub("", PERCENT_OF.sub("%*", check))
    if not expr or not _EXPRESSION_CHARS.fullmatch(check.replace("f(", "(")) or not _DIGIT.search(expr):
        return None
    try:
        ast.parse(check.replace("RESULT", "1"), mode="eval")
    except (SyntaxError, RecursionError, MemoryError):
        return None
    return expr.replace("RESULT", f"({RESULT_VALUE})")


def _arithmetic(clause: str) -> Intent | None:
    # Cheap refusals first: the planner tries every run of clauses, so most texts seen here are
    # not arithmetic, and the passes below would each scan them again.
    if len(clause) > MAX_SPOKEN_ARITHMETIC_CHARS:
        return None
    lowered = clause.lower()
    if not _DIGIT.search(clause) and not any(word in lowered for word in _RESULT_WORD_HINTS):
        return None  # no number, and no word that could refer to an earlier result
    refers = m.group() if (m := _RESULT_WORDS.search(clause)) else ""
    original, clause = clause, _RESULT_WORDS.sub("RESULT", clause)
    for pattern, build in _MATH_PHRASES:
        if m := pattern.match(clause):
            expr, answer = build(m)
            return _calculation(original, expr, refers, answer.replace("RESULT", RESULT_WORD))
    for pattern, template in _BINARY_WORDS:
        if m := pattern.match(clause):
            return _calculation(original, template.format(**m.groupdict()), refers)
    m = _CALC_VERB.match(clause)
    candidate = m.group("expr") if m else clause
    expr = _to_expression(candidate)
    if expr is None or (m is None and not re.search(r"[+\-*/%]", expr)):
        return None  # a bare number is not a calculation
    return _calculation(original, expr.replace(f"({RESULT_VALUE})", "RESULT"), refers)


def _calculation(
    clause: str, expr: str, refers: str, answer: str = "{{out.expression}} = {{out.value}}"
) -> Intent:
    """A calculator step; RESULT in `expr` is an earlier step's value, in parentheses."""
    if "RESULT" not in expr:
        refers = ""  # "it" was a word of the clause, not a number of the expression
    expr = expr.replace("RESULT", f"({RESULT_VALUE})")
    reasoning = f'"{clause}" is arithmetic: {expr}'
    return Intent(clause, "calculator", {"expression": expr}, reasoning, answer, refers=refers)


_SUMMARY = "{{out.summary}}"
_NOT_A_NAME = frozenset(
    ["the", "my", "a", "an", "as", "it", "this", "that", "them", "all", "one", "everything"]
)


def _todo(clause: str) -> Intent | None:
    found = _todo_intent(clause)
    return None if found is None else replace(found, answer=_SUMMARY)


def _todo_text(m: re.Match[str]) -> str | None:
    text = _named(m).strip().strip("\"'").strip()
    # "the todo 2" is an id, which the id rules read; an empty or numeric text is not a name, and
    # neither is "it" or "the" ("mark it as done", "remove the todo"): which todo is not said.
    if not text or text.lstrip("#").isdigit() or text.lower() in _NOT_A_NAME:
        return None
    return text


def _todo_intent(clause: str) -> Intent | None:
    for pattern in _TODO_ADD_RESULT:
        if m := pattern.match(clause):
            arguments = {"action": "add", "text": RESULT_TEXT}
            return Intent(
                clause, "todo_store", arguments, f'"{clause}" adds the result', refers=m.group("ref")
            )
    if m := _TODO_ADD_MANY.match(clause):
        items = [i.strip().strip("\"'").strip() for i in _ITEM_SEPARATOR.split(m.group("list"))]
        wanted = m.group("n")
        count = None if wanted is None else _NUMBER_WORDS.get(wanted.lower()) or int(wanted)
        if all(items) and len(items) >= 2 and count in (None, len(items)):
            return Intent(
                clause, "todo_store", {"action": "add", "texts": items}, f'"{clause}" adds {len(items)} todos'
            )
        return None  # "add three todos: x and y" says one thing and lists another: not a guess
    if _TODO_COUNT.match(clause):
        return Intent(clause, "todo_store", {"action": "count"}, f'"{clause}" counts the todos')
    for pattern in _TODO_ADD:
        if m := pattern.match(clause):
            text = m.group("text").strip().strip("\"'").strip()
            # "add it to my list" names no todo: "it" is a reference (a result: _TODO_ADD_RESULT).
            if text and text.lower() not in _NOT_A_NAME:
                return Intent(
                    clause, "todo_store", {"action": "add", "text": text}, f'"{clause}" adds a todo'
                )
    if _TODO_LIST.match(clause):
        return Intent(clause, "todo_store", {"action": "list"}, f'"{clause}" lists the todos')
    for pattern in _TODO_COMPLETE:
        if m := pattern.match(clause):
            todo_id = int(m.group("id"))
            return Intent(
                clause,
                "todo_store",
                {"action": "complete", "id": todo_id},
                f'"{clause}" completes todo {todo_id}',
            )
    if m := _TODO_DELETE.match(clause):
        todo_id = int(m.group("id"))
        return Intent(
            clause, "todo_store", {"action": "delete", "id": todo_id}, f'"{clause}" deletes todo {todo_id}'
        )
    for action, patterns in (("complete", _TODO_COMPLETE_TEXT), ("delete", _TODO_DELETE_TEXT)):
        for pattern in patterns:
            if not (m := pattern.match(clause)):
                continue
            if reference := todo_reference(_named(m)):
                return _referring(clause, action, reference)
            if text := _todo_text(m):
                return Intent(
                    clause,
                    "todo_store",
                    {"action": action, "text": text},
                    f'"{clause}" {action}s the todo matching {_quote(text)}',
                )
    for action, patterns in (("complete", _TODO_COMPLETE_REF), ("delete", _TODO_DELETE_REF)):
        for pattern in patterns:
            if (m := pattern.match(clause)) and (reference := todo_reference(m.group("r"))):
                return _referring(clause, action, reference)
    return None


def _named(m: re.Match[str]) -> str:
    return next((m.group(g) for g in ("t1", "t2", "t3") if g in m.groupdict() and m.group(g)), "")


def _referring(clause: str, action: str, reference: TodoReference) -> Intent:
    """A complete or delete of earlier todos ("mark it as done"): _bind makes it one step per todo."""
    reasoning = f'"{clause}" {action}s {reference.words!r}'
    return Intent(clause, "todo_store", {"action": action}, reasoning, todos=reference)


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
    return Intent(clause, tool, arguments, reasoning, f"{tool} returned {{{{out}}}}")


def parse_clause(clause: str) -> Intent | None:
    cleaned = _clean(clause)
    if not cleaned:
        return None
    return _explicit(cleaned) or _recall(cleaned) or _todo(cleaned) or _arithmetic(cleaned)


def _protected_spans(text: str) -> list[tuple[int, int]]:
    """Spans of top-level {...} JSON objects (and the strings inside them), where a comma or
    "and" is part of the arguments rather than a clause separator."""
    spans, depth, start, in_string, escaped = [], 0, 0, False, False
    for index, char in enumerate(text):
        if in_string:
            escaped = char == "\\" and not escaped
            if char == '"' and not escaped:
                in_string = False
            continue
        if char == '"' and depth:
            in_string = True
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, index + 1))
    if depth:
        spans.append((start, len(text)))
    return spans


def _split(prompt: str) -> tuple[list[str], list[str]]:
    """Split at clause separators outside JSON objects: (pieces, separators between them)."""
    protected = _protected_spans(prompt)
    pieces, separators, last = [], [], 0
    for match in _SEPARATORS.finditer(prompt):
        if any(start <= match.start() < end for start, end in protected):
            continue
        if "." in match.group() and _ABBREVIATION.search(prompt, max(0, match.start() - 5), match.start()):
            continue  # "call Dr. Smith": the full stop of an abbreviation does not end a sentence
        pieces.append(prompt[last : match.start()])
        separators.append(match.group())
        last = match.end()
    pieces.append(prompt[last:])
    return pieces, separators


def plan(
    prompt: str, available_tools: set[str], max_steps: int = 0, context: Context | None = None
) -> list[Intent]:
    """Plan `prompt` into intents, or raise PlanningFailed saying what was understood.
    `context`: what the thread's earlier turns did (references bind to it); none for a one-shot run."""
    pieces, separators = _split(prompt.strip())
    if len(pieces) > MAX_PIECES:
        raise _cannot_plan(f"the prompt has too many parts to plan (more than {MAX_PIECES} clauses)")

    def segment(i: int, j: int) -> str:
        return "".join(p + s for p, s in zip(pieces[i:j], [*separators[i : j - 1], ""], strict=True))

    parsed: dict[tuple[int, int], Intent | None] = {}
    # "then", ";" and the end of a sentence always end a clause; only "," and "and" may also
    # belong inside one ("buy milk and eggs"). So "add a todo to buy milk, then book a flight"
    # is two clauses, one not understood, never one todo that swallowed the second.
    strong = [bool(_STRONG_SEPARATOR.search(s)) for s in separators]

    def intent(i: int, j: int) -> Intent | None:
        if (i, j) not in parsed:
            parsed[(i, j)] = None if any(strong[i : j - 1]) else parse_clause(segment(i, j))
        return parsed[(i, j)]

    n = len(pieces)
    # best[j]: the most intents covering pieces[:j] entirely, with the split that achieves it.
    best: list[list[Intent] | None] = [[]] + [None] * n
    for j in range(1, n + 1):
        for i in range(max(0, j - MAX_CLAUSE_PIECES), j):
            prefix, current = best[i], best[j]
            if prefix is None or (current is not None and len(prefix) + 1 <= len(current)):
                continue
            if (found := intent(i, j)) is not None:
                best[j] = [*prefix, found]
    intents = best[n]
    if intents is None:
        raise _explain(prompt, pieces, intent)
    intents = _bind(intents, context or Context())
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


def _bind(intents: list[Intent], context: Context) -> list[Intent]:
    """Bind every reference: to the latest earlier step of this plan that can be meant, else to
    the thread's history (`context`). A reference to several todos becomes one step per todo, and
    a question about an earlier turn an answer with no step."""
    bound: list[Intent] = []
    last_calc: str | None = None  # step id of the latest calculator step
    last_todo: tuple[str, Intent] | None = None  # ... and of the latest todo_store step
    steps = 0  # tool intents bound so far: the next one is step s<steps + 1>
    for parsed in intents:
        try:
            if parsed.recall:
                recalled = (
                    followups.recall_added(context)
                    if parsed.recall == "added"
                    else followups.recall_answer(context)
                )
                made = [replace(parsed, answer=_literal(recalled))]
            elif parsed.todos is not None:
                made = _bind_todos(parsed, last_todo, context)
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
                elif intent.tool == "todo_store":
                    last_todo = (position, intent)
    return bound


def _bind_result(intent: Intent, last_calc: str | None, context: Context) -> Intent:
    """Result placeholders bound to the latest earlier calculator step, else the history's result."""
    arguments = intent.arguments
    text = " ".join(str(v) for v in arguments.values())
    if RESULT_VALUE not in text and RESULT_TEXT not in text:
        return intent
    if last_calc is not None:
        value = f"{{{{steps.{last_calc}.output.value}}}}"
        described, word = f"{{{{steps.{last_calc}.output.expression}}}} = {value}", "the result"
        why = f"uses {last_calc}'s result"
    else:
        earlier = followups.result(intent.refers or "the result", context)
        value, described, word = _literal(earlier.value), _literal(str(earlier)), _literal(earlier.value)
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


def _bind_todos(intent: Intent, last_todo: tuple[str, Intent] | None, context: Context) -> list[Intent]:
    """A complete or delete of earlier todos: one step per todo meant, by id. The todos an earlier
    step of this plan adds or completes are meant when there is one (by reference to its output:
    their ids are not known yet), else the ones the history says."""
    reference = intent.todos
    assert reference is not None
    action = intent.arguments["action"]
    if last_todo is not None:
        ids: list[Any] = [{"$ref": path} for path in _pick(reference, *_todos_made_by(*last_todo))]
        whats = [f"the todo {last_todo[0]} makes"] * len(ids)
    else:
        todos = reference.resolve(context)
        ids = [t.id for t in todos]
        whats = [f"{t} from turn {context.todo_turn}" for t in todos]
    return [
        replace(
            intent,
            arguments={"action": action, "id": todo_id},
            reasoning=f"{intent.reasoning}: {what}",
            todos=None,
        )
        for todo_id, what in zip(ids, whats, strict=True)
    ]


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


def _literal(text: str) -> str:
    """Text from an earlier turn, put into a plan: never read as a step reference."""
    return text.replace("{{", "{ {")


def _explain(prompt: str, pieces: list[str], intent: Any) -> PlanningFailed:
    """Greedy left-to-right cover: longest parsable segment at each position, else one piece unknown."""
    understood: list[Intent] = []
    unknown: list[str] = []
    i, n = 0, len(pieces)
    while i < n:
        for j in range(min(n, i + MAX_CLAUSE_PIECES), i, -1):
            if (found := intent(i, j)) is not None:
                understood.append(found)
                i = j
                break
        else:
            unknown.append(_clean(pieces[i]))
            i += 1
    return _unplannable(prompt, understood, unknown)


def _unplannable(prompt: str, understood: list[Intent], unknown: list[str]) -> PlanningFailed:
    not_understood = [u for u in unknown if u] or [prompt.strip()]
    unknown_text = _listing([_quote(u) for u in not_understood], ", ")
    parts = [f"could not plan the prompt: no rule understands {unknown_text}"]
    if understood:
        described = [f"{_quote(i.clause)} -> {i.tool} {_args(i.arguments)}" for i in understood]
        parts.append("Understood: " + _listing(described, "; "))
    parts.append(CAPABILITIES)
    return _cannot_plan(". ".join(parts), understood=understood, not_understood=not_understood)


def _args(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_quote(v) if isinstance(v, str) else repr(v)}" for k, v in arguments.items())


def _listing(items: list[str], separator: str) -> str:
    shown = separator.join(items[:MAX_ECHOED])
    return shown + (f"{separator}and {len(items) - MAX_ECHOED} more" if len(items) > MAX_ECHOED else "")


def _quote(text: str) -> str:
    """An echo of the user's words, bounded: the message travels in gRPC metadata."""
    return repr(clip(text, MAX_ECHO_CHARS))


class RulePlanner:
    """The rule planner as a member of the chain: each understood clause is one step, run in the
    order the user wrote them ("add ..., then show ..." must see the add)."""

    name = "rules"

    async def plan(self, request: PlanRequest) -> plan_pb2.Plan:
        if request.replan is not None:
            raise _cannot_plan("the rule planner cannot revise a failed plan")
        context = Context.of(request.history)
        intents = plan(request.prompt, {t.name for t in request.tools}, request.max_steps, context)
        steps = [
            plan_pb2.PlanStep(
                id=step_id(n),
                tool=intent.tool,
                arguments=dict_to_struct(intent.arguments),
                depends_on=[step_id(n - 1)] if n > 1 else [],
                reasoning=intent.reasoning,
            )
            for n, intent in enumerate((i for i in intents if i.tool), start=1)
        ]
        return plan_pb2.Plan(steps=steps, planner=self.name, answer_template=answer_template(intents))


def answer_template(intents: list[Intent]) -> str:
    """The run's answer: each step's answer, its {{out.x}} bound to that step's output, as
    sentences ("Added 'buy milk' (#3). You have 3 todos: ...")."""
    parts: list[str] = []
    steps = 0
    for intent in intents:
        steps += bool(intent.tool)
        if not intent.tool:  # answered from the history: the answer is the text itself
            parts.append(intent.answer)
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
