"""Todo frames: a clause about the todo list becomes one todo_store call (or one per todo named).

The frames, in the order they are tried:

- adding a result ("add the answer as a todo");
- questions about the list, read as a bag of words: a lead ("how many", "show", "what",
  "which") and then only words about todos and their state ("what do I still have to do",
  "which tasks are done", "how many open tasks do I have"). One word outside that vocabulary
  ("what is the weather", "how many calories") and it is not a todo question;
- emptying the list, also a bag of words, that must say *all* ("clear my list", "delete the
  completed ones", "remove everything I've finished"): a sweeping call, marked `confirm` so that
  a person approves it (PlanStep.confirm) even where rule plans are otherwise exempt;
- a todo by number ("mark #2 as done", "delete todo number 3");
- a statement and then a pronoun ("walked the dog already, check it off", "I have to renew my
  car insurance, add that to my todos", "never mind the haircut, delete that one");
- adding one or several todos ("add milk, eggs and bread to my list", "remind me to call the
  bank and to book flights", "add schedule a haircut");
- completing or deleting by text or by reference ("cross off buy milk", "call mom is done",
  "I finished the report", "get rid of the dentist todo", "mark it as done").

A todo named by text is sent as the user's words ("walked the dog", "the plumber call"):
todo_store finds the one todo they name, by exact text, by part of it, or by its words in any
form ("walked" is "walk"), and refuses a name that fits several. The planner never guesses which.
"""

from __future__ import annotations

import re
from dataclasses import replace

from agentrt.core import wordforms
from planner_svc.followups import TodoReference, looks_like_a_reference, todo_reference
from planner_svc.grammar import lexicon, normalize
from planner_svc.grammar.intent import RESULT_TEXT, SUMMARY, Intent

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
# The same, for the planner's reading of a report before an "it" command (rules._about_it).
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
    r"^(?:just\s+)?(?:show|tell|give|remind)\s+me\s+what\s+(?:i|we)\s+(?:have|got|have\s+got)(?:\s+so\s+far)?$|"
    r"^(?:everything|all|all\s+the\s+(?:todos|tasks|items))\s+(?:on|in)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?list$"
    r"|^(?:my\s+|the\s+|all\s+)?(?P<s>open|done|finished|completed|pending|remaining|outstanding)?\s*"
    r"(?:todos|tasks|to-dos|todo\s+list|task\s+list|list)$"
    # "I did the homework. anything else?": what is still open
    r"|^(?P<else>(?:is\s+there\s+|do\s+i\s+have\s+)?anything\s+else(?:\s+(?:left|to\s+do|on\s+(?:the|my)\s+list))?"
    r"|what\s+else(?:\s+is\s+there|\s+is\s+left|\s+do\s+i\s+(?:have|need)\s+to\s+do|\s+have\s+i\s+got)?)$",
    _F,
)


_THE_LIST = r"(?:(?:on|in)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?(?:list|todos|tasks)|on\s+there|on\s+it)"
# Whether a todo is there, asked by its name: the list answers it (and shows what else is there).
_IS_IT_THERE = [
    re.compile(p, _F)
    for p in (
        rf"^(?:is|are)\s+(?P<x>.+?)\s+(?:still\s+|already\s+)?{_THE_LIST}$",
        r"^did\s+(?:i|we|you)\s+(?:already\s+)?(?:add|put|write\s+down|save)\s+(?P<x>.+?)"
        r"(?:\s+(?:already|yet))?(?:\s+(?:to|on)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?(?:list|todos|tasks))?$",
        rf"^(?:do|did)\s+(?:i|we)\s+(?:still\s+)?(?:have|got)\s+(?:anything|something|a\s+{_NOUN})\s+"
        rf"(?:about|for|with|called|named|saying)\s+(?P<x>.+?)(?:\s+{_THE_LIST})?$",
        rf"^which\s+(?P<x>.+?)\s+(?:ones|{_NOUNS})\s+(?:have\s+i\s+got|do\s+i\s+have|are\s+there|are\s+{_THE_LIST})$",
        # a short name ("what was the dentist one again"), not a question about todos ("what's the
        # difference between deleting and completing a todo")
        rf"^what\s+(?:was|is)\s+the\s+(?P<x>(?!difference\b)\S+(?:\s+\S+){{0,2}})\s+(?:one|{_NOUN})(?:\s+again)?$",
        rf"^(?:does|do)\s+(?:my\s+|the\s+)?(?:todo\s+|to-do\s+)?(?:list|todos|tasks)\s+(?:have|include|contain)\s+"
        rf"(?:anything|something|a\s+{_NOUN})\s+(?:about|for|with|on)\s+(?P<x>.+?)$",
        # whether it is done: "did I call mom?", "is the rent paid?", "have I booked the vet yet?"
        # "did I tick off the dentist?": whether it is marked done
        r"^(?:did|have)\s+(?:i|we)\s+(?:already\s+)?(?:tick(?:ed)?|check(?:ed)?|cross(?:ed)?|mark(?:ed)?)\s+off\s+"
        r"(?P<x>.+?)(?:\s+(?:yet|already))?$",
        rf"^(?:did|have|has)\s+(?:i|we)\s+(?:already\s+|ever\s+)?(?P<x>(?:{'|'.join(sorted(lexicon.TODO_VERBS))}"
        rf"|{_PAST}|{_SIMPLE_PAST})\s.+?)(?:\s+(?:yet|already))?$",
        r"^(?:did|have|has)\s+(?:i|we)\s+(?:already\s+)?(?:done|finished|completed|ticked\s+off|crossed\s+off)\s+"
        r"(?P<x>.+?)(?:\s+(?:yet|already))?$",
        # whether it is still to do: "is the dentist thing still open?", "do I still need to call mom?"
        r"^(?:is|are)\s+(?:the\s+|my\s+)?(?P<x>.+?)\s+(?:still\s+)?(?:open|pending|outstanding|not\s+done|undone)$",
        r"^(?:do|does)\s+(?:i|we)\s+still\s+(?:need|have|got)\s+to\s+(?P<x>.+?)$",
        r"^(?:do|does)\s+(?:i|we)\s+(?:need|have|got)\s+to\s+(?P<x>.+?)\s+still$",
        rf"^(?:is|are|has|have)\s+(?:the\s+|my\s+)?(?P<x>.+?)\s+(?:been\s+)?(?:done|finished|completed|sorted"
        rf"|{_PAST}|paid|bought|sent|made|written|taken|booked)(?:\s+(?:yet|already))?$",
    )
]


def _is_it_there(clause: str) -> Intent | None:
    for pattern in _IS_IT_THERE:
        if (m := pattern.match(clause)) and _name(m.group("x")) and m.group("x").lower() not in _GENERIC:
            reasoning = f'"{clause}" asks about {m.group("x")!r}: the list shows whether it is there'
            return Intent(clause, "todo_store", {"action": "list"}, reasoning, SUMMARY)
    return None


# A question asked inside a request to answer it: "tell me if call mom is done" asks "is call mom
# done", "check what is done" asks "what is done".
_ASKED_INSIDE = re.compile(
    r"^(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?(?:tell\s+me|check|let\s+me\s+know|see|find\s+out)\s+"
    r"(?:(?:if|whether)\s+(?P<x>.+?)\s+(?P<be>is|are|has\s+been|have\s+been)\s+(?P<state>.+?)"
    r"|(?P<wh>(?:what|which|how\s+many)\s.+?))(?:\s+or\s+not)?$",
    _F,
)


_STATEMENT_ORDER = re.compile(
    r"^(?P<q>how\s+many(?:\s+\w+)?)\s+(?P<who>i|we)\s+(?P<verb>have|got|need)\b", _F
)


_FOR_A_TIME = re.compile(
    r"\s+(?:for\s+)?(?:today|tonight|this\s+(?:week|weekend|morning|afternoon|evening))(?:\s+(?:ugh|lol|then))?$",
    _F,
)


def _question(clause: str) -> Intent | None:
    """Counting or listing todos ("how many open tasks", "what's left", "show my done tasks")."""
    if (scoped := _FOR_A_TIME.sub("", clause)) != clause and (intent := _question(scoped)) is not None:
        # "how many things do i still have to do this week": the todos have no dates; the list is it
        return replace(intent, clause=clause)
    if m := _ASKED_INSIDE.match(clause):
        asked = m.group("wh") or f"{m.group('be')} {m.group('x')} {m.group('state')}"
        if intent := _question(asked):
            return replace(intent, clause=clause)
    if (asked := normalize.substituted(_STATEMENT_ORDER, r"\g<q> do \g<who> \g<verb>", clause)) != clause:
        # asked in a statement's order ("tell me how many i have"): "how many do i have"
        return None if (intent := _question(asked)) is None else replace(intent, clause=clause)
    if intent := _is_it_there(re.sub(r",?\s+or\s+not$", "", clause, flags=_F)):  # "did I finish X or not?"
        return intent
    if m := _TERSE_LIST.match(clause):  # "open tasks?", "my todos"
        state = (
            "open"
            if m.group("open") or m.group("else")
            else _state([m.group("s").lower()])
            if m.group("s")
            else None
        )
        arguments = {"action": "list", **({"state": state} if state else {})}
        return Intent(clause, "todo_store", arguments, f'"{clause}" lists the todos', SUMMARY)
    for lead, action in ((_COUNT_LEAD, "count"), (_SHOW_LEAD, "list")):
        if not (m := lead.match(clause)):
            continue
        rest = m.group("rest")
        if (
            action == "list"
            and re.fullmatch(r"\s*(?:me\s+)?(?:it|them)", rest, _F)
            and not clause.lower().startswith("what")
        ):
            rest = " list"  # "add X to my list, then show it"
        words = _bag(rest)
        if words is None:
            return None
        if not words and re.match(r"(?:todos?|tasks?)\s+|ls$", clause, _F):
            words = ["todos"]  # "todo ls", "tasks list": the list
        if (
            action == "list"
            and words
            and set(words) <= _ALL_WORDS
            and re.match(r"(?:ls|show|list|display|print)\b", clause, _F)
        ):
            words = ["todos"]  # "list all", "show everything": said to a todo list, all of it
        state = _state(words)
        if action == "list" and (
            ({"whole", "entire", "full"} & set(words) and "list" in words)
            or re.search(r"\bcomplete\s+(?:task\s+|todo\s+|to-do\s+)?list\b", rest, _F)
        ):
            state = None  # "show me the whole list, done stuff too": all of it (only ever to read)
        about_todos = any(w in _NOUN_WORDS for w in words) or state
        if state == "" or not about_todos:
            return None
        if (
            action == "list"
            and clause.lower().startswith(("what", "which", "any"))
            and not (
                state
                or set(words) & {"list", "todos", "tasks", "items", "todo", "reminders", "chores", "they"}
            )
        ):
            return None  # "what is everything": not a request for the list
        arguments = {"action": action, **({"state": state} if state else {})}
        which = f"{state} " if state else ""
        verb = "counts" if action == "count" else "lists"
        return Intent(clause, "todo_store", arguments, f'"{clause}" {verb} the {which}todos', SUMMARY)
    return None


_NARROWING = re.compile(r"^(?:but\s+)?(?:(?:just|only)\s+)?(?P<rest>(?:the|those)\s+.+)$", _F)


_KEPT = re.compile(r"^(?:but\s+|and\s+)?(?:leave|keep)\s+(?P<rest>.+?)(?:\s+(?:alone|as\s+they\s+are))?$", _F)


def narrowed(asked: Intent, clause: str) -> Intent | None:
    """A list or count that the next clause narrows to one state ("what's left? just the open
    ones", "show my todos, but only the ones I haven't done"): the same call with that state; None
    when the clause is not such a narrowing, or says another state than the question did."""
    if (
        asked.tool == "todo_store"
        and asked.arguments.get("action") == "delete_all"
        and (kept := _KEPT.match(clause))
    ):
        # "remove the completed tasks, but leave the open ones": what stays, said of the sweep
        words = _bag(kept.group("rest")) or []
        if not set(words) & _NOUN_WORDS or (state := _state(words)) not in ("open", "done"):
            return None
        other = "done" if state == "open" else "open"
        if asked.arguments.get("state", other) != other:
            return None  # "delete the done ones, but keep the done ones": which?
        joined = f"{asked.clause}, {clause}"
        return replace(
            asked,
            clause=joined,
            arguments={**asked.arguments, "state": other},
            reasoning=f'"{joined}" keeps the {state} todos and deletes the {other} ones (a person confirms)',
        )
    if asked.tool != "todo_store" or asked.arguments.get("action") not in ("list", "count") or asked.each:
        return None
    if not (m := _NARROWING.match(clause)) or (words := _bag(m.group("rest"))) is None:
        return None
    state = _state(words)
    if not state or not set(words) & _NOUN_WORDS or asked.arguments.get("state", state) != state:
        return None
    return replace(
        asked,
        clause=f"{asked.clause}, {clause}",
        arguments={**asked.arguments, "state": state},
        reasoning=f'"{asked.clause}, {clause}" {asked.arguments["action"]}s the {state} todos',
    )


_ALSO_LEAD = re.compile(r"^(?:and\s+)?also\s+|^(?:and\s+)?(?:plus|as\s+well\s+as)\s+", _F)


def also_added(asked: Intent, clause: str, joined_by: str) -> Intent | None:
    """An add that the next clause extends with one more task, said with "also" ("put wash car on
    the list, and also hoover the stairs"): the same add with that todo after the others. Only a
    task (a verb and what it acts on, no pronoun): "also" then repeats the request before it,
    as "add milk, and also eggs" does inside one clause."""
    if asked.tool != "todo_store" or asked.arguments.get("action") != "add" or asked.refers or asked.each:
        return None
    texts = asked.arguments.get("texts") or [asked.arguments.get("text")]
    if not all(isinstance(t, str) and t and t != RESULT_TEXT for t in texts):
        return None
    said = f"{joined_by.strip(' ,')} {clause}".strip()
    if not (m := _ALSO_LEAD.match(said)) or not a_task(task := _TOO.sub("", said[m.end() :]).strip()):
        return None
    if not task or _name(task) != task:  # only a task said plainly, nothing trimmed off its name
        return None
    joined = f"{asked.clause}, {said}"
    arguments = {"action": "add", "texts": [*texts, task]}
    return replace(
        asked, clause=joined, arguments=arguments, reasoning=f'"{joined}" adds {len(texts) + 1} todos'
    )


_SCOPE = frozenset(
    ["for", "from", "today", "that", "this", "these", "those", "now", "right", "moment", "only", "just"]
)
_IDIOMS = frozenset(
    ["cancel", "drop", "forget", "forget about", "reset", "take out", "scrap", "ditch", "nix", "trash",
     "discard", "strike out", "scratch", "lose", "bin"]
)  # fmt: skip
_LIST_WORDS = frozenset(["list", "todos", "todo", "tasks", "task", "items", "reminders", "chores", "entries"])


# "keep the open ones, bin the rest", "the done ones can stay, delete the rest", "delete everything
# but the done ones": the todos in the other state
_KEEP_THE_REST = re.compile(
    rf"^(?:(?:keep|leave)\s+(?P<kept>.+?)(?:\s+(?:alone|as\s+they\s+are))?|(?P<staying>.+?)\s+(?:can|may|should|will)\s+stay)"
    rf"\s*(?:,|;|\band\b|\bbut\b)\s*(?:then\s+|just\s+)?(?:{_alt(lexicon.CLEAR_VERBS)})\s+"
    r"(?:the\s+rest|everything\s+else|all\s+the\s+others|the\s+others|all\s+the\s+rest)$"
    rf"|^(?:{_alt(lexicon.CLEAR_VERBS)})\s+(?:everything|all(?:\s+of\s+them)?|all\s+the\s+(?:todos|tasks|items))\s+"
    r"(?:but|except(?:\s+for)?|apart\s+from|other\s+than)\s+(?P<but>.+?)$",
    _F,
)


# The todos in a state said by what the speaker did: "what I haven't finished", "whatever I've done"
_WHAT_I_DID = re.compile(
    r"^(?:only\s+|just\s+)?(?:what|whatever|the\s+ones?|those|the\s+stuff|the\s+things)\s+(?:i|we)\s+"
    r"(?:have\s+|had\s+)?(?P<not>not\s+|never\s+|still\s+not\s+)?(?:yet\s+)?(?:finished|done|completed|ticked\s+off)"
    r"(?:\s+yet)?$",
    _F,
)


