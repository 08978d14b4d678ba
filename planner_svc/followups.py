"""How a follow-up's references to todos ("it", "them", "the second one", "the last two", "the
other one", "the three I just added", "everything except the gym one") resolve against the
thread's discourse model (discourse.py); references to a result ("that", "the answer") are
result_refs.py's.

Resolution never guesses: "it" with two candidates, "both" with three, "the fifth one" among
four, "it" right after a turn that was not done, or any reference with nothing earlier to point
at raises PlanningFailed naming what it could refer to. A phrase that is a reference is never a
todo's name (the grammar asks `todo_reference` first, and `looks_like_a_reference` refuses the
rest).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentrt.core import wordforms
from agentrt.core.text import clip
from planner_svc.counting import all_but, counted_in, just_added, the_next, the_other, the_rest, unresolved
from planner_svc.discourse import Discourse, Thing, named
from planner_svc.grammar import lexicon
from planner_svc.planner import PlanningFailed

_HOW_TO_SAY = 'say which one (by its name, its #id, or e.g. "the second one")'


# --- references to todos ------------------------------------------------------------------------

_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_NOUN = r"(?:one|todo|to-do|task|item|reminder|entry)"
_SINGULAR = re.compile(rf"^(?:it|that|this|(?:that|this|the) {_NOUN}|the same (?:one|{_NOUN}))$")
_PLURAL = re.compile(
    r"^(?:them|they|those|these|them all|they all|all of them|all of those|all those|all these"
    rf"|(?:those|these|the) {_NOUN}s)$"
)
_BOTH = re.compile(
    rf"^(?:both|both of (?:them|those|these)|them both|both {_NOUN}s"
    rf"|both (?:of )?(?:those|these|the) {_NOUN}s|the two|the two of them|(?:these|those) two(?: {_NOUN}s)?)$"
)
_ALL_N = re.compile(
    rf"^(?:all (?P<n>\d+|{'|'.join(_COUNTS)})(?: of them| {_NOUN}s)?"
    rf"|all (?:the )?(?P<m>{'|'.join(_COUNTS)}) {_NOUN}s)$"
)
_ORDINAL = re.compile(
    rf"^(?:the )?(?:(?P<word>{'|'.join(_ORDINALS)}|last)|(?P<n>\d+)(?:st|nd|rd|th))"
    rf"(?: {_NOUN})?(?: (?:on|in|of) (?:the|my) (?:todo |to-do )?list"
    # "the first of those two", "the second of them": of the set seen together (as many as said)
    rf"| of (?:them|those|these|the)(?: (?P<of>\d+|{'|'.join(_COUNTS)}))?(?: {_NOUN}s| ones)?)?$"
)
# "everything except the gym one", "all of them but milk": the listing just seen, but one
_ALL_BUT = re.compile(
    r"^(?:everything|all|all of them|all of those|them all|the (?:whole )?list|my (?:whole )?list|the rest)"
    r"(?: (?:on|in) (?:the|my) list)? (?:except(?: for)?|but(?: not)?|apart from|other than|besides|save) "
    r"(?:for )?(?P<x>[a-z0-9][\w' -]*?)(?: (?:one|todo|task|thing|item))?$"
)
# "the three I just added", "the ones I added": what the latest adding turn added (as many as said)
_JUST_ADDED = re.compile(
    rf"^(?:the|those|these) (?:(?P<n>\d+|{'|'.join(_COUNTS)}) )?(?P<one>one |{_NOUN} |new one )?"
    rf"(?:{_NOUN}s |ones |new ones |new {_NOUN}s )?"
    r"(?:(?:i|we) (?:just )?added|(?:i|we)(?: have|'ve) just added|(?:i|we) added just now)$"
)
# "the last two", "the first three ones", "the last 2 items": the first or last so many of a set
_SPAN = re.compile(
    rf"^(?:the )?(?P<end>first|last|top|bottom) (?P<n>\d+|{'|'.join(_COUNTS)})(?: {_NOUN}s?| ones)?"
    rf"(?: (?:on|in|of) (?:the|my) (?:todo |to-do )?list)?$"
)
# "the first and the last", "the 1st and 3rd ones", "the second, third and fifth": several
# positions in the set last seen together, each read as _ORDINAL reads one
_POSITION = rf"(?:the )?(?:{'|'.join(_ORDINALS)}|last|\d+(?:st|nd|rd|th))"
_POSITIONS = re.compile(
    rf"^(?P<list>{_POSITION}(?: one)?(?:(?:,| and|, and| &) {_POSITION}(?= |$))+)(?: {_NOUN}s?| ones?)?"
    rf"(?: (?:on|in|of) (?:the|my) (?:todo |to-do )?list)?$"
)
# Where a message has them, kept whole by the segmenter (its "and" joins positions, not clauses).
POSITIONS_SAID = re.compile(
    rf"\b{_POSITION}(?: (?:one|{_NOUN}))?(?:(?:,| and|, and| &) {_POSITION})+(?: {_NOUN}s?| ones?)?\b",
    re.IGNORECASE,
)
# "the other one", "the other", "the other todo": of two, the one not just touched
_OTHER = re.compile(rf"^(?:the |that )?other(?: {_NOUN})?$")
# "the next one", "the one after that": of those seen together, the one after the one just touched
_NEXT = re.compile(rf"^(?:the )?next(?: {_NOUN})?$|^the (?:one|{_NOUN}) after (?:that|it|that one)$")
# "the rest", "the others", "all the other ones": of those seen together, the ones not just touched
_REST = re.compile(
    rf"^(?:all )?(?:the )?(?:rest(?: of them| of the {_NOUN}s)?|others|other {_NOUN}s"
    rf"|remaining(?: {_NOUN}s)?)$"
)
# Words that make a phrase a reference however it goes on ("the second of them", "the last couple"):
# never a todo's name to look up, refused when no rule above reads them.
_REFERENCE_LIKE = re.compile(
    rf"^(?:the )?(?:(?:{'|'.join(_ORDINALS)}|last|other|first|previous|latter|former)"
    rf"(?: (?:\d+|{'|'.join(_COUNTS)}|couple|few))?(?: {_NOUN}s?| ones?| of (?:them|those|these))?"
    r"|(?:it|them|those|these|that one|this one|both)(?: (?:too|as well|also|again))?"
    # "the one I told you about yesterday", "the thing we talked about": said of a conversation
    r"|(?:the )?(?:one|ones|thing|things|todo|task)s? (?:i|you|we) "
    r"(?:told|mentioned|said|talked|spoke|asked)\b.*"
    # "both of those ones", "all of these", "each of them": words for todos seen, never a name
    r"|(?:both|all|each|either|any|none|one|some) of (?:them|those|these)(?: ones?| \w+s)?)$"
)


# The words a pronoun reference is said with: "it", "that one", "them" (never which todo of several).
PRONOUNS = frozenset({"it", "that", "this", "that one", "this one", "them", "those", "these", "em"})

# Words after a reference that do not change which todos it means ("the first one instead").
_ALSO_AFTER = re.compile(r"(?<=\S)(?:\s+(?:also|too|as\s+well|instead|again|now|then|please|actually))+$")


@dataclass(frozen=True)
class TodoReference:
    """Which earlier todos a phrase points at: one (it), any number (them), exactly `count`
    (both), the `index`th (1-based; -1 the last), the first or last `span` of them, or the other
    one of two."""

    words: str
    count: int | None = None  # None: any number (them); 1: exactly one (it)
    index: int | None = None
    span: int | None = None  # the first N (> 0) or the last N (< 0)
    other: bool = False
    indices: tuple[int, ...] = ()  # several positions ("the first and the last"), each as `index`
    rest: bool = False  # of those seen together, the ones not just touched ("the rest")
    added: bool = False  # what the latest adding turn added ("the three I just added")
    of_count: int | None = None  # "the first of those two": the set seen together has that many
    but: str = ""  # "everything except the gym one": the listing just seen, but the one so named
    next: bool = False  # of those seen together, the one after the one just touched ("the next one")
    # What was done to it ("booked it": "booked"): of two "it" could mean, the one whose task starts
    # with that verb ("renew passport", "book flights": the flights), else as unclear as before
    did: str = ""

    @property
    def counts_in_a_set(self) -> bool:
        """An ordinal, a span, or a number of them: read over the set last seen together."""
        return (
            self.index is not None
            or self.span is not None
            or bool(self.indices)
            or self.rest
            or self.next
            or (self.count or 0) > 1
        )

    def resolve(self, discourse: Discourse, tool: str) -> list[Thing]:
        what = f"{self.words!r}"
        view = discourse.view(tool)
        if not (view.focus_turn or view.group_turn):
            raise nothing_earlier(what, "a todo", discourse, "added, changed or listed a todo")
        if (
            discourse.not_done_before is not None
            and (self.counts_in_a_set or self.other or self.added)
            and not _CHANGES_NO_SET.match(discourse.not_done_before[1])
        ):
            # "add coffee beans" failed, then "remove the last two": counted with it, or without?
            turn, words = discourse.not_done_before
            raise unresolved(
                f"{what} may count what turn {turn} ({clip(words, 80)!r}) named, and that turn was not "
                f"done; the last todos seen together were {named(view.group)}: {_HOW_TO_SAY}"
            )
        if self.added:
            return just_added(what, self.count, view)
        if self.but:
            return all_but(what, self.but, view)
        if self.other:
            return [the_other(what, view)]
        if self.rest:
            return the_rest(what, view)
        if self.next:
            return [the_next(what, view)]
        if self.indices:
            picked = [counted_in(what, TodoReference(self.words, index=i), view)[0] for i in self.indices]
            if len(set(picked)) != len(picked):
                raise unresolved(
                    f"{what} names one todo twice of the {len(view.group)} seen together (turn "
                    f"{view.group_turn}): {named(view.group)}; say which"
                )
            return picked
        if self.index is not None or self.span is not None:
            return counted_in(what, self, view)
        if (
            discourse.not_done_before is not None
            and self.count in (1, None)
            and not _names_nothing(discourse.not_done_before[1])
        ):
            turn, words = discourse.not_done_before
            raise unresolved(
                f"{what} may mean what turn {turn} ({clip(words, 80)!r}) named, and that turn was not "
                f"done; the last todos done something with were {named(view.focus)}: {_HOW_TO_SAY}"
            )
        if self.count == 1:
            if len(view.focus) > 1 and self.did and len(done_so := _started_with(self.did, view.focus)) == 1:
                return done_so
            if len(view.focus) != 1:
                raise unresolved(
                    f"{what} could be any of {named(view.focus)} (turn {view.focus_turn}): {_HOW_TO_SAY}"
                )
            return list(view.focus)
        if self.count is None:  # "them": the ones just done something with
            if len(view.focus) == 1 and len(view.group) > 1 and view.focus[0] in view.group:
                # one just changed, of several seen together: that one, or all of them?
                raise unresolved(
                    f"{what} means several todos, but the last one done something with was "
                    f"{view.focus[0]}, of {named(view.group)} (turn {view.group_turn}): say which"
                )
            if len(view.focus) == 1 and view.earlier:
                # "list", "add buy mint", "mark them done": the one added, or those listed with it?
                raise unresolved(
                    f"{what} means several todos, but the last one done something with was "
                    f"{view.focus[0]}, added after {named(view.earlier)} were seen together: say which"
                )
            if view.adds_only and len(view.group) > 1 and set(view.group) < set(view.focus):
                # "add A", then "add B, C and D": "them all" is the three, or the four?
                raise unresolved(
                    f"{what} could be the {len(view.group)} todos turn {view.group_turn} added "
                    f"({named(view.group)}) or all {len(view.focus)} added in the turns up to it "
                    f"({named(view.focus)}): say which"
                )
            return list(view.focus)
        for candidates in (view.group, view.focus):
            if len(candidates) == self.count:
                return list(candidates)
        raise unresolved(
            f"{what} means {self.count} todos, but the last ones seen together (turn {view.group_turn}) "
            f"were {len(view.group)}: {named(view.group)}; say which (by name or #id)"
        )


# A turn that was not done and asked only to change, or to see, todos already seen ("mark it as
# done", refused as unclear): it cannot have added to the set the next turn counts in.
_CHANGES_NO_SET = re.compile(
    r"^\W*(?:(?:ok|okay|oh|and|now|then|so|please|pls|can\s+you|could\s+you)\W+)*"
    r"(?:mark|tick|check|cross|delete|remove|complete|finish|reopen|untick|uncheck|bin|scrap|show|list|what|how)\b",
    re.IGNORECASE,
)


# What a turn says besides "it" that names no todo: asking, time, a condition, a negation, fillers
# ("don't mark it done yet", "mark it done tomorrow"). A turn not done that said only these named
# nothing the next turn's "it" could mean instead of what it meant before.
_NAMES_NOTHING = frozenset(lexicon.NAMES_NOTHING) | frozenset(
    w for v in (*lexicon.COMPLETE_VERBS, *lexicon.DELETE_VERBS, *lexicon.DONE_WORDS) for w in v.split()
)
_REFERS = frozenset(["it", "them"])


def _names_nothing(words: str) -> bool:
    said = re.findall(r"[a-z']+", words.lower())
    return bool(_REFERS & set(said)) and set(said) <= _NAMES_NOTHING


_SAYS_NOT_WHICH = frozenset(["did", "finished", "completed", "sorted", "done"])


def _started_with(did: str, things: Sequence[Thing]) -> list[Thing]:
    """The things whose text starts with the verb `did` is a past of ("booked": "book flights")."""
    first = did.lower().split()[0]
    if first in _SAYS_NOT_WHICH:
        return []  # "did it", "finished it": done, but which task is not in the verb
    verbs = {wordforms.IRREGULAR.get(first, first), *wordforms.base_forms(first)}  # booked: book
    if first.endswith("ed") and len(first) > 4 and first[-3] == first[-4]:
        verbs.add(first[:-3])  # dropped: drop
    return [t for t in things if (t.text.lower().split() or [""])[0] in verbs]


def todo_reference(phrase: str) -> TodoReference | None:
    """The reference `phrase` makes to earlier todos ("it", "both of them", "the second one",
    "the last two", "the other one"), or None when it is not a reference (a todo's name, say)."""
    words = " ".join(phrase.lower().strip(" \"'.!?").split())
    words = _ALSO_AFTER.sub("", words)  # "mark the other one also as done"
    if _SINGULAR.match(words):
        return TodoReference(words, count=1)
    if _PLURAL.match(words):
        return TodoReference(words)
    if _BOTH.match(words):
        return TodoReference(words, count=2)
    if m := _ALL_N.match(words):
        n = m.group("n") or m.group("m")
        return TodoReference(words, count=_COUNTS.get(n) or int(n))
    if m := _SPAN.match(words):
        n = _COUNTS.get(m.group("n")) or int(m.group("n"))
        return TodoReference(words, span=n if m.group("end") in ("first", "top") else -n) if n else None
    if _OTHER.match(words):
        return TodoReference(words, other=True)
    if _REST.match(words):
        return TodoReference(words, rest=True)
    if _NEXT.match(words):
        return TodoReference(words, count=1, next=True)
    if m := _POSITIONS.match(words):
        said = re.findall(rf"(?:{'|'.join(_ORDINALS)}|last|\d+(?=st|nd|rd|th))", m.group("list"))
        indices = tuple(-1 if w == "last" else _ORDINALS.get(w) or int(w) for w in said)
        return TodoReference(words, indices=indices) if all(indices) else None
    if m := _ORDINAL.match(words):
        word, n, of = m.group("word"), m.group("n"), m.group("of")
        index = -1 if word == "last" else _ORDINALS[word] if word else int(n)
        of_count = (_COUNTS.get(of) or int(of)) if of else None
        return TodoReference(words, index=index, of_count=of_count) if index else None
    if (m := _ALL_BUT.match(words)) and not _ALL_BUT.match(m["x"]) and todo_reference(m["x"]) is None:
        return TodoReference(words, but=m["x"])
    if m := _JUST_ADDED.match(words):
        n = m.group("n")
        count = 1 if m.group("one") else (_COUNTS.get(n) or int(n)) if n else None
        return TodoReference(words, count=count, added=True)
    return None


def looks_like_a_reference(phrase: str) -> bool:
    """Whether `phrase` reads as a reference no rule resolves ("the second of those", "the last
    couple"): it must be refused, never looked up as a todo's name."""
    words = _ALSO_AFTER.sub("", " ".join(phrase.lower().strip(" \"'.!?").split()))
    return bool(_REFERENCE_LIKE.match(words))


def nothing_earlier(what: str, kind: str, discourse: Discourse, verb: str) -> PlanningFailed:
    if not discourse.turns and discourse.in_thread:
        return unresolved(
            f"{what} refers to {kind} from earlier, but this is the thread's first turn: there is "
            "nothing earlier to refer to yet (say what you mean in full)"
        )
    if not discourse.turns:
        return unresolved(
            f"{what} refers to {kind} from earlier, but this run is not part of a thread: there is "
            "nothing earlier to refer to (send it to a thread to follow up on earlier turns, or "
            "say what you mean in full)"
        )
    return unresolved(f"{what} refers to {kind} from earlier, but no earlier turn of this thread {verb}")
