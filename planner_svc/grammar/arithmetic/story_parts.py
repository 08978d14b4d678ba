"""Word problems of parts and shares: by the dozen, a part as a percentage, a
share, an average, proportions and recipes scaled, so much per unit."""

from __future__ import annotations

import re

from agentrt.core import wordforms
from planner_svc.grammar.arithmetic.arith_words import _F, Built, _value
from planner_svc.grammar.arithmetic.frame_builders import _spoken_list
from planner_svc.grammar.arithmetic.story_left import _HAD
from planner_svc.grammar.arithmetic.story_quantities import _HOW_MUCH, _singular
from planner_svc.grammar.arithmetic.story_words import _STORY_NUMBER, _Slots

# "I had 20 tasks and finished 15": what was had (story_left._HAD), and what of it went.
_WENT = re.compile(
    r"\b(?:used|ate|eaten|gave\s+away|gave|sold|spent|lost|broke|drank|took|gave\s+out|handed\s+out)\s+"
    r"(?:(?:away|out)\s+)?(?P<m>\d+(?:\.\d+)?)(?!\.?\d)",
    _F,
)


# "eggs are 3.60 a dozen, how much for 30 eggs": a price by the dozen, for so many
# (normalize.numeric has made "a dozen" 12 by then: "3.60 12")
_DOZEN_PRICE = re.compile(
    r"\$?(?P<p>\d+(?:\.\d+)?)\s+(?P<dozen>(?:a|per|for\s+a|the)\s+dozen|12)\b(?:\s*,|\s*\.|\s+so)?\s*"
    r"how\s+much\s+(?:for|is|are|would|will|do)\s+(?:\w+\s+){0,2}?(?P<k>\d+(?:\.\d+)?)\s+[a-z]+\W*$",
    _F,
)


def _by_the_dozen(text: str) -> Built:
    if not (m := _DOZEN_PRICE.search(text)) or len(list(_STORY_NUMBER.finditer(text))) != (
        3 if m.group("dozen") == "12" else 2
    ):
        return None
    p, k = m.group("p"), m.group("k")
    return f"{p} / 12 * {k}", f"{k} at {p} a dozen is {_value()}"


# "I have 8 tasks and finished 3, what percent is done?": a part of what one had, as a percentage
# (of what is left, when the question says so).
_DID_PART = re.compile(
    r"\b(?:finished|done|did|completed|passed|failed|ate|used|sold|read|won|lost|answered|watched|painted"
    r"|cleaned|packed|visited|wrote|written|fixed|planted)\s+(?P<m>\d+(?:\.\d+)?)(?!\.?\d)",
    _F,
)
_PERCENT_ASKED = re.compile(
    r"\b(?:what\s+(?:percent|percentage|%|share|proportion)|how\s+many\s+percent)\b(?P<rest>.*)$",
    _F,
)
_LEFT_WORDS = re.compile(
    r"\b(?:left|remain(?:ing|s)?|to\s+go|still\s+(?:to\s+do|open)|not\s+done|undone)\b", _F
)


# What the question asks of the part: itself ("is that", "is done", "did I pass") or what is left.
_PART_ASKED = re.compile(
    r"(?:is|was|are|were)\s+(?:that|it|this|done|finished|complete|completed|gone|used)", _F
)
_REST_ASKED = re.compile(
    r"(?:is|was|are|were)\s+(?:left|remaining|still\s+left)|(?:remains|is\s+left\s+over)"
    # "what percent do I have now", "... have I got left": what one has after the part went
    r"|do\s+i\s+(?:still\s+)?have(?:\s+(?:now|left|still))?|have\s+i\s+(?:got\s+)?(?:left|now)",
    _F,
)
_DID_I = re.compile(r"(?:did|have)\s+i\s+(\w+)", _F)


def _forms(verb: str) -> set[str]:
    """A past of _DID_PART or _WENT with the forms a question asks it by ("passed": "did I pass";
    "ate": "did I eat"): wordforms.py's irregular ones ("lost" too, which it leaves out: no todo is
    reported done by it), else the base an -ed ending leaves."""
    verb = verb.lower()
    return {verb, *(wordforms.base_forms(verb) or ({"lose"} if verb == "lost" else ()))}


