"""A message that corrects or takes back itself: the markers, what it retracts, and the
readings of what it means instead (the tail, the tail with its "it" named, the head with one
part replaced)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner_svc.stages.clauses import parse_clause
from planner_svc.stages.common import _F
from planner_svc.stages.polite import _clean

# A message that corrects itself: "what's 24 times 15, sorry, I meant 24 times 16", "mark X done,
# oh no actually, mark Y done". Not a bare "actually" or "make that" ("make that a todo").
_CORRECTION = re.compile(
    r"(?:(?:^|[,.;!?]\s*|\s)(?:no,?\s+wait|wait,?\s+no|(?:sorry|oops)(?:,?\s+no)?,?\s+i\s+meant?|i\s+meant?"
    r"|(?:oh\s+)?no,?\s+actually"
    r"|actually,?\s+no|(?:no|actually),?\s+make\s+(?:that|it)|or\s+rather|scratch\s+that)"
    # "add milk and eggs, actually just eggs" (never a message's opening: in a thread "actually
    # just the milk one" follows up on an earlier turn)
    r"|(?<=[,.;!?])\s*actually,?(?=\s+(?:just|only)\s)|,\s*(?:er+|erm|um+),"
    # "add call dad, sorry, call uncle bob": "sorry" between two requests, not a message's opening
    r"|[,.;!?-]\s*(?:no,?\s+)?sorry,(?!\s*i\s+meant?\b)|[,.;!?-]\s*(?:no,?\s+)?sorry(?=\s+\d)"
    # "add buy shampoo - no, conditioner": a no between what was said and what is meant
    r"|[,.;!?-]\s*no,(?=\s*\w))(?:\s*[,:.!]\s*|\s+)",
    _F,
)


# A message that asks, then takes it back ("add buy eggs, nah forget it", "mark call mom done.
# wait, not yet"): refused whole, as saying nothing done. Only at the end, after what it takes
# back ("forget it" in the middle may be a todo's words: "add forget it all weekend").
_RETRACTED = re.compile(
    r"(?<=[,.;!?-])\s*(?:(?:(?:oh\s+)?wait|hmm+|hm|nah|no|um+|actually|oops),?\s*)*"
    r"(?:(?:never\s*mind|nvm|forget\s+(?:it|that|about\s+it)|scratch\s+that|cancel\s+that|ignore\s+that"
    r"|disregard\s+that|not\s+yet|not\s+now|not\s+today|do\s+not|don't|dont|just\s+kidding|jk|leave\s+it"
    r"|keep\s+it)(?:,?\s+(?:then|actually|please|pls|sorry|lol))*)\s*[.!?]*$"
    r"|\bjk[.!]*$|\bjust\s+kidding[.!]*$"
    # "add milk, oh wait no", "add milk - nah", "add milk, wait": a no (or a wait) is all that
    # follows the request; "add milk lol no", "add milk no wait", "add milk nah" say it without one
    # ("add learn to say no" keeps its no: a bare "no" ends a name as well as it takes one back).
    r"|(?<=[,.;!?-])\s*(?:(?:oh\s+)?wait|hmm+|um+|actually|oops|lol|haha),?\s*(?:no+|nah+|nope)"
    r"(?:,?\s*(?:wait|sorry|lol|actually))*\s*[.!?]*$"
    r"|(?<=[,.;!?-])\s*(?:no+|nah+|nope|(?:oh\s+)?wait|hold\s+on|hang\s+on)(?:,?\s*(?:wait|sorry|lol|actually))*"
    r"\s*[.!?]*$"
    r"|\s(?:lol|haha|lmao)\s+(?:no+|nah+|nope)[.!?]*$|\bno\s+wait[.!?]*$|\bwait\s+no[.!?]*$|\bnah+[.!?]*$"
    r"|\bnope[.!?]*$"
    # "bought milk, not really", "paid the rent... not", "called mom NOT": said, then denied
    r"|(?<=[,.;!?-])\s*not(?:\s+really)?[.!]*$|\s(?-i:NOT)[.!]*$",
    _F,
)
# The words _RETRACTED can end on, by their last two letters: a message that ends otherwise (most
# do) is not searched with it. (Searched, a pattern anchored at the end is tried from every position.)
_TAKING_BACK_ENDS = frozenset(
    word[-2:]
    for word in (
        *("mind", "nvm", "it", "that", "yet", "now", "today", "not", "don't", "dont", "kidding", "jk"),
        *("then", "actually", "please", "pls", "sorry", "lol", "no", "noo", "nah", "nahh", "nope", "wait"),
        *("on", "really"),
    )
)
# The letters that IGNORECASE matches with an ASCII letter of those words, as that letter.
_AS_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _may_take_back(text: str) -> bool:
    """False only where _RETRACTED cannot match: its last two letters, before the spaces and
    punctuation that may close it, end none of the words it ends on."""
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in ".!?"):
        end -= 1
    return text[max(0, end - 2) : end].translate(_AS_ASCII).lower() in _TAKING_BACK_ENDS


# "called mom, right?", "paid the rent, didn't I?": a report asked back is a question whether it
# is so, not news that it is (nothing to mark done on the person's say-so).
_TAG_QUESTION = re.compile(
    r"(?<=[,.;!-])\s*(?:right|yeah|yes|correct|no|innit|eh|did\s+not\s+i|did\s+not\s+we|have\s+not\s+i"
    r"|is\s+not\s+it|was\s+not\s+it)\s*\?+\s*$",
    _F,
)
# "add milk. actually, delete it": what the message adds, undone before it was done. Only after an
# add in the same message: in a thread, "hmm, actually delete it" deletes a todo an earlier turn named.
_UNDONE = re.compile(
    r"(?<=[,.;!?-])\s*(?:actually|wait|oh\s+wait|no|nah|hmm+),?\s+(?:delete|remove|undo|scrap|cancel|drop)"
    r"\s+(?:it|that)(?:\s+again)?[.!?]*$",
    _F,
)
_ADDS = re.compile(r"\b(?:add|put|create|new|remind\s+me|jot|note|write\s+down)\b", _F)


@dataclass(frozen=True)
class _Correction:
    """A message that corrects itself: what it said first (`head`), what after the correction
    (`tail`), and the readings of what it means, tried in this order: the tail whole; when that is
    not understood, the tail with its "it" named by the head (`named`); when neither is a whole
    request, the head with the part the tail replaces (`replaced`)."""

    head: str
    tail: str
    named: str | None
    replaced: str | None


def _correction(tidied: str, marker: re.Match[str]) -> _Correction:
    """The readings of a message that corrects itself at `marker` (computed from the words alone)."""
    head, tail = tidied[: marker.start()].strip(), tidied[marker.end() :].strip()
    tail = _CANCEL_HEAD.sub("", tail)  # "actually no, leave that, delete get oil change"
    tail = _MARKER_AGAIN.sub("", tail)  # "no wait, I meant the bread one": one correction, said twice
    return _Correction(head, tail, _it_named(head, tail), _substituted(head, tail))


_MARKER_AGAIN = re.compile(r"^(?:(?:sorry|oops|i\s+meant?)\b[,:]?\s*)+(?=\S)", _F)
_CANCEL_HEAD = re.compile(r"^(?:leave|keep|forget|skip)\s+(?:that|it|this)(?:\s+one)?\s*[,.;]?\s*(?=\S)", _F)
_PERCENT_SLOT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:%|percent\b|per\s+cent\b)", _F)
_NUMBER_SLOT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
_DAY_SLOT = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tonight|tomorrow)\b", _F
)
_STATE_SLOT = re.compile(r"\b(?:open|done|finished|completed|pending|unfinished|outstanding)\b", _F)
_OBJECT_VERBS = re.compile(r"^(?:add|put|delete|remove|drop|mark|complete|tick|check|cross)\s", _F)


def _it_named(head: str, tail: str) -> str | None:
    """ "delete call mom, I mean mark it done": the correction's one "it" is the todo the head
    completes or deletes by name (what changes is what to do with it). None otherwise."""
    if len(_IT.findall(tail)) != 1 or len(tail.split()) > 5:
        return None  # (a longer correction may name another todo beside "it")
    intent = parse_clause(head.rstrip(" ,.;:!?-"))
    if intent is None or intent.tool != "todo_store":
        return None
    if intent.arguments.get("action") not in ("complete", "delete"):
        return None
    text = intent.arguments.get("text")
    if not isinstance(text, str) or ("'" in text and '"' in text):
        return None
    quote = '"' if "'" in text else "'"
    return _IT.sub(f"{quote}{text}{quote}", tail, count=1)


_IT = re.compile(r"\b(?:it|that\s+one|this\s+one)\b", _F)


def _substituted(head: str, tail: str) -> str | None:
    """The head with the one part the correction replaces, when the correction is a part of one
    kind and the head has exactly one part of that kind: a percentage ("15 percent of 90, I
    mean 19 percent"), a number, a day ("for thursday, er, friday"), a state ("my done things,
    I mean the open ones"), or the thing a todo verb acts on, said again in full ("add milk, no
    wait, oat milk"), or its end said again with one word changed ("add buy 6 eggs, sorry I mean
    12 eggs"). Anything else is None: which part it replaces would be a guess ("add buy apples,
    oops I meant pears": "pears", or "buy pears"?)."""
    head = head.rstrip(" ,.;:!?-—")
    tail = _clean(tail).removeprefix("make that ").strip()
    if not head or not tail:
        return None
    for kind in (_PERCENT_SLOT, _NUMBER_SLOT, _DAY_SLOT):
        if kind.fullmatch(tail):
            found = list(kind.finditer(head))
            return f"{head[: found[0].start()]}{tail}{head[found[0].end() :]}" if len(found) == 1 else None
    if (state := re.fullmatch(r"(?:the\s+)?(\w+)(?:\s+(?:ones|things|todos|tasks|items))?", tail, _F)) and (
        _STATE_SLOT.fullmatch(state.group(1))
    ):
        found = list(_STATE_SLOT.finditer(head))
        if len(found) != 1:
            return None
        return f"{head[: found[0].start()]}{state.group(1)}{head[found[0].end() :]}"
    # "delete all the done ones. actually no, just the gym one": the sweep, narrowed to one todo
    if (
        (just := _JUST_ONE.fullmatch(tail))
        and (sweep := parse_clause(head)) is not None
        and sweep.tool == "todo_store"
        and sweep.arguments.get("action") == "delete_all"
    ):
        return f"delete {just.group('name')}"
    # "mark bread done. sorry I meant milk", "tick off the car thing... no sorry, the bike thing":
    # the todo a complete or delete names, by a short name, said again as another
    if (
        (named := _SHORT_NAME.fullmatch(_IT_WAS.sub("", tail)))
        and not set(named.group("name").lower().split()) & _NO_SHORT_NAME
        and (intent := parse_clause(head)) is not None
        and intent.tool == "todo_store"
        and (action := intent.arguments.get("action")) in ("complete", "delete")
        and isinstance(old := intent.arguments.get("text"), str)
    ):
        if len(old.split()) <= 2 and len(re.findall(rf"\b{re.escape(old)}\b", head, _F)) == 1:
            return re.sub(rf"\b{re.escape(old)}\b", named.group("name"), head, count=1, flags=_F)
        # "I paid the water bill, no actually it was the electric one": which words of a longer
        # name it replaces would be a guess; the todo is the one the short name names
        one = f"the {named.group('name')} one"
        return f"mark {one} done" if action == "complete" else f"delete {one}"
    # "put call Jen on the list, sorry, I meant call Jess": where the object goes stays said
    listed = _ON_THE_LIST.search(head)
    suffix = listed.group() if listed else ""
    words, said = head[: len(head) - len(suffix)].split(), tail.split()
    if not (_OBJECT_VERBS.match(head) and 1 < len(words) <= 5 and said):
        return None
    if len(said) == 1:
        # "add buy apples, oops I meant pears": which word of the name one word stands in place of
        # ("add call mom, I meant text", "add buy whole milk, I meant skim") is a guess
        return None
    if (
        said[-1].lower() == words[-1].lower()
        and said[-1].lower() not in _PLACEHOLDERS  # "the milk one" ... "the bread one": a short name
        and not _NUMBER_SLOT.search(tail)
    ):
        return f"{words[0]} {tail}{suffix}"  # "add milk, no wait, oat milk": the object, said in full
    if (
        words[0].lower() in ("add", "put")
        and len(said) > len(words) - 1
        and [w.lower() for w in said[: len(words) - 1]] == [w.lower() for w in words[1:]]
    ):
        # "add renew parking permit - sorry, renew parking permit for the van": the name, said longer
        return f"{words[0]} {tail}{suffix}"
    kept = len(words) - len(said)  # the words before those the correction says again
    if (
        words[0].lower() in ("add", "put")
        and kept >= 1
        and sum(a.lower() != b.lower() for a, b in zip(said, words[kept:], strict=True)) == 1
    ):
        # "add 3 apples, make that 4 apples", "add buy 6 eggs, sorry I mean 12 eggs": the end of
        # the name said again, one word of it changed
        return f"{' '.join(words[:kept])} {tail}{suffix}"
    return None


_PLACEHOLDERS = ("one", "thing", "todo", "task", "item")
# Words a correction says of the request, never a todo's short name: "mark milk done - no, eggs
# too", "delete the eggs one - no, both", "actually make it deleted"
_NO_SHORT_NAME = frozenset(
    ["too", "also", "both", "all", "either", "neither", "none", "already", "again", "instead", "deleted",
     "done", "finished", "completed", "removed", "added", "later", "now", "then", "not", "just", "only"]
)  # fmt: skip
# (only "the X one": "keep the milk one", "apart from the gym one" keep it instead)
_JUST_ONE = re.compile(
    rf"(?:(?:just|only)\s+)?(?P<name>the\s+[\w'-]+(?:\s+[\w'-]+)?\s+(?:{'|'.join(_PLACEHOLDERS)}))", _F
)
# "I paid the water bill, no actually it was the electric one": the short name, as what it was
_IT_WAS = re.compile(r"^it(?:\s+was|'s|\s+is)\s+(?=the\s)", _F)
# A todo's short name alone, as a correction says it: "milk", "the bike thing", "the gym one".
_SHORT_NAME = re.compile(
    r"(?:the\s+)?(?P<name>(?!(?:one|thing|it|that|this|them|other)\b)[a-z][\w'-]*"
    rf"(?:\s+(?!(?:{'|'.join(_PLACEHOLDERS)})\b)[a-z][\w'-]*)?)"
    rf"(?:\s+(?:{'|'.join(_PLACEHOLDERS)}))?",
    _F,
)


_ON_THE_LIST = re.compile(
    r"\s+(?:to|on|onto)\s+(?:my|the)\s+(?:(?:todo|to-do|shopping)\s+)?(?:list|todos|todo\s+list)$", _F
)
