"""Word problems of prices: taxes in and out, one's price from a pack's, groups of so many,
counts at a price, changes by a percentage, conversions, things bought."""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon
from planner_svc.grammar.arithmetic.arith_words import _F, Built, _value
from planner_svc.grammar.arithmetic.frame_builders import _one_quantity, _spoken_list, asked_a_drop
from planner_svc.grammar.arithmetic.story_quantities import _HOW_MUCH, _singular
from planner_svc.grammar.arithmetic.story_words import (
    _EACH,
    _STORY_NUMBER,
    _STORY_WORDS,
    _TEMPERATURE_MENTION,
    _UNIT_MENTION,
    _Slots,
    cost_of,
)

_TAX = re.compile(r"\b(?:tax|gst|vat|sales\s+tax)\b", _F)
# The amount said with its tax in ("2360 including 18% GST") or without ("36 before tax"), and
# then what is asked: the other one.
_TAX_IN = re.compile(
    r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s+(?:including|incl|inclusive\s+of|with)\s+(?:(?:the\s+)?\d+(?:\.\d+)?\s*%\s+)?"
    r"(?:sales\s+)?(?:tax|gst|vat)\b.*\b(?:before|without|excluding|excl|pre-?tax)\b",
    _F,
)
_TAX_OUT = re.compile(
    r"(?:(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s+(?:before|without|excluding|excl|pre-?)\s*(?:sales\s+)?(?:tax|gst|vat)\b"
    r"|\b(?:before|without|excluding|excl|pre-?)\s*(?:sales\s+)?(?:tax|gst|vat)\s+(?:is|was|=|of)\s+(?P<n2>\d+(?:\.\d+)?)(?!\.?\d))"
    r".*\b(?:with|including|incl|after|total)\b",
    _F,
)
_OFF = re.compile(r"%\s*off\b|\boff\b", _F)
_AGAIN = re.compile(r"\b(?:extra|another|additional|further|then)\b", _F)


def _taxed_or_twice_off(text: str) -> Built:
    """ "2360 including 18% GST, the amount before GST" (2360 / (1 + 18 / 100)); "150, 20% off
    and then an extra 10% off the sale price" (each off the price before it); "84, add 8% tax and
    a 20% tip on the pre-tax amount" (both on 84). One amount; what is asked decides the reading,
    and a tip whose base is not said is not read."""
    numbers = list(_STORY_NUMBER.finditer(text))
    rates = [m.group("n") for m in numbers if m.group("pct")]
    amounts = [m.group("n") for m in numbers if not m.group("pct")]
    if len(amounts) != 1:
        return None
    n = amounts[0]
    plain = not (_STORY_WORDS["tip"].search(text) or _STORY_WORDS["discount"].search(text))
    if len(rates) == 1 and plain and (m := _TAX_IN.search(text)) and m.group("n") == n:
        p = rates[0]
        return f"{n} / (1 + {p} / 100)", f"{n} including {p}% is {_value()} before it"
    if len(rates) == 1 and plain and (m := _TAX_OUT.search(text)) and (m.group("n") or m.group("n2")) == n:
        p = rates[0]
        return f"{n} + {p}% of {n}", f"{n} with {p}% added is {_value()}"
    if len(rates) != 2:
        return None
    p1, p2 = rates
    if len(_OFF.findall(text)) == 2 and _AGAIN.search(text) and not _TAX.search(text):
        return (
            f"{n} * (1 - {p1} / 100) * (1 - {p2} / 100)",
            f"{n} with {p1}% off and then {p2}% off is {_value()}",
        )
    tip = _STORY_WORDS["tip"].search(text)
    if tip and _TAX.search(text) and re.search(r"\bpre-?tax\b|\bbefore\s+(?:the\s+)?tax\b", text, _F):
        return f"{n} + {p1}% of {n} + {p2}% of {n}", f"{n} with {p1}% and {p2}% on it is {_value()}"
    return None