def _keep_the_rest(clause: str) -> Intent | None:
    """A sweep of the todos in one state, said by the state kept ("keep the open ones, bin the rest")."""
    if not (m := _KEEP_THE_REST.match(clause)):
        return None
    kept = m.group("kept") or m.group("staying") or m.group("but")
    words = _bag(kept)
    if said := _WHAT_I_DID.match(kept.strip()):  # "keep only what I haven't finished"
        state = "open" if said.group("not") else "done"
    elif not words or not {"ones", "todos", "tasks", "items", "things", "stuff"} & set(words):
        return None  # "keep milk, delete the rest": a todo kept by its name, not a state
    else:
        state = _state(words)
    if state not in ("open", "done"):
        return None
    other = "done" if state == "open" else "open"
    reasoning = f'"{clause}" keeps the {state} todos and deletes all the {other} ones (a person confirms it)'
    return Intent(
        clause, "todo_store", {"action": "delete_all", "state": other}, reasoning, SUMMARY, confirm=True
    )


_ALL_OF_THEM = frozenset(["all of them", "them all", "all of it", "it all"])
_ALL_AGAIN = re.compile(
    r"^(?P<sweep>.+?)\s*[,-]?\s+(?:every\s+(?:single\s+)?(?:one|todo|task|item)(?:\s+of\s+them)?|all\s+of\s+them"
    r"|each\s+and\s+every\s+one(?:\s+of\s+them)?|the\s+lot|everything)$",
    _F,
)


def _clear(clause: str) -> Intent | None:
    """Deleting every todo, or every open or done one: only when the words say all of them."""
    if sweep := _keep_the_rest(clause):
        return sweep
    if not (m := _CLEAR_LEAD.match(clause)):
        return None
    words = _bag(
        re.sub(
            r"\b(?:from|off|on)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?list\b",
            " list",
            re.sub(
                r"\b(?:that|which|(?P<all>what|whatever))(?:\s+is|\s+are|\s+have\s+been|\s+has\s+been|'s)\b",
                lambda said: " all " if said.group("all") else "",  # "delete whatever is done": all of it
                m.group("rest"),
                flags=_F,
            ),
            flags=_F,
        )
    )
    if words is None and re.fullmatch(r"\s*it\s+all\s*", m.group("rest"), _F):
        words = ["all"]  # "nuke it all", "delete it all": all of it
    if words is None or not words or _SCOPE & set(words) or _PRONOUNS & set(words):
        return None  # "delete all the todos for today" says which, and the tool cannot tell them apart
    verb = " ".join(m.group("verb").lower().split())
    if verb in _IDIOMS and not _LIST_WORDS & set(words) and _state(words) is None:
        return None  # "cancel everything", "forget all that": not about the list unless it says so
    state = _state(words)
    if state == "":
        return None
    plural = any(
        w in ("todos", "tasks", "items", "things", "ones", "reminders", "entries", "chores") for w in words
    ) or ("stuff" in words and state is not None)  # "clean up the done stuff"; "clear my stuff" is vague
    sweeping = (
        bool(_ALL_WORDS & set(words))
        or (verb in _EMPTYING and ("list" in words or plural))
        or (plural and state is not None)
        or (verb in _EMPTYING and state is not None)
        # "delete done", "remove the done"
        or ([w for w in words if w != "the"] in (["done"], ["finished"], ["completed"]) and state == "done")
    )
    if not sweeping or not (plural or state or {"list", "everything", "all", "every"} & set(words)):
        return None
    arguments = {"action": "delete_all", **({"state": state} if state else {})}
    which = f"{state} " if state else ""
    reasoning = f'"{clause}" deletes all the {which}todos (a person confirms it)'
    return Intent(clause, "todo_store", arguments, reasoning, SUMMARY, confirm=True)


# --- by number --------------------------------------------------------------------------------

_ID = (
    rf"(?:(?:the\s+)?{_NOUN}\s*)?(?:number\s+|no\.?\s*|#)?"
    rf"(?P<id>\d+|{'|'.join(w for w in lexicon.SMALL_NUMBERS if w != 'zero')})"
)
_OFF_THE_LIST = r"(?:from|off)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?list"
_BY_ID = [
    # "todo number 1 is done", "#3's done", "item two is finished"
    (
        re.compile(
            rf"^{_ID}(?:'s|\s+is|\s+has\s+been)\s+(?:now\s+)?(?:done|complete|completed|finished)$", _F
        ),
        "complete",
    ),
    (re.compile(rf"^(?:mark|set)\s+{_ID}\s+(?:as\s+)?(?:done|complete|completed|finished)$", _F), "complete"),
    # "#4 done", "todo 2: finished"
    (re.compile(rf"^{_ID}\s*[:\-]?\s*(?:done|complete|completed|finished)$", _F), "complete"),
    (re.compile(rf"^(?:complete|finish|check\s+off|tick\s+off|cross\s+off|close)\s+{_ID}$", _F), "complete"),
    # "finished number 3", "I did todo 2"
    (
        re.compile(
            rf"^(?:i\s+(?:have\s+)?)?(?:finished|completed|did|done|done\s+with|am\s+done\s+with)\s+{_ID}$",
            _F,
        ),
        "complete",
    ),
    (re.compile(rf"^(?:{_alt(lexicon.DELETE_VERBS)})\s+{_ID}(?:\s+{_OFF_THE_LIST})?$", _F), "delete"),
]


# "remove #2 and #4", "delete todos 2, 3 and 5", "mark #1 and #3 done": several by number.
_IDS = r"(?P<ids>#?\d+(?:\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)#?\d+)+)"
_NOUNS_NAMED = rf"(?:(?:the\s+)?{_NOUN}s?\s+(?:numbers?\s+)?)?"
_BY_IDS = [
    (re.compile(rf"^(?:{_alt(lexicon.DELETE_VERBS)})\s+{_NOUNS_NAMED}{_IDS}$", _F), "delete"),
    (
        re.compile(
            rf"^(?:mark|set)\s+{_NOUNS_NAMED}{_IDS}\s+(?:as\s+)?(?:done|complete|completed|finished)$", _F
        ),
        "complete",
    ),
    (
        re.compile(
            rf"^(?:complete|finish|check\s+off|tick\s+off|cross\s+off|close|(?:i\s+(?:have\s+)?)?(?:finished|completed"
            rf"|did|done\s+with))\s+{_NOUNS_NAMED}{_IDS}$",
            _F,
        ),
        "complete",
    ),
]


def _by_ids(clause: str) -> Intent | None:
    for pattern, action in _BY_IDS:
        m = pattern.match(clause)
        # Numbers alone need a todo word or "#": "delete 2 and 4" might not mean todos.
        if m and (m.group("ids").count("#") >= 2 or re.search(rf"\b{_NOUN}s?\b", clause, _F)):
            ids = [int(i) for i in re.findall(r"\d+", m.group("ids"))]
            if len(set(ids)) != len(ids):
                return None
            reasoning = f'"{clause}" {action}s todos {", ".join(map(str, ids))}'
            return Intent(clause, "todo_store", {"action": action}, reasoning, SUMMARY, each=tuple(ids))
    return None


def _by_id(clause: str) -> Intent | None:
    if (several := _by_ids(clause)) is not None:
        return several
    for pattern, action in _BY_ID:
        m = pattern.match(clause)
        # A bare number needs a todo word or "#": "delete 3" might not mean todo #3.
        if m and (re.search(rf"#|\b{_NOUN}\b|\bnumber\b|\bno\b|{_OFF_THE_LIST}", clause, _F)):
            word = m.group("id").lower()
            todo_id = int(word) if word.isdigit() else lexicon.SMALL_NUMBERS[word]
            return Intent(
                clause,
                "todo_store",
                {"action": action, "id": todo_id},
                f'"{clause}" {action}s todo {todo_id}',
                SUMMARY,
            )
    return None


# --- a statement, then a pronoun -------------------------------------------------------------

_PRONOUN = (
    r"(?P<ref>it|that|this|(?:that|this)\s+(?:one|todo|task|item|reminder)|them|those|these|both|both\s+of\s+them|them\s+both"
    r"|them\s+all)"
)
_ACTIONS = [
    (rf"(?:check|tick|cross|mark|strike)\s+{_PRONOUN}\s+off(?:\s+{_MY}{_LIST})?", "complete"),
    (rf"(?:mark|set)\s+{_PRONOUN}(?:\s+(?:as\s+)?(?:done|complete|completed|finished))?", "complete"),
    (rf"(?:complete|finish|close)\s+{_PRONOUN}", "complete"),
    (
        rf"make\s+{_PRONOUN}\s+(?:as\s+)?(?:done|complete|completed|finished)",
        "complete",
    ),  # a learner's "mark"
    (rf"(?:put|set|mark)\s+{_PRONOUN}\s+as\s+(?:done|complete|completed|finished)", "complete"),
    (rf"(?:tick|check)\s+{_PRONOUN}", "complete"),
    (rf"(?:so\s+)?{_PRONOUN}\s+is\s+(?:done|finished|sorted|complete)", "complete"),
    (rf"bin\s+{_PRONOUN}", "delete"),
    (rf"(?:{_alt(lexicon.DELETE_VERBS)})\s+{_PRONOUN}(?:\s+(?:off|from)\s+{_MY}{_LIST})?", "delete"),
    (rf"take\s+{_PRONOUN}\s+off(?:\s+{_MY}{_LIST})?", "delete"),
    (
        rf"(?:add|put|save|note|write|jot|stick)\s+{_PRONOUN}(?:\s+down)?"
        rf"(?:\s+(?:as\s+an?\s+{_NOUN}|{_TO_LIST}))?",
        "add",
    ),
]
_ANY_ACTION = "|".join(a.replace("(?P<ref>", "(?:") for a, _ in _ACTIONS)  # one group named ref per pattern
_MENTION_ACTION = re.compile(
    rf"^(?P<said>.+?)(?P<sep>\s*[,:\-.!]\s*|\s+(?=(?:check|tick|cross)\s+(?:it|that)\s+off|(?:mark|tick)\s+(?:it|that)(?:\s+(?:off|done|as\s+done))?$))(?:(?:so|please|kindly|now|just|and|ok|okay|can\s+you|could\s+you|you\s+can|would\s+you)\s+)*"
    rf"(?P<action>{_ANY_ACTION})$",
    _F,
)
_ACTION_KIND = [(re.compile(rf"^(?:{a})$", _F), kind) for a, kind in _ACTIONS]
_SAID = {
    "add": [
        r"(?:i\s+)?(?:really\s+)?(?:need|have|want|got|ought|must|should|gotta)(?:\s+to)?(?:\s+remember\s+to)?\s+(?P<x>.+)",
        r"(?:do\s+not|never)\s+(?:let\s+me\s+)?forget\s+to\s+(?P<x>.+)",
        r"(?:remember|remind\s+me)\s+to\s+(?P<x>.+)",
    ],
    "complete": [
        r"(?:i\s+)?(?:have|has)\s+finish\s+(?P<x>.+?)",  # "I have finish the homework": a learner's perfect
        # "don't delete the dentist one, just mark it done": the todo not to delete is the one meant
        r"(?:please\s+)?(?:do\s+not|don't|dont)\s+(?:delete|remove)\s+(?P<x>.+?)",
        # "finally got my taxes done, tick it": what was got done ("got" is no part of its name);
        # "got the car washed": the car, washed (todo_store finds "wash the car" by those words)
        r"(?:i\s+|we\s+)?(?:finally\s+|just\s+)?got\s+(?P<x>.+?)\s+(?:done|sorted|finished|out\s+of\s+the\s+way)",
        rf"(?:i\s+|we\s+)?(?:finally\s+|just\s+)?(?:got|had)\s+(?P<x>[^,]+?\s+{_PAST})",
        r"(?:i\s+|we\s+)?(?:finally\s+|just\s+)?managed\s+to\s+(?P<x>[^,]+?)",  # "I managed to fix the alarm"
        r"(?:i\s+)?(?:have\s+|just\s+|already\s+|finally\s+)*(?:done|did|finished|completed)\s+(?P<x>.+?)"
        r"(?:\s+(?:already|now|today|just\s+now))?",
        rf"(?:i\s+|we\s+)?(?:have\s+)?(?:just\s+|already\s+|finally\s+|now\s+)?(?P<x>{_PAST}\s.+?|(?:{_SIMPLE_PAST})\s.+?)"
        r"(?:\s+(?:already|now|today|just\s+now))?",
        r"(?P<x>.+?)\s+(?:is|are)\s+(?:now\s+|all\s+|already\s+)?(?:done|finished|completed|sorted)",
        rf"(?P<x>[^,]+?\s+(?:{_PAST}|bought|paid|sent|made|done|fed|found|sold))",  # "batteries bought!"
    ],
    "delete": [
        r"(?:i\s+)?(?:do\s+not|no\s+longer|will\s+not|am\s+not\s+going\s+to)\s+(?:need|have|want)\s+to\s+(?P<x>.+?)"
        r"(?:\s+any\s?more)?",
        r"(?:i\s+)?(?:do\s+not|no\s+longer)\s+need\s+(?P<x>.+?)(?:\s+any\s?more)?",
        r"(?:forget(?:\s+about)?|never\s*mind(?:\s+about)?|scratch|skip)\s+(?P<x>.+)",
        r"(?:i\s+|we\s+)?(?:have\s+|am\s+)?(?:give|gave|given|giving)\s+up\s+on\s+(?P<x>.+)",
        r"(?:i\s+am\s+|we\s+are\s+)?not\s+(?:bothering|going\s+ahead)\s+with\s+(?P<x>.+)",
        r"(?:the\s+)?(?P<x>.+?)(?:'s|\s+(?:is|are|has\s+been|was|got))\s+(?:cancell?ed|off|called\s+off|not\s+happening)",
    ],
}
_SAID_COMPILED = {kind: [re.compile(rf"^(?:{p})$", _F) for p in patterns] for kind, patterns in _SAID.items()}
# ("... and rung Margaret": a participle after "have" says it too)
# (not "forgotten": "... and forgotten the milk" is not done)
_PARTICIPLE = "|".join(
    sorted(
        set(wordforms.IRREGULAR) - set(wordforms.PAST_TENSE) - {"forgot", "forgotten"}, key=len, reverse=True
    )
)
_PAST_AND = re.compile(rf"\s+and\s+(?=(?:{_PAST}|{_SIMPLE_PAST}|{_PARTICIPLE})\b)", _F)


_ASIDE_FIRST = re.compile(
    r"^(?:(?:never\s*mind|oh\s+well|ok(?:ay)?|so|well|yeah|yep|yes|right|alright)\s*,?\s+)+(?=i\s|we\s)", _F
)


def pronoun_action(clause: str) -> bool:
    """Whether `clause` only acts on "it", "that" or "both" ("add it to my list", "cross it off"):
    a sentence like that may be read with the one before it, which names what it means."""
    return any(p.match(clause) for p, _ in _ACTION_KIND)


_TIME_SAID = re.compile(
    r"\s+(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|week|weekend)|next\s+week|asap)$", _F
)


def _with_when(name: str, said: str) -> str:
    """`name` with the time it was said with, when _name trimmed only that ("take bins out tonight"):
    a report's "today" says when it was done, but a todo's says when to do it."""
    said = " ".join(said.split())
    rest = said[len(name) :] if said.startswith(name) else ""
    return said if rest and _TIME_SAID.fullmatch(rest) else name


# "that's already paid", "that one's done": a pointer to something said before, no name
_ONLY_A_POINTER = re.compile(
    r"^(?:that|this|it|those|these|they|that\s+one|this\s+one)(?:'s|\s+(?:is|are|was|were|has|have))?\b", _F
)