def _part_percent(text: str) -> Built:
    numbers = list(_STORY_NUMBER.finditer(text))
    had, did, asked = (
        _HAD.search(text),
        _DID_PART.search(text) or _WENT.search(text),
        _PERCENT_ASKED.search(text),
    )
    if (
        had is None
        or did is None
        or asked is None
        or len(numbers) != 2
        or any(m.group("pct") for m in numbers)
    ):
        return None
    if not had.end() <= did.start() < asked.start():
        return None  # the whole, then the part, then the question: in that order only
    n, m = had.group("n"), did.group("m")
    if float(m) > float(n) or float(n) == 0 or _LEFT_WORDS.search(text[had.end() : did.start()]):
        return None  # "I have 8 tasks left and finished 3": is 8 the whole, or what remains?
    rest = " ".join(asked.group("rest").split()).strip(" ?.!")
    if _REST_ASKED.fullmatch(rest):
        return f"({n} - {m}) / {n} * 100", f"{n} less {m} is {_value()}% of {n}"
    if _PART_ASKED.fullmatch(rest) or (
        (me := _DID_I.fullmatch(rest)) and _forms(me.group(1)) & _forms(did.group().split()[0])
    ):
        return f"{m} / {n} * 100", f"{m} is {_value()}% of {n}"
    return None  # "what percentage is pending", "what percent passed": which part is asked? unclear


# What an average of the numbers told is not: a speed (a distance over a time), or the score
# still needed for an average ("what do I need ... to average 85").
_NOT_AN_AVERAGE_OF = re.compile(
    r"\b(?:speed|pace|need|needs|to\s+average|per\s+(?:hour|minute|second))\b|\d(?:st|nd|rd|th)\b", _F
)


# "what percentage of my income goes on rent": the part (rent) over the whole (income), each
# the one number said beside its word.
_SHARE_ASKED = re.compile(
    r"\bwhat\s+(?:percent|percentage|%|share)\s+of\s+(?:my|our|the|his|her|their)\s+(?P<whole>[a-z]+)\s+"
    r"(?:goes|go|went|is|are|was|were)\s+(?:on|to|for|in|into)\s+(?:the\s+|my\s+|our\s+)?(?P<part>[a-z]+)\b",
    _F,
)
_EARNED = frozenset(
    ["make", "makes", "made", "earn", "earns", "earned", "income", "salary", "wage", "wages", "take"]
)
_WHOLE_IS_EARNED = frozenset(["income", "salary", "pay", "earnings", "wages", "paycheck", "paycheque"])


def _share(slots: _Slots) -> Built:
    if slots.rates or slots.heads or len(slots.amounts) != 2 or not (m := _SHARE_ASKED.search(slots.text)):
        return None
    whole_word, part_word = m.group("whole").lower(), m.group("part").lower()
    whole, part = [], []
    for number in slots.numbers[:2] if len(slots.numbers) == 2 else []:
        before = set(re.findall(r"[a-z]+", slots.text[: number.start()].lower())[-4:])
        if whole_word in before or (whole_word in _WHOLE_IS_EARNED and before & _EARNED):
            whole.append(number.group("n"))
        if part_word in before or _singular(part_word) in before:
            part.append(number.group("n"))
    if len(whole) != 1 or len(part) != 1 or whole == part:
        return None  # which number is which is not said beside them: not a guess
    return f"{part[0]} / {whole[0]} * 100", f"{part[0]} is {_value()}% of {whole[0]}"


_OVER_PERIODS = re.compile(
    r"\b(?:the\s+)?(?:last|past|over|for|in|across)\s+(?:the\s+)?(?:last\s+|past\s+)?(?P<k>\d+)\s+"
    r"(?:weeks|days|months|years|games|tests|exams|runs|matches|nights|shifts|sessions|quizzes|rounds)\b",
    _F,
)


