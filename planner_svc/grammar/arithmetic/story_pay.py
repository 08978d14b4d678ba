"""Word problems of pay, time and money: hourly pay, hours in a time asked, years between,
margins, a rounded amount, areas, interest, the price before a change, tips and splits."""

from __future__ import annotations

import re

from planner_svc.grammar.arithmetic.arith_words import _F, Built, _value
from planner_svc.grammar.arithmetic.frame_builders import _a, _tip_and_total
from planner_svc.grammar.arithmetic.story_prices import _EACH_SHARE
from planner_svc.grammar.arithmetic.story_quantities import _singular
from planner_svc.grammar.arithmetic.story_time import _AREA, _PER_UNIT, _RATE_WITH_WORDS
from planner_svc.grammar.arithmetic.story_words import _PEOPLE, _STORY_NUMBER, _STORY_WORDS, _Slots, _told

# How many of a unit a longer one holds, exactly: a month is no whole number of days or weeks,
# and 52 weeks are 364 days, so "a week ... for a year" is not read.
_CALENDAR = {
    "month": {"year": 12},
    "day": {"week": 7, "year": 365},
    "hour": {"day": 24, "week": 168},
    "minute": {"hour": 60},
    "second": {"minute": 60, "hour": 3600},
}


# "got paid 612 for 48 hours, what's that an hour": a pay for so many hours, asked by the hour
_PAID_FOR_HOURS = re.compile(
    r"\b(?:paid|earned|made|got|get|earn|make)\s+(?P<p>\d+(?:\.\d+)?)\s+(?:for|in)\s+(?P<h>\d+(?:\.\d+)?)\s+(?:hours?|hrs?)\b",
    _F,
)
_BY_THE_HOUR = re.compile(r"\b(?:an|per|each|a\s+single)\s+hour\b|\bhourly\b", _F)


def _hourly(slots: _Slots) -> Built:
    told, asked = _PAID_FOR_HOURS.search(slots.text), _BY_THE_HOUR.search(slots.text)
    if told is None or asked is None or asked.start() < told.end() or len(slots.numbers) != 2:
        return None
    p, h = told.group("p"), told.group("h")
    return f"{p} / {h}", f"{p} for {h} hours is {_value()} an hour"


_SHORT_UNIT = {"hr": "hour", "min": "minute", "wk": "week", "mo": "month", "yr": "year", "sec": "second"}


def _paid(slots: _Slots) -> Built:
    """ "I make $18.50 an hour and worked 37.5 hours", "petrol is 1.45 a litre and I put in 42
    litres", "I save 35 a week, after 52 weeks": a price per unit times that many units."""
    text, rates, heads, amounts = (slots.text, slots.rates, slots.heads, slots.amounts)
    per = _PER_UNIT.search(text) or _RATE_WITH_WORDS.search(text)
    # "3 kids, lessons are 18 each per week, for 8 weeks": a price for each of them, per unit
    each = per is not None and len(heads) == 1 and bool(re.search(r"\beach\b", per.group(), _F))
    if per is None or rates or (heads and not each) or len(amounts) != 2:
        return None
    if each:
        found = _paid(slots._replace(heads=[]))
        if found is None or found[0].count("*") != 1:
            return None
        price, quantity = found[0].split(" * ")
        unit = per.group("u").lower().rstrip("s")
        return (
            f"{found[0]} * {heads[0]}",
            f"{heads[0]} at {price} each per {unit}, for {quantity} {unit}s, is {_value()}",
        )
    unit = per.group("u").lower().rstrip("s")
    unit = _SHORT_UNIT.get(unit, unit)  # "$22/hr" and "37.5 hours"
    said = "|".join([unit, *(k for k, v in _SHORT_UNIT.items() if v == unit)])
    count = re.search(rf"(?P<q>\d+(?:\.\d+)?)\s+(?:{said})s?\b", text[per.end() :], _F) or re.search(
        rf"(?P<q>\d+(?:\.\d+)?)\s+(?:{said})s?\b", text[: per.start()], _F
    )
    if count is None:
        # "150 a month ... after 2 years": a count in a longer unit the calendar converts exactly.
        for longer, factor in _CALENDAR.get(unit, {}).items():
            if (count := re.search(rf"(?P<q>\d+(?:\.\d+)?)\s+{longer}s?\b", text, _F)) is not None:
                price, quantity = per.group("price"), count.group("q")
                return _in_asked_time(
                    text,
                    per,
                    f"{price} * {quantity} * {factor}",
                    f"{price} per {unit} for {quantity} {longer}{'s' if quantity != '1' else ''}"
                    f" is {_value()}",
                )
        return None
    price, quantity = per.group("price"), count.group("q")
    return _in_asked_time(
        text, per, f"{price} * {quantity}", f"{quantity} at {price} per {unit} is {_value()}"
    )