def _mentioned(clause: str) -> Intent | None:
    """ "walked the dog already, check it off": the statement names the todo the pronoun means."""
    if not (m := _MENTION_ACTION.match(clause)):
        return None
    if not m.group("sep").strip() and re.search(r"[.!?;]", m.group("said")):
        return None  # "... the council. Kindly mark it as done": a sentence ended before the command
    action = m.group("action")
    kind, ref = next(
        (k, " ".join(f.group("ref").lower().split())) for p, k in _ACTION_KIND if (f := p.match(action))
    )
    # "nvm, I don't need to buy the cake anymore, remove it": what is said after the aside
    statement = _ASIDE_FIRST.sub("", m.group("said"))
    if _CONDITION_FIRST.match(statement):
        return None  # "once the essay is done, tick it off": nothing has happened yet
    said = next((x.group("x") for p in _SAID_COMPILED[kind] if (x := p.match(statement))), None)
    if said is None and m.group("sep").strip() in ("-", ":") and starts_a_task(m.group("said")):
        said = m.group("said")  # "practice spanish - bin it": the name, then what to do with it
    if said is None and kind == "add" and starts_a_task(m.group("said")):
        said = m.group("said")  # "Sign up for the 10k race. Put that on my list."
    if said is None or said.split()[0].lower() in _PURE_COMMANDS:
        return None  # "add buy milk - mark it done": a request, then another; no todo called "add ..."
    if _ONLY_A_POINTER.match(said):
        return None  # "that's already paid, tick it": "that" names nothing here
    if kind == "add":
        parts = (
            (_items(said) or [said])
            if ref in ("them", "those", "these", "both", "them both", "them all")
            else [said]
        )
    else:
        parts = _PAST_AND.split(said)
    texts = [t for t in (_name(p) for p in parts) if t]
    if kind == "add" and len(texts) == len(parts):  # "take bins out tonight - add it": when is part of it
        texts = [_with_when(t, p) for t, p in zip(texts, parts, strict=True)]
    reference = todo_reference(ref)
    wanted = reference.count if reference is not None else None
    if len(texts) != len(parts) or (wanted is not None and wanted != len(texts)):
        return None  # "I did A and B, mark it done": "it" is one, the statement names two
    # A statement and its pronoun are one clause: rules.plan must not take the statement alone
    # ("forget about calling the bank" is a delete of its own) and leave "delete it" unbound.
    made = _adding(clause, texts) if kind == "add" else _each(clause, kind, texts)
    return None if made is None else replace(made, weight=len(parts) + 2)


# --- adding -----------------------------------------------------------------------------------

_HEADER = (
    # "add everything for the party: balloons, cake": what the list is for, then the list
    r"(?:everything\s+(?:i\s+need\s+)?for\s+(?:the|my|our)\s+[a-z]+(?:\s+[a-z]+)?\s*(?=:))?"
    r"(?:(?:these|the\s+following|some|one\s+more|another|a\s+few)\s*)?"
    rf"(?:(?P<n>\d+|{'|'.join(lexicon.SMALL_NUMBERS)})\s*)?(?:more\s+)?(?:new\s+)?(?:for\s+me\s*)?"
)
_ADD_MANY = re.compile(
    rf"^(?:(?:todos?|tasks?)\s+add|add|create|make|new|put|note|(?:todos?|tasks?)(?=\s*:))\s*{_HEADER}(?:{_NOUNS}|{_NOUN}s?)?(?:\s+please)?(?:\s*{_TO_LIST})?(?:\s+please)?"
    r"\s*(?::(?!\d)|-)\s*(?P<list>.+)$",  # not the colon of a time ("add 7:30 yoga")
    _F,
)
_ADD_VERB = _alt([v for v in lexicon.ADD_VERBS if v not in ("new", "make", "create", "set up")])
_ADD = [
    re.compile(
        rf"^(?:{_ADD_VERB}|create|make)\s+(?P<text>.+?)\s+(?:{_TO_LIST}|as\s+(?:an?\s+|new\s+)+{_NOUN})$", _F
    ),
    re.compile(rf"^(?:{_ADD_VERB})\s+{_TO_LIST}\s*:?\s+(?P<text>.+)$", _F),
]
_ADD_ONE = re.compile(
    rf"^(?:add|create|make|put|insert|record|new|set\s+up|save|(?:jot|note|write|put)\s+down)\s+"
    rf"(?:(?P<det>(?:(?:a|an|one|new|another|the)\s+)*){_NOUN}(?:\s+item)?(?:\s+for\s+(?:me|us)(?=\s*[:\-]))?"
    r"|this(?=\s*[:\-]))(?P<conn>\s*[:\-]\s*|(?:\s+please)?\s*,?\s+(?:it\s+is|it\s+says|which\s+is|namely)\s+"
    r"|\s+(?:to|for|that\s+says|saying|that|called|named|about|reading)\s+|\s+)(?P<text>.+)$",
    _F,
)
_WITH_TEXT = re.compile(r"with\s+(?:the\s+)?(?:text|words|name|title|description)\s*:?\s+(?P<text>\S.*)$", _F)
_REMIND = re.compile(
    r"^(?:remind\s+me\s+(?:to|that\s+i\s+(?:need|have)\s+to)|(?:do\s+not|never)\s+let\s+me\s+forget\s+to"
    r"|do\s+not\s+forget\s+to|(?:(?:i|we)\s+)?(?:(?:need|have|must|should|want)\s+(?:to\s+)?)?remember\s+to"
    # "don't forget bread": the thing itself, to remember (not "don't forget the milk one": that
    # names a todo there is)
    rf"|(?:do\s+not|never)\s+(?:let\s+me\s+)?forget(?:\s+the)?(?=\s+(?!to\b|about\b)(?!.*\s(?:one|{_NOUN})$)))"
    r"\s+(?P<text>.+)$",
    _F,
)
# An add, where it goes, then one more for it ("add milk to my list and eggs too", "put call Dad on
# the list, and buy cat food too"): both go there, as when where they go is said last.
_AND_ONE_MORE_TOO = re.compile(
    rf"^(?P<verb>add|put)\s+(?P<a>.+?)\s+(?P<dest>{_TO_LIST}),?\s+(?:and|plus)\s+(?:(?P<also>also)\s+)?"
    r"(?P<b>.+?)(?P<too>,?\s+(?:too|as\s+well))?$",
    _F,
)
_TO_LIST_INSIDE = re.compile(rf"\s{_TO_LIST}", _F)
# The rewrite reads the add again: a long message of "... to my list plus ..." would be read once
# per "plus" (quadratic); a request of one more is short.
_MAX_ONE_MORE_CHARS = 300
# Where an add inside a todo puts something ("add oil to the car", "add salt into the soup").
_ADDED_TO = re.compile(r"\s(?:to|into|in|onto|on)\s+\S", _F)
# A clause that starts by asking to add ("add ...", "jot down ..."); rules.py reads prompts by it too.
ADD_FIRST = re.compile(r"^(?:add|put|jot\s+down|note\s+down|write\s+down)\s", _F)
_TODO_VERB_FIRST = re.compile(
    rf"^(?:new\s+)?{_NOUN}\s+(?P<text>(?:{'|'.join(sorted(lexicon.TODO_VERBS))})\s.+)$", _F
)
_NOTE = re.compile(  # "todo: buy milk", "list: ...", "on the list please: ..."
    rf"^(?:(?:new\s+)?(?:{_NOUN}|list)|(?:on|onto|to)\s+{_MY}{_LIST})(?:\s+(?:please|pls))?\s*:\s*(?P<text>.+)$",
    _F,
)
_NEEDED = [  # "need coffee beans on the list", "book the vet needs to go on the list"
    re.compile(rf"^(?:i\s+|we\s+)?need\s+(?!to\b)(?P<text>.+?)\s+{_TO_LIST}$", _F),
    re.compile(rf"^(?P<text>.+?)\s+(?:needs|need|has|have)\s+to\s+go\s+{_TO_LIST}$", _F),
]
_TIMER = re.compile(r"\bin\s+(?:\d+|a|an|half\s+an)\s+(?:minutes?|mins?|hours?|hrs?|seconds?|secs?)\b", _F)
_NO_ALARM = "(Its time is kept in its text: the todo list sends no reminder at a time.)"
_CLOCK = re.compile(
    r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\bat\s+\d{1,2}(?::\d\d)?\b|\bo'clock\b|\b(?:at|by)\s+(?:noon|midnight)\b"
    r"|\bin\s+\d+\s+(?:minutes?|hours?)\b",
    _F,
)
# What a todo's text never has: a second request to the assistant ("add X and tell me if it will
# be sunny"), and for one that does not start with a verb, a destination or a number ("add milk
# to cart", "add tax to 100", "add a 15% tip"), a pronoun or a generic word ("add another one").
_ASKS = re.compile(
    r"\b(?:tell|show|give|send|email|text)\s+(?:me|us|him|her|them)\b|\blet\s+me\s+know\b"
    r"|\band\s+(?:then\s+)?(?:what|how|which|when|where|why|is|are|will|can|could|would|do|does)\b"
    r"|\band\s+(?:then\s+)?(?:mark|delete|remove|show|list|tell|count|clear|cross|tick)\s+(?:it|them|that|my|the|me|all)\b"
    # "finish the report" is a chore after "add" (_weighed); "finish it" is a request
    r"|\band\s+(?:then\s+)?(?:complete|finish)\s+(?:it|them|that|all)\b"
    r"|,\s*i\s",
    _F,
)
_NOT_A_THING = re.compile(
    r"\s(?:to|into|onto)\s|\d|%|\b(?:it|that|this|them|me|us|him|her|result|answer|numbers?|another|one|task|"
    r"todo|reminder|item|tomorrow|today|tonight|later|soon|something|anything|stuff)\b",
    _F,
)
# A date or a clock time in a todo's name: "on 12/03", "at 9:30", "7:30", "at 6pm".
# Not a bare "1/2" or "7.30": those are numbers to compute ("add 1/2 and 1/4").
_WHEN = re.compile(
    # "10-11am": a span of the clock
    r"(?:\b(?:at|by|from)\s+)?\b\d{1,2}(?::\d\d)?\s*(?:-|to)\s*\d{1,2}(?::\d\d)?\s*[ap]\.?m\.?(?![\d/])|"
    r"(?:\b(?:at|by|from)\s+)?(?:\b\d{1,2}:\d\d(?:\s*[ap]\.?m\.?)?|\b\d{1,2}(?:\.\d\d)?\s*[ap]\.?m\.?)(?![\d/])"
    r"|\bon\s+\d{1,2}/\d{1,2}(?:/\d{2,4})?(?![\d/])|\bat\s+\d{1,2}(?:\.\d\d)?\b(?![\d/%.])"
    r"|\b(?:on|for|by|this|next)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b",  # "dentist appt for friday"
    _F,
)
_INSIDE_TO_LIST = re.compile(rf"\s{_TO_LIST}\b", _F)
_BARE_ADD = re.compile(r"^(?:add|jot\s+down|note\s+down|write\s+down|put\s+down)\s*:?\s+(?P<text>.+)$", _F)
# A destination that is not the todo list: "add a meeting to my calendar" is not a todo.
_ELSEWHERE = re.compile(
    r"\s(?:to|on|onto|in|into)\s+(?:my|the|our|your|a)\s+(?:(?:work|home|family|google|outlook|shared|phone)\s+)?"
    r"(?:calendar|schedule|agenda|diary|planner|cart|basket|playlist|contacts|address\s+book|notes|email|e-mail|inbox"
    r"|document|doc|file|spreadsheet|sheet|order|favou?rites|bookmarks|wish\s*list|reading\s+list|watch\s*list"
    r"|blog|website|group|chat|channel|account|budget)\b"
    # someone else's list: "add 'buy flowers' to my wife's list", "put it on her list"
    r"|\s(?:to|on|onto|in|into)\s+(?:(?:my|our|the)\s+)?(?:[\w-]+'s?|his|her|their|your)\s+(?:(?:todo|to-do|shopping)\s+)?"
    r"(?:list|todos|tasks)\b",
    _F,
)
# An earlier result named as a noun phrase: "the answer", "that total", "the per-person amount".
# Only these words before the noun: "the phone number" is a todo's name, not a result.
_RESULT_MODIFIER = (
    r"(?:per[- ]person|per[- ]head|each|final|resulting|calculated|new|exact|rounded|split|tip|total|grand"
    r"|overall|whole|monthly|weekly|daily|yearly|annual|hourly)"
)
_RESULT_NOUN = r"(?:result|answer|value|number|amount|total|sum|figure|product|share)"
_RESULT_PHRASE = (
    rf"(?:the|that|this|my|our|your)\s+(?:{_RESULT_MODIFIER}\s+)?(?:{_RESULT_NOUN}|tip|outcome|cost|price)"
    r"(?:\s+(?:per\s+(?:person|head)|each))?"
)
# What "add" is followed by when it is not a todo: a number ("add 3 and 4"), a reference ("add it
# to 5"), or a destination with no todo named ("add to my list").
# Where a chore is done, not where the entry goes: "fix the button on the website", "update the
# totals in the spreadsheet". Only after a verb of a chore (never a calendar, a cart or a list,
# where "add call mom to my calendar" would be put).
_WORKPLACE = re.compile(
    r"^\s(?:on|in)\s+(?:my|the|our|your|a)\s+(?:(?:work|home|family|google|shared)\s+)?"
    r"(?:website|blog|document|doc|file|spreadsheet|sheet|account|budget|group|chat|channel|inbox|email)\b",
    _F,
)


def _elsewhere(text: str) -> bool:
    """Whether the text of an add says it goes somewhere other than the todo list."""
    first = (text.split(maxsplit=1) or [""])[0].lower()
    chore = first in lexicon.TODO_VERBS and first not in _PURE_COMMANDS | {"put", "save", "write", "note"}
    return any(not (chore and _WORKPLACE.match(m.group())) for m in _ELSEWHERE.finditer(f" {text}"))


