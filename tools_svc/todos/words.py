"""A todo named by its words, each in some form ("took out the trash" is "take out the trash",
"groceries" is "grocery"), or with one slip of a long word: the last way to find the todo a
person named, after its whole text and a part of it (naming.py)."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy.engine import Connection

from agentrt.core import wordforms
from tools_svc.todos.spec import MAX_LISTED_MATCHES
from tools_svc.todos.statements import LATEST

# Words that say which todo without being part of its name ("the task of washing the car").
# Not "to": "my email to Sam" has a "to" that the todo "email Sam" has not, and is another
# thing (an email, not the task of writing one). "coffee with Sarah" is still "meet Sarah for
# coffee": the other small words may differ.
_FILLER_WORDS = frozenset(["the", "a", "an", "my", "our", "your", "of", "for", "on", "in", "at", "with",
                           "and", "one", "todo", "task", "item", "thing", "that", "this", "is", "are", "was",
                           "were", "been", "be", "has", "have", "had", "all", "already"])  # fmt: skip
# Irregular past forms people report a todo done with ("took out the trash" is "take out the trash").
_IRREGULAR = wordforms.IRREGULAR


def by_words(
    conn: Connection, owner: str, needle: str, *, slips: bool = False, strict: bool = False
) -> list[Any]:
    """The latest MAX_SCANNED todos (and at most MAX_LISTED_MATCHES + 1) that have every word of
    `needle` but its fillers, each word in some form: a third way to find the todo a person
    named, after its whole text and a part of it. Every word must be there, so "call" alone is
    no closer to "call mom" than to "call the bank" (`strict`: a particle too)."""
    # Not "'s"; but a digit, which tells "read chapter 3" from "read chapter 4".
    words = [
        w
        for w in re.findall(r"[^\W_]+", _one_word_verbs(needle))
        if w not in _FILLER_WORDS and (len(w) > 1 or w.isdigit())
    ]
    if not any(len(_SHORT_FORMS.get(w, w)) >= 3 and not w.isdigit() for w in words):
        return []  # "2 and 3", "we": nothing that names a todo
    wanted = [_forms(w) for w in words]
    rows = [
        (row, [_forms(w) for w in re.findall(r"[^\W_]+", _one_word_verbs(row[1].lower()))])
        for row in conn.execute(LATEST, {"caller": owner}).all()
    ]
    if slips:
        # Last: a long word typed with one slip ("the mechanc one": "call the mechanic"), each word
        # of the todo's long enough that one slip cannot make it another word of the list.
        slipped = [
            row
            for row, has in rows
            if all(
                any(forms & other for other in has)
                or (_MIN_SLIP_CHARS <= len(w) <= _MAX_SLIP_CHARS and any(_slipped(w, other) for other in has))
                for w, forms in zip(words, wanted, strict=True)
            )
        ]
        return sorted(slipped, key=lambda r: r[0])[: MAX_LISTED_MATCHES + 1]
    found = [row for row, has in rows if all(any(forms & other for other in has) for forms in wanted)]
    # None with every word: a particle may be what a todo leaves out ("hung the washing out" is
    # "hang the washing"), beside a word that names something ("50% off" needs its "off"); never
    # when a todo has it ("called mom back": "call mom back", not "call mom").
    if not found and not strict and any(w in _PARTICLES for w in words):
        kept = [forms for w, forms in zip(words, wanted, strict=True) if w not in _PARTICLES]
        if any(len(w) >= 3 and w not in _PARTICLES and not w.isdigit() for w in words):
            found = [row for row, has in rows if all(any(forms & other for other in has) for forms in kept)]
    # Several that have every word in some form stay a choice for the person, even when one has
    # them as said ("done with the ironing": "do the ironing" and "iron Tom's suit"; "ordered the
    # new glasses": "order new glasses" and "order new glass for the door"): people asked
    # disagreed, and refusing changes nothing.
    return sorted(found, key=lambda r: r[0])[: MAX_LISTED_MATCHES + 1]


def look_alikes(conn: Connection, owner: str, needle: str) -> list[Any]:
    """The latest todos whose words are every word of `needle` (but its fillers) as typed, or with
    one slip either way in a word of four letters or more ("pick up" and the todo "pck up kids"):
    looser than by_words' slips, so it only ever widens a choice, never picks a todo alone. A
    name written with a capital ("call Ann", "call Jon") is no slip of another ("Anna", "Joan")."""
    words = [w for w in re.findall(r"[^\W_]+", needle) if w not in _FILLER_WORDS]
    if not any(len(w) >= 3 and not w.isdigit() for w in words):
        return []
    found = []
    for row in conn.execute(LATEST, {"caller": owner}).all():
        written = re.findall(r"[^\W_]+", row[1])
        # (the first word may have its capital for starting the todo)
        has = [(o.lower(), at > 0 and o[0].isupper()) for at, o in enumerate(written)]
        if all(
            any(
                w == o
                or (
                    not name
                    and min(len(w), len(o)) >= 3
                    and max(len(w), len(o)) >= 4
                    and len(w) <= _MAX_SLIP_CHARS
                    and len(o) <= _MAX_SLIP_CHARS
                    and wordforms.one_slip(w, o)
                )
                for o, name in has
            )
            for w in words
        ):
            found.append(row)
    return sorted(found, key=lambda r: r[0])[: MAX_LISTED_MATCHES + 1]


# Words that open what is said after a todo's name about where, when, how long or what about
# ("picked up my prescription at boots", "spoke to mum for an hour", "emailed school re the trip").
_CIRCUMSTANCE = frozenset(["at", "in", "on", "for", "to", "from", "with", "re", "about", "by", "after",
                           "before", "during", "this", "today", "yesterday", "tonight", "last", "earlier",
                           "via", "while", "when", "so"])  # fmt: skip
MAX_CUTS = 3  # a name is looked up once per cut: bounded, whatever its length


def circumstance_cuts(needle: str) -> list[str]:
    """The leading parts of `needle` that end before a word opening a circumstance, longest first
    (at most MAX_CUTS), each with a word that can name a todo."""
    words = needle.split()
    cuts: list[str] = []
    for at in range(len(words) - 1, 0, -1):  # the last cut first; at most MAX_CUTS joined
        if words[at] in _CIRCUMSTANCE and any(len(w) >= 3 and w not in _FILLER_WORDS for w in words[:at]):
            cuts.append(" ".join(words[:at]))
            if len(cuts) == MAX_CUTS:
                break
    return cuts


def said_whole(text: str, needle: str) -> bool:
    """Whether every word of a todo's `text` (but its fillers) was said in `needle`, in some form:
    the words a cut left out then only add to the todo ("at boots"), never tell it from another."""
    said = [_forms(w) for w in re.findall(r"[^\W_]+", _one_word_verbs(needle))]
    has = [w for w in re.findall(r"[^\W_]+", _one_word_verbs(text.lower())) if w not in _FILLER_WORDS]
    return all(any(_forms(w) & forms for forms in said) for w in has)


_MIN_SLIP_CHARS = 5  # "cal" is one slip from "call" and from "car": too short to read a slip in
# A word longer than any word is no typo of one, and comparing two such words costs their length
# squared (a 1,000-character name against 200 todos of 999-character words).
_MAX_SLIP_CHARS = 30


def _slipped(typed: str, forms: frozenset[str]) -> bool:
    return any(_MIN_SLIP_CHARS <= len(f) <= _MAX_SLIP_CHARS and wordforms.one_slip(typed, f) for f in forms)


# The small word of a verb of two words, which a todo may leave out (by_words).
_PARTICLES = frozenset(["out", "up", "off", "away", "back", "down"])


# Verbs a todo and the person reporting it done say differently ("got the bread" is "buy bread").
_SAME_TASK = {"buy": "get", "bought": "get", "grab": "get", "phone": "call", "ring": "call", "rang": "call",
              "telephone": "call", "hoover": "vacuum", "renewal": "renew", "scrub": "clean",
              "mum": "mom", "mam": "mom", "mummy": "mommy", "granny": "grandma", "gran": "grandma",
              # British and American spellings of one word
              "tyre": "tire", "colour": "color", "cheque": "check"}  # fmt: skip
# A verb of two words that is one of _SAME_TASK's ("picked up the dog food" is "buy dog food",
# "got the prescription" is "pick up prescription"): one word, so that "up" need not be in both.
_PICK_UP = re.compile(r"\b(?:pick|picked|picking|picks)\s+up\b")
# "spoke to grandma's neighbour" is "call grandma's neighbour" done: the point of the call was to speak
# (and "got off the phone with grandma": the call, over)
_TALK_TO = re.compile(
    r"\b(?:(?:speak|speaks|spoke|spoken|speaking|talk|talks|talked|talking)\s+(?:to|with)"
    r"|(?:got|get|gotten)\s+off\s+the\s+phone\s+(?:with|to))\b"
)


# "sent the email to Sarah" is "email Sarah" done: the thing sent is the task's verb.
_SENT_A = re.compile(
    r"\b(?:sent|send|sends|sending)\s+(?:(?:the|an|a|my|that)\s+)?(email|e-mail|text|message)\s+to\b"
)


# "sent the dress back", "took the books back": returned.
_SENT_BACK = re.compile(r"\b(?:sent|send|took|take|brought|bring)\s+((?:\S+\s+){1,3}?)back\b")


# "sent back the parcel", "took back the books": the same, the particle first.
_BACK_FIRST = re.compile(
    r"\b(?:sent|send|sends|sending|took|take|takes|taking|brought|bring|brings)\s+back\b"
)


def _one_word_verbs(text: str) -> str:
    text = _BACK_FIRST.sub("return", _SENT_BACK.sub(r"return \1", text))
    return _SENT_A.sub(r"\1", _TALK_TO.sub("call", _PICK_UP.sub("get", text)))


# Short forms everyone writes for a word a todo spells out ("the vet appt": "book vet appointment"):
# only those that mean one word.
_SHORT_FORMS = {"appt": "appointment", "appts": "appointments", "mtg": "meeting", "mtgs": "meetings",
                "bday": "birthday", "bdays": "birthdays", "hw": "homework", "mgr": "manager",
                "ch": "chapter", "chap": "chapter", "pg": "page", "pgs": "pages", "dr": "doctor",
                "re": "about"}  # fmt: skip


def _forms(word: str) -> frozenset[str]:
    """A word and the forms it may have come from: "walked" -> walk, "watering" -> water,
    "running" -> run, "groceries" -> grocery, "took" -> take, "bought" and "got" -> get."""
    word = _SHORT_FORMS.get(word, word)
    forms = {word, _SAME_TASK.get(word, word)}
    if word in _IRREGULAR:
        forms |= {_IRREGULAR[word], _SAME_TASK.get(_IRREGULAR[word], _IRREGULAR[word])}
    for suffix in ("ing", "ed", "es", "s"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3 and not word.endswith("ss"):
            forms |= {base, base + "e"}
            if base[-1] == base[-2]:
                forms.add(base[:-1])  # running -> run, stopped -> stop
    if word.endswith("ies") and len(word) > 4:
        forms.add(word[:-3] + "y")  # groceries -> grocery
    if word.endswith("ied") and len(word) > 4:
        forms.add(word[:-3] + "y")  # carried -> carry
    # "phoned", "telephoned": the task a base form says ("phone" is "call")
    return frozenset(forms | {_SAME_TASK[f] for f in forms if f in _SAME_TASK})