# "a 12 pack of beer is $18, how much per can?": the price of a pack, for one of it.
_PACK = re.compile(r"(?<![\d.])(?P<m>\d+)[\s-]?(?:pack|packs|pk|box|case|carton|bag)\b", _F)
_PER_ONE = re.compile(
    r"\bhow\s+much\s+(?:is\s+(?:that\s+|it\s+)?)?(?:per|for\s+(?:one|each|a\s+single)|a|an|each)\s*(?P<w>[a-z]*)",
    _F,
)


# "paid 48 for 3 pizzas, how much each": a total for a count of things, and the price of one.
_TOTAL_FOR = re.compile(r"(?<![\d.])(?P<p>\d+(?:\.\d+)?)\s+for\s+(?P<k>\d+)\s+(?P<w>[a-z]+)\b(?!\s+each)", _F)
_ONE_OF_THEM = re.compile(
    r"\bhow\s+much\s+(?:(?:is|was|are|were)\s+(?:that\s+|it\s+)?)?(?:each|per\s+[a-z]+|a\s+[a-z]+)(?:\s+one)?\b",
    _F,
)


def _price_of_one(slots: _Slots) -> Built:
    told, asked = _TOTAL_FOR.search(slots.text), _ONE_OF_THEM.search(slots.text)
    if told is None or asked is None or slots.rates or slots.heads or len(slots.numbers) != 2:
        return None
    if "." in told.group("k") or re.search(r"\b(?:people|persons?|friends|us|of\s+us)\b", slots.text, _F):
        return None  # "48 for 3 people" is a share (_share)
    p, k = told.group("p"), told.group("k")
    return f"{p} / {k}", f"{p} for {k} is {_value()} each"


# "24 water bottles cost 6.96", "2.4kg of chicken cost 15.60", "3 notebooks cost 7.35": a count
# (or a weight) of things, and what they cost together
_COUNT_COST = re.compile(
    r"(?<![\d.])(?P<k>\d+(?:\.\d+)?)\s*(?P<w>[a-z]+(?:\s+(?:of\s+)?[a-z]+){0,2}?)\s+"
    r"(?:cost|costs|costed|came\s+to|come\s+to|were|are|is|was|for)\s+[$\u00a3\u20ac]?(?P<p>\d+(?:\.\d+)?)(?!\d|\.\d)",
    _F,
)
# ... asked per one ("how much per bottle", "what's the price per kg", "how much each") or for
# another count ("how much would 8 cost?")
_ONE_ASKED = re.compile(
    r"\b(?:how\s+much|what(?:'s|\s+is)\s+(?:the\s+)?(?:price|cost))\s+(?:is\s+(?:that\s+|it\s+)?)?"
    r"(?:per|a|an|each|for\s+(?:one|each|a|an))\b(?:\s+(?P<w>[a-z]+))?",
    _F,
)
_MORE_ASKED = re.compile(
    r"\bhow\s+much\s+(?:would|will|do|does|for)\s+(?P<m>\d+(?:\.\d+)?)(?:\s+[a-z]+)?(?:\s+(?:cost|be))?\s*[?.!]*$",
    _F,
)
_UNIT_WORDS = {"kg": "kg", "kgs": "kg", "kilo": "kg", "kilos": "kg", "lb": "lb", "lbs": "lb", "g": "g",
               "l": "l", "litre": "l", "litres": "l", "liter": "l", "liters": "l"}  # fmt: skip


def _cost_of_counted(slots: _Slots) -> Built:
    told = _COUNT_COST.search(slots.text)
    if slots.rates or slots.heads or len(slots.numbers) not in (2, 3) or told is None:
        return None
    k, p = told.group("k"), told.group("p")
    things = {_singular(w) for w in told.group("w").lower().split()} | {
        _UNIT_WORDS.get(w, w) for w in told.group("w").lower().split()
    }
    if len(slots.numbers) == 3:
        more = _MORE_ASKED.search(slots.text)
        if more is None or "." in k:
            return None
        m = more.group("m")
        return f"{p} / {k} * {m}", f"At {p} for {k}, {m} cost {_value()}"
    one = _ONE_ASKED.search(slots.text)
    asked = (one.group("w") or "").lower() if one else ""
    if one is None or (
        asked
        and asked not in ("one", "piece", "item")
        and not {_singular(asked), _UNIT_WORDS.get(asked, asked)} & things
    ):
        return None  # ("4 tickets cost 100, how much per person": another thing than those counted)
    return f"{p} / {k}", f"{p} for {k} is {_value()} each"