_SECONDS = {
    "second": 1,
    "sec": 1,
    "minute": 60,
    "min": 60,
    "hour": 3600,
    "hr": 3600,
    "day": 86400,
    "week": 604800,
}
_TIME_WORD = re.compile(r"(?P<w>seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b", _F)


def _in_asked_time(text: str, per: re.Match[str], expr: str, answer: str) -> Built:
    """ "I run 40 minutes every day for 2 weeks, how many hours is that": the sum in minutes, in
    the time unit asked. A time asked of an amount that is no time is not read."""
    asked = re.search(r"\bhow\s+many\s+(?P<w>[a-z]+)\b", text[per.end() :], _F)
    asked_unit = _TIME_WORD.fullmatch(asked.group("w")) if asked else None
    if asked_unit is None:
        return expr, answer
    own = _TIME_WORD.match(text[per.end("price") :].lstrip())
    if own is None:
        return None
    a, b = _SECONDS[_singular(own.group("w")).lower()], _SECONDS[_singular(asked_unit.group("w")).lower()]
    if a == b:
        return expr, answer
    word = asked_unit.group("w").lower()
    return f"{expr} * {a} / {b}", answer.replace(f"is {_value()}", f"is {_value()} {word}")


# "married in 1962 ... how many years ago, if this is 2025", "born in 1990, how old am I in 2025".
_YEAR = re.compile(r"(?<![\d.])(?P<y>1[5-9]\d\d|20\d\d)(?![\d.])")
_YEARS_ASKED = re.compile(r"\bhow\s+(?:many\s+years|old|long\s+ago)\b", _F)


def _years_between(slots: _Slots) -> Built:
    """Two years and a question of how many years: the later minus the earlier."""
    years = [m.group("y") for m in _YEAR.finditer(slots.text)]
    if len(years) != 2 or len(slots.numbers) != 2 or slots.rates or not _YEARS_ASKED.search(slots.text):
        return None
    early, late = sorted(years, key=int)
    return f"{late} - {early}", f"From {early} to {late} is {_value()} years"


# "costs me 1.80 to make and I sell it for 4.50, what's my margin as a percentage of the price"
_COST = re.compile(
    r"\bcosts?\s+(?:me\s+|us\s+)?(?P<c>\d+(?:\.\d+)?)|\b(?:buy|bought)\s+(?:it\s+|them\s+)?(?:for|at)\s+(?P<c2>\d+(?:\.\d+)?)",
    _F,
)
_SELL = re.compile(
    r"\b(?:sell|sells|sold|selling)\s+(?:it\s+|them\s+|each\s+)?(?:for|at)\s+(?P<s>\d+(?:\.\d+)?)", _F
)


def _margin(slots: _Slots) -> Built:
    """A cost and a selling price: the margin (of the price) or the markup (on the cost), as a
    percentage; which one is asked by its word."""
    text = slots.text
    cost, sell = _COST.search(text), _SELL.search(text)
    if cost is None or sell is None or len(slots.numbers) != 2 or slots.rates or "percent" not in slots.said:
        return None
    c, s = cost.group("c") or cost.group("c2"), sell.group("s")
    if re.search(r"\bmargin\b", text, _F) and not re.search(r"\bmark-?up\b", text, _F):
        return f"({s} - {c}) / {s} * 100", f"Selling at {s} what costs {c} is a margin of {_value()}%"
    if re.search(r"\bmark-?up\b", text, _F) and not re.search(r"\bmargin\b", text, _F):
        return f"({s} - {c}) / {c} * 100", f"Selling at {s} what costs {c} is a markup of {_value()}%"
    return None


_ROUND_TO = re.compile(
    r"\bround(?:ed)?\s+(?:it|that|this|the\s+\w+)?\s*(?:off\s+)?to\s+(?:the\s+nearest\s+)?(?P<d>\d{1,2})\s+"
    r"(?:decimal\s+places?|decimals?|places?|dp)\b",
    _F,
)


def _rounded_story(slots: _Slots) -> Built:
    """ "my run was 17.456 km, round that to one decimal": the one other number, rounded."""
    m = _ROUND_TO.search(slots.text)
    if m is None or slots.rates or slots.heads:
        return None
    others = [a for a in slots.amounts if a != m.group("d")]
    if len(others) != 1 or len(slots.amounts) != 2:
        return None
    n, d = others[0], m.group("d")
    return f"round({n}, {d})", f"{n} rounded to {d} decimal place{'s' if d != '1' else ''} is {_value()}"


# "2 walls of 4m x 2.5m", "2 walls that are 3m x 2.5m": so many of a surface of a size.
_SURFACES = re.compile(
    rf"(?:(?<![\d.])(?P<k>\d+)\s+[a-z]+\s+(?:of|that\s+are|which\s+are|measuring|each)\s+)?{_AREA.pattern}",
    _F,
)


