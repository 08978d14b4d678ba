"""The deterministic rule planner.

A prompt is split into clauses at "and", "then", ", then", ";" and commas; every clause must
match a rule (arithmetic or todos). Where a conjunction could also belong inside one clause
("add 3 and 4", "buy milk and eggs"), the split with the most clauses that all parse wins, so
"add a todo to buy milk and show me all my tasks" is two steps and "add 3 and 4" is one.
A prompt with any clause no rule understands is refused with a message naming what was and was
not understood: the rule planner never guesses.

Any tool in the catalog, including tools registered by providers, can be planned explicitly
with "use TOOL with {JSON arguments}", e.g. 'use convert_units with {"value": 5, "from_unit":
"km", "to_unit": "mi"}'. Separators inside the JSON do not split the prompt.

"the result" (or "the answer", "that", and "it" in arithmetic) refers to the most recent earlier
calculator step and becomes a step reference: "calculate 2+3, then add a todo with the result"
adds the todo "2+3 = 5", "calculate 2+3 then multiply the result by 4" computes (5) * 4.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from agentrt.client.text import clip
from agentrt.client.values import dict_to_struct
from agentrt.v1 import plan_pb2
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
    'I can do arithmetic ("calculate (10 + 5) * 2", "what is 41*7+13", "add 3 and 4", '
    '"divide 100 by 8") and todos ("add a todo to buy milk", "show me all my tasks", '
    '"mark todo 2 done", "delete todo 2"), any catalog tool as \'use TOOL with {"arg": ...}\', '
    'joined by "and", "then" or ", then".'
)

_F = re.IGNORECASE
_NUM = r"(?:-?\d+(?:\.\d+)?|RESULT)"
_RESULT_WORD_HINTS = ("it", "that", "result", "answer", "value", "number")  # substrings of _RESULT_WORDS
_RESULT_WORDS = re.compile(r"\b(?:the|that|this)\s+(?:result|answer|value|number)\b|\bthat\b|\bit\b", _F)
_TODO_NOUN = r"(?:todo|to-do|to do|task|reminder|item)"
# (?<!\s): a separator starts where a run of whitespace starts. Every alternative begins with
# optional whitespace, so a match inside the run is never needed, and trying one at each of its
# positions would be quadratic in the run's length.
_SEPARATORS = re.compile(
    r"(?<!\s)(\s*,\s*(?:and\s+)?then\s+|\s*;\s*(?:then\s+)?|\s+and\s+then\s+|\s+then\s+|\s+and\s+|\s*,\s*)",
    _F,
)
# Applied to clauses whose whitespace is already collapsed to single spaces (see _clean).
_POLITE_PREFIX = re.compile(
    r"^(?:(?:please|kindly|now|also|next|first|finally|and)(?: ?,)? |(?:can|could|would|will) you )+", _F
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
]
_DIGIT = re.compile(r"\d")
_EXPRESSION_CHARS = re.compile(r"(?:[\d\s.+\-*/%()]|RESULT)+")

_CALC_VERB = re.compile(
    r"^(?:calculate|compute|evaluate|work out|solve|what(?:'s| is)|how much is)\s+"
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

_RESULT_NOUN = r"(?:the|that|this)\s+(?:result|answer|value|number)"
_TODO_ADD_RESULT = [
    re.compile(
        rf"^(?:add|create|make|put|record|save)\s+(?:(?:a|an|one|new|another)\s+)*{_TODO_NOUN}(?:\s+item)?\s+"
        rf"(?:with|containing|for|of|saying|that says|about)\s+{_RESULT_NOUN}$",
        _F,
    ),
    re.compile(
        r"^(?:add|put|save|record)\s+(?:the|that|this)\s+(?:result|answer|value|number)\s+(?:to|on|onto|in)\s+"
        rf"(?:my\s+|the\s+)?{_TODO_NOUN}s?(?:\s+list)?$",
        _F,
    ),
]
_TODO_ADD = [
    re.compile(
        rf"^(?:add|create|make|put|insert|record|new)\s+(?:(?:a|an|one|new|another)\s+)*{_TODO_NOUN}"
        r"(?:\s+item)?(?:\s*[:\-]\s*|\s+(?:to|for|that says|saying|called|named|about)\s+|\s+)(?P<text>.+)$",
        _F,
    ),
    re.compile(
        rf"^(?:add|put)\s+(?P<text>.+?)\s+(?:to|on|onto)\s+(?:my\s+|the\s+)?{_TODO_NOUN}s?(?:\s+list)?$",
        _F,
    ),
    re.compile(r"^remind me to\s+(?P<text>.+)$", _F),
]
_TODO_LIST = re.compile(
    r"^(?:(?:show|list|display|get|view|print|see|give|read)(?:\s+me)?|what(?:'s| is| are)(?:\s+on)?)"
    rf"(?:\s+(?:all|of|my|the|current|open))*\s+{_TODO_NOUN}s?(?:\s+list)?$",
    _F,
)
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
    if not expr or not _EXPRESSION_CHARS.fullmatch(expr) or not _DIGIT.search(expr):
        return None
    if len(expr) > MAX_EXPRESSION_CHARS:
        return None  # the calculator would refuse it; parsing it could exhaust the parser
    try:
        ast.parse(expr.replace("RESULT", "1"), mode="eval")
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
    clause = _RESULT_WORDS.sub("RESULT", clause)
    for pattern, template in _BINARY_WORDS:
        if m := pattern.match(clause):
            expr = template.format(**m.groupdict()).replace("RESULT", f"({RESULT_VALUE})")
            return Intent(clause, "calculator", {"expression": expr}, f'"{clause}" is arithmetic: {expr}')
    m = _CALC_VERB.match(clause)
    candidate = m.group("expr") if m else clause
    expr = _to_expression(candidate)
    if expr is None or (m is None and not re.search(r"[+\-*/%]", expr)):
        return None  # a bare number is not a calculation
    return Intent(clause, "calculator", {"expression": expr}, f'"{clause}" is arithmetic: {expr}')


def _todo(clause: str) -> Intent | None:
    if any(p.match(clause) for p in _TODO_ADD_RESULT):
        return Intent(
            clause, "todo_store", {"action": "add", "text": RESULT_TEXT}, f'"{clause}" adds the result'
        )
    for pattern in _TODO_ADD:
        if m := pattern.match(clause):
            text = m.group("text").strip().strip("\"'").strip()
            if text:
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
    return Intent(clause, tool, arguments, f'"{clause}" names tool {tool} and its arguments explicitly')


def parse_clause(clause: str) -> Intent | None:
    cleaned = _clean(clause)
    if not cleaned:
        return None
    return _explicit(cleaned) or _todo(cleaned) or _arithmetic(cleaned)


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
        pieces.append(prompt[last : match.start()])
        separators.append(match.group())
        last = match.end()
    pieces.append(prompt[last:])
    return pieces, separators


def plan(prompt: str, available_tools: set[str], max_steps: int = 0) -> list[Intent]:
    """Plan `prompt` into intents, or raise PlanningFailed saying what was understood."""
    pieces, separators = _split(prompt.strip())
    if len(pieces) > MAX_PIECES:
        raise _cannot_plan(f"the prompt has too many parts to plan (more than {MAX_PIECES} clauses)")

    def segment(i: int, j: int) -> str:
        return "".join(p + s for p, s in zip(pieces[i:j], [*separators[i : j - 1], ""], strict=True))

    parsed: dict[tuple[int, int], Intent | None] = {}

    def intent(i: int, j: int) -> Intent | None:
        if (i, j) not in parsed:
            parsed[(i, j)] = parse_clause(segment(i, j))
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
    intents = _bind_results(intents)
    missing = sorted({i.tool for i in intents} - available_tools)
    if missing:
        known = ", ".join(sorted(available_tools)) or "none"
        raise _cannot_plan(
            f"understood the prompt, but the tool catalog lacks {', '.join(missing)} (available: {known})",
            understood=intents,
        )
    if max_steps and len(intents) > max_steps:
        raise _cannot_plan(
            f"the prompt needs {len(intents)} steps but max_steps is {max_steps}",
            understood=intents,
            reason="MAX_STEPS_EXCEEDED",
        )
    return intents


def _bind_results(intents: list[Intent]) -> list[Intent]:
    """Turn result placeholders into references to the latest earlier calculator step."""
    bound: list[Intent] = []
    last_calc: str | None = None
    for position, parsed in enumerate(intents, start=1):
        intent, arguments = parsed, parsed.arguments
        text = " ".join(str(v) for v in arguments.values())
        if RESULT_VALUE in text or RESULT_TEXT in text:
            if last_calc is None:
                raise _cannot_plan(
                    f"{_quote(intent.clause)} refers to a result, but no earlier step computes one",
                    understood=intents,
                    not_understood=[intent.clause],
                )
            value = f"{{{{steps.{last_calc}.output.value}}}}"
            described = f"{{{{steps.{last_calc}.output.expression}}}} = {value}"
            arguments = {
                k: v.replace(RESULT_VALUE, value).replace(RESULT_TEXT, described) if isinstance(v, str) else v
                for k, v in arguments.items()
            }
            intent = Intent(
                intent.clause, intent.tool, arguments, f"{intent.reasoning} (uses {last_calc}'s result)"
            )
        if intent.tool == "calculator":
            last_calc = step_id(position)
        bound.append(intent)
    return bound


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
        intents = plan(request.prompt, {t.name for t in request.tools}, request.max_steps)
        steps = [
            plan_pb2.PlanStep(
                id=step_id(n),
                tool=intent.tool,
                arguments=dict_to_struct(intent.arguments),
                depends_on=[step_id(n - 1)] if n > 1 else [],
                reasoning=intent.reasoning,
            )
            for n, intent in enumerate(intents, start=1)
        ]
        return plan_pb2.Plan(steps=steps, planner=self.name)