_LISTED = re.compile(
    r"(?<![\d.])\d+(?:\.\d+)?(?:\s*(?:,\s*(?:and\s+|&\s+)?|and\s+|&\s+)\d+(?:\.\d+)?(?!\d|\.\d))+", _F
)


def _averaged(slots: _Slots) -> Built:
    said, rates, heads, amounts = (slots.said, slots.rates, slots.heads, slots.amounts)
    if "average" not in said or rates or heads or len(amounts) < 2 or _NOT_AN_AVERAGE_OF.search(slots.text):
        return None
    # "45, 60, 38, 52 and 70 ... the last 5 weeks": how many there are is no value to average
    if over := _OVER_PERIODS.search(slots.text):
        inside = [m for m in slots.numbers if over.start("k") <= m.start() < over.end("k")]
        counted = [m.group("n") for m in slots.numbers if m not in inside and m.group("n") in amounts]
        if inside and len(counted) == int(over.group("k")) == len(amounts) - 1:
            amounts = counted
        elif inside and len(counted) == 1 == len(amounts) - 1 and int(over.group("k")) > 1:
            # "spent 63 on lunches over 7 days, how much per day on average": one total, spread
            # over the periods
            return (
                f"{counted[0]} / {over.group('k')}",
                f"{counted[0]} over {over.group('k')} is {_value()} each",
            )
    # "scores 14, 17 and 12 out of 20": what they are out of is the scale, not a score
    if (scale := re.search(r"\bout\s+of\s+(\d+(?:\.\d+)?)(?!\.?\d)", slots.text, _F)) and scale.group(
        1
    ) in amounts:
        amounts = [
            a for k, a in enumerate(amounts) if k != len(amounts) - 1 - amounts[::-1].index(scale.group(1))
        ]
    # "my last four grocery runs were 62, 48, 75 and 56": the values are the ones listed together;
    # a number beside them is how many there are, or what it is is not said (a guess: not read)
    runs = [r for r in _LISTED.finditer(slots.text) if len(re.findall(r"\d+(?:\.\d+)?", r.group())) > 1]
    if len(runs) == 1:
        listed = re.findall(r"(?<![\d.])\d+(?:\.\d+)?", runs[0].group())
        others = [a for a in amounts if a not in listed] if len(listed) < len(amounts) else []
        if others and (len(others) > 1 or float(others[0]) != len(listed)):
            return None
        amounts = listed if others else amounts
    return (
        f"({' + '.join(amounts)}) / {len(amounts)}",
        f"The average of {_spoken_list(amounts)} is {_value()}",
    )


# "12 cookies", "4 people", "6 servings": a count of something the story scales by.
_COUNTED = re.compile(r"(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s+(?P<w>[a-z]{2,})\b", _F)


def _proportional(slots: _Slots) -> Built:
    """ "a recipe for 4 people needs 300g of flour, how much for 6 people?", "12 cookies need
    180g butter, how much for 30 cookies": an amount for A of something, asked for C of it, is
    amount * C / A. Exactly three numbers, two of them counting the same thing (the one told
    first is what the amount is for), and a question."""
    text = slots.text
    if slots.rates or len(slots.numbers) != 3 or not _HOW_MUCH.search(text):
        return None
    counted: dict[str, list[re.Match[str]]] = {}
    for m in _COUNTED.finditer(text):
        counted.setdefault(_singular(m.group("w")), []).append(m)
    pairs = [ms for ms in counted.values() if len(ms) == 2]
    if not pairs:
        return _recipe_scaled(slots)
    if len(pairs) != 1:
        return None
    (base, target), word = pairs[0], pairs[0][0].group("w").lower()
    others = [m.group("n") for m in slots.numbers if m.start() not in (base.start(), target.start())]
    if len(others) != 1 or not re.search(rf"\bfor\s+{re.escape(target.group('n'))}\b", text, _F):
        return None
    amount, a, c = others[0], base.group("n"), target.group("n")
    return f"{amount} * {c} / {a}", f"{amount} for {a} {word} is {_value()} for {c} {word}"