_NOT_A_TODO_START = re.compile(
    rf"^[-+(]?\d|^(?:up|it|that|this|them|the\s+(?:{_RESULT_MODIFIER}\s+)?(?:{_RESULT_NOUN}|tip))\b"
    r"|^(?:to|on|onto|in|into)\s",
    _F,
)
_NOT_TIME = [u for u, (kind, _) in lexicon.UNITS.items() if kind != "time"]
# "add 3 apples", "add 2 kg rice", "add 6 x eggs": how many of a thing, the one number said (with
# two, "add 3 apples and 4 pears" may be a sum to work out; a time, "add 45 minutes", is one to
# add to another). What follows the number is a word that is no unit, currency or operation.
_NO_THING_WORDS = (
    r"(?:and|to|plus|minus|times|more|less|extra|percent|pct|per|from|onto|by|each|of|on|in|or|x|%"
    r"|for|as|also|again|instead|then|too|the|a|an|it|that|this|squared|cubed|off|up|down|left|over"
    # what is added to a sum, never a thing to buy: "add 20 tip", "add 5 quid", "add 3 hundred"
    r"|tips?|fees?|deposits?|tax|vat|gst|interest|discount|delivery|shipping|postage|rent|change|bonus"
    r"|quid|pence|p|grand|k|gbp|usd|eur|aud|cad|inr|rupees?|yen|bucks|cents?"
    rf"|{'|'.join(lexicon.UNITS)}|{'|'.join(lexicon.CURRENCY_WORDS).replace(' ', '[ ]+')}"
    rf"|{'|'.join([*lexicon.SMALL_NUMBERS, *lexicon.TENS, *lexicon.SCALES, *lexicon.ORDINALS])}"
    r"|st|nd|rd|th|dozen|half|quarter|more)\b"
)
_A_QUANTITY_OF = re.compile(
    rf"(?P<n>\d+(?:\.\d+)?|a\s+dozen)(?:\s*(?:x\s*)?(?:{'|'.join(_NOT_TIME)}|dozen|packs?|bags?|boxes|box|cans?|"
    r"bottles?|jars?|loaf|loaves|bunch(?:es)?|cartons?|tins?|rolls?|tubs?|pairs?)\.?\s+(?:of\s+)?|\s+(?:x\s+)?)"
    rf"(?!{_NO_THING_WORDS})[a-z][a-z'-]+(?:\s+(?!\d)[\w'-]+){{0,4}}",
    _F,
)
# A quoted name, apostrophes inside its words included ('don't forget the keys').
_IN_QUOTES = r"(?:[^']|(?<=[A-Za-z])'(?=[A-Za-z]))+"
_QUOTE = rf"(?:'{_IN_QUOTES}'|\"[^\"]+\")"
_QUOTED_NAME = re.compile(rf"'({_IN_QUOTES})'|\"([^\"]+)\"")
_CALLED = r"(?:called|named|saying|that\s+says)\s+"
# Between two quoted names: "and", "and another one called", ", plus a todo named".
_NEXT_QUOTE = (
    rf"\s*(?:,\s*|\s(?:and|&|plus|as\s+well\s+as)\s+)?(?:also\s+)?(?:(?:another|one\s+more|a\s+second|a\s+new)"
    rf"(?:\s+one|\s+{_NOUN})?\s+)?(?:{_CALLED})?"
)
_QUOTED_ADD = re.compile(
    rf"^(?:add|put|stick|pop|write\s+down|jot\s+down|note\s+down|save|create|make)\s+(?:(?:a|an|the)\s+)?(?:new\s+)?"
    rf"(?:{_NOUN}s?\s*:?\s+(?:{_CALLED})?)?(?P<quoted>{_QUOTE}(?:{_NEXT_QUOTE}{_QUOTE})*)"
    rf"(?:\s+{_TO_LIST})?(?:\s+as\s+(?:one|a\s+single|a|an)\s+(?:{_NOUN}|thing))?$",
    _F,
)
# Two quoted names run together ("call mom' and another one called 'call the dentist"): never one
# todo's text.
_QUOTES_APART = re.compile(r"\S['\"]\s.*\s['\"]\S")
_TODO_ADD_RESULT = [
    re.compile(
        rf"^(?:add|create|make|put|record|save)\s+(?:(?:a|an|one|new|another)\s+)*{_NOUN}(?:\s+item)?\s+"
        rf"(?:with|containing|for|of|saying|that\s+says|about)\s+(?P<ref>{_RESULT_PHRASE}"
        r"|that|it|this)$",
        _F,
    ),
    re.compile(
        rf"^(?:add|put|save|record|write|stick|note)\s+(?P<ref>{_RESULT_PHRASE}|that|it"
        rf"|this)\s+(?:down\s+)?(?:{_TO_LIST}|(?:{_TO_LIST}\s+)?as\s+(?:(?:a|an|one|new|another)\s+)*{_NOUN}(?:\s+item)?)$",
        _F,
    ),
    # "what's 12 squared? add it", "jot that down": after a calculation, nothing else to add it to
    re.compile(
        rf"^(?:(?:add|save|record)\s+(?P<ref>{_RESULT_PHRASE}|that|it|this)"
        rf"|(?:jot|note|write|put)\s+(?P<down>{_RESULT_PHRASE}|that|it|this)"
        r"\s+down)$",
        _F,
    ),
    re.compile(
        rf"^(?:make|turn)\s+(?P<ref>{_RESULT_PHRASE}|that|it|this)\s+(?:into\s+)?"
        rf"(?:(?:a|an|one|new|another)\s+)*{_NOUN}$",
        _F,
    ),
]
# "some things: a, b": the words that announce a list are not its first item.
_ITEMS_HEADER = re.compile(
    rf"^(?:(?:these|the\s+following|some|a\s+few|\d+|{'|'.join(lexicon.SMALL_NUMBERS)})\s*)?(?:new\s+)?"
    r"(?:things|items|todos|tasks|to-dos)?\s*:\s*(?!\d)",  # not the colon of "7:30"
    _F,
)
_CLAUSE_INSIDE = re.compile(r"\s(?:is|are|was|were|has|have|will|can|should|does|did)\s", _F)
# "add call mom again": the add is again, not the call
_TOO = re.compile(r"\s+(?:too|also|as\s+well|instead|please|again)$", _F)
# "also" joins two todos only before a task of its own ("buy milk also call mom"), not inside
# one ("ask Priya if she's also coming").
_ALSO = rf"\s+also\s+(?=(?:{'|'.join(sorted(lexicon.TODO_VERBS))})\b)"
# "&" splits items only with a space beside it: "PG&E" and "AT&T" are one word.
_ITEM_SPLIT = re.compile(
    rf"\s+&\s*|\s*&\s+|\s*[,;]\s*(?:(?:oh|ah|um+|uh+)\s+)?(?:wait\s+)?(?:and\s+)?(?:then\s+)?(?:also\s+)?(?:to\s+)?"
    rf"|\s+and\s+(?:also\s+|then\s+)?(?:to\s+)?|{_ALSO}",
    _F,
)
_AND_SPLIT = re.compile(
    rf"\s+and\s+(?:also\s+|then\s+)?(?:to\s+)?|{_ALSO}|\s+plus\s+|\s+as\s+well\s+as\s+|\s+&\s+", _F
)


# Getting in touch with someone, then what to say to them: one todo, not two.
_CONTACT = re.compile(
    r"(?:call|phone|ring|text|email|e-mail|message|msg|dm|visit|see|meet|go\s+see|stop\s+by|drop\s+by|write\s+to)\b",
    _F,
)
# (to the same person: "ask about the leak", "tell her"; "ask grandson about ..." is someone else)
_DURING = re.compile(
    r"(?:(?:ask|tell|remind|thank|invite|wish|confirm|mention|discuss|talk|apologi[sz]e)\s+"
    r"(?:her|him|them|about|for|if|whether|when|how|what|to|with)\b|let\s+(?:her|him|them)\s+know|say\b)",
    _F,
)


_QUOTE_EDGES = {mark: re.compile(rf"(?<![A-Za-z]){mark}|{mark}(?![A-Za-z])") for mark in "\"'"}


def _unquoted(text: str) -> str:
    """`text` without the quotes around it, but with a title quoted at its end ('watch "Dune"'):
    a quote mark at an end goes when nothing inside pairs with it."""
    text = text.strip()
    while len(text) > 1 and text[0] in "\"'" and text[-1] == text[0]:
        text = text[1:-1].strip()  # quoted whole
    for mark, edge in _QUOTE_EDGES.items():
        if mark not in text:  # (most names: nothing to count)
            continue
        edges = len(edge.findall(text))  # not "wife's"
        if edges % 2:
            text = text.strip(mark).strip()
    return text


_ARTICLE_FIRST = re.compile(r"(?:a|an)\s+\S", _F)
# A question or a request to the listener after a comma: "..., what is the weather", "..., book
# me a flight", "..., can you also ...".
_ASKED_AFTER = re.compile(
    r"(?:what|what's|how|who|where|when|why|which|can|could|would|will|is|are|do|does|please)\b"
    r"|[a-z]+\s+(?:me|us)\b",
    _F,
)
# After a dash, what is said about a todo and is no part of its name: a sentence with its own
# subject ("- it honestly stinks"), or how things stand ("- needs doing before winter", "- ran out
# this morning", "- almost out"). Not a time or a step of it ("dentist - 3pm", "Q3 report - send
# to Ana").
_DASH_REMARK = re.compile(
    r"\s[-\u2013\u2014]\s+(?P<tail>(?:(?:it|they|we|i|she|he)(?:'[a-z]+)?|that's|this\s+is|there's)\s.*"
    r"|(?:needs?\s+doing|ran\s+out|run\s+out|running\s+(?:out|low)|(?:almost|nearly|all|completely)\s+(?:out|gone|empty"
    r"|finished)|none\s+left|(?:long\s+)?overdue|honestly|seriously|finally|urgent|asap)\b.*)$",
    _F,
)
_TAKEN_BACK = re.compile(
    r"\b(?:not|never|no\s+need|do\s+not|don't|dont|instead|maybe|perhaps|probably|i\s+think|not\s+sure)\b", _F
)
# What follows a name after a comma and is no item of a list: a sentence with its own subject
# ("we ran out", "she is coming", "Rex is limping"), why or for what ("for the cake", "because
# ..."), which one ("the oat one", "you know the one"), or how much of it ("2 litres").
_NOT_AN_ITEM = re.compile(
    r"(?:i|we|she|he|they)\s+\S|(?:i|we|she|he|they|you|it|there|that)'(?:s|re|m|ve|ll|d)\b"
    r"|(?:you|it|there)\s+(?:am|is|are|was|were|do|does|did|have|has|had|will|would|can|could|should|must"
    r"|might|need|needs|know|just|already|also|still|never|always|really)\b"
    r"|(?:for|because|since|cause|cuz|as|so|so\s+that|in\s+case|to\s+make|you\s+know)\b"
    # the subject left out: "got plenty", "need it by friday"
    r"|(?:got|have|has|had|need|needs|want|wants)\s+(?:it|them|some|plenty|enough|loads|lots|none|one|those|these)\b"
    r"|(?:the|that|this)\s+(?:[\w'-]+\s+){0,3}one$"
    r"|\d+(?:\.\d+)?\s*(?:litres?|liters?|l|ml|kg|kgs|g|grams?|lbs?|pounds?|oz|ounces?|pints?|gallons?)$",
    _F,
)


def _not_an_item(part: str) -> bool:
    if _NOT_AN_ITEM.match(part):
        return True
    # "her birthday is sunday": a clause, unless it is a task whose words hold one ("tell Ben his
    # mum is invited")
    return bool(_CLAUSE_INSIDE.search(f" {part} ")) and not a_task(part)


_OH_AND = re.compile(r",?\s+oh,?\s+and\s+", _F)


def _items(text: str, header: bool = False) -> list[str] | None:
    """The todos `text` names: "milk, eggs and bread" is three; "wash the car and change the oil"
    two (both halves start with a verb); "buy salt and pepper" one. None if one is empty."""
    text = _ITEMS_HEADER.sub("", text.strip())
    quoted = len(text) > 1 and text[0] in "\"'" and text[-1] == text[0]
    if not quoted:
        text = _OH_AND.sub(" and ", text)  # "pay water bill oh and call mom": "oh" remembers, names nothing
    if not quoted and (dash := _DASH_REMARK.search(text)):
        if _TAKEN_BACK.search(dash.group("tail")):
            return None  # "add milk - I don't need it": then what is asked?
        text = text[: dash.start()]  # "clean out the fridge - it honestly stinks": the name is before
    text = _unquoted(text)
    # "mac and cheese, eggs and bread": a thing whose name has "and" in it is one item of a list,
    # and so is what is said in brackets ("call Sam (re: lease, deposit)")
    text = _FIXED_PAIR.sub(lambda m: m.group().replace(" ", _GLUE), text)
    text = _BRACKETED.sub(lambda m: m.group().translate(_SHIELD), text)
    if re.search(r"[,;]", text):
        parts = [p for p in _ITEM_SPLIT.split(text) if not _POLITE_PART.fullmatch(p.strip())]
        if not quoted and any(_not_an_item(p.strip()) for p in parts[1:]):
            # "milk, we ran out", "call mom, her birthday is sunday", "milk, for the cake", "milk,
            # the oat one": said about the name before it, never a todo, and whether it is a part
            # of that name nothing says
            return None
        # "milk, eggs and bread" or "wash the car, mow the lawn": a list; "call mom, dad and
        # grandma" is one todo (dad and grandma are whom to call), and so is "read chapters 3, 4 and 5".
        # "renew passport, book flights and pack": tasks, the last one a verb alone ("pack"),
        # listed after at least two of their own; one verb alone among things stays one todo.
        lone = [p for p in parts if not a_task(p) and _a_lone_verb(p)]
        tasks = all(a_task(p) for p in parts) or (
            bool(lone) and len(parts) - len(lone) >= 2 and all(a_task(p) or p in lone for p in parts)
        )
        things = all(_a_thing(p) for p in parts)
        # "book flights, hotel and car for Rome": one verb and what it acts on, listed: one todo,
        # even after a header ("add: ...").
        objects = len(parts) > 1 and a_task(parts[0]) and all(_a_thing(p) for p in parts[1:])
        if objects or not (tasks or things or header):
            parts = [text]
    elif re.search(rf"\s+(?:and|plus|as\s+well\s+as)\s+|{_ALSO}|\s&\s", text, _F):
        parts = _AND_SPLIT.split(text)
        explicit = bool(re.search(rf"\s+and\s+(?:also|to)\s+|{_ALSO}|\s+as\s+well\s+as\s+", text, _F))
        pair = " and ".join(p.strip().lower() for p in parts)
        if any(re.search(r"\bto$", p.strip(), _F) for p in parts[:-1]):
            parts = [text]  # "ask Priya to also bring the projector": one task, "also" inside it
        elif len(parts) == 2 and _CONTACT.match(parts[0].strip()) and _DURING.match(parts[1].strip()):
            parts = [text]  # "call the plumber and ask about the leak": what to say on the call, one todo
        elif not (
            (explicit and all(a_task(p) or _a_thing(p) for p in parts))
            or all(a_task(p) for p in parts)
            or (all(len(p.split()) == 1 for p in parts) and pair not in lexicon.FIXED_PAIRS)
            # "a toothbrush and a phone charger": an article again, a thing again
            or all(_ARTICLE_FIRST.match(p.strip()) and _a_thing(p) for p in parts)
        ):
            parts = [text]
    else:
        parts = [text]
    # "buy bread too": "too" says add this as well; "tell Ben his mum is invited too" says it of
    # the clause inside the todo, which keeps it.
    items = [_unquoted(p.strip() if _CLAUSE_INSIDE.search(p) else _TOO.sub("", p.strip())) for p in parts]
    # "buy milk - and how many is that": a dash that ended the name is not part of it
    items = [i.rstrip(" -\u2013\u2014:").strip().translate(_UNSHIELD) for i in items]
    return items if all(items) else None


# Words that close a message ("add buy milk, done"), after a comma, a dash or in brackets, or as
# the last item of a list ("add milk, eggs, done"). A bare "done" is left alone: "add mark all
# essays done", "tell Jo it is done" are todos.
# "add buy milk, don't forget": said of the add, not a todo of its own
_DONT_FORGET = r"(?:do\s+not|don't|dont)\s+forget(?:\s+(?:it|now|please))?"
_CLOSING = (
    r"(?:done|finished|end|over"
    r"|(?:then\s+)?(?:that\s+is|that's|thats)\s+(?:it|all|everything)(?:\s+for\s+now)?"
    rf"|{_DONT_FORGET})"
)
_CLOSER_TAIL = re.compile(
    rf"(?:\s*[,\-\u2013\u2014]\s*(?:and\s+)?|\s*\(\s*|\s+and\s+(?=(?:then\s+)?that)){_CLOSING}\s*\)?[.!]*$",
    _F,
)
_CLOSES_A_LIST = re.compile(rf"(?:and\s+)?(?:{_CLOSING}|ok|okay)[.!]*", _F)
# Joins the words of a fixed pair while a list is split (no one types it: a private-use character;
# not a control character, which regex reads as a space).
_GLUE = "\ue000"
_BRACKETED = re.compile(r"\([^()]*\)")
# What splits a list, inside brackets: held apart from splitting as private-use characters.
_SHIELD = str.maketrans({" ": _GLUE, ",": "\ue001", ";": "\ue002", "&": "\ue003"})
_UNSHIELD = str.maketrans({v: k for k, v in _SHIELD.items()})
_FIXED_PAIR = re.compile(
    r"(?<![\w\ue000])(?:"
    + "|".join(
        sorted(
            (r"\s+".join(map(re.escape, p.split())) for p in lexicon.ONE_THING_PAIRS), key=len, reverse=True
        )
    )
    + r")(?![\w\ue000])",
    _F,
)


_POLITE_PART = re.compile(
    r"(?:please|pls|plz|ta|cheers(?:\s+mate)?|many\s+thanks|much\s+appreciated|thx|ty"
    r"|(?:thanks|thank\s+you)(?:\s+(?:so\s+much|a\s+lot|very\s+much|kindly|in\s+advance|a\s+million))?"
    rf"|(?:and\s+)?{_DONT_FORGET})[\s!.]*",
    _F,
)
_PRONOUN_WORDS = _PRONOUNS | {"him", "her", "me"}


def a_task(part: str) -> bool:
    """A task of its own: a verb and what it acts on ("wash the car"), no pronoun ("file them")."""
    words = part.replace(_GLUE, " ").strip().strip("\"'").lower().split()
    return len(words) >= 2 and words[0] in lexicon.TODO_VERBS and not _PRONOUN_WORDS & set(words)


def _a_lone_verb(part: str) -> bool:
    """A task named by its verb alone ("pack", "vacuum")."""
    words = part.strip().strip("\"'").lower().split()
    return len(words) == 1 and words[0] in lexicon.TODO_VERBS


def _a_thing(part: str) -> bool:
    """A short thing to get ("eggs", "a dozen oranges", "dish soap"): no verb, no pronoun, no digit
    alone ("4" in "read chapters 3, 4 and 5" is no thing)."""
    words = part.replace(_GLUE, " ").strip().strip("\"'").lower().split()
    return (
        1 <= len(words) <= 3
        and words[0] not in lexicon.TODO_VERBS
        and not _PRONOUN_WORDS & set(words)
        and any(w.isalpha() for w in words)
    )


# A quote mark that opens or closes inside a name ("buy flowers' to my wife's list"): what was
# quoted ended before the rest, so the rest is not part of the name.
_STRAY_QUOTE = re.compile(r"(?<=\w)['\"](?=\s)(?<!s')|(?<=\s)['\"](?=\w)|^['\"]|['\"]$")