def _area(slots: _Slots) -> Built:
    """ "the room is 4.2m by 3.5m, how many square metres": length times width; "2 walls of 4m x
    2.5m and 2 walls of 3m x 2.5m, total area": each surface's, times how many, summed. Every
    number told must be a side or a count of them."""
    terms = list(_SURFACES.finditer(slots.text))
    if not terms or "area" not in slots.said or slots.rates:
        return None
    sides = {t.start(g) for t in terms for g in ("k", "a", "b") if t.group(g)}
    # (not the 2 of a unit, "m2", "ft2")
    text = slots.text
    if {m.start("n") for m in slots.numbers if not text[m.start("n") - 1 : m.start("n")].isalpha()} != sides:
        return None
    if len(terms) == 1 and not terms[0].group("k"):
        m = terms[0]
        return (
            f"{m.group('a')} * {m.group('b')}",
            f"{m.group('a')} by {m.group('b')} is {_value()} square units",
        )
    each = [f"{t.group('k') + ' * ' if t.group('k') else ''}{t.group('a')} * {t.group('b')}" for t in terms]
    told = " and ".join(f"{t.group('k') or 1} of {t.group('a')} by {t.group('b')}" for t in terms)
    return " + ".join(each), f"{told} is {_value()} square units"


def _interest(slots: _Slots) -> Built:
    """ "$1,000 at 4% interest compounded once a year, after 5 years"."""
    text, said, rates, amounts = (slots.text, slots.said, slots.rates, slots.amounts)
    years = _STORY_WORDS["years"].search(text)
    if not said & {"interest", "compound"} or years is None or len(rates) != 1 or len(amounts) != 2:
        return None
    n = next(a for a in amounts if a != years.group("y"))
    p, y = rates[0], years.group("y")
    if "compound" in said:
        return f"{n} * (1 + {p} / 100) ** {y}", f"{n} at {p}% compounded yearly for {y} years is {_value()}"
    return f"{n} * {p} / 100 * {y}", f"Simple interest on {n} at {p}% for {y} years is {_value()}"


_ME_AND = re.compile(
    rf"\b(?:me|i|myself)\s+(?:and|n|&|plus)\s+(?:my\s+)?(?P<k>\d+)\s+(?:other\s+)?{_PEOPLE}", _F
)
_WE_ARE = re.compile(r"\b(?:we\s+are|there\s+are|we're)\s+(?P<k>\d+)\b(?!\s*%)", _F)


_ORIGINAL_TOLD = re.compile(
    r"\b(?:original(?:ly)?|full\s+price|regular\s+price|used\s+to\s+(?:cost|be))(?:\s+price)?(?:\s+(?:is|was|of|at))?"
    r"\s*[:=]?\s*[$\u20ac\u00a3]?\d",
    _F,
)


def _before_change(text: str) -> Built:
    """The price before a change, from the price after it: "costs 30 after a 25% discount, what
    was the original price?" is 30 / (1 - 25/100), not 25% off 30. One amount, one rate, and
    which way the change went; anything else is not read here."""
    if not _STORY_WORDS["original"].search(text) or _ORIGINAL_TOLD.search(text):
        return None  # (the original price told: "35% off, original price 48, what now" asks the new one)
    _, said, numbers, rates, _, amounts = _told(text)
    if len(rates) != 1 or len(amounts) != 1 or len(numbers) != 2 or said & {"tip", "save", "split", "total"}:
        return None
    n, p = amounts[0], rates[0]
    if said & {"discount", "down"} and "up" not in said:
        return f"{n} / (1 - {p} / 100)", f"Before {p}% off, {n} was {_value()}"
    if said & {"up", "down", "discount"} == {"up"}:
        return f"{n} / (1 + {p} / 100)", f"Before a {p}% increase, {n} was {_value()}"
    return None


