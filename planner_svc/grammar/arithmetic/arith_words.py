"""The arithmetic grammar's vocabulary: how a number, a percentage, a rate and a unit are
written in a pattern, and the shape of what a frame builds."""

from __future__ import annotations

import re

from agentrt.core.arithmetic import FUNCTIONS
from planner_svc.grammar import lexicon

# The calculator's own limit on an expression; a longer one is not planned as arithmetic.
MAX_EXPRESSION_CHARS = 500
# Spoken operators shrink when normalized ("multiplied by" -> "*"): a clause longer than this
# cannot become an expression within MAX_EXPRESSION_CHARS.
MAX_SPOKEN_ARITHMETIC_CHARS = 5 * MAX_EXPRESSION_CHARS

_F = re.IGNORECASE
NUM = r"(?:-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?|RESULT)"
# Two or more numbers: "3, 9 and 12", "3 and 4", "3, 9, 12", "3 plus 9 plus 12".
NUM_LIST = rf"{NUM}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s+plus\s+|\s*\+\s*|\s+){NUM})+"
_PCT = r"\s*(?:%|percent|per cent|pct)"
_A = r"(?:(?:a|an|the)\s+)?"
_LIST_ITEM = re.compile(NUM)
_RESULT_WORD_HINTS = ("it", "that", "result", "answer", "value", "number")  # substrings of _RESULT_WORDS
_RESULT_WORDS = re.compile(
    # "15% of that first number": the thread's first result (result_refs.result)
    r"\b(?:the|that|my)\s+first\s+(?:result|answer|value|number|total|figure|one)\b"
    r"|\b(?:the|that|this)\s+(?:result|answer|value|number)\b|\bthat\b|\bit\b"
    # "split the rest between 3 kids": what is left of the sum before (a remainder is a sum's own)
    r"|(?<=split\s)the\s+rest\b",
    _F,
)
_WHAT = (
    r"(?:(?:what(?:\s+is|\s+are|\s+would\s+be|\s+will\s+be)?|calculate|compute|work\s+out|find|give\s+me"
    r"|tell\s+me|how\s+much\s+is|how\s+much|how\s+(?:far|long|heavy|big|hot|cold|tall)\s+is|figure\s+out|get|make"
    r"|determine|solve|take)\s+)?(?:the\s+)?"
)
_ORDINAL_POWER = re.compile(rf"\bto\s+the\s+({'|'.join(lexicon.ORDINALS)})\b", _F)
_WHOLE = re.compile(r"\bhow\s+many\s+(?:full|whole|complete)\b", _F)
_AS_DECIMAL = re.compile(r"\s+(?:as\s+a\s+decimal|in\s+decimals?|as\s+a\s+number)$", _F)
_EQUALS_WHAT = re.compile(r"\s*=\s*\??\s*$")
_TRAILING_VERB = re.compile(r"^what\s+(?P<expr>.+?)\s+(?:is|equals|makes|comes\s+to|would\s+be)$", _F)
_DIGIT = re.compile(r"\d")
_OPERATION = re.compile(r"[+\-*/%(]")
_PLEASE = re.compile(r"\s*\b(?:please|kindly|for me)\b", _F)

_WORD_OPERATORS = [
    (re.compile(rf"\b(?:the\s+)?(?:square\s+root|sqrt)\s+(?:of\s+)?({NUM})", _F), r"sqrt(\1)"),
    (re.compile(rf"\b(?:the\s+)?cube\s+root\s+(?:of\s+)?({NUM})", _F), r"root(\1, 3)"),
    (re.compile(r"\bmultipl(?:ied|y)\s+(?:by|with)\b", _F), "*"),
    (re.compile(r"\btimes\b", _F), "*"),
    (re.compile(r"\bdivided\s+by\b", _F), "/"),
    (re.compile(r"\bover\b", _F), "/"),
    (re.compile(r"\bplus\b|\badded\s+to\b", _F), "+"),
    (re.compile(r"\bminus\b|\btake\s+away\b|\bnegative\b(?=\s*\d)", _F), "-"),
    (re.compile(r"\bsquared\b", _F), "** 2"),
    (re.compile(r"\bcubed\b", _F), "** 3"),
    (re.compile(r"\b(?:to\s+the\s+power\s+of|raised\s+to(?:\s+the\s+power\s+of)?)\b", _F), "**"),
    (re.compile(r"\bto\s+the\s+(?=\d+(?:st|nd|rd|th)?\b)", _F), "**"),
    (re.compile(r"(?<=\d)(?:st|nd|rd|th)\s+power\b|(?<=\d)(?:st|nd|rd|th)\b(?=\s*(?:$|[-+*/)]))", _F), ""),
    (re.compile(r"\bmod(?:ulo)?\b", _F), "%"),
    (re.compile(r"\s*\b(?:per\s*cent|percent|pct)\b", _F), "%"),
]
# What the calculator reads that the character check below should not: numbers in scientific
# notation, function names, and "of" after a percent sign ("20% of 150").
_SCIENTIFIC = re.compile(r"\d+(?:\.\d+)?[eE][+-]?\d+")
_FUNCTION_CALL = re.compile(rf"\b(?:{'|'.join(FUNCTIONS)})(?=\s*\()", _F)
_SPACED_PERCENT = re.compile(r"(?<=\d) %(?=\s*(?:of\b|$|[)+\-*/,]))", _F)
_EXPRESSION_CHARS = re.compile(r"(?:[\d\s.,+\-*/%()]|RESULT)+")
_CALC_VERB = re.compile(
    r"^(?:calculate|compute|evaluate|work out|solve|what(?:'s|s| is)|how much is|how much|make|tell me)\s+"
    r"(?:the\s+(?:value|result)\s+of\s+)?(?P<expr>.+)$",
    _F,
)

# (expression, answer[, (a second expression on RESULT, its answer)]), or None: the frame does not
# apply after all.
Built = tuple[str, ...] | tuple[str, str, tuple[str, str]] | None


def _value(word: str = "value") -> str:
    return f"{{{{out.{word}}}}}"


def digits_said(word: str | None) -> str | None:
    """How many decimals "to one decimal" / "to 2 dp" asks for, as digits (None: not said)."""
    return {"one": "1", "two": "2", "three": "3"}.get((word or "").lower(), word)