# A title in quotes inside a name ('watch "Dune" with Sam', 'read "the hobbit"'): a pair of quotes
# around a few words after the name's first, each mark at a word's edge, is part of the name, not
# where a quote ended (a quote that opens the name and closes before more words is: "add 'leave a
# tip of' the answer").
_TITLE_INSIDE = re.compile(r"""(?<=\s)(["'])(?=\w)[^"'\n]{1,60}(?<=[\w.!?])\1(?=[\s,.;:!?]|$)""")


def _quote_closed_inside(clause: str, text: str) -> bool:
    """Whether `text` opens with a quote in `clause` that closes inside it, before more words."""
    if quoted_in(clause, text):
        return False  # "add 'clean the kids' room'": quoted whole, whatever quote is inside
    # The first quote mark in the clause right before the name's first 12 characters (found as
    # text: a pattern compiled for each new name cost more than the rest of the plan).
    head = text[:12]
    opened = [(at, mark) for mark in "'\"" if (at := clause.find(mark + head)) >= 0]
    return bool(opened) and _CLOSED_BEFORE_MORE[min(opened)[1]].search(text) is not None


_CLOSED_BEFORE_MORE = {mark: re.compile(rf"{mark}(?=[\s,;:.!?-]+\S)") for mark in "'\""}


_ADD_IT = re.compile(r"\b(?:add|put|stick|jot|note|write)\s+(?:it|that|this|them)\b", _F)


# A todo's name that is an earlier result said another way ("each person's share", "what you
# got", "the result of that"): the result is added (with no earlier result, the request is
# refused), never those words.
_RESULT_SAID = re.compile(
    rf"^(?:{_RESULT_PHRASE}|(?:the|that|this)\s+(?:{_RESULT_MODIFIER}\s+)?{_RESULT_NOUN}"
    r"\s+(?:you|it|we)\s+(?:just\s+)?(?:got|found|worked\s+out|came\s+up\s+with|calculated)"
    r"|(?:each|every)\s+(?:person|one|head|guest)'?s\s+(?:share|part|portion|amount|cut)"
    r"|(?:what|whatever)\s+(?:you|it|that|we)\s+(?:just\s+)?(?:got|get|came\s+to|comes\s+to|worked\s+out|found)"
    r"|(?:the\s+)?(?:result|answer|value|total|sum)\s+of\s+(?:that|it|this|the\s+(?:sum|calculation|last\s+one)))$",
    _F,
)


# What asks for the list (or a count of it) rather than naming a todo.
_READS_THE_LIST = re.compile(
    r"^(?:(?:and|then|also|plus)\s+)*(?:(?:can|could|would)\s+you\s+)?"
    r"(?:(?:show|list|read|tell|give|count|display|print|recap|repeat)(?:\s+(?:me|us|back|out))*\s+"
    r"(?:all\b|everything\b|what\b|how\b|them\b|it\b|(?:the|my|all\s+the|all\s+my)\s+(?:(?:open|done|finished"
    r"|remaining|whole)\s+)?(?:list|todos|to-dos|tasks|items|ones)\b|(?:open|done|finished|remaining)\s+ones\b)"
    r"|how\s+many\b|what(?:'s|\s+is|\s+are)?\s+(?:on|left|in|still|remaining)\b)",
    _F,
)


_DESTINATION_INSIDE = re.compile(
    rf"\s(?:(?:to|on|onto)\s+my\s+(?:todo\s+|to-do\s+)?(?:list|todos|to-dos|tasks)|as\s+(?:an?\s+|new\s+)+{_NOUN})\s",
    _F,
)


_DESTINATION_END = re.compile(rf"\s+(?:{_TO_LIST}|as\s+(?:an?\s+|new\s+)+{_NOUN})$", _F)


def quoted_in(clause: str, text: str) -> bool:
    """Whether `text` stands in quotes in `clause`: then it is the name as written, whole."""
    return f"'{text}'" in clause or f'"{text}"' in clause


def _a_second_request(texts: list[str]) -> bool:
    """Whether an item after the first reads the list or asks about it ("add buy milk and read
    back my list", "new todo: buy milk, what's on my list"): a second request, never a todo."""
    return any(_READS_THE_LIST.match(t) or _question(t) is not None for t in texts[1:])


def _adding(clause: str, texts: list[str]) -> Intent | None:
    if _a_second_request(texts):  # before "on my list" is stripped from an item (and in _added after)
        return None
    # "remind me to call mom on my list": where it goes is never part of a todo's words; nor is
    # what closes the message ("add buy milk, done"), unless it was quoted with the name
    # (unless quoted: "add 'add more salt to the shopping list'" is that todo, as written)
    unplaced = (t if quoted_in(clause, t) else re.sub(rf"\s+{_TO_LIST}$", "", t, flags=_F) for t in texts)
    texts = [t for t in unplaced if t]
    quoted = bool(texts) and quoted_in(clause, texts[-1])
    closed = _unquoted(_CLOSER_TAIL.sub("", texts[-1])) if texts and not quoted else ""
    closes = bool(texts) and not quoted and closed != texts[-1]
    if closes:
        texts = [*texts[:-1], closed] if closed else texts[:-1]
    elif len(texts) > 1 and _CLOSES_A_LIST.fullmatch(texts[-1]):  # "add milk, eggs, done"
        texts, closes = texts[:-1], True
    if closes and texts:
        # "add buy milk as a task, done": where it goes, before the closing words, is no name
        last = _DESTINATION_END.sub("", texts[-1])
        texts = [*texts[:-1], last] if last else texts[:-1]
    made = _added(clause, texts)
    # The closing words belong to this add: "add call mom and dad - done" is one request, never
    # an add of "call mom" and a report that "dad" is done.
    return replace(made, weight=made.weight + 2) if made is not None and closes else made


# A todo's words that leave unsaid whether to add it ("maybe", "or not") or when it applies ("if
# we're out": the rules cannot tell; "check if the car is ready" is a task that says if).
_HEDGED = re.compile(
    r"(?:^|\s)(?:maybe|perhaps|possibly|or\s+not|or\s+something|i\s+guess|i\s+think|not\s+sure|idk)$"
    r"|^(?:or\s+not|maybe|perhaps)\b"
    # "milk or maybe eggs": not yet decided which
    r"|\sor\s+(?:maybe|perhaps|possibly)\s"
    r"|\s(?:and|or)\s+(?:maybe|perhaps|possibly)\s"  # "buy wipes and maybe call the health visitor"
    r"|^(?!.*\b(?:check|see|ask|find\s+out|confirm|verify|know|figure\s+out|decide|test|look|wonder|tell)\b"
    r".*\b(?:if|unless|in\s+case)\b).+\s(?:if|unless|in\s+case)\s+(?:we|i|you|they|it|there|she|he"
    # "if the old one doesn't turn up": a thing and what it does
    r"|(?:the|my|our|his|her|their|a|an)\s+(?:[\w'-]+\s+){0,3}?(?:is|are|was|does|do|did|doesn't|don't|didn't|has|have"
    r"|can|can't|will|won't|gets?|turns?|comes?|arrives?)\b)\b",
    _F,
)


# What asks for something to be found out, said after a todo: it may be a request to the agent.
# As a second item any "check ..." ("add buy milk and check the weather"); inside one item only a
# "check if ..." ("... and check if it's going to rain"), since "call mom and check on her" is a todo.
_FINDING_OUT = r"look\s+up|find\s+out|search|google|tell\s+me|show\s+me"
_LOOKS_SOMETHING_UP = re.compile(rf"(?:check|{_FINDING_OUT})\b", _F)
_AND_LOOKS_SOMETHING_UP = re.compile(
    rf"\s(?:and|&)\s+(?:then\s+)?(?:check\s+(?:if|whether|what|how)|{_FINDING_OUT})\b", _F
)


# Words before a todo's name that are not part of it: a "please" said after the verb ("add please
# meeting with Mr. Kim"), and an article or "some" before a thing ("add a dentist appointment",
# "add some batteries": the list says "dentist appointment", "batteries"), unless what follows is
# how much ("a dozen eggs", "a couple of pens") or a task the article belongs to.
_LEADING_NOT_NAME = re.compile(
    r"^(?:(?:please|pls|plz|kindly)\s+)?"
    r"(?:(?:a|an|some)\s+(?!(?:few|couple|lot|lots|bit|little|dozen|half|pair|bunch|number|bag|box|pack"
    r"|packet|bottle|can|jar|tin|loaf|kilo|pound|litre|liter|gallon|cup|piece|slice|set|load|ton|tons)\b))?",
    _F,
)
# "(add to my list) one more task: submit the visa form": what comes is a todo, then the todo
_NEW_ONE_HEADER = re.compile(
    rf"^(?:a|an|one|another)\s+(?:(?:more|new|other|extra)\s+)*(?:{_NOUN}|thing)\s*[:\-]\s*(?=\S)", _F
)
_REMIND_ME_TO = re.compile(r"^remind\s+me\s+to\s+(?=\S)", _F)
# "for later" after a todo says when to do it is not now, which a list already means; but it is
# part of a task that keeps something ("save the cake for later").
_FOR_LATER = re.compile(
    r"^(?!.*\b(?:save|keep|leave|store|freeze|set|put|hold)\b)(?P<x>.+?)\s+for\s+later$", _F
)


def _bare_name(clause: str, text: str) -> str:
    """`text` without the words around a name that are not part of it (above); quoted, as is."""
    if quoted_in(clause, text):
        return text
    text = _LEADING_NOT_NAME.sub("", text, count=1) or text
    text = _NEW_ONE_HEADER.sub("", text, count=1) or text
    text = _REMIND_ME_TO.sub("", text, count=1) or text  # "add remind me to mark the exams": the todo reminds
    if m := _FOR_LATER.match(text):
        text = m.group("x")
    return text


def _added(clause: str, texts: list[str]) -> Intent | None:
    texts = [_bare_name(clause, t) for t in texts]
    if len(texts) == 1 and _RESULT_SAID.match(" ".join(texts[0].split())):
        arguments = {"action": "add", "text": RESULT_TEXT}
        return Intent(
            clause, "todo_store", arguments, f'"{clause}" adds the result', SUMMARY, refers=texts[0]
        )
    if any(re.match(r"(?:but\s+)?not\s", t, _F) or re.search(r"\bbut\s+not\b", t, _F) for t in texts):
        return None  # "add milk and eggs, not bread": what not to add is no todo; say it plainly
    if any(_DESTINATION_INSIDE.search(t) and not quoted_in(clause, t) for t in texts):
        return None  # "add buy milk as a task asap": where it goes, then more; which words are the todo?
    if any(_quote_closed_inside(clause, t) for t in texts):
        return None  # "add 'water plants' - oh and thanks for earlier": the quote ended the name
    if any(
        (not quoted_in(clause, t) and _STRAY_QUOTE.search(_TITLE_INSIDE.sub("", t))) or _ADD_IT.search(t)
        for t in texts
    ):
        return None  # "save 200 a month - add it to my list": "add it" is the request, not the name
    if any(_HEDGED.search(t) and not quoted_in(clause, t) for t in texts):
        return None  # "add milk maybe", "add milk if we're out": whether to, or what, is unclear
    if any(
        (_LOOKS_SOMETHING_UP.match(t) and k > 0) or _AND_LOOKS_SOMETHING_UP.search(t)
        for k, t in enumerate(texts)
        if not quoted_in(clause, t)
    ):
        return None  # "add buy milk and check the weather": a second todo, or a request to me? unclear
    if _a_second_request(texts):  # asked again of the names as they will be added
        return None
    names = _NOT_A_NAME if len(texts) == 1 else _PRONOUNS  # "add todos: a, b and c" is three names
    if not texts or any(
        t.lower() in names
        or t.lower() in _NOT_A_TODO_TEXT
        or _QUOTES_APART.search(t)
        or _VAGUE.match(t)
        # "add two things to my list": how many, not what ("add 42 to my list" adds "42")
        or (_HOW_MANY_NAMED.fullmatch(t) and not re.fullmatch(r"\d+(?:\.\d+)?", t))
        for t in texts
    ):
        return None  # "add it to my list" names no todo: "it" is a reference (a result: above)
    if len(texts) == 1:
        return Intent(
            clause, "todo_store", {"action": "add", "text": texts[0]}, f'"{clause}" adds a todo', SUMMARY
        )
    return Intent(
        clause,
        "todo_store",
        {"action": "add", "texts": texts},
        f'"{clause}" adds {len(texts)} todos',
        SUMMARY,
    )


# "add tidy my room and do the laundry as separate todos", "... add each one as its own todo":
# the user says the list is several todos, whatever its words.
_SEPARATELY = re.compile(
    rf"\s+(?:as\s+(?:separate|individual|different|their\s+own)\s+(?:{_NOUN}s?|things|ones)|separately|individually"
    rf"|(?:each\s+)?as\s+(?:its|their)\s+own\s+(?:{_NOUN}|thing|one)s?)$",
    _F,
)
# "add three things buy stamps mail the package and call grandma": a count, then tasks run on.
_COUNTED_TASKS = re.compile(
    rf"^(?:add|put|note)\s+(?P<n>\d+|{'|'.join(lexicon.SMALL_NUMBERS)})\s+(?:things|{_NOUN}s|items)\s+(?P<list>.+)$",
    _F,
)


def _separately(clause: str) -> Intent | None:
    """The list of a clause that says its parts are separate todos, or whose count its tasks meet."""
    if m := _COUNTED_TASKS.match(clause):
        words = m.group("list").replace(",", " ").split()
        starts = [k for k, w in enumerate(words) if w.lower() in lexicon.TODO_VERBS]
        if not starts or starts[0] != 0:
            return None
        parts = [" ".join(words[a:b]) for a, b in zip(starts, [*starts[1:], len(words)], strict=True)]
        parts = [re.sub(r"\s+(?:and|&)$", "", p, flags=_F) for p in parts]
        wanted = m.group("n")
        count = lexicon.SMALL_NUMBERS.get(wanted.lower()) or int(wanted)
        if count == len(parts) and all(a_task(p) for p in parts):
            return _adding(clause, parts)
        return None
    if not (m := _SEPARATELY.search(clause)):
        return None
    head = clause[: m.start()]
    if not (found := re.match(rf"^(?:{_ADD_VERB})\s+(?P<text>.+?)(?:\s+{_TO_LIST})?$", head, _F)):
        return None
    parts = [
        p.strip() for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s+&\s+", found.group("text")) if p.strip()
    ]
    if len(parts) < 2 or any(_NOT_A_THING.search(f" {p} ") and not a_task(p) for p in parts):
        return None
    return _adding(clause, parts)


# "ok so for the weekend I need to: clean the garage, call Uncle Bob, fix the fence. put all three
# on the list": the todos first, then the add that takes them (by how many, or "them", "each one").
_TAKE_THEM = re.compile(
    r"^(?P<items>.+?)\s*(?:[.!;]|\s-)\s*(?:(?:so|and|now|pls|please|can\s+you|could\s+you)\s+)*"
    r"(?:add|put|stick|pop|write\s+down|jot\s+down)\s+"
    r"(?P<ref>all\s+(?P<n>\w+)|all\s+of\s+(?:them|these|those)|both(?:\s+of\s+them)?|them(?:\s+all|\s+both)?|these|those"
    r"|each(?:\s+one)?(?:\s+of\s+(?:them|these|those))?)"
    r"(?:\s+(?:as\s+(?:its|their)\s+own\s+(?:todos?|tasks?|items?)|as\s+(?:separate|individual|different)\s+"
    r"(?:todos|tasks|items)|separately|individually))?"
    rf"(?:\s*{_TO_LIST})?(?:\s+(?:too|as\s+well))?(?:\s+(?:pls|please|thanks|thx|ty))?[.!]*$",
    _F,
)
# What announces them: "ok so for the weekend I need to:", "i also need", "first".
_LISTED_LEAD = re.compile(
    r"^(?:(?:ok|okay|so|right|well|alright)\b\s*,?\s*)*"
    r"(?:(?:for|over)\s+(?:the\s+|this\s+)?[a-z]+\s*,?\s+)?"
    r"(?:i\s+(?:also\s+|still\s+)?(?:need|have|must|gotta|should)(?:\s+to)?\s*:?\s*)?"
    r"(?:first(?:ly)?\s*,?\s+)?",
    _F,
)


