"""A sum asked again with one number changed, the rest left unsaid: "what's 15% of 240?", then
"and 20%?" / "what about 25 percent?" / "how about 30%": the thread's latest result computed
again with the new percentage in place of its one percentage. Refused when that result has no
percentage, or several (which one it replaces is not said); None when the message is no such
follow-up, or nothing was computed (the grammar reads it).

And the total a percentage was of, left unsaid: "what's a 20% tip on 84?", then "so what's the
total with the tip?": 84 and the tip, from the sum before (84 + 20% of 84).
"""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.amends import quoted, refuse
from planner_svc.discourse import Discourse
from planner_svc.grammar import arithmetic
from planner_svc.grammar.intent import Intent

_F = re.IGNORECASE
_AND_THIS_ONE = re.compile(
    r"^(?:(?:ok|okay|so|hmm+|right)[\s,]+)?(?:and|what\s+about|how\s+about|and\s+what\s+about|and\s+for|and\s+with"
    r"|what\s+if\s+(?:it\s+(?:was|were|is)|we\s+(?:do|did|say|said|use|used)|i\s+(?:do|did|say|said|use|used)))\s+"
    r"(?P<p>\d+(?:\.\d+)?)\s*(?:%|\s+percent|\s+per\s+cent)(?:\s+instead)?[\s?.!]*$",
    _F,
)
_PERCENT = re.compile(r"(?<![\d.])(?P<p>\d+(?:\.\d+)?)%")


_TOTAL_WITH = re.compile(
    r"^(?:(?:ok|okay|so|and|cool|great|right)[\s,]+)*(?:(?:what(?:'s|\s+is|\s+would\s+be)|how\s+much\s+is)\s+)?"
    r"(?:the\s+)?total\s+(?:with|including|incl|plus|after)\s+(?:the\s+)?(?P<what>tip|tax|vat|gst|service(?:\s+charge)?)"
    r"(?:\s+then)?[\s?.!]*$",
    _F,
)
_PART_OF = re.compile(r"^(?P<p>\d+(?:\.\d+)?)% of (?P<n>\d+(?:\.\d+)?)$")


def again(message: str, discourse: Discourse) -> list[Intent] | None:
    if (total := _TOTAL_WITH.match(message.strip())) and discourse.result_turn:
        return _total_with(message, total.group("what"), discourse)
    if not (m := _AND_THIS_ONE.match(message.strip())) or not discourse.result_turn:
        return None
    if discourse.not_done_before is not None and discourse.not_done_before[0] > discourse.result_turn:
        return None  # the turn before was not done: it may be the sum this follows (the grammar refuses)
    if len(discourse.results) != 1:
        raise refuse(
            f"{quoted(message)} follows turn {discourse.result_turn}, which computed several results"
        )
    result = discourse.results[0]
    found = list(_PERCENT.finditer(result.expression))
    if len(found) != 1:
        raise refuse(
            f"{quoted(message)} puts a percentage in place of one in {result}, and "
            f"{'it has none' if not found else 'it has several'}: say the sum again"
        )
    (at,) = found
    expression = f"{result.expression[: at.start()]}{m.group('p')}%{result.expression[at.end() :]}"
    made = arithmetic.parse(f"calculate {expression}")
    if made is None:
        raise refuse(f"{quoted(message)}: {expression!r} is no sum I can compute; say it again in full")
    why = f"{quoted(message)} asks turn {discourse.result_turn}'s sum again ({result}) with {m.group('p')}%"
    return [replace(made, clause=message, reasoning=why, answer=f"With {m.group('p')}%: {made.answer}")]


def _total_with(message: str, what: str, discourse: Discourse) -> list[Intent] | None:
    if discourse.not_done_before is not None and discourse.not_done_before[0] > discourse.result_turn:
        return None
    if len(discourse.results) != 1 or not (part := _PART_OF.match(discourse.results[0].expression)):
        return None  # not a percentage of an amount: the grammar reads it (or refuses)
    n, p = part.group("n"), part.group("p")
    made = arithmetic.parse(f"calculate {n} + {p}% of {n}")
    if made is None:
        return None
    why = f"{quoted(message)}: {n} and the {what} of turn {discourse.result_turn} ({discourse.results[0]})"
    return [replace(made, clause=message, reasoning=why, answer=f"{n} with the {what} is {{{{out.value}}}}")]