def _pack_price(slots: _Slots) -> Built:
    pack, asked = _PACK.search(slots.text), _PER_ONE.search(slots.text)
    if pack is None or asked is None or slots.rates or slots.heads or len(slots.numbers) != 2:
        return None
    price = [m.group("n") for m in slots.numbers if m.start() != pack.start("m")]
    if len(price) != 1 or "." in pack.group("m"):
        return None
    return f"{price[0]} / {pack.group('m')}", f"{price[0]} for {pack.group('m')} is {_value()} each"


# "3 boxes with 24 cans each", "2 crates of 24 bottles each", "3 pizzas cut in 8 slices each".
_GROUPS_OF_EACH = re.compile(
    r"(?<![\d.])(?P<n>\d+)\s+(?:[a-z]+\s+){1,2}(?:with|of|holding|containing|cut\s+(?:in|into)|having)\s+"
    r"(?P<m>\d+(?:\.\d+)?)\s+(?P<w>[a-z]+)(?:\s+(?:each|apiece|in\s+each)\b|(?<=\bof\s\d)|(?=\s+(?:shared|split|divided)\b))",
    _F,
)
_LOOSE = re.compile(r"(?<![\d.])(?P<k>\d+(?:\.\d+)?)\s+(?:loose|extra|more|spare|single|separate)\b", _F)
_PER_HEAD_ASKED = re.compile(
    r"\bhow\s+(?:many|much)\s+(?:[a-z]+\s+)?(?:for\s+)?each\b|"
    r"\b(?:per|for\s+each|each)\s+(?:person|head|kid|child|guest|student)\b|\beach\s+get\b",
    _F,
)


def _grouped(slots: _Slots) -> Built:
    """ "I have 3 boxes with 24 cans each and 7 loose cans, how many cans?" (3 * 24 + 7), and
    "14 kids, 3 pizzas cut in 8 slices each, how many slices per kid" (3 * 8 / 14)."""
    text = slots.text
    m = _GROUPS_OF_EACH.search(text)
    if m is None or slots.rates or not (_HOW_MUCH.search(text) or "total" in slots.said):
        return None
    n, size, word = m.group("n"), m.group("m"), m.group("w")
    used = {m.start("n"), m.start("m")}
    rest = [x for x in slots.numbers if x.start() not in used]
    if not rest:
        return f"{n} * {size}", f"{n} of {size} {word} is {_value()} {word}"
    if len(rest) != 1:
        return None
    k = rest[0]
    if (loose := _LOOSE.search(text)) is not None and loose.start() == k.start():
        return f"{n} * {size} + {k.group('n')}", f"{n} of {size} {word} and {k.group('n')} more is {_value()}"
    if k.group("people") and _PER_HEAD_ASKED.search(text):
        heads = k.group("n")
        return f"{n} * {size} / {heads}", f"{n} of {size} {word} for {heads} is {_value()} {word} each"
    return None


# "cupcakes are 2.25 each", "one ticket is 14.50", "goody bags are 4.75 each": a price of one.
_PRICE_OF_ONE = re.compile(
    r"(?<![\d.])(?P<p>\d+(?:\.\d+)?)\s+(?:each|apiece|a\s+piece|per\s+(?:item|piece|one|unit))\b"
    r"|\b(?:1|one|a|an)\s+[a-z]+\s+(?:is|costs?|was)\s+(?P<p2>\d+(?:\.\d+)?)(?!\.?\d)",
    _F,
)
_EXTRA_COST = re.compile(r"\bplus\s+(?P<x>\d+(?:\.\d+)?)\s+for\s+(?:the|a|an|my)\b", _F)