def listed_first(message: str) -> Intent | None:
    """The add of todos listed before the request that takes them, when they are each a task or
    a thing and as many as it says ("both": two); None otherwise."""
    if not (m := _TAKE_THEM.match(message.strip())):
        return None
    said = m.group("items")
    said = said[_LISTED_LEAD.match(said).end() :]  # type: ignore[union-attr]  # it matches "" too
    items = _items(said, header=True)
    if (
        not items
        or len(items) < 2
        or not all((a_task(i) or _a_thing(i)) and not _not_an_item(i) for i in items)
    ):
        return None
    ref = m.group("ref").lower()
    wanted = 2 if ref.startswith("both") else None
    if (n := m.group("n")) is not None:
        wanted = lexicon.SMALL_NUMBERS.get(n.lower()) or (int(n) if n.isdigit() else None)
        if wanted is None:
            return None  # "add all later": no count
    if wanted is not None and wanted != len(items):
        return None  # "put all three on the list" after two: which is missing is not for a guess
    return _adding(message, items)


# "note down that I need to buy a new charger": the task, not the sentence around it.
_NOTE_THAT = re.compile(
    r"^(?P<verb>(?:note|jot|write|put)\s+down|add|remember)\s+(?:that\s+)?(?:i|we)\s+(?:need|have|must|should|gotta)\s+"
    r"(?:to\s+)?(?P<task>\S.*)$",
    _F,
)


_FOR_WHAT = re.compile(r"^for\s+(?:the|my|our)\s+[a-z]+(?:\s+[a-z]+)?\s*,?\s+(?=(?:add|put)\s*:)", _F)


def _add(clause: str) -> Intent | None:
    if (separate := _separately(clause)) is not None:
        return separate
    if (m := _NOTE_THAT.match(clause)) and (inner := _add(f"note down {m.group('task')}")) is not None:
        return replace(inner, clause=clause)
    if (m := _FOR_WHAT.match(clause)) and (inner := _add(clause[m.end() :])) is not None:
        return replace(inner, clause=clause)  # "for the party add: ask Jen ..., buy ice": what they are for
    if (
        len(clause) <= _MAX_ONE_MORE_CHARS
        and (m := _AND_ONE_MORE_TOO.match(clause))
        and not _VERB_INSIDE.search(m["b"])  # "... and delete eggs": a request of its own
        and not _TO_LIST_INSIDE.search(m["b"])  # one place said twice is no "one more"
        and (inner := _add(f"{m['verb']} {m['a']} and {m['b']} {m['dest']}"))
        and "texts" in inner.arguments
    ):
        return replace(inner, clause=clause)  # "put call Dad on the list, and buy cat food too"
    if m := _QUOTED_ADD.match(clause):  # "add 'say well done to Priya'": the quotes say where it ends
        return _adding(clause, [a or b for a, b in _QUOTED_NAME.findall(m.group("quoted"))])
    for pattern in _TODO_ADD_RESULT:
        if m := pattern.match(clause):
            arguments = {"action": "add", "text": RESULT_TEXT}
            return Intent(
                clause,
                "todo_store",
                arguments,
                f'"{clause}" adds the result',
                SUMMARY,
                refers=m.groupdict().get("ref") or m.group("down"),
            )
    if m := _ADD_MANY.match(clause):
        items = _items(m.group("list"), header=True)
        wanted = m.group("n")
        count = None if wanted is None else lexicon.SMALL_NUMBERS.get(wanted.lower()) or int(wanted)
        if items and count in (None, len(items)) and (made := _adding(clause, items)) is not None:
            # A list after its header is one clause: "todo: batteries, lightbulbs, bin bags" is
            # three todos, not two and a "bin" (delete) of "bags".
            return replace(made, weight=2 * len(items) + made.weight - 1)
        return None  # "add three todos: x and y" says one thing and lists another: not a guess
    if m := _ADD_ONE.match(clause):  # "add a todo to ...": one todo, as the user said
        text = m.group("text")
        if not m.group("conn").strip() and re.match(r"with\s", text, _F):
            # "add a todo with the text buy milk": what it says; "add a todo with the sum of 3
            # and 4" or "... with buy milk" say something else, or nothing clear
            if not (said := _WITH_TEXT.match(text)):
                return None
            text = said.group("text")
        if (
            "the" in (m.group("det") or "").lower().split()
            and not m.group("conn").strip()
            and text.split()[0].lower() not in lexicon.TODO_VERBS
        ):
            return None  # "add the note I wrote" says which note; "add the todo call mom" names one
        if (
            _elsewhere(text)
            or _ELSEWHERE.match(f" to {text}")
            or re.match(r"(?:on|in|into|onto|to)\s", text, _F)
        ):
            return None  # "add a reminder to my calendar", "add a note on my website": not to the list
        # "add a task to the list: buy milk": the list is where it goes, the words after it what
        # (a list named at the end goes in _adding, for every add)
        text = re.sub(rf"^(?:(?:my|the|our)\s+{_LIST}\b\s*[:\-]?|{_LIST}\s*[:\-])\s*", "", text, flags=_F)
        if not _QUOTED_NAME.fullmatch(text.strip()) and any(
            _not_an_item(p.strip()) or _ASKED_AFTER.match(p.strip()) for p in re.split(r"[,;]", text)[1:]
        ):
            return None  # "add a todo to buy milk, what is the weather": one todo, and something else
        return _adding(clause, [_unquoted(text)])
    for pattern in (*_ADD, _REMIND, _NOTE, *_NEEDED, _TODO_VERB_FIRST):
        if (m := pattern.match(clause)) and not _elsewhere(m.group("text")):
            if pattern is _REMIND and _TIMER.search(m.group("text")):
                return None  # "remind me to take the pizza out in 20 minutes": a timer, not a todo
            if pattern is _REMIND and _CLOCK.search(m.group("text")):
                # "remind me to call the dentist at 3:30 tomorrow": the todo, its time in its
                # words (as people who wrote such requests expect), and said plainly that no
                # reminder comes at that time
                added = _weighed(_adding(clause, _items(m.group("text")) or []))
                return None if added is None else replace(added, answer=f"{added.answer} {_NO_ALARM}")
            if (
                pattern is _REMIND
                and ADD_FIRST.match(text := m.group("text"))
                and (_DESTINATION_END.search(asked := _TOO.sub("", text)) or _QUOTED_NAME.search(text))
            ):
                # "remember to add bread to my list": the add it asks for, not a todo "add bread"
                # ("remind me to add oil to the car" is a todo: the list is not where it goes)
                inner = _add(asked)
                return None if inner is None else replace(inner, clause=clause)
            if pattern is _REMIND and ADD_FIRST.match(text := m.group("text")) and not _ADDED_TO.search(text):
                # "I need to remember to add eggs later": to the list (by me, now), or to
                # something the speaker makes (a todo "add eggs")? Nothing says which.
                return None
            return _weighed(_adding(clause, _items(m.group("text")) or []))
    m = _BARE_ADD.match(clause)
    said = m.group("text") if m else ""
    quantity = m is not None and not _WHEN.match(said) and _A_QUANTITY_OF.fullmatch(said)
    if m and (
        _WHEN.match(m.group("text"))
        or quantity
        or not _NOT_A_TODO_START.match(normalize.numeric(m.group("text")))
    ):
        text = re.sub(r"^(?:both|all\s+of)\s+", "", m.group("text"), flags=_F)
        first = text.split()[0].lower().strip("\"'")
        # "dentist appointment on 12/03 at 9:30", "7:30 yoga class": when is part of the name.
        named = " ".join(_WHEN.sub(" ", text).split())
        if quantity:
            # "3 apples": how many, then the thing (no "when" nor "both" in it: named is said)
            named = said[quantity.end("n") :].strip() or named
        if (
            _elsewhere(text)
            or _INSIDE_TO_LIST.search(text)
            or _ASKS.search(text)
            or not named
            or not (
                first in lexicon.TODO_VERBS
                or (len(named.split()) <= 6 and not _NOT_A_THING.search(named))
                # "add juice boxes, granola bars and sunscreen": a list of short things
                or ((items := _items(text)) and len(items) > 1 and all(map(_a_thing, items)))
            )
        ):
            return None
        made = _weighed(_adding(clause, _items(text) or []))
        # (rules.plan refuses it beside a sum: "what's 45 + 30, then add 15 for the tip")
        return replace(made, quantity=True) if made is not None and quantity else made
    return None


# Verbs that only ever ask the assistant something: "add buy milk and delete eggs" is an add and
# a delete. Other verbs may start a chore ("take out the trash", "finish the report", "cancel
# the gym"): after "add", those are todos too.
_PURE_COMMANDS = frozenset(
    ["add", "delete", "remove", "mark", "show", "list", "tell", "count", "clear", "erase", "tick"]
)


def _weighed(intent: Intent | None) -> Intent | None:
    """An add of several todos, as heavy as that many clauses: read whole before read as an add
    and something else ("add buy cake and take out the trash": two todos, never a delete)."""
    texts = intent.arguments.get("texts") if intent is not None else None
    if not texts or any(t.split()[0].lower() in _PURE_COMMANDS for t in texts[1:]):
        return intent
    return replace(intent, weight=len(texts))


# --- completing and deleting by text or reference ----------------------------------------------

_DONE_TAIL = (
    r"(?:done|complete|completed|finished|ticked\s+off|crossed\s+off|checked\s+off|sorted|taken\s+care\s+of)"
)
# Every verb a request may start with: "get laundry done" and "delete done" are instructions, not
# reports that something named "get laundry" or "delete" is done.
_VERBS = "|".join(
    sorted(
        {v for v in (*lexicon.CLEAR_VERBS, *lexicon.ADD_VERBS) if " " not in v},
        key=len,
    )[::-1]
)

