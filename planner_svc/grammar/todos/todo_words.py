"""The todo grammar's vocabulary: the nouns, list phrases, past forms and state words every todo
frame is written with, and the bag of words a listing or count is said in."""

from __future__ import annotations

import re

from agentrt.core import wordforms
from planner_svc.grammar import lexicon

_F = re.IGNORECASE
_alt = lexicon.alternation
_NOUN = _alt(lexicon.TODO_NOUNS)
_NOUNS = _alt(lexicon.TODO_NOUNS_PLURAL)
_LIST = _alt(lexicon.LIST_NOUNS)
_MY = r"(?:(?:my|the|our|your|this)\s+)?"
# A past tense that reports a todo done ("walked", "called"); not "need", "feed" or "speed".
_PAST = (
    r"(?!(?:need|feed|seed|speed|bleed|breed|heed|weed|proceed|exceed|succeed|indeed|shred|embed|rounded|divided|multiplied|added"
    r"|subtracted|converted|squared|cubed|increased|decreased|reduced|raised|doubled|halved|tripled|compounded"
    r"|discounted|marked|shared|hundred|kindred|sacred|naked|wicked|beloved)\b)[a-z]+ed"
)
# "rang", "bought": a past that reports a todo done, whose ending does not say so (wordforms.py).
_SIMPLE_PAST = "|".join(sorted(wordforms.PAST_TENSE, key=len, reverse=True))
# The same, for the planner's reading of a report before an "it" command (stages/readings._about_it).
PAST, SIMPLE_PAST = _PAST, _SIMPLE_PAST
# "add call mom to my work list": one list per person, whatever they call it
_KIND_OF_LIST = (
    r"(?:(?:work|home|personal|house|household|school|office|errands?|chores?|family|daily|weekend)\s+)?"
)
_TO_LIST = (
    rf"(?:(?:to|on|onto|in|into)\s+{_MY}(?:(?:current|whole|todo|to-do)\s+)?{_KIND_OF_LIST}{_LIST}"
    r"|(?:on|onto|in)\s+there)"
)

# Words that never name a todo on their own ("mark it as done": which one is not said here).
_NOT_A_NAME = frozenset(
    ["the", "my", "a", "an", "as", "it", "this", "that", "them", "all", "one", "everything", "todo", "task",
     "item", "list", "thing", "things", "todos", "tasks", "items", "ones", "something", "stuff",
     # "delete the lot": all of them, said loosely (never the todo "parking lot"); "the rest": which?
     "lot", "whole lot", "rest", "others", "other ones"]
)  # fmt: skip

# A name that points somewhere else for its meaning: "add the usual", "the same again", "that thing
# for mum". Which todo is meant is not in these words.
_VAGUE = re.compile(
    r"^(?:(?:the|my|our|that|this|those|these)\s+)?(?:usual|same|regular|rest|other|lot|whatever|thingy|thing|stuff"
    r"|one)(?:\s+(?:one|ones|thing|things|stuff|again|as\s+(?:usual|always|last\s+(?:time|week|month|year))|for\s+\w+))?$"
    r"|^(?:the\s+)?same\s+(?:again|as\s+(?:usual|always|before|last\s+(?:time|week|month|year)|yesterday))$"
    # "add some", "add more": how much, not what; "add what I said": what was said elsewhere
    r"|^(?:some|more|some\s+more|a\s+few|a\s+couple|something|anything|things)$"
    # "add both", "put all three on": which ones was said before (listed_first), or nowhere
    r"|^(?:both(?:\s+of\s+them)?|all\s+(?:two|three|four|five|six|seven|eight|nine|ten|\d+|of\s+(?:them|these|those))"
    r"|them\s+(?:all|both)|each(?:\s+one)?(?:\s+of\s+(?:them|these|those))?|these|those)$"
    r"|^what\s+(?:i|we|you)\s+(?:said|told\s+you|mentioned|asked(?:\s+for)?|wrote|sent|meant|discussed)\b",
    _F,
)
_STATE_WORDS = frozenset(lexicon.OPEN_WORDS) | frozenset(lexicon.DONE_WORDS)
# Words that point at what comes next ("add these please" with the todos on lines after it, "add
# both of these: ...", "the following two items? ..."): the todos are elsewhere, never these words.
_POINTS_ON = re.compile(
    r"the\s+(?:following|ones?\s+below)\b|(?:these|those)\s+(?:please|pls|for\s+me)\s*$"
    r"|(?:these|those)(?:\s+(?:\d+|two|three|four|five|items?|things|todos?|tasks?|ones|please|pls|for\s+me))*\s*[:\-?.!]",
    _F,
)