def _count_priced(slots: _Slots) -> Built:
    """ "Cupcakes are 2.25 each and I need 36, how much?" (36 * 2.25), "one ticket is 14.50, how
    much for 6?", "12 kids, goody bags are 4.75 each, plus 65 for the cake" (12 * 4.75 + 65):
    the price of one, how many, and what is added on, each number read once."""
    text, said = slots.text, slots.said
    prices = list(_PRICE_OF_ONE.finditer(text))
    # what it costs is asked ("how much", "total"), not how many of something ("how many buses")
    if len(prices) != 1 or slots.rates or not (re.search(r"\bhow\s+much\b", text, _F) or "total" in said):
        return None
    if said & {"split", "tip", "discount", "average", "up", "down"} - {"split" if "each" in said else ""}:
        return None
    price_at = prices[0].start("p" if prices[0].group("p") else "p2")
    price = prices[0].group("p") or prices[0].group("p2")
    extras = list(_EXTRA_COST.finditer(text))
    rest = [
        x
        for x in slots.numbers
        if x.start() != price_at and not any(e.start("x") == x.start() for e in extras)
    ]
    if prices[0].group("p2") and text[prices[0].start() :].lower().startswith("1"):
        rest = [x for x in rest if x.start() != prices[0].start()]  # "1 ticket is 14.50": the one is no count
    if len(rest) != 1 or _EACH_SHARE.search(text):
        return None
    count = rest[0].group("n")
    added = "".join(f" + {e.group('x')}" for e in extras)
    plus = "".join(f", plus {e.group('x')}" for e in extras)
    return f"{count} * {price}{added}", f"{count} at {price} each{plus}, is {_value()}"


def _changed(slots: _Slots) -> Built:
    """ "went from 1500 to 1620, by what percentage", "42 out of 48, what percent"."""
    text, said, numbers, rates = (slots.text, slots.said, slots.numbers, slots.rates)
    if "percent" not in said or rates or len(numbers) != 2:
        return None
    if "out_of" in said:
        m = _STORY_WORDS["out_of"].search(text)
        assert m is not None
        return (
            f"{m.group('a')} / {m.group('b')} * 100",
            f"{m.group('a')} out of {m.group('b')} is {_value()}%",
        )
    if "discount" in said and len(slots.amounts) == 2:  # "was 600, now 450 in the sale: what % off"
        a, b = slots.amounts
        return f"({a} - {b}) / {a} * 100", f"From {a} to {b} is {_value()}% off"
    for key in ("change", "was_now"):
        if key in said:
            m = _STORY_WORDS[key].search(text)
            assert m is not None
            a, b = m.group("a"), m.group("b")
            if asked_a_drop(text, a, b):
                # "dropped from 240 to 198, what's the percent drop": how much it dropped, 17.5
                return f"({a} - {b}) / {a} * 100", f"From {a} to {b} is a drop of {_value()}%"
            return f"({b} - {a}) / {a} * 100", f"From {a} to {b} is a change of {_value()}%"
    if len(slots.amounts) == 2 and said & {"up", "down"}:  # "bought at 25, at 31 now: percent gain"
        a, b = slots.amounts
        # the two in the order told, when that order goes the way the words say ("lost 6kg from
        # 80kg", "sell at 2.50, markup over the 0.75 cost": which is the base is not that order)
        rising = float(b) > float(a)
        if said & {"up", "down"} == {"up" if rising else "down"}:
            if asked_a_drop(text, a, b):  # "from 80kg down to 74kg, what percent did I lose": 7.5
                return f"({a} - {b}) / {a} * 100", f"From {a} to {b} is a drop of {_value()}%"
            return f"({b} - {a}) / {a} * 100", f"From {a} to {b} is a change of {_value()}%"
    return None