# Commands name the todo after a verb; statements report it done ("call mom is done", "I called
# mom"). A question ("laundry done?", "did I call mom?") is never read as a statement.
_COMPLETE_COMMANDS = [
    # ("set up the account is done": "set up" is the task's verb, not "set ... done")
    # (but "set the table is done" reports the todo "set the table" done)
    r"(?:mark|set(?!\s+up\b))\s+(?P<x>.+?)(?<!\sis)(?<!\sare)\s+(?:as\s+|to\s+)?(?:done|complete|completed|finished)",
    r"(?:mark|set)\s+(?:as\s+)?(?:done|complete|completed|finished)\s*:?\s+(?P<x>.+)",
    r"(?:complete|finish|(?:check|tick|cross|mark)(?:ed)?\s+off|cross\s+of|cross(?:ed)?\s+out|str(?:ike|uck)\s+off|close)"
    r"\s+(?P<x>.+)",
    rf"(?:(?:cross|tick|check|mark|knock)(?:ed)?|strike|struck)\s+(?P<x>.+?)\s+off(?:\s+{_MY}{_LIST})?",
    rf"(?:tick|check)\s+(?P<x>{_QUOTE})",
    r"(?:done|finished|completed)\s*:\s*(?P<x>.+)",
    # "scratch 'call mom' off as finished": off the list as done, not deleted
    r"(?:scratch|strike|cross|tick|check)\s+(?P<x>.+?)\s+off\s+as\s+(?:done|finished|complete|completed)",
    # "mark the bread as bought": what doing it makes of it, said as its state
    r"(?:mark|set)\s+(?P<x>.+?)\s+as\s+(?:bought|paid|sent|posted|booked|called|fixed|returned|collected"
    r"|picked\s+up|submitted|renewed|ordered|cleaned|mailed|signed|delivered|handled|sorted)",
]
# No word of a request to add: "hiya add buy milk, done" is an add the message closes.
# Who may have done a thing themselves: a headline with one of these ("mom called", "the
# plumber fixed") is news of what someone did, never a todo of the speaker's reported done.
_HEADLINE_AGENTS = (
    r"mom|mum|dad|mother|father|grandma|grandpa|gran|nan|granny|sister|brother|wife|husband|son"
    r"|daughter|kids?|boss|friend|neighbou?r|plumber|doctor|dentist|landlord|teacher|partner|someone"
    r"|he|she|they|we|i|you|who"
)
_NO_ADD = rf"(?!.*\b(?:{_ADD_VERB}|remind\s+me|todo|task)\b)"
# A short name reported done starts with no word of a request ("mark as done", "get laundry
# done" are instructions) nor a pronoun.
_NAME_FIRST = rf"(?!(?:mark|set|i|we|all|it|that|everything|is|are|get|got|have|make|{_VERBS})\b)"
_COMPLETE_STATEMENTS = [
    # "sorted the gas bill", "took care of the vet": words for done that are no todo's verb, so
    # the todo is named by what follows them ("pay gas bill" has no "sorted")
    r"(?:i\s+|we\s+)?(?:have\s+|finally\s+|just\s+|already\s+)*(?:sorted(?:\s+out)?|dealt\s+with|took\s+care\s+of"
    r"|taken\s+care\s+of|handled)\s+(?!(?:it|that|this|them|those|these|everything|all)\b)(?P<x>.+?)",
    # "the milk one can be ticked off": that it may be, said of it, is the request
    r"(?:the\s+)?(?P<x>.+?)\s+can\s+(?:now\s+)?be\s+(?:ticked|checked|crossed|marked)(?:\s+off)?"
    r"(?:\s+(?:as\s+)?(?:done|complete|completed|finished))?(?:\s+now)?",
    # "laundry i have finish it": the name first, then that it is done (a learner's order)
    r"(?P<x>(?!(?:i|we|it|that|this)\b)[^,]+?)\s+(?:i|we)\s+(?:have\s+|already\s+)*(?:finish|finished|complete|completed|done|did)"
    r"\s+(?:it|that)",
    r"(?:i\s+|we\s+)?(?:finally\s+|just\s+)?got\s+(?P<x>.+?)\s+(?:done|sorted|finished|out\s+of\s+the\s+way)",
    rf"(?:i\s+|we\s+)?(?:finally\s+|just\s+)?(?:got|had)\s+(?P<x>[^,]+?\s+{_PAST})",  # "got the car washed"
    r"(?:i\s+|we\s+)?(?:finally\s+|just\s+)?managed\s+to\s+(?P<x>[^,]+?)",  # "I managed to fix the alarm"
    # (up to a comma before a question: "done with the hoovering, what else is on today")
    r"(?:i\s+am|we\s+are|i\s+have)?\s*(?:all\s+|completely\s+|totally\s+|finally\s+|so\s+)?(?:done|finished)\s+with\s+"
    r"(?P<x>(?:(?!,\s*(?:what|how|which|is|are|anything)\b).)+)",
    # (no question inside: "check what is done", "tell me if call mom is done" ask, they report nothing)
    rf"(?P<x>(?!.*\b(?:what|whatever|which|whether|if|once|how)\b).+?)"
    rf"(?:'s|\s+(?:is|are|was|has\s+been|have\s+been))\s+(?:now\s+|all\s+|already\s+|finally\s+)?{_DONE_TAIL}"
    r"(?:\s+(?:now|already|today|at\s+last))?",
    # (not after a request to add it: "add 'buy milk' - done" closes the message)
    rf"(?P<x>{_NO_ADD}.+?)\s*[:\-]\s*(?:done|finished|complete|check|checked)",
    # "card for dad: bought": the name, then what doing it made of it
    # ("lawn: mowed", "car - washed": any past that is done to things)
    rf"(?P<x>{_NO_ADD}[^:]+?)(?:\s*:|\s+-)\s*(?P<v>bought|paid|sent|booked|posted|ordered|returned|collected|fixed|mailed"
    rf"|signed|submitted|renewed|called|cleaned|washed|written|made|(?!(?:postponed|cancell?ed|delayed|started|tried"
    rf"|skipped|missed|forgot|planned|moved|added|deleted|removed)\b){_PAST})(?P<p>)",
    # "kids picked up at 5, done": a comma, when what comes before is no request of its own
    rf"(?P<x>{_NO_ADD}(?!(?:{_VERBS}|mark|set|i|we|it|that|this|everything|all)\b)[^,]+?)\s*,\s*(?:all\s+)?"
    r"(?:done|finished)",
    # "laundry done": a short name and the word, nothing else ("mark as done" names nothing, and
    # "get laundry done" is an instruction, not a report).
    rf"(?P<x>{_NAME_FIRST}(?:\S+\s+){{0,2}}\S+)(?<!\sas)(?<!\sis)"
    r"(?<!\sare)\s+"
    r"(?:done|finished|completed|sorted)",
    # ... and two of them: "oil change and tyres done"
    rf"(?P<x>{_NAME_FIRST}(?:\S+\s+){{0,2}}\S+"
    r"\s+(?:and|&)\s+(?!(?:i|we|it|that|everything|all)\b)(?:\S+\s+){0,2}(?!both\b)\S+)\s+"
    r"(?:done|finished|completed|sorted)",
    # "dog's been walked", "hotel's booked", "Jo's parcel is picked up": the past tense first.
    # "all the windows are clean now", "netflix is cancelled": an adjective that is the verb
    # ("clean windows"), a cancellation that was the task ("cancel netflix"; todo_store finds
    # only a todo that says "cancel", so "the party is cancelled" completes no other todo)
    rf"(?:all\s+)?(?:the\s+|my\s+)?(?!(?:{_alt(lexicon.CLEAR_VERBS)}|{_ADD_VERB}|mark|complete|finish|all|it|that|this|they|those|these)\b)(?P<x>[^,]+?)(?:'s|\s+is|\s+are|\s+was|\s+were|\s+has|\s+have)(?:\s+been)?\s+(?:now\s+|all\s+|both\s+|finally\s+)?"
    rf"(?P<v>(?!postponed|finished|completed)(?:{_PAST})|paid|bought|sent|made|written|taken|given|found|sold|fed|clean|tidy|rung)"
    r"(?P<p>\s+(?:up|off|out|in))?(?:\s+now)?",
    # "gutters cleaned", "electricity bill paid", "bins taken out": a headline, the "is" left out.
    # A thing's name of one to four words, never a person's or a pronoun ("mom called", "Sam paid"
    # say what someone else did: _HEADLINE_AGENTS), and a past that is done to things.
    rf"(?:all\s+)?(?:the\s+|my\s+|our\s+)?(?!(?:{_alt(lexicon.CLEAR_VERBS)}|{_ADD_VERB}|mark|complete|finish|all|it|that"
    r"|this|they|those|these|he|she|we|i|you|someone|somebody|everyone|everybody|nothing|something)\b)"
    # (a person's word before a thing of theirs is no person: "dentist appt booked")
    rf"(?P<x>(?![^,]*\b(?:(?:{_HEADLINE_AGENTS})(?!'?s?\s+(?:appt|appointment|checkup|check-up|visit|bill|invoice|card|gift"
    r"|present|form|forms|letter|booking)\b)|is|are|was|were|be|been|has|have|got|get|gets|and|or|done|not|no|never)\b)"
    r"[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?)\s+"
    r"(?:(?:finally|now|all|just|already)\s+)?"
    rf"(?P<v>(?!postponed|finished|completed|deleted|removed|added|erased|cleared|ticked|checked|crossed|called|phoned|rang|texted|emailed|messaged|visited|replied|answered"
    r"|arrived|returned|asked|agreed|decided|offered|promised|wanted|needed|liked|loved|hated|started|stopped"
    rf"|moved|changed|happened|looked|seemed|used|worked|tried|waited|stayed|played|laughed|cried)(?:{_PAST})"
    r"|bought|sent|made|written|taken|given|sold|swept|hung|paid)"
    r"(?P<p>\s+(?:up|off|out|in|away|back))?"
    r"(?:\s+(?:now|already|today|tonight|yesterday|earlier|at\s+last|finally"
    r"|(?:this|last)\s+(?:morning|afternoon|evening|night|week)"
    # "vet booked for tuesday": when it will be, not a part of its name
    r"|for\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next\s+week)))?",
    r"(?:i\s+)?(?:have\s+|just\s+|already\s+|finally\s+)*(?:finished|completed|done|did)\s+"
    r"(?!.*(?:\b(?:what|how|which|each|total|per)\b|\d))(?P<x>.+?)"
    r"(?:\s+(?:already|now|today|just\s+now))?",
    # "finished reading chapter 3": what was being done, numbers and all (the arithmetic guard
    # above is for "I finished 3 of the 5 ...")
    r"(?:i\s+)?(?:have\s+|just\s+|already\s+|finally\s+)*(?:finished|completed)\s+"
    r"(?!.*\b(?:what|how|which|each|total|per|of)\b)(?P<x>[a-z]+ing\s+[^,]+?)",
    # "sent invoice 12", "ran the 10k", "finished chapter 3": a number that says which one, at the
    # end after a word or two (not a sum: "bought 3 shirts at 24.99" has its number first)
    r"(?:i\s+)?(?:have\s+|just\s+|already\s+|finally\s+)*(?:finished|completed|done\s+with)\s+"
    r"(?P<x>(?:the\s+)?[a-z]+\s+#?\d+[a-z]?)",
    rf"(?:i\s+)?(?:have\s+)?(?:just\s+|already\s+|finally\s+|now\s+)?(?!.*\b(?:what|how|which|each|total|per)\b)"
    rf"(?P<x>(?:{_PAST}|{_SIMPLE_PAST})(?:\s+[a-z]+){{1,3}}\s+#?\d+[a-z]?)",
    # "I read chapter 4 last night", "just put the bins out": a past spelt like its verb, which a
    # word of when (or "just", "already") says is past
    r"(?:i|we)\s+(?:have\s+)?(?:just|already|finally)\s+(?P<x>(?:read|put|cut|set|shut|quit|spread)\s[^,]+?)",
    r"(?:i|we)\s+(?P<x>(?:read|put|cut|set|shut|quit|spread)\s(?!.*\b(?:every|each|always|usually|often)\b)[^,]+?)"
    r"\s+(?:yesterday|earlier|already|(?:this|last)\s+(?:morning|afternoon|evening|night|week))",
    # "I have make the doctor appointment", "I has finish the homework": a learner's perfect,
    # with the verb as it is written in the todo
    r"(?:i|we)\s+(?:have|has)\s+(?:already\s+|just\s+|finally\s+)?(?P<x>(?:finish|make|call|buy|send|pay|book|clean"
    r"|do|write|fix|wash|email|order|return|post|sign|submit|renew|cancel)\s+(?!(?:it|that|this|them)\b).+?)"
    r"(?:\s+(?:already|now|today|yesterday))?",
    # "ticked the dog walk", "crossed off the gym one": the command, reported done
    r"(?:i\s+(?:have\s+)?|just\s+)?(?:ticked|checked|crossed)(?:\s+off)?\s+(?P<x>(?!(?:it|that|this|them|everything|all)\b).+?)(?:\s+(?:off|done|as\s+done))?",
    # "I called mom": a past tense reports a todo done (todo_store finds "call mom" by its words).
    # Not a question about it ("I bought 3 shirts at $24.99 each, what's the total" is arithmetic).
    rf"(?:i\s+)?(?:have\s+)?(?:just\s+|already\s+|finally\s+|now\s+)?(?!.*(?:\b(?:what|how|which|each|total|per)\b|\d))"
    rf"(?P<x>(?:{_PAST}|{_SIMPLE_PAST})(?:\s[^,]+?)?)(?:\s+(?:already|now|today|just\s+now))?",
    # "bought eggs, bread and butter": one past verb, then a list of things (_by_text checks each
    # is a thing, never a task or a request: "called mom, add milk" is two requests)
    rf"(?:i\s+)?(?:have\s+)?(?:just\s+|already\s+|finally\s+|now\s+)?(?!.*(?:\b(?:what|how|which|each|total|per)\b|\d))"
    rf"(?P<things>)(?P<x>(?:{_PAST}|{_SIMPLE_PAST})\s[^,]+?(?:\s*,\s*[^,]+?)+)(?:\s+(?:already|now|today|just\s+now))?",
]
_DELETE = [
    # "wipe the car wash one off the list", "kill the gift one": these verbs delete one todo only
    # when the words say it is a todo ("wipe the counters" is a chore, "kill the weeds" too)
    rf"wipe\s+(?P<x>.+?)\s+off\s+{_MY}{_LIST}",
    rf"kill\s+(?P<x>(?:the\s+)?.+?\s+(?:one|{_NOUN}))",
    # "take off the gym one": off the list ("take off" alone may be clothes, or a plane)
    rf"take\s+off\s+(?P<x>(?:the\s+)?.+?\s+(?:one|{_NOUN})|{_QUOTE})",  # ... or a name in quotes
    rf"(?:remove|delete|take|drop|erase)\s+(?:from|off)\s+{_MY}{_LIST}\s+(?P<x>.+)",
    rf"(?:take|cross|strike)\s+(?P<x>.+?)\s+(?:off|out\s+of|from)\s+{_MY}{_LIST}",
    # "cancel the haircut" is a todo; "cancel my membership online" is a request of its own.
    # "drop off the parcel", "drop by the bank": going somewhere, not deleting anything
    rf"(?:cancel(?=\s+(?:the\b|'|\"|.*\b{_NOUN}$))|(?!cancel\b|drop\s+(?:off|by|in|round)\b){_alt(lexicon.DELETE_VERBS)})"
    # ("trash is out", "bin's collected": the word is a thing, said to be done, not the verb)
    r"(?!\s+(?:is|are|was|were|has|have|been)\b)\s*:?\s+(?P<x>.+?)"
    rf"(?:\s+(?:from|off)\s+{_MY}{_LIST})?",
    r"(?:clear|wipe|empty|purge)\s+(?P<x>them(?:\s+all)?|those|these|all\s+of\s+(?:them|those|these))",
    rf"take\s+(?P<x>{_QUOTE}|.+?)\s+off",
    r"bin\s+the\s+(?P<x>.+)",
]
_NO_LONGER = r"(?:no\s+longer|not\s+(?:.+\s+)?any\s?more)"
_DELETE_STATEMENTS = [
    r"(?:the\s+)?(?P<x>.+?)\s+can\s+go(?:\s+now)?",  # (a sweep, "the done ones can go": _by_text)
    r"(?:the\s+)?(?P<x>.+?)\s+can\s+(?:now\s+)?be\s+(?:deleted|removed|binned|scrapped|dropped|taken\s+off)(?:\s+now)?",
    # "no longer" or "not ... anymore" says it is off for good; "I don't need to X yet" does not.
    r"(?:the\s+)?(?P<x>[^,]+?)\s+(?:is|are)\s+(?:no\s+longer\s+(?:needed|necessary|required|happening)"
    r"|not\s+(?:needed|necessary|required|happening)\s+any\s?more)",
    r"(?:i\s+|we\s+)?no\s+longer\s+(?:need|have|want)\s+to\s+(?P<x>.+)",
    r"(?:there\s+is\s+)?no\s+(?:need|reason)\s+to\s+(?P<x>.+?)\s+any\s?more",
    r"(?:i\s+|we\s+)?(?:do\s+not|will\s+not)\s+(?:need|have|want)\s+to\s+(?P<x>.+?)\s+any\s?more",
    # "I give up on guitar": not doing it at all, so off the list (not "give up everything")
    r"(?:i\s+|we\s+)?(?:have\s+|am\s+|'ve\s+)?(?:give|gave|given|giving)\s+up\s+on\s+"
    r"(?!(?:it|that|this|them|those|these|everything|all|life|me)\b)(?P<x>.+)",
    # "forget it" is "never mind what I said", not a delete of what "it" was
    r"(?:never\s*mind|forget)(?:\s+about)?\s+(?!(?:it|that|this|them|those|these|everything|all)\b)(?P<x>.+)",
]
# (pattern, action, whether it is a statement: never read in a question)
_BY_TEXT = [
    *[(re.compile(rf"^(?:{p})$", _F), "complete", False) for p in _COMPLETE_COMMANDS],
    *[(re.compile(rf"^(?:{p})$", _F), "delete", False) for p in _DELETE],
    *[(re.compile(rf"^(?:{p})$", _F), "complete", True) for p in _COMPLETE_STATEMENTS],
    *[(re.compile(rf"^(?:{p})$", _F), "delete", True) for p in _DELETE_STATEMENTS],
]
_LEADING = re.compile(
    rf"^(?:with\s+)?(?:(?:the|my|a|an|our)\s+)?(?:(?:{_NOUN}|one|thing)\s+(?:of|to|about|called|named|for|saying|that\s+says)\s+)?",
    _F,
)
_TRAILING = re.compile(
    rf"\s+(?:{_NOUN}|one|thing)$|\s+(?:please|now|already|again|today|tonight|yesterday|earlier|finally)$"
    r"|\s+(?:this|last|yesterday)\s+(?:morning|afternoon|evening|night|week)$|\s+just\s+now$|[\s\-:,!]+$"
    r"|\s+on\s+(?:my|the|our)\s+way\s+(?:home|back|in|out|to\s+work|to\s+school)$"  # "... on my way home"
    r"|\s+off$"  # "scratch the Rome hotel off": where it goes, not its name
    # "renewed my passport yesterday yay": how the speaker feels about it, not its name
    r"|\s+(?:yay+|yey|woo+(?:\s*hoo+)?|phew|whew|hooray|hurrah|lol|haha|at\s+(?:long\s+)?last)$"
    r"|\s+(?:from|off|on)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?list$|\s+asap$",  # "remove X from my list"
    _F,
)


_ONE_TODO = re.compile(rf"^(?:the\s+)?\S.*\s(?:one|{_NOUN})$", _F)
_SOME = re.compile(r"\bsome(?:\s+(?:in|at|on|from|for|with|already)\b|$)", _F)  # "some" alone: a pronoun
_FILLER_NAME_WORDS = frozenset(
    ["and", "or", "not", "the", "a", "an", "of", "to", "from", "it", "that", "this", "yes", "no", "all", "we",
     "i", "you", "they", "he", "she", "us", "me", "everything", "anything", "something", "stuff",
     # a state is no name: "list all my todos, open and done" completes nothing
     "open", "unfinished", "pending", "outstanding", "remaining", "undone", "done", "finished", "completed",
     # nor what happened to one: "already done", "deleted" name no todo
     "already", "deleted", "removed", "added", "cancelled", "canceled", "gone", "again", "too", "also",
     "both", "now", "then", "yet", "just"]
)  # fmt: skip
_HEDGES = frozenset(
    ["not", "never", "almost", "nearly", "half", "partly", "maybe", "probably", "might", "cannot"]
)
# "the new one", "the other one": which one is not said by the word before "one".
_GENERIC = frozenset(
    ["new", "old", "other", "big", "small", "next", "previous", "same", "latest", "recent", "main",
     "important",
     "urgent", "last", "first", "second", "third", "whole", "right", "wrong", "easy", "hard", "long", "short"]
)  # fmt: skip


# Words that, with list words alone, still say the list itself ("the list for today").
_ABOUT_THE_LIST = frozenset(["lists", "whole", "entire", "for", "of", "my", "the", "this", "day"])


_HOW_MANY_NAMED = re.compile(
    rf"(?:\d+|{'|'.join(lexicon.SMALL_NUMBERS)}|a\s+couple|a\s+few|several)"
    rf"(?:\s+(?:(?:of\s+)?(?:them|those|these)|(?:more\s+)?(?:{_NOUN}s?|things|ones|items)))?",
    _F,
)
_AFTER_QUOTE = re.compile(r"^(?:(?:the|my)\s+)?(['\"])[^'\"]+\1\s*(?P<rest>\S.*)$", _F)


def _name(text: str) -> str:
    """The words that name a todo: "the buy eggs todo" -> "buy eggs", "the gas one" -> "gas"."""
    if (quoted := _QUOTED_NAME.fullmatch(text.strip())) and (inside := (quoted[1] or quoted[2]).strip()):
        return inside  # quoted: the name as written, whatever its words
    if (after := _AFTER_QUOTE.match(text.strip())) and not re.fullmatch(
        rf"(?:{_NOUN}|one|thing|entry)s?", after.group("rest"), _F
    ):
        # "'book flights', the trip is canceled", "the 'book hotel' task, plans changed": the quote
        # ended the name before the rest
        return ""
    text = text.strip().strip("\"'").strip()
    generic = bool(re.search(r"\s(?:one|thing)$", text, _F)) or text.lower().startswith(("the ", "my "))
    for _ in range(3):
        text = _TRAILING.sub("", _LEADING.sub("", text)).strip().strip("\"'").strip()
    words = re.findall(r"[a-z0-9']+", text.lower())
    if {"it", "them"} & set(words) or _SOME.search(text):
        return ""  # "I just paid it", "found some in the shed": which one is not in these words
    said = (
        words[1:] if words[:1] and words[0] in ("finished", "completed", "done", "did", "finish") else words
    )
    if said and set(said) <= _LIST_WORDS | _ABOUT_THE_LIST:
        return ""  # "I'm done with the list for today", "finished the list": the list, no todo of it
    if (
        not text
        or text.lower() in _NOT_A_NAME | _STATE_WORDS  # "delete my finished todo" names none
        # "2 and 3", "or not" name nothing; "Tom's" does
        or not any(w.replace("'", "").isalpha() and w not in _FILLER_NAME_WORDS for w in words)
        or any(w in _HEDGES or w.endswith("n't") for w in words)  # "the report is not done"
        # "I guess the laundry is done": unsure, so no report of a todo
        or re.search(r"\b(?:i|we)\s+(?:think|guess|believe|suppose|reckon)\b", text, _F)
        or (len(words) == 1 and words[0] in _GENERIC and generic)  # "the new one"
        or "?" in text
        or words[:1] in (["and"], ["or"], ["but"])  # "done and dusted": an idiom, no todo's name
        # "i finished two", "delete 2 todos": how many, not which
        or _HOW_MANY_NAMED.fullmatch(" ".join(said)) is not None
        or re.search(r"\d\s*%$", text)  # "report 90% done": how far along, not done
    ):
        return ""
    return text