# "add a reminder for tomorrow": when, not what.
_NOT_A_TODO_TEXT = frozenset(
    [
        "tomorrow",
        "today",
        "tonight",
        "later",
        "soon",
        "next week",
        "this week",
        "another one",
        "remind me",
        "remind me to",
    ]
)
_PRONOUNS = frozenset(["it", "this", "that", "them", "these", "those"])

# --- questions about the list, and emptying it: bags of words -----------------------------------

_FILLER = frozenset(
    """
    i me my mine the a an all of is are was were there do does have has got get now currently so far
    yet else on in at list lists everything things thing ones one stuff to that which what please
    again entire whole already just need needs want total altogether overall we our you your any
    anything show give tell display view see print read can could would will let know still right
    moment today up off out for from only just rest they them those these plate round around gotten
    started before ready am marked as set r including incl well completely entirely totally been
    """.split()  # noqa: SIM905  (a word list reads better as words)
) | {w for n in (*lexicon.TODO_NOUNS, *lexicon.TODO_NOUNS_PLURAL) for w in n.split()}
_NOUN_WORDS = frozenset(
    {w for n in (*lexicon.TODO_NOUNS, *lexicon.TODO_NOUNS_PLURAL) for w in n.split("-")}
    | {
        "list",
        "lists",
        "everything",
        "ones",
        "stuff",
        "anything",
        "todolist",
        "plate",
        "there",
        "rest",
        "they",
        "them",
        "those",
    }
)
_OPEN = frozenset(lexicon.OPEN_WORDS)
_DONE = frozenset(lexicon.DONE_WORDS)
_ALL_WORDS = frozenset({"all", "every", "everything", "whole", "entire", "single"})
_BAG_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?|\d+|\S", _F)
_COUNT_LEAD = re.compile(
    r"^(?:(?:can|could|would)\s+you\s+)?(?:tell\s+me\s+|show\s+me\s+|let\s+me\s+know\s+)?(?:how\s+many|how\s+much(?=\s+(?:todos|to-dos|tasks|items|reminders)\b)|count(?:\s+up)?|(?:what\s+is\s+)?(?:the\s+)?(?:total\s+)?(?:number|count)\s+of)\b(?P<rest>.*)$",
    _F,
)
_SHOW_LEAD = re.compile(
    r"^(?:(?:can|could|would)\s+you\s+)?(?:(?:todos?|tasks?)\s+(?=ls\b|list\b|show\b))?"
    r"(?:(?:let\s+me|can\s+i|could\s+i|may\s+i)\s+(?:see|view|check|(?:have\s+a\s+)?look\s+at)"
    r"|ls|show|list|display|view|print|see|give|read(?:\s+out)?|tell|get"
    r"|bring\s+up|pull\s+up|what|which|anything|any|(?:do|have)\s+i\s+(?:have|got)|is\s+there|are\s+there"
    r"|have\s+i\s+got)\b(?P<rest>.*)$",
    _F,
)
_CLEAR_LEAD = re.compile(rf"^(?P<verb>{_alt(lexicon.CLEAR_VERBS)})\b(?P<rest>.*)$", _F)
_EMPTYING = frozenset({"clear", "clear out", "wipe", "wipe out", "empty", "reset", "purge", "clean out"})
_LIST_PHRASE = re.compile(r"\bto[- ]?do(?:'?s)?\s+lists?\b|\btodo\s+lists?\b", _F)
_TODOS_WORD = re.compile(r"\bto-dos\b|\bto-do\b", _F)