def _priced(text: str, said: set[str], n: str, rates: list[str], heads: list[str]) -> Built:
    """One amount, at most one rate and one head count: tips, shares, discounts, changes."""
    if "tip" in said and len(rates) == 1:
        p = rates[0]
        if heads and "split" in said:
            k = heads[0]
            return (
                f"({n} + {p}% of {n}) / {k}",
                f"{n} with {_a(p)} {p}% tip, split {k} ways, is {_value()} each",
            )
        if not heads:
            if "total" in said:
                return _tip_and_total(n, p)
            return f"{p}% of {n}", f"{_a(p).capitalize()} {p}% tip on {n} is {_value()}"
        return None
    dividing = bool(_EACH_SHARE.search(text))
    # "flights are 180 each for the two of us": a price for each of them, "for ... of us" is who
    # pays it, never a split of it
    priced_each = bool(
        re.search(
            rf"(?<![\d.]){re.escape(n)}\s+(?:[a-z]+\s+){{0,2}}(?:each|apiece|a\s+head|per\s+(?:person|head))\b",
            text,
            _F,
        )
    )
    if heads and not rates and "each" in said and ("total" in said or priced_each) and not dividing:
        k = heads[0]  # "tickets are 12 each for 4 people, what's the total"
        return f"{n} * {k}", f"{k} at {n} each is {_value()}"
    if heads and not rates and "split" in said and ("total" not in said or dividing):
        k = heads[0]
        if re.search(rf"\beach\s+[a-z]+\s+(?:[a-z]+\s+){{0,2}}{re.escape(n)}(?![\d.])", text, _F) or (
            re.search(r"\bhow\s+many\b", text, _F) and float(n) < float(k)
        ):
            return None  # "130 kids, each bus seats 40: how many buses": what each holds, not a share
        return f"{n} / {k}", f"{n} split {k} ways is {_value()} each"
    if len(rates) == 1 and not heads and "tip" not in said:
        p = rates[0]
        if "tax_amount" in said and "total" not in said:  # "how much tax on a $240 tv"
            return f"{p}% of {n}", f"{p}% tax on {n} is {_value()}"
        if "save" in said and ("discount" in said or "pay" not in said):
            return f"{p}% of {n}", f"{p}% off {n} saves {_value()}"
        if (
            "save" in said
            and re.search(
                rf"\bsav(?:e|es|ing|ed)\s+{re.escape(p)}\s*(?:%|percent|per\s+cent)\s+of\b", text, _F
            )
            and not re.search(r"\b(?:what|how\s+much)\b.*\b(?:pay|paid|cost)\b", text, _F)
        ):
            return f"{p}% of {n}", f"{p}% of {n} is {_value()}"  # "save 15% of my 2300 pay": put aside
        if "save" in said and "pay" in said:
            return f"{n} - {p}% of {n}", f"{n} with {p}% off is {_value()}"
        if "discount" in said and not said & {"up"}:
            return f"{n} - {p}% of {n}", f"{n} with {p}% off is {_value()}"
        if said & {"up", "down"} == {"up"}:
            return f"{n} + {p}% of {n}", f"{n} increased by {p}% is {_value()}"
        if said & {"up", "down"} == {"down"}:
            return f"{n} - {p}% of {n}", f"{n} decreased by {p}% is {_value()}"
        if not said & {"up", "down", "discount", "split", "total", "change", "was_now"}:
            return f"{p}% of {n}", f"{p}% of {n} is {_value()}"  # "12 percent goes into savings"
    return None


# "price is 96 including 20% VAT, how much of it is VAT?", "paid 57.50 including a 15% tip, what
# was the bill before the tip": an amount with a percentage on it already, asked for that part or
# for what it was on
_INCLUDING = re.compile(
    r"\b(?:including|incl\.?|inc\.?|with)\s+(?:an?\s+)?(?P<p>\d+(?:\.\d+)?)\s*(?:%|percent|per\s+cent)\s+"
    r"(?P<what>vat|gst|tax|sales\s+tax|tip|service(?:\s+charge)?)(?:\s+included)?\b",
    _F,
)
_PART_ASKED = re.compile(
    r"\bhow\s+much\s+(?:of\s+(?:it|that|this)\s+)?(?:is|was|went\s+on|goes\s+on)\s+(?:the\s+)?(?:vat|gst|tax|tip|service)\b"
    r"|\bwhat\s+(?:is|was)\s+the\s+(?:vat|gst|tax|tip|service)(?:\s+(?:part|amount|portion))?\b",
    _F,
)
_BEFORE_ASKED = re.compile(
    r"\b(?:before|without|excluding|excl\.?|ex|minus|less)\s+(?:the\s+)?(?:vat|gst|tax|tip|service)\b"
    r"|\b(?:the\s+)?(?:bill|price|cost|meal|net\s+price)\s+(?:itself|on\s+its\s+own|alone)\b"
    r"|\bwhat(?:'s|\s+is|\s+was)\s+(?:the\s+)?net(?:\s+(?:price|amount|figure|cost))?\s*[?.!]*$",
    _F,
)


def _included_part(text: str) -> Built:
    if not (inc := _INCLUDING.search(text)):
        return None
    amounts = [m.group("n") for m in _STORY_NUMBER.finditer(text) if not m.group("pct")]
    if len(amounts) != 1 or len(_STORY_NUMBER.findall(text)) != 2:
        return None
    n, p, what = amounts[0], inc.group("p"), inc.group("what").lower()
    if _PART_ASKED.search(text):
        return f"{n} * {p} / (100 + {p})", f"Of {n} with {p}% {what} in it, the {what} is {_value()}"
    if _BEFORE_ASKED.search(text):
        return f"{n} / (1 + {p} / 100)", f"{n} with {p}% {what} in it was {_value()} before the {what}"
    return None
