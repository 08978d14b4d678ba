"""The text as the frames read it.

`tidy` is applied to the whole prompt once, before it is split into clauses (a JSON object's
text, "use TOOL with {...}", is kept byte for byte): typographic quotes and dashes become plain
ones, chat spellings and contractions become words ("whats" -> "what is", "u" -> "you"), and a
misspelt command word is corrected ("remnid" -> "remind", "lsit" -> "list"). Only a word that is
not English at all is corrected, and only to a command word one typing slip away (a letter
more, less, changed, or two letters swapped), and only when exactly one is: "stall" in "fix the
stall" is English and stays, whatever command word it is near.

`tidy` also drops thousands separators ("1,200" is 1200): a comma there must not split the
prompt into clauses.

`numeric` is applied to a clause before the arithmetic frames read it: numbers written as words
("one hundred and twenty", "forty-five", "two and a half", "a dozen", "a couple"), money ("$45.50",
"52 dollars") and thousands separators ("1,200") become plain numbers. The todo frames never see
it: "buy two apples" stays what the user wrote.
"""

from __future__ import annotations

import re
from functools import cache

from agentrt.core import wordforms
from planner_svc.grammar import lexicon

_PUNCTUATION = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
        "\u2013": "-", "\u2014": " - ", "\u2212": "-", "\u00a0": " ", "\u2026": "...",
        "\u00d7": "*", "\u00f7": "/", "\u2192": ":",
    }
)  # fmt: skip
# Pictographs and their modifiers (emoji), not letters, digits or the ticks above.
_EMOJI = re.compile(
    "[\U0001f000-\U0001faff\u2600-\u26ff\u2700-\u2712\u2715-\u27bf\u2b00-\u2bff\ufe0f\u200d\U0001f3fb-\U0001f3ff]+"
)
# Punctuation said aloud, as dictation writes it: "call the bank full stop", "what's on my list
# question mark", "buy milk comma and eggs".
_SPOKEN = {"full": ".", "period": ".", "comma": ",", "question": "?", "exclamation": "!", "new": "."}
_SPOKEN_PUNCTUATION = re.compile(
    r"\s+(full\s+stop|question\s+mark|exclamation\s+(?:mark|point)|new\s+(?:line|paragraph)|comma(?=\s)"
    r"|period(?=\s*$))\b",
    re.IGNORECASE,
)
_EMPHASIS = re.compile(r"[!?]{2,}")
_QUOTES = str.maketrans({k: v for k, v in _PUNCTUATION.items() if v in ("'", '"')})
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_TICK = re.compile(r"\s*[\u2713\u2714\u2611\u2705]\ufe0f?")
_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,]*\d)")
_MIN_TYPO_CHARS = 4  # shorter words are too often another word with one letter changed


# A quoted name: a quote mark that opens (at the start, or after a space or an opening bracket)
# and the same mark that closes (before the end, a space or punctuation), with anything between,
# apostrophes inside words included ("add 'don't forget the keys'").
_QUOTED = re.compile(r"""(?<![^\s(\[:])(?P<q>['"])(?=\S)(?P<text>.+?)(?<=\S)(?P=q)(?![^\s.,;:!?)\]])""")