# What _bag reads as plainer words, in this order (each pattern compiled once: _bag runs on
# every clause that could ask about the list).
_BAG_REWRITES = [
    (re.compile(pattern), plain)
    for pattern, plain in (
        (r"\bdone\s+and\s+dusted\b", "done"),
        (r"\blist\s+clean\b", "list"),  # "wipe my list clean": all of it
        (r"\b(?:on|in)\s+my\s+plate\b", " on list"),  # "what's still on my plate"
        (r"\b(?:on|in)\s+it\b", " on list"),  # "how many items are on it": the list
        (r"\b(?:on|in)\s+there\b", " on list"),  # "what's on there": said of the list
        # "any done ones to clear?": what the answer is for, not which todos
        (r"\s+to\s+(?:clear|delete|remove|tick\s+off|cross\s+off)$", ""),
        # "still to get through", "what do I still have to buy": what is open
        (r"\b(?:get\s+through|tackle|deal\s+with|take\s+care\s+of|buy|get|pick\s+up)$", "do"),
        (r"\b(?:still\s+)?to\s+go$", "left"),  # "how many still to go"
        (r"\b(?:tick|ticked|cross|crossed|check|checked|mark|marked)\s+off$", "done"),  # "did I tick off"
        (r"\b(?:done|finished|completed)\s+or\s+not\b", ""),  # "in total, done or not"
        # both states, joined: all of them ("my whole list, finished and unfinished", "open and done")
        (
            r"\b(?:both\s+)?(?:(?:done|finished|completed)\s+(?:and|&|or)\s+(?:unfinished|not\s+done|open|undone"
            r"|pending)|(?:open|unfinished|pending)\s+(?:and|&|or)\s+(?:done|finished|completed))\b",
            "",
        ),
    )
]


def _bag(rest: str) -> list[str] | None:
    """The words of `rest` if all are about todos, their state or filler; else None."""
    text = _LIST_PHRASE.sub(" list ", rest.lower())
    text = _TODOS_WORD.sub(lambda m: "todos" if m.group().endswith("s") else "todo", text)
    for pattern, plain in _BAG_REWRITES:
        text = pattern.sub(plain, text)
    text = text.replace("-", " ")  # "ticked-off"
    words = [w for w in _BAG_WORD.findall(text) if w not in (",", "?", "!", ".", "'")]
    allowed = _FILLER | _OPEN | _DONE | _ALL_WORDS | {"not", "no", "yet", "did", "done"}
    return words if all(w in allowed for w in words) else None


def _state(words: list[str]) -> str | None:
    """ "open", "done", None (all of them), or "" when the words say both."""
    if "including" in words or "incl" in words:
        return None  # "all my tasks, including the completed ones"
    joined = " ".join(words)
    opened = any(w in _OPEN for w in words) or bool(re.search(r"\bto do\b", joined))
    finished = any(w in _DONE for w in words if w != "done" or "to do" not in joined)
    if "not" in words or "no" in words:
        return "open" if finished or not opened else ""
    if opened and finished:
        return ""
    return "open" if opened else "done" if finished else None


_TERSE_LIST = re.compile(
    r"^(?:all\s+)?(?:the\s+)?(?P<open>things|stuff|jobs|tasks)\s+(?:i|we)\s+(?:have|need|got)\s+to\s+do(?:\s+still)?$|"
    # "show", "show me": said to the keeper of a list, the list
    r"^(?:show|display)(?:\s+me)?$|"
    # "list again", "show it again": the list as it is now
    r"^(?:list|show|display)(?:\s+me)?(?:\s+(?:it|them|that|the\s+list|everything))?\s+again$|"
    r"^(?:just\s+)?(?:show|tell|give|remind)\s+me\s+what\s+(?:i|we)\s+(?:have|got|have\s+got)(?:\s+so\s+far)?$|"
    # "what do i have", "what have i got now": said to the keeper of the list, the list
    r"^what\s+(?:do\s+(?:i|we)\s+have|have\s+(?:i|we)\s+got)(?:\s+(?:now|then|so\s+far))?$|"
    r"^(?:everything|all|all\s+the\s+(?:todos|tasks|items))\s+(?:on|in)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?list$"
    r"|^(?:my\s+|the\s+|all\s+)?(?P<s>open|done|finished|completed|pending|remaining|outstanding)?\s*"
    r"(?:todos|tasks|to-dos|todo\s+list|task\s+list|list)$"
    # "I did the homework. anything else?": what is still open
    r"|^(?P<else>(?:is\s+there\s+|do\s+i\s+have\s+)?anything\s+else(?:\s+(?:left|to\s+do|on\s+(?:the|my)\s+list))?"
    r"|what\s+else(?:\s+is\s+there|\s+is\s+left|\s+do\s+i\s+(?:have|need)\s+to\s+do|\s+have\s+i\s+got)?)$",
    _F,
)


_THE_LIST = r"(?:(?:on|in)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?(?:list|todos|tasks)|on\s+there|on\s+it)"