def _converted(slots: _Slots) -> Built:
    """ "I weigh 150 pounds, what is that in kilograms", "the oven says 180 C, how much is this in
    Fahrenheit", "I am 5 foot 10, how tall is that in cm": one quantity, and one other unit."""
    text, rates, heads, amounts = (slots.text, slots.rates, slots.heads, slots.amounts)
    if (
        rates
        or heads
        or not amounts
        or "percent" in slots.said  # "45 minutes is what percent of an hour" is no conversion
        or "area" in slots.said
        or re.search(r"\d\s*[a-z]*\s+(?:by|x)\s+\d", text, _F)
    ):
        return None  # "4.2m by 3.5m" is an area, not a length
    degrees = list(_TEMPERATURE_MENTION.finditer(text))
    if len(degrees) == 2 and len(amounts) == 1:
        (given, wanted) = degrees if degrees[0].group("n") else degrees[::-1]
        if given.group("n") and not wanted.group("n"):
            source = _scale(given.group("t"))
            target = _scale(wanted.group("t"))
            if source and target and source != target:
                n = given.group("n")
                expr = f"({n} - 32) * 5 / 9" if source == "F" else f"{n} * 9 / 5 + 32"
                return expr, f"{n} °{source} is {_value()} °{target}"
    units = list(_UNIT_MENTION.finditer(text))
    given = [u for u in units if u.group("n")]
    wanted = [u for u in units if not u.group("n")]
    if len(wanted) != 1 or not _ASKED_IN.search(text[: wanted[0].start()]):
        return None  # "practice piano 210 min this week": a week is when, not a unit asked for
    target = wanted[0].group("u").lower()
    parts = [(u.group("n"), u.group("u").lower()) for u in given]
    # "5 foot 10": feet and then a bare number are inches.
    if (
        len(parts) == 1
        and parts[0][1] in ("foot", "feet", "ft")
        and len(amounts) == 2
        and amounts[0] == parts[0][0]
    ):
        parts.append((amounts[1], "inches"))
    if not parts or len(parts) > 2 or len(parts) != len(amounts):
        return None
    kinds = {lexicon.UNITS[u][0] for _, u in parts} | {lexicon.UNITS[target][0]}
    if len(kinds) != 1 or any(u == target for _, u in parts) or not _one_quantity(parts):
        return None
    size = lexicon.UNITS[target][1]
    total = " + ".join(f"{n} * {lexicon.UNITS[u][1]}" if lexicon.UNITS[u][1] != "1" else n for n, u in parts)
    expr = f"({total}) / {size}" if size != "1" else total
    return expr, f"{' '.join(f'{n} {u}' for n, u in parts)} is {_value()} {target}"


# The words right before the unit a quantity is asked in: "in", "into", "to", "as", "in terms
# of", "how many" (a unit after "this", "a" or "per" says when or how often).
_ASKED_IN = re.compile(r"\b(?:in|into|to|as|in\s+terms\s+of|how\s+many|number\s+of)\s+$", _F)


def _scale(word: str) -> str:
    word = " ".join(word.lower().replace("°", " ").split()).removeprefix("degrees ")
    return lexicon.TEMPERATURES.get(word, "")


_COUNT_OF_SIZE = re.compile(
    r"(?:\b\d+(?:\.\d+)?|\bone)\s+(?:[a-z]+\s+){0,2}(?:of|at|@|x)\s+\d|\b\d+(?:\.\d+)?\s*[x\u00d7*]\s*\d", _F
)


_PLUS_AMOUNT = re.compile(
    r"\b(?:plus|\+)\s+(?:an?\s+(?:extra\s+)?|another\s+)?[$\u00a3\u20ac]?(?P<n>\d+(?:\.\d+)?)(?![\d.])"
    r"(?=\s+(?:in|for|of)\s+(?:the\s+)?(?:fees?|delivery|postage|shipping|service|booking|tax|parking|tips?)\b"
    # "plus a 5 dollar delivery fee"
    r"|\s+(?:(?:dollars?|pounds?|euros?|bucks?|quid)\s+)?(?:(?:delivery|service|booking|cleaning|shipping|postage"
    r"|parking|admin|card)\s+)?(?:fee|charge)s?\b"
    r"|\s*(?:[,.?!]|$))",
    _F,
)


