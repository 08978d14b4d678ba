"""Why a prompt was refused: what was understood, what was not, and what the rule planner
can do (CAPABILITIES), in one bounded message."""

from __future__ import annotations

import re
from typing import Any

from planner_svc.grammar import lexicon
from planner_svc.grammar.intent import Intent
from planner_svc.planner import PlanningFailed
from planner_svc.stages.common import _F, MAX_CLAUSE_PIECES, MAX_ECHOED, _cannot_plan, _quote
from planner_svc.stages.polite import _clean

CAPABILITIES = (
    'I can do arithmetic ("calculate (10 + 5) * 2", "what\'s 20% of 150", "increase 80 by 15%", '
    '"a 20% tip on $45", "split $120 between 4 people", "cube root of 27", "how many minutes in 3.5 '
    'hours") and todos ("add a todo to buy milk", "add milk, eggs and bread to my list", "what do I still '
    'have to do", "how many todos do I have", "cross off buy milk", "remove the dentist todo", "clear my '
    'list"), any catalog tool as \'use TOOL with {"arg": ...}\', joined by "and", "then" or ", then", or in '
    "sentences."
)


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


# A piece that only sets a condition ("if I finish the report", "once the parcel arrives"); not a
# question that starts with the same word ("when did I add call mom").
# ("should" opens a condition only in its inverted form, "should it rain": alone, a question.)
_A_CONDITION = re.compile(
    rf"^{lexicon.alternation([c for c in lexicon.CONDITIONS if c != 'should'])}\b"
    r"(?!\s+(?:did|do|does|is|are|was|were|will|can|could|should|would|has|have)\b)",
    _F,
)


def _unplannable(prompt: str, understood: list[Intent], unknown: list[str]) -> PlanningFailed:
    not_understood = [u for u in unknown if u] or [prompt.strip()]
    unknown_text = _listing([_quote(u) for u in not_understood], ", ")
    parts = [f"could not plan the prompt: no rule understands {unknown_text}"]
    if conditions := [u for u in not_understood if _A_CONDITION.match(u)]:
        parts.append(
            f"{_listing([_quote(c) for c in conditions], ', ')} is a condition, and I only do what can be "
            "done now: ask again once it holds"
        )
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
