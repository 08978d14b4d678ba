"""A bill with something on top, shared: "bill is 150 + 10% tip, split between 6 of us", "4 of us
rented a cabin, 920 plus an 80 cleaning fee, split evenly", "5 of us, pizza came to 67.50 plus 10
delivery, how much each". One amount, then either amounts added to it or one percentage on it
(never both: whether the percentage is on the extras too is not said), and one head count."""

from __future__ import annotations

import re

from planner_svc.grammar.arithmetic.arith_words import _F, Built, _value
from planner_svc.grammar.arithmetic.story_words import _Slots

# "plus £12 for the taxi", "plus an 80 cleaning fee", "+ 10 delivery": an amount on top
_PLUS_FLAT = re.compile(
    r"(?:\bplus|\+)\s+(?:an?\s+|another\s+)?[$\u00a3\u20ac]?(?P<n>\d+(?:\.\d+)?)(?![\d.]|\s*(?:%|percent|per\s+cent))",
    _F,
)
# "+ 10% tip", "plus 10% service", "with a 15% tip": a percentage of the bill on top
_PLUS_RATE = re.compile(
    r"(?:\bplus|\+|\bwith|\badd(?:ing)?)\s+(?:an?\s+)?(?P<p>\d+(?:\.\d+)?)\s*(?:%|percent|per\s+cent)\s*"
    r"(?:tip|service(?:\s+charge)?|gratuity)\b",
    _F,
)
# "table of 6", "there's 5 of us": who shares it, said without a word for people
_TABLE_OF = re.compile(r"\btable\s+(?:of|for)\s+(?P<k>\d+)\b", _F)
# what is asked: each one's part
_EACH_ASKED = re.compile(
    r"\b(?:how\s+much|what)\b[^.?!]*\beach\b|\bper\s+(?:person|head)\b|\bsplit\s+(?:it\s+)?(?:evenly|equally)\b"
    r"|\beach\s+(?:pay|owe)s?\b|\bhow\s+much\s+(?:does\s+)?every(?:one|body)\b",
    _F,
)


def _shared_with_extras(slots: _Slots) -> Built:
    text = slots.text
    heads = list(slots.heads)
    amounts = list(slots.amounts)
    if not heads and (table := _TABLE_OF.search(text)) and table.group("k") in amounts:
        heads = [table.group("k")]
        amounts.remove(table.group("k"))
    flats = [m.group("n") for m in _PLUS_FLAT.finditer(text)]
    rates = [m.group("p") for m in _PLUS_RATE.finditer(text)]
    if len(heads) != 1 or not _EACH_ASKED.search(text) or not (flats or rates) or (flats and rates):
        return None
    if rates != slots.rates or len(rates) > 1 or len(amounts) != 1 + len(flats):
        return None  # every number is the bill, a head count or what is on top of it
    base = [a for a in amounts if a not in flats]
    if len(base) != 1 or any(a not in amounts for a in flats):
        return None
    n, k = base[0], heads[0]
    if rates:
        p = rates[0]
        return f"({n} + {p}% of {n}) / {k}", f"{n} with {p}% on top, shared {k} ways, is {_value()} each"
    total = " + ".join([n, *flats])
    return f"({total}) / {k}", f"{total}, shared {k} ways, is {_value()} each"
