"""Spoken arithmetic as an expression the calculator accepts ("7 squared minus 5 cubed" is
"7**2 - 5**3"), and the calculator step it becomes."""

from __future__ import annotations

import ast
import re

from agentrt.core.arithmetic import PERCENT_OF, PERCENT_SIGN
from planner_svc.grammar import lexicon, normalize
from planner_svc.grammar.arithmetic.arith_words import (
    _CALC_VERB,
    _DIGIT,
    _EXPRESSION_CHARS,
    _F,
    _FUNCTION_CALL,
    _SCIENTIFIC,
    _SPACED_PERCENT,
    _WHOLE,
    _WORD_OPERATORS,
    MAX_EXPRESSION_CHARS,
)
from planner_svc.grammar.intent import RESULT_VALUE, Intent


def _whole(text: str, expr: str) -> str:
    """ "how many full weeks in 100 days": only whole ones count."""
    whole = _WHOLE.search(text) and "/" in expr and not expr.startswith(("floor(", "ceil("))
    return f"floor({expr})" if whole else expr


def _lead_stripped(text: str) -> str:
    m = _CALC_VERB.match(text.strip())
    return m.group("expr") if m else text


# What a divisor counts ("divided by 24 months", "/ 4 people"): the number divides, the word tells.
_COUNT_AFTER_DIVISOR = re.compile(
    r"((?:divided\s+by|/|over)\s*\d+(?:\.\d+)?)\s+(?:months|weeks|days|years|people|persons|kids|instal?lments|payments"
    r"|shares|ways)\b",
    _F,
)
_UNIT_AFTER_NUMBER = re.compile(
    rf"(\d)\s*{lexicon.alternation([u for u in lexicon.UNITS if len(u) > 2])}\b", _F
)


def to_expression(text: str) -> str | None:
    """Spoken arithmetic as an expression the calculator accepts, or None. A reference to an
    earlier result stays as RESULT_VALUE, in parentheses."""
    expr = normalize.substituted(_UNIT_AFTER_NUMBER, r"\1", text.replace("^", "**"))
    expr = normalize.substituted(_COUNT_AFTER_DIVISOR, r"\1", expr)  # "12 lakhs divided by 24 months"
    for pattern, symbol in _WORD_OPERATORS:
        expr = pattern.sub(f" {symbol} " if symbol else "", expr)
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
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    return expr.replace("RESULT", f"({RESULT_VALUE})")


def calculation(
    clause: str, expr: str, refers: str, answer: str = "{{out.expression}} = {{out.value}}"
) -> Intent:
    """A calculator step; RESULT in `expr` is an earlier step's value, in parentheses."""
    if "RESULT" not in expr:
        refers = ""  # "it" was a word of the clause, not a number of the expression
    expr = expr.replace("RESULT", f"({RESULT_VALUE})")
    reasoning = f'"{clause}" is arithmetic: {expr}'
    return Intent(clause, "calculator", {"expression": expr}, reasoning, answer, refers=refers)