_RECIPE = re.compile(r"\brecipe\b", _F)
_SERVES = re.compile(
    r"\b(?:serves|feeds|makes|for)\s+(?P<a>\d+)(?:\s+(?:people|persons|servings|portions|guests))?(?!\s*(?:%|\.\d))",
    _F,
)
_SERVING = re.compile(
    r"\b(?:cooking\s+for|baking\s+for|feeding|got|have|expecting|making\s+it\s+for)\s+(?P<c>\d+)\b(?!\s*(?:%|\.\d))",
    _F,
)


def _recipe_scaled(slots: _Slots) -> Built:
    """ "recipe says 250g flour for 4 people, I'm cooking for 6. how much flour?", "the recipe
    serves 8 but we've got 12 coming, and it calls for 3 cups of flour": what the recipe is
    for, whom it is cooked for, and the one amount it names, scaled."""
    text = slots.text
    base, target = _SERVES.search(text), _SERVING.search(text)
    if not _RECIPE.search(text) or base is None or target is None or len(slots.numbers) != 3:
        return None
    used = {base.start("a"), target.start("c")}
    if len(used) != 2:
        return None
    others = [m.group("n") for m in slots.numbers if m.start() not in used]
    if len(others) != 1:
        return None
    amount, a, c = others[0], base.group("a"), target.group("c")
    return f"{amount} * {c} / {a}", f"{amount} for {a} is {_value()} for {c}"


# "42 miles per gallon", "12 km to the litre", "mpg": a rate of one unit per another.
_RATE_OF = re.compile(
    r"(?P<n>\d+(?:\.\d+)?)\s*(?P<u1>[a-z]+)\s+(?:per|an?|to\s+the|every)\s+(?P<u2>[a-z]+)\b|(?P<n2>\d+(?:\.\d+)?)\s*mpg\b",
    _F,
)
_HOW_MANY_PER = re.compile(
    r"\bhow\s+many\s+(?P<a>[a-z]+)\s+(?:per|an?|to\s+the|every|/)\s+(?P<b>[a-z]+)\b|\b(?P<mpg>mpg)\b", _F
)
_HOW_MANY = re.compile(r"\bhow\s+many\s+(?P<q>[a-z]+)\b", _F)


def _per_unit_asked(slots: _Slots) -> Built:
    """ "my car does 42 miles per gallon, how many gallons for a 315 mile trip?" (315 / 42), and
    "drove 320 miles on 10 gallons, what's my mpg?" (320 / 10): a rate and a quantity, two units."""
    text = slots.text
    if slots.rates or slots.heads or len(slots.numbers) != 2:
        return None
    told = {_singular(m.group("w")): (m.group("n"), m.group("w")) for m in _COUNTED.finditer(text)}
    if (asked := _HOW_MANY_PER.search(text)) is not None:
        a, b = ("mile", "gallon") if asked.group("mpg") else (_singular(asked["a"]), _singular(asked["b"]))
        if a in told and b in told and a != b:
            (n_a, word_a), (n_b, word_b) = told[a], told[b]
            return f"{n_a} / {n_b}", f"{n_a} {word_a} on {n_b} {word_b} is {_value()} {word_a} per {b}"
        return None
    rate, wanted = _RATE_OF.search(text), _HOW_MANY.search(text)
    if rate is None or wanted is None:
        return None
    n, u1, u2 = (
        (rate["n2"], "mile", "gallon")
        if rate["n2"]
        else (rate["n"], _singular(rate["u1"]), _singular(rate["u2"]))
    )
    if _singular(wanted["q"]) != u2 or u1 == u2:
        return None
    given = [m for m in _COUNTED.finditer(text) if m.start() != rate.start() and _singular(m["w"]) == u1]
    if len(given) != 1:
        return None
    m = given[0]["n"]
    return (
        f"{m} / {n}",
        f"{m} {given[0]['w']} at {n} {rate['u1'] or 'miles'} per {u2} is {_value()} {wanted['q']}",
    )