def plain_quotes(text: str) -> str:
    """Typographic quotes as plain ones (what quoted_spans and the frames look for)."""
    return text.translate(_QUOTES)


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each quoted part of `text`, quotes included: what a person quoted is
    taken as written (no contraction, spelling or number is changed inside it)."""
    if "'" not in text and '"' not in text:  # most prompts quote nothing: no scan for it
        return []
    return [m.span() for m in _QUOTED.finditer(text)]


def substituted(pattern: re.Pattern[str], template: str, text: str) -> str:
    """pattern.sub(template, text) for a template with group references ("\\1 have"), its
    template read only where the pattern matches: Python 3.11 parses such a template (a lookup
    in re's cache) on every sub call, matched or not, and most of the grammar's substitutions
    match nothing in a given prompt (a search costs half such a sub)."""
    return pattern.sub(template, text) if pattern.search(text) else text


def tidy(text: str) -> str:
    """Plain punctuation, chat spellings and contractions as words, misspelt command words
    corrected; everything else as the user wrote it (case included)."""
    text = text.translate(_PUNCTUATION).replace("->", ":").replace("\u2192", ":")  # "new todo -> X"
    text = _TICK.sub(": done,", text)  # "dentist \u2713", "tidy garage \u2713 clean car \u2713"
    text = _EMOJI.sub(" ", text)  # "party's over!! \U0001f973": a feeling, not words
    text = _SPOKEN_PUNCTUATION.sub(lambda m: _SPOKEN[m.group(1).lower().split()[0]], text)  # dictated
    text = _EMPHASIS.sub(lambda m: m.group()[0], text)  # "what's left?!?!", "booked!!!"
    text = _THOUSANDS.sub(lambda m: m.group().replace(",", ""), text)
    text = _WITH.sub("with ", text)  # "total w/ 15% tip"
    text = _HW.sub("how", text)  # not "bio hw"
    text = _TEL.sub("tell", text)
    # Homophones dictation writes, where only the other word makes sense: "right down call the
    # bank", "add to things: ...", "60 mph" (as the words the rate readers know).
    text = substituted(_RIGHT_DOWN, r"\1write down", text)
    text = substituted(_I_HAS, r"\1 have", text)  # "I has finished"
    text = substituted(_AD_A_TASK, r"\1add", text)  # "ad walk the dog at 6"
    text = _ADD_TO_THINGS.sub("add two ", text)
    text = _TWO_THE_LIST.sub(" to ", text)  # "add buy milk 2 my list" ("add 2 to my list" keeps its 2)
    # "remind me 2 call the plumber" ("need 2 eggs" keeps its 2)
    text = substituted(_TWO_A_TASK, r"\1 to ", text)
    text = substituted(_PLEASE_SET_OFF, r"\1 ", text)  # "add, please, call the landlord"
    text = _MPH.sub(" miles per hour", text)
    text = _KPH.sub(" km per hour", text)
    if _shouted(text):  # "REMOVE BUY MILK AND ADD OAT MILK INSTED": read as if typed in lower case
        text = text.lower()
    text = _WORD.sub(_word, text)  # ("ad" is no word it corrects)
    # "ad milk to my list": after the words are corrected, so that "to my lsit" counts too
    return _AD_TO_THE_LIST.sub("add", text)


# tidy's patterns, compiled once: it runs on every prompt, twice (a pattern given to re.sub as
# text is looked up in re's cache on each call, and these lexicon alternations were rebuilt).
_I = re.IGNORECASE
_TODO_VERB = "|".join(sorted(lexicon.TODO_VERBS))
_WITH = re.compile(r"\bw/\s*")
_HW = re.compile(r"\bhw(?=\s+(?:many|much|long|far)\b)", _I)
_TEL = re.compile(r"\btel(?=\s+me\b)", _I)
_RIGHT_DOWN = re.compile(r"^(\s*)right\s+down\b", _I)
_I_HAS = re.compile(r"\b(i|we)\s+has\b", _I)
# "ad" first, before a task's verb, is "add"
_AD_A_TASK = re.compile(rf"^(\s*)ad(?=\s+(?:{_TODO_VERB})\s)", _I)
_ADD_TO_THINGS = re.compile(r"\badd\s+to\s+(?=(?:things|todos|tasks|items)\b)", _I)
# chat's "2" for "to", before the list only ...
_TWO_THE_LIST = re.compile(
    r"(?<=[a-z])\s+2\s+(?=(?:my|the|your|ur|ya)\s+(?:todo\s+|to-do\s+)?(?:list|todos)\b)", _I
)
# ... and before a task's verb
_TWO_A_TASK = re.compile(rf"\b(remind\s+me|need|have|got|want)\s+2\s+(?=(?:{_TODO_VERB})\s)", _I)
# the "please" set off by commas inside the request
_PLEASE_SET_OFF = re.compile(r"^(\s*[a-z]+)\s*,\s*(?:please|pls|plz)\s*,\s*", _I)
_MPH = re.compile(r"(?<=\d)\s*mph\b", _I)
_KPH = re.compile(r"(?<=\d)\s*(?:kph|km/h|kmh)\b", _I)
_AD_TO_THE_LIST = re.compile(r"\bad(?=\s+.+\s+(?:to|on)\s+(?:my|the)\s+(?:list|todos?|tasks?)\b)", _I)


def _shouted(text: str) -> bool:
    """In capitals, or Every Word Capitalised: then a capital says nothing of a name."""
    if text.islower():  # no capital at all (most prompts): neither, without counting
        return False
    letters = [c for c in text if c.isalpha()]
    words = _WORD.findall(text)
    titled = len(words) >= 4 and sum(w[0].isupper() for w in words) >= 0.9 * len(words)
    return (len(letters) >= 12 and sum(c.isupper() for c in letters) >= 0.8 * len(letters)) or titled


def _word(match: re.Match[str]) -> str:
    word = match.group()
    lower = word.lower()
    if lower in lexicon.CHAT:
        return lexicon.CHAT[lower]
    if lower.endswith("'s") and lower[:-2] not in lexicon.COMMAND_WORDS and (stem := correction(lower[:-2])):
        return lexicon.CHAT.get(f"{stem}'s", f"{stem}'s")  # "waht's"
    if (held := substituted(_HELD_KEY, r"\1\1", lower)) != lower and held in lexicon.COMMAND_WORDS:
        return held  # "addd": a key held down
    if lower in lexicon.COMMAND_WORDS or len(lower) < _MIN_TYPO_CHARS or "'" in lower:
        return word
    if word[0].isupper() and match.start() > 0 and match.string[: match.start()].rstrip()[-1:] not in ".!?":
        return word  # a capital inside a sentence is a name ("call Marko"), never a typo
    fixed = correction(lower)
    if fixed is None and _between_numbers(match):
        fixed = correction(lower, between_numbers=True)  # "45 tiems 12": times or items? times
    if fixed in lexicon.NAME_LIKE and sorted(fixed) != sorted(lower):
        return word  # "doner", "Miele", "Tims": only a swap of two letters reaches these words
    return fixed or word


_HELD_KEY = re.compile(r"(.)\1{2,}")  # a letter three times or more: "addd"
# Words that stand between two numbers: "45 tiems 12" is "times", never "items".
_BETWEEN_NUMBERS = frozenset(["times", "plus", "minus", "divided", "multiplied", "over", "less"])


def _between_numbers(match: re.Match[str]) -> bool:
    """Whether the word `match` found stands between two numbers ("45 tiems 12")."""
    return (
        match.string[: match.start()].rstrip()[-1:].isdigit()
        and match.string[match.end() :].lstrip()[:1].isdigit()
    )


def correction(word: str, *, between_numbers: bool = False) -> str | None:
    """The command word `word` is a misspelling of, if exactly one is a typing slip away and
    `word` is not English (between two numbers, only an operator's word is)."""
    found = set(_INDEX.get(word, ()))
    for variant in _deletes(word):
        found |= _INDEX.get(variant, set())
    candidates = {c for c in found if wordforms.one_slip(word, c)}
    if between_numbers and (operators := candidates & _BETWEEN_NUMBERS):
        candidates = operators
    for group in lexicon.SAME_MEANING:  # "completd": "completed" or "complete", the same either way
        if len(candidates) > 1 and candidates <= group:
            candidates = {max(candidates, key=len)}
    if len(word) == _MIN_TYPO_CHARS:  # four letters: two swapped ("lsit") or one left out ("splt")
        candidates = {c for c in candidates if sorted(c) == sorted(word) or len(c) == len(word) + 1}
    if len(candidates) != 1 or _english(word):
        return None
    return candidates.pop()


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _index() -> dict[str, set[str]]:
    """Each command word under itself and each of its one-letter deletions: a word one slip
    away from it shares one of these keys (SymSpell's trick, without its dictionary)."""
    index: dict[str, set[str]] = {}
    for word in lexicon.COMMAND_WORDS:
        if len(word) >= _MIN_TYPO_CHARS and word.isalpha():
            for key in {word, *_deletes(word)}:
                index.setdefault(key, set()).add(word)
    return index


_INDEX = _index()


@cache
def _words() -> frozenset[str]:
    # Loaded on the first word that could be a typo, not at start-up: most prompts have none.
    from spellchecker import SpellChecker  # noqa: PLC0415

    return frozenset(SpellChecker(distance=1).word_frequency.dictionary)


def _english(word: str) -> bool:
    return word in lexicon.MORE_ENGLISH or word in _words()


# --- numbers ----------------------------------------------------------------------------------

_CURRENCY_BEFORE = re.compile(r"[$€£]\s?(?=[\d.])|(?<=\s)(?:usd|eur|gbp)\s?(?=\d)", re.IGNORECASE)
_CURRENCY_AFTER = re.compile(
    rf"(?<=\d)\s?(?:[$€£]|{lexicon.alternation(lexicon.CURRENCY_WORDS)}\b)", re.IGNORECASE
)
_TOKEN = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)?|\s+|.", re.DOTALL)


# Words dictation writes for a number where only the number makes sense: "too hundred and
# fifty", "twelve times for" (at the end, after an operation), "divide ninety buy three".
_HOMOPHONES = [
    (re.compile(r"\btoo(?=\s+(?:hundred|thousand|million)\b)", re.IGNORECASE), "two"),
    (re.compile(r"\b(times|multiplied\s+by)\s+for(\s*[?.!]*)$", re.IGNORECASE), r"\1 four\2"),
    (re.compile(r"\b(divided?\s+\S+)\s+buy\s+", re.IGNORECASE), r"\1 by "),
]


def numeric(text: str) -> str:
    """`text` with numbers as digits, money as plain numbers and thousands separators gone."""
    text = _THOUSANDS.sub(lambda m: m.group().replace(",", ""), text)
    for pattern, spoken in _HOMOPHONES:  # dictated: "too hundred", "twelve times for"
        text = pattern.sub(spoken, text)
    tokens = _TOKEN.findall(text)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        parsed = None if _a_pronoun(tokens, i) else _number_at(tokens, i)
        if parsed is None:
            out.append(tokens[i])
            i += 1
            continue
        value, i = parsed
        out.append(_digits(value))
    return _CURRENCY_AFTER.sub("", _CURRENCY_BEFORE.sub("", "".join(out)))


_DETERMINERS = frozenset(
    ["each", "every", "which", "the", "this", "that", "any", "no", "some", "another", "other", "last", "next"]
)


def _a_pronoun(tokens: list[str], i: int) -> bool:
    """ "one" in "each one", "the one", "which one": a thing, not the number 1."""
    if tokens[i].lower() != "one":
        return False
    before = [t.lower() for t in tokens[max(0, i - 2) : i] if not t.isspace()]
    if bool(before) and before[-1] in _DETERMINERS:
        return True
    # "45 on one and 38 on the other": one of two things, the other named after it
    after = "".join(tokens[i + 1 : i + 12]).lower()
    return bool(before) and before[-1] in ("on", "for", "of", "in") and bool(_THE_OTHER_AFTER.match(after))


_THE_OTHER_AFTER = re.compile(r"\s+and\s+(?:\S+\s+){0,3}?(?:on|for|of|in)\s+the\s+other\b")


def _digits(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def _word_at(tokens: list[str], i: int) -> tuple[str, int]:
    """The next word from `i` (skipping one run of spaces or a hyphen), and the index after it."""
    j = i
    if j < len(tokens) and (tokens[j].isspace() or tokens[j] == "-"):
        j += 1
    if j < len(tokens) and (tokens[j].isalpha() or _is_number(tokens[j])):
        return tokens[j].lower(), j + 1
    return "", i


def _is_number(token: str) -> bool:
    return bool(token) and token[0] in "0123456789"  # not "²": isdigit() says it is one


def _number_at(tokens: list[str], i: int) -> tuple[float, int] | None:
    """A number spelt out from tokens[i] (or "3 dozen", "2 and a half"): its value and the index
    after it; None when tokens[i] starts none."""
    first = tokens[i].lower()
    if first in ("a", "an"):
        word, j = _word_at(tokens, i + 1)
        if word in ("couple", "pair"):
            after, k = _word_at(tokens, j)
            if after == "dozen":
                return 24.0, k
            of, k = _word_at(tokens, j)
            return 2.0, (k if of == "of" else j)
        if word == "dozen":
            return 12.0, j
        if word in lexicon.SCALES:
            return _spelt(tokens, i + 1, start=1.0)
        return None
    if first == "half":
        a, j = _word_at(tokens, i + 1)
        dozen, k = _word_at(tokens, j)
        if a in ("a", "an") and dozen == "dozen":
            return 6.0, k
        return (0.5, j) if a in ("a", "an") else None  # "half a mile"
    if _is_number(first):
        return _tail(tokens, i + 1, float(first), digits=first)
    if first in lexicon.SMALL_NUMBERS or first in lexicon.TENS:
        return _spelt(tokens, i)
    return None


def _spelt(tokens: list[str], i: int, start: float | None = None) -> tuple[float, int] | None:
    """Number words from tokens[i]: "one hundred and twenty five", "forty-five", "two point five"."""
    total, current, j = 0.0, 0.0, i
    if start is not None:
        current = start
    seen_any = start is not None
    last = ""
    while True:
        word, k = _word_at(tokens, j) if (j > i or start is not None) else (tokens[j].lower(), j + 1)
        if word in lexicon.SMALL_NUMBERS and (
            last in ("", "and", "-") or last in lexicon.TENS or last in lexicon.SCALES
        ):
            if last in lexicon.TENS and lexicon.SMALL_NUMBERS[word] >= 10:
                break
            current += lexicon.SMALL_NUMBERS[word]
        elif word in lexicon.TENS and last not in lexicon.TENS and last not in lexicon.SMALL_NUMBERS:
            current += lexicon.TENS[word]
        elif word in lexicon.SCALES and seen_any:
            scale = lexicon.SCALES[word]
            if scale == 100:
                current = (current or 1) * 100
            else:
                total += (current or 1) * scale
                current = 0
        elif word == "and" and last in lexicon.SCALES:
            following, _ = _word_at(tokens, k)
            if following not in lexicon.SMALL_NUMBERS and following not in lexicon.TENS:
                break
        else:
            break
        seen_any = True
        last, j = word, k
    if not seen_any or last == "and":
        return None
    return _tail(tokens, j, total + current, digits="")


def _tail(tokens: list[str], j: int, value: float, digits: str) -> tuple[float, int] | None:
    """What may follow a number: "point five", "and a half", "dozen"."""
    word, k = _word_at(tokens, j)
    if word == "point" and not digits:
        decimals = ""
        while True:
            digit, m = _word_at(tokens, k)
            if digit in lexicon.SMALL_NUMBERS and lexicon.SMALL_NUMBERS[digit] < 10:
                decimals += str(lexicon.SMALL_NUMBERS[digit])
                k = m
            else:
                break
        if decimals:
            return float(f"{int(value)}.{decimals}"), k
    if word == "and":
        a, m = _word_at(tokens, k)
        half, n = _word_at(tokens, m)
        if a == "a" and half == "half":
            scale, k2 = _word_at(tokens, n)
            if scale in lexicon.SCALES:  # "two and a half thousand"
                return (value + 0.5) * lexicon.SCALES[scale], k2
            return value + 0.5, n
    if word == "dozen":
        return value * 12, k
    if digits and word in lexicon.SCALES:  # "12 thousand", "2.5 million", "12 lakhs"
        return value * lexicon.SCALES[word], k
    if digits:
        return None if word != "dozen" else (value * 12, k)
    return value, j
