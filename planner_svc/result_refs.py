"""How a follow-up's reference to an earlier result ("that", "the answer", "the first answer",
"halve it") resolves against the thread's discourse model (discourse.py): the latest turn's one
result, or the thread's first; refused, saying why, when that turn computed several, none was
computed, or the turn just before was a sum that was not done (it may be the one meant).
References to todos are followups.py's."""

from __future__ import annotations

import re

from agentrt.core.text import clip
from planner_svc.discourse import MAX_NAMED, Discourse, Result
from planner_svc.followups import nothing_earlier, unresolved

# Words of a sum: a turn not done that has them may have been the result a later "that" means.
_ARITHMETIC_SAID = re.compile(
    r"\d|%|\b(?:plus|minus|times|divided|percent|half|halve|double|triple|split|tip|total|sum|average|each"
    r"|share|per|tax|vat|discount|off|cost|costs|price|pay|paid|spent|left)\b",
    re.IGNORECASE,
)


def result(words: str, discourse: Discourse) -> Result:
    """The earlier result `words` ("that", "the answer", "the first answer") points at."""
    what = f"{words!r}"
    if _FIRST.search(words):
        if not discourse.first_result_turn:
            raise nothing_earlier(what, "a result", discourse, "computed anything")
        if len(discourse.first_results) > 1:
            raise unresolved(
                f"{what}: turn {discourse.first_result_turn} computed several results; say the number"
            )
        return discourse.first_results[0]
    if (
        discourse.not_done_before is not None
        and discourse.not_done_before[0] > discourse.result_turn
        and _ARITHMETIC_SAID.search(discourse.not_done_before[1])
    ):
        # "split that 4 ways" right after a sum that was not done: that sum, or the one before?
        turn, said = discourse.not_done_before
        latest = (
            f"the last result was {discourse.results[0]} (turn {discourse.result_turn})"
            if discourse.results
            else "no earlier turn computed anything"
        )
        raise unresolved(
            f"{what} may mean what turn {turn} ({clip(said, 80)!r}) asked for, and that turn was not done; "
            f"{latest}: say the number"
        )
    if not discourse.result_turn:
        raise nothing_earlier(what, "a result", discourse, "computed anything")
    if len(discourse.results) > 1:
        listed = ", ".join(str(r) for r in discourse.results[:MAX_NAMED])
        raise unresolved(
            f"{what} could be any of the {len(discourse.results)} results of turn {discourse.result_turn}: "
            f'{listed}; say which (e.g. "add 5 to 48")'
        )
    return discourse.results[0]


_FIRST = re.compile(r"\bfirst\b", re.IGNORECASE)