# after an amount added: it is added for each one counted ("plus a 2.75 booking fee on each")
_ON_EACH = re.compile(
    r"(?:\s+[a-z]+){0,3}?\s+(?:on\s+each|for\s+each|each|apiece|per\s+(?:ticket|person|head|item|one|unit)|a\s+head"
    r"|on\s+every\s+one|on\s+top\s+of\s+each)\b",
    _F,
)


_TIMES_SIGN = re.compile(r"\d\s*(?:[a-z]{1,2}\s*)?[x\u00d7*]\s*\d", re.IGNORECASE)


def _bought(slots: _Slots) -> Built:
    """ "3 notebooks at $2.75 each and 2 pens at $1.20 each", "milk 3.49, bread 2.99 ... the total"."""
    text, said, rates, heads, amounts = (slots.text, slots.said, slots.rates, slots.heads, slots.amounts)
    if rates or _TIMES_SIGN.search(text):
        return None  # ("2 walls of 4m x 2.5m": sizes multiplied, never a total of them)
    if heads:  # "3 pizzas at 18 each split between 4 friends, how much does each pay": the cost, shared
        if (
            len(heads) != 1
            or not _EACH_SHARE.search(text)
            or not re.search(r"\b(?:split|shared?|divided)\b", text, _F)
        ):
            return None
        shared = _bought(slots._replace(heads=[]))
        if shared is None:
            return None
        return f"({shared[0]}) / {heads[0]}", f"Shared {heads[0]} ways, that is {_value()} each"
    pairs = list(_EACH.finditer(text))
    if not said & {"each", "total"} and not (
        # "how much is 3 lattes at 4.75": asked what it costs, at a price with its cents
        _HOW_MUCH_IS.search(text) and pairs and all(m.group("k") and "." in m.group("p") for m in pairs)
    ):
        pairs = []  # "a table for two at 7" is no price
    # Each pair uses its count and its price (story_words.cost_of).
    # "... plus 12 in fees", "..., plus 6 for delivery": an amount added beside the priced ones
    plus = list(_PLUS_AMOUNT.finditer(text)) if pairs else []
    extras = [m.group("n") for m in plus]
    if each := [m for m in plus if _ON_EACH.match(text, m.end())]:
        # "5 tickets at 42.50 plus a 2.75 booking fee on each": the fee is on every one counted
        if len(pairs) != 1 or len(plus) != 1 or not pairs[0].group("k") or len(amounts) != 3:
            return None
        k, fee = pairs[0].group("k"), each[0].group("n")
        return (
            f"{k} * ({pairs[0].group('p')} + {fee})",
            f"{k} at {pairs[0].group('p')} plus {fee} each is {_value()}",
        )
    if pairs and sum(2 if m.group("k") else 1 for m in pairs) + len(extras) == len(amounts):
        expr = " + ".join([*map(cost_of, pairs), *extras])
        return expr, f"That comes to {_value()}"
    if (
        "total" in said
        and len(amounts) >= 2
        and not said & {"split", "up", "down", "discount", "tip", "average"}
        # "3 shifts of 12.5 hours", "5 sets of 12 reps at 60kg": counts of sizes, multiplied, never added
        and not _COUNT_OF_SIZE.search(text)
        # "22 an hour, worked 7.5 hours and 6 hours": a rate is never added to what it is paid for
        and not _A_RATE.search(text)
    ):
        return " + ".join(amounts), f"The total of {_spoken_list(amounts)} is {_value()}"
    return None


_HOW_MUCH_IS = re.compile(r"^(?:so\s+)?how\s+much\s+(?:is|are|would\s+be|will\s+be|for)\b", _F)
_A_RATE = re.compile(
    r"\d\s*(?:an?|per|/)\s*(?:hour|hr|day|night|week|month|year|person|head|kg|km|mile|litre|liter|gallon)s?\b",
    _F,
)


_EACH_SHARE = re.compile(
    r"\bhow\s+much\s+(?:does\s+|do\s+)?(?:each|every)\b|\beach\s+(?:one'?s?\s+|person'?s?\s+)?(?:pays?|owes?|gets?|share)\b"
    r"|\bper\s+person\b",
    _F,
)