# "the done one", "the finished 'water the plants'", "the open buy milk todo": a state, said before
# the name (or instead of it), picks the todo in that state. Only with "the": "delete finished
# tasks" is a sweep (_clear), and "delete finished report" may be a todo's own words.
_IN_STATE = re.compile(
    rf"^the\s+(?P<state>done|finished|completed|ticked[\s-]+off|checked[\s-]+off|crossed[\s-]+off"
    rf"|open|unfinished|outstanding|not\s+done)\s+(?:(?P<one>one|{_NOUN})|(?P<name>.+?))$",
    _F,
)


# A name that says many todos ("all completed tasks", "every one", "all the shopping"), not one;
# unless "all" is part of a word made with it ("all day meeting prep", "the all-hands notes"), which
# says one thing whatever follows.
_SWEEPING_NAME = re.compile(
    r"(?:every|everything)\b|all\b(?![\s-]+(?:day|night|nighter|week|weekend|year|hands|purpose|in|inclusive|star"
    r"|terrain|time|staff)\b)|all\b.*\b(?:todos|tasks|items|ones|things|reminders|chores|entries)$",
    _F,
)


def _in_state(clause: str, action: str, m: re.Match[str]) -> Intent | None:
    """A complete or delete of the todo in a state, by its name, or the one todo in it."""
    state = _state(m.group("state").lower().split())
    if state not in ("open", "done"):
        return None
    if m.group("one"):
        reasoning = f'"{clause}" {action}s the one {state} todo'
        return Intent(clause, "todo_store", {"action": action, "state": state}, reasoning, SUMMARY)
    if not (name := _name(m.group("name"))):
        return None
    reasoning = f'"{clause}" {action}s the {state} todo matching {name!r}'
    return Intent(clause, "todo_store", {"action": action, "text": name, "state": state}, reasoning, SUMMARY)


# "both bills", "the two email ones", "all three shopping todos": how many todos one name fits
# (at the start, or after a past that reports them done: "book 4 tickets" is one todo's name)
_HOW_MANY_FIT = re.compile(
    rf"^(?P<pre>(?:{_PAST}|{_SIMPLE_PAST})\s+)?(?:both(?:\s+of)?|(?:all\s+)?(?:the|my)\s+(?P<n>two|three|four|five|2|3|4|5)"
    r"|all\s+(?P<all_n>two|three|four|five|2|3|4|5))(?:\s+(?:the\s+|my\s+)?(?P<rest>[a-z][\w' -]*))?$",
    _F,
)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
_PLURAL_NOUN = re.compile(rf"\s+(?:ones|things|{'|'.join(lexicon.TODO_NOUNS_PLURAL)})$", _F)


# "delete all the milk ones", "tick off all my shopping todos": every todo a name fits, however
# many (a group by its name and a plural, never by a state: "all the done ones" is a sweep)
_ALL_NAMED = re.compile(
    rf"^all\s+(?:of\s+)?(?:the|my)\s+(?P<name>[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+"
    rf"(?:ones|things|{'|'.join(lexicon.TODO_NOUNS_PLURAL)})$",
    _F,
)


def _all_named(clause: str, action: str, said: str) -> Intent | None:
    if not (m := _ALL_NAMED.match(said)):
        return None
    name = _name(m.group("name"))
    if not name or any(w in _STATE_WORDS | _GENERIC | _NOT_A_NAME for w in m.group("name").lower().split()):
        return None  # "all the done ones" (a sweep), "all the other ones": no name
    reasoning = f'"{clause}" {action}s every todo matching {name!r}'
    # Deleting a number of todos not said: a person confirms it, as a sweep
    return Intent(
        clause,
        "todo_store",
        {"action": action, "text": name, "every": True},
        reasoning,
        SUMMARY,
        confirm=action == "delete",
    )


def _every(clause: str, action: str, said: str) -> Intent | None:
    """A complete or delete of every todo a name fits, saying how many ("paid both bills": the two
    todos "bills" fits; todo_store refuses when it fits another number of them)."""
    if (every := _all_named(clause, action, said)) is not None:
        return every
    if not (m := _HOW_MANY_FIT.match(said)) or re.search(r"\d", m.group("rest") or ""):
        return None  # "read chapters 3 and 4", "the 2 of them": not one name fitting several
    if re.search(r"\b(?:of\s+(?:them|those|these|it))\b", m.group("rest") or "", _F):
        return None
    if not m.group("rest") and not (m.group("pre") and m.group("all_n")):
        return None  # "washed all 3": the verb names them; "delete both": both of what?
    count = _COUNTS[(m.group("n") or m.group("all_n") or "two").lower()]
    rest = _TRAILING.sub("", (m.group("rest") or "").strip())  # "... the shopping ones this morning"
    name = _name(_PLURAL_NOUN.sub("", f"{m.group('pre') or ''}{rest}".strip()))
    if not name or not re.search(r"[a-z]{3}", name, _F):
        return None
    reasoning = f'"{clause}" {action}s the {count} todos matching {name!r}'
    arguments = {"action": action, "text": name, "matching": count}
    return Intent(clause, "todo_store", arguments, reasoning, SUMMARY)


def _each(clause: str, action: str, texts: list[str]) -> Intent:
    """A complete or delete of the todos named by `texts` (one step each: rules._bind)."""
    named = ", ".join(repr(t) for t in texts)
    reasoning = f'"{clause}" {action}s the todo{"s" if len(texts) > 1 else ""} matching {named}'
    if len(texts) == 1:
        return Intent(clause, "todo_store", {"action": action, "text": texts[0]}, reasoning, SUMMARY)
    return Intent(clause, "todo_store", {"action": action}, reasoning, SUMMARY, each=tuple(texts))


def _referring(clause: str, action: str, reference: TodoReference) -> Intent:
    """A complete or delete of earlier todos ("mark it as done"): _bind makes it one step per todo."""
    reasoning = f'"{clause}" {action}s {reference.words!r}'
    return Intent(clause, "todo_store", {"action": action}, reasoning, SUMMARY, todos=reference)


_IRREGULAR_PAST = f"{_SIMPLE_PAST}|read|put"


def starts_a_task(part: str) -> bool:
    """Whether `part` starts like a task of its own: a verb ("pay rent"), or one in the past ("paid
    the rent"), so that "X and Y" is two todos."""
    words = part.strip().strip("\"'").split()
    if not words:
        return False
    first = words[0].lower()
    return first in lexicon.TODO_VERBS or bool(re.fullmatch(rf"{_PAST}|{_IRREGULAR_PAST}", first))


_CLEAR_IT = re.compile(
    r"^(?:clear|wipe|empty|delete|remove|bin|scrap)\s+(?P<r>(?:it|that|them|those)\s+all|all\s+of\s+(?:it|them))(?:\s+out)?$"
    r"|^(?:clear|wipe|empty)\s+(?P<one>it|that|them|those)(?:\s+out)?$",
    _F,
)


# Verbs that begin tasks as often as they delete todos: "remove the stain", "clear the table",
# "cut the grass". Read as deletes only when the words say the list ("the stain todo", "the gym
# one", "... from my list") or quote the name.
_DOING = re.compile(
    rf"^(?:remove|clear|cut|take\s+out)\s+(?:the|my)\s+(?!.*(?:\b(?:{_NOUN}|one|ones|thing|things|list|todos|tasks)\b|['\"]))",
    _F,
)


_THEN_MARKED = re.compile(r"\s[-\u2013\u2014:]\s*(?:mark|tick|check|cross|strike)\b", _F)
_THEN_DELETED = re.compile(rf"\s*[:\-\u2013\u2014]\s*(?:{_alt(lexicon.DELETE_VERBS)})(?:\s+it)?$", _F)
_REPORTED_DONE = re.compile(
    r"\s(?:(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+)?(?:done|finished|completed|sorted|cancell?ed|off"
    r"|no\s+longer\s+(?:needed|necessary|happening))(?:\s+(?:now|already|today|too|as\s+well))?|can\s+go(?:\s+now)?"
    r"|can\s+be\s+(?:ticked|checked|crossed|marked)(?:\s+off)?(?:\s+(?:as\s+)?(?:done|complete|finished))?)$"
    # "take out the trash: done", "... - done", "... done": the name, then that it is done
    r"|(?:\s*[:\-\u2013\u2014]\s*|\s+)(?:done|finished|completed|complete|checked)$",
    _F,
)


# "mark the dentist one done and the floss one too": the second name, then the same again
_AND_ONE_TOO = re.compile(
    r"^(?P<verb>mark|set)\s+(?P<x>.+?)\s+(?P<state>(?:as\s+)?(?:done|complete|completed|finished))\s*,?\s+"
    r"(?:and|&)\s+(?P<y>(?:the|my)\s+.+?)(?:\s+(?:too|as\s+well|also))?$",
    _F,
)


_VERB_INSIDE = re.compile(rf"\b(?:{_VERBS}|deleted|removed|added|done|finished)\b", _F)


def _by_text(clause: str, question: bool) -> Intent | None:
    if both := _AND_ONE_TOO.match(clause):
        names = [_name(both["x"]), _name(both["y"])]
        # ("... and the taxes one deleted" is another request, not a second name)
        if all(names) and not any(_VERB_INSIDE.search(n) for n in names):
            return _each(clause, "complete", names)
    if m := _CLEAR_IT.match(clause):  # "show me the list, then clear it": every todo listed
        words = " ".join((m.group("r") or m.group("one")).lower().split())
        return _referring(clause, "delete", TodoReference(words))
    for pattern, action, statement in _BY_TEXT:
        if (statement and question) or not (m := pattern.match(clause)):
            continue
        if action == "delete" and _DOING.match(clause):
            continue  # "remove the stain" may be the todo's own words, not a delete of it
        if statement and action == "delete" and (sweep := _clear(f"delete {m.group('x').strip()}")):
            return replace(sweep, clause=clause, reasoning=sweep.reasoning.replace(sweep.clause, clause))
        said = m.group("x").strip()
        of_things = m.groupdict().get("things") is not None  # the past verb and a list of things
        if re.search(rf"\s(?:to|onto)\s+{_MY}(?:(?:todo|to-do)\s+)?{_LIST}$", said, _F):
            continue  # "... and take out trash to my todo list": an item of an add, not a delete
        if not statement and _REPORTED_DONE.search(said):
            continue  # "take out the trash is done", "finish essay can go": said of the todo by its name
        if not statement and action == "complete" and _THEN_DELETED.search(said):
            continue  # "finish report - delete": the todo by its name, then what to do with it
        if statement and _RAN_OUT.match(said):
            return None  # "ran out of milk": none left, not a todo done ("run out to the shop")
        if statement and _CONDITION_FIRST.match(said):
            return None  # "once the essay is done, tick it off": when it will be, not that it is
        if statement and _THEN_MARKED.search(said):
            continue  # "Emailed Priya the invoice - mark done": the report, then the command about it
        if (
            (m.groupdict().get("v") or "").lower() == "paid"
            and re.fullmatch(r"[A-Z][\w'-]*", said)
            and said.lower() not in lexicon.PAYABLES
        ):
            continue  # "Sam paid": what Sam did, most likely (but "rent paid", "the gas bill paid")
        if m.groupdict().get("v"):  # "the dog's been walked": "walked the dog"
            said = f"{m.group('v')}{m.group('p') or ''} {said}"
        if (every := _every(clause, action, said)) is not None:
            return every
        if reference := todo_reference(said):
            return _referring(clause, action, reference)
        if looks_like_a_reference(said):
            return None  # "the second of those": a reference no rule reads, never a todo's name
        if not statement and (m := _IN_STATE.match(said)):  # "delete the finished 'water the plants'"
            return _in_state(clause, action, m)
        parts = _AND_SPLIT.split(said)
        if "," in said and not quoted_in(clause, said):
            # "completed: book flights, renew passport": a list of tasks, each a todo's name
            listed = [q for p in re.split(r"\s*,\s*", said) if p for q in _AND_SPLIT.split(p)]
            # ... or, reported done, a list of things ("bought eggs, bread and butter")
            tasks = all(starts_a_task(q) for q in listed)
            clean = not any(map(_VERB_INSIDE.search, listed)) and not (
                of_things and any(map(_NOT_BOUGHT.search, listed[1:]))
            )
            things = statement and all(map(_a_thing, listed)) and clean
            if of_things and not (len(listed) > 1 and (things or (tasks and clean))):
                continue  # "bought eggs, bread, mom called", "called the bank, mark done": no list of them
            if len(listed) > 1 and (tasks or things):
                parts = listed
        # "delete buy stamps and pay rent" is two todos; "... and cancel my membership" is no
        # second name but a second request.
        second_request = any(
            re.match(rf"(?:{_VERBS}|show|list|tell|count|give)\b", p.strip(), _F) for p in parts[1:]
        )
        if (
            len(parts) > 1
            and not second_request
            and (
                all(starts_a_task(p) for p in parts)
                # (things joined by "&" are one thing: "Mum & Dad anniversary gift is done")
                or (statement and all(map(_a_thing, parts)) and not re.search(r"\s&\s", said))
                # "the dry cleaning one and the gym one": each says it is one todo
                or all(_ONE_TODO.search(p.strip()) for p in parts)
            )
        ):
            texts = [_name(p) for p in parts]  # "delete buy stamps and pay rent": two todos
        else:
            texts = [_name(said)]
        if any(_SWEEPING_NAME.match(t) for t in texts):
            return None  # "delete all completed tasks and ...": not one todo's name
        if all(texts):
            return _each(clause, action, texts)
    return None


# After "bought eggs, bread and butter", a part that is no thing bought: news ("mom called"),
# what is missing ("out of milk", "no milk though", "forgot milk", "except milk").
_NOT_BOUGHT = re.compile(
    r"\b(?:of|no|not|except|but|though|still|need|needs|forgot|without|missing|called|came|left|out"
    r"|ran|gone|instead|maybe|too|also)\b|\w{3,}ed\b|'",
    _F,
)


_RAN_OUT = re.compile(r"(?:ran|run|running)\s+out\b(?!\s+(?:to|for|and)\b)", _F)
_CONDITION_FIRST = re.compile(rf"^{_alt(lexicon.CONDITIONS)}\b", _F)

# "don't delete everything, just the done ones": the request, narrowed to what follows "just"
_NOT_ALL_JUST = re.compile(
    rf"^(?:do\s+not|don't|dont)\s+(?P<verb>{_alt(lexicon.CLEAR_VERBS)}|mark|tick\s+off|check\s+off|complete)\s+"
    r"(?:everything|all(?:\s+of\s+them)?|the\s+whole\s+(?:list|lot)|it\s+all)\s*[,;-]?\s*(?:just|only)\s+(?P<x>.+)$",
    _F,
)


def parse(clause: str, question: bool = False) -> Intent | None:
    """The todo_store call(s) `clause` asks for, or None. A `question` ("laundry done?") is never
    read as a report that something was done."""
    if (m := _NOT_ALL_JUST.match(clause)) and (narrowed := parse(f"{m['verb']} {m['x']}", question)):
        return replace(narrowed, clause=clause)
    # "delete all of them, every single one": all of them, said twice
    if (
        (again := _ALL_AGAIN.match(clause))
        and (whole := parse(again.group("sweep"), question)) is not None
        and (
            whole.arguments.get("action") == "delete_all"
            or (whole.todos and whole.todos.words in _ALL_OF_THEM)
        )
        and "state" not in whole.arguments
    ):
        return replace(whole, clause=clause)
    return (
        _question(clause)
        or _clear(clause)
        or _by_id(clause)
        or (None if question else _mentioned(clause))
        or _add(clause)
        or _by_text(clause, question)
    )
