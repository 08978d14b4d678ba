"""The deterministic rule planner.

A prompt is split into clauses at "then", ";", the end of a sentence, "and" and commas; every
clause must match a rule (arithmetic or todos). "then", ";" and a full stop always end a clause.
Where "and" or a comma could also belong inside one clause ("add 3 and 4", "buy milk and eggs"),
the split with the most clauses that all parse wins, so "add a todo to buy milk and show me all
my tasks" is two steps and "add 3 and 4" is one. Each rule also says how its step's outcome
reads: together they are the plan's answer_template ("20% of 150 = {{steps.s1.output.value}}").
A prompt with any clause no rule understands is refused with a message naming what was and was
not understood: the rule planner never guesses.

Any tool in the catalog, including tools registered by providers, can be planned explicitly
with "use TOOL with {JSON arguments}", e.g. 'use convert_units with {"value": 5, "from_unit":
"km", "to_unit": "mi"}'. Separators inside the JSON do not split the prompt.

"the result" (or "the answer", "that", and "it" in arithmetic) refers to the most recent earlier
calculator step and becomes a step reference: "calculate 2+3, then add a todo with the result"
adds the todo "2+3 = 5", "calculate 2+3 then multiply the result by 4" computes (5) * 4.
Todos work the same way: "add a todo to buy milk, then mark it as done" completes the todo the
first step adds.

A turn of a thread is planned with the thread's discourse model (discourse.py): with no earlier
step in the prompt to point at, "that" and "the answer" are the last result ("now double it",
"add that as a todo"), "it", "them", "both", "the second one" and "the other one" the todos the
conversation made salient (followups.py), and "what did I just add?" / "what was the answer?"
are answered from the history alone (a plan with no steps, only its answer). "undo that" and a
correction in the next turn are planned against the thread's last change (acts.py). A reference
that could mean more than one thing, or has nothing to point at, is refused with what it could
refer to.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from agentrt.core.text import clip
from agentrt.core.values import dict_to_struct
from agentrt.v1 import plan_pb2
from planner_svc import acts, followups
from planner_svc.discourse import Discourse
from planner_svc.followups import TodoReference
from planner_svc.grammar import arithmetic, lexicon, normalize, todos
from planner_svc.grammar.intent import RESULT_TEXT, RESULT_VALUE, RESULT_WORD, RESULTS, RESULTS_COUNT, Intent
from planner_svc.planner import PlanningFailed, PlanRequest

__all__ = ["RESULT_TEXT", "RESULT_VALUE", "RESULT_WORD", "Intent", "RulePlanner", "answer_template", "plan"]

MAX_PIECES = 64
# Refusals quote what was and was not understood, at most this much of it.
MAX_ECHOED = 8
MAX_ECHO_CHARS = 120
# One clause spans at most this many pieces ("buy milk, eggs and bread" is three). Trying every
# run of pieces would make planning quadratic in the prompt's length.
MAX_CLAUSE_PIECES = 16


def step_id(position: int) -> str:
    """Id of the step planned from the clause at 1-based `position`."""
    return f"s{position}"


def _cannot_plan(
    message: str,
    understood: list[Intent] | None = None,
    not_understood: list[str] | None = None,
    reason: str = "UNPLANNABLE",
) -> PlanningFailed:
    """The prompt (or part of it) matches no rule: what was and was not understood."""
    return PlanningFailed(
        message, reason=reason, understood=understood or [], not_understood=not_understood or []
    )


CAPABILITIES = (
    'I can do arithmetic ("calculate (10 + 5) * 2", "what\'s 20% of 150", "increase 80 by 15%", '
    '"a 20% tip on $45", "split $120 between 4 people", "cube root of 27", "how many minutes in 3.5 '
    'hours") and todos ("add a todo to buy milk", "add milk, eggs and bread to my list", "what do I still '
    'have to do", "how many todos do I have", "cross off buy milk", "remove the dentist todo", "clear my '
    'list"), any catalog tool as \'use TOOL with {"arg": ...}\', joined by "and", "then" or ", then", or in '
    "sentences."
)

_F = re.IGNORECASE
# (?<!\s): a separator starts where a run of whitespace starts. Every alternative begins with
# optional whitespace, so a match inside the run is never needed, and trying one at each of its
# positions would be quadratic in the run's length. "?" and "!" end a sentence like ".".
_SEPARATORS = re.compile(
    r"(?<!\s)(\s*,\s*(?:and\s+)?then\s+|\s*[;.?!]+\s+(?:(?:and\s+)?then\s+)?|\s*;\s*|\s+and\s+then\s+"
    r"|\s+then\s+|\s+and\s+|\s*,\s*|\s+because\s+"
    # "my sister's birthday is next week so add 'buy gift for Lena'": "so" before a request
    r"|\s+so\s+(?=(?:please\s+|just\s+|(?:you|u)\s+can\s+|can\s+you\s+|could\s+you\s+)*(?:add|put|delete|remove|mark|tick|check"
    r"|cross"
    r"|show|list|tell|clear|erase|scrap)\b)"
    # "add 'follow up with Marco' - he still hasn't paid": a spaced dash after a quoted name
    r"|(?<=['\"])\s+-\s+"
    # "ugh I keep forgetting - add water the plants": a spaced dash before a request
    r"|\s+[-\u2013\u2014]\s+(?=(?:please\s+|pls\s+|just\s+|can\s+you\s+|could\s+you\s+)*(?:add|put|delete|remove|mark|tick"
    r"|cross|show|list|tell|clear|erase|scrap|wipe|empty)\b)"
    # "clear done & add buy bread": "&" before a request, as "and"
    r"|\s+&\s+(?=(?:please\s+|pls\s+|just\s+|then\s+)*(?:add|put|delete|remove|mark|tick|cross|show|list|tell"
    r"|clear|erase|scrap)\b))",
    _F,
)
_STRONG_SEPARATOR = re.compile(r"then|[;.?!]", _F)
_LIST_HEADER = re.compile(r"\b(?:add|put|new)\b[^.;?!]*?(?::|\s-\s)[^.?!]*$", _F)
_QUESTION_TAIL = arithmetic.QUESTION_TAIL
_ABBREVIATION = re.compile(r"\b(?:dr|mr|mrs|ms|st|jr|sr|vs|etc|prof|no|e\.g|i\.e)$", _F)
# Applied to clauses whose whitespace is already collapsed to single spaces (see _clean): the
# words people put before a request that are not the request.
_POLITE_PREFIX = re.compile(
    # "please to add ...", "please you remove ...": a learner's "please"
    r"^(?:please\s+(?:to|you(?!\s+(?:can|could|will|would|may|might)\b))\s+(?=[a-z])"
    # a dare or a name for the listener before the request: "let's see if you can handle this,
    # genius: what's 17% of 340"
    r"|let\s+us\s+see\s+(?:if|whether)\s+you\s+can\s+(?:handle|do|manage|get|solve)\s+(?:this|that)(?:\s+one)?\s*[,:!]?\s*"
    r"|(?:genius|mate|dear|buddy|pal|boss|hun|love|smarty\s*pants|dear\s+(?:assistant|helper|bot))\s*[,:!]\s*"
    # "hey buddy can u add ...", "go ahead and throw 'X' on there"
    r"|(?:hey|hi|hello|oi|yo)\s+(?:buddy|mate|pal|dude|bro|man|love|hun|babe)\s*[,:!]?\s*|go\s+ahead\s+and\s+"
    r"|(?:please|kindly|now|also|next|first|finally|and|actually|ok|okay|oh|great|alright|so|hey|hi|hiya|heya|hello|omg|wow"
    r"|yo|um|uh|well|then|lastly|plus(?!\s+(?:[-\d.(]|(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|a\s+hundred)\b))|quick\s+(?:one|question|q)|question|one\s+more\s+thing|start\s+fresh(?=\s*[,:!.-])|yeah|yep|yup"
    r"|ngl|tbh|guess\s+what"
    r"|asap(?=\s*[,:!]|\s+(?:please|pls|plz)\b)|urgent(?=\s*[,:!])"
    r"|(?:start\s+over|fresh\s+start)(?=\s*[,:!.-])|ugh|argh|sigh|phew|anyway|anyhow|so\s+yeah|right(?=\s*[,:!])"
    # news before it: "btw", "good news:", "quick update:" ("update" alone may be the task's verb)
    r"|btw|by\s+the\s+way|fyi|heads\s+up|(?:good|great|some)\s+news|(?:quick\s+)?update(?=\s*[,:!])"
    r"|yay|woo+(?:hoo+)?|hooray)(?:\s*[,:!]\s*|\s+)"
    # "would you be so kind as to add ...", "if it's not too much trouble, ...", "be a dear and ..."
    r"|(?:would|could)\s+you\s+be\s+(?:so\s+kind|kind\s+enough|a\s+dear)\s+(?:as\s+)?(?:to\s+|and\s+)"
    r"|(?:please\s+)?be\s+a\s+(?:dear|love|star)\s+and\s+|if\s+(?:it\s+is|it's)\s+not\s+too\s+much\s+trouble\s*,?\s+"
    r"|i\s+(?:am|'m)\s+(?:terribly\s+|so\s+)?sorry\s+to\s+(?:trouble|bother)\s+you\s*,?\s+(?:but\s+)?"
    r"|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|would\s+like|need)\s+(?:you\s+)?to\s+know\s+"
    r"|(?:can|could|would)\s+you\s+tell\s+me\s+|(?:please\s+)?tell\s+me\s+(?=what|how|which)"
    r"|i\s+(?:want|need|would\s+like)\s+(?:you\s+)?to\s+(?=know\b)|i\s+want\s+to\s+know\s+|do\s+you\s+know\s+"
    r"|i\s+wonder\s+|help\s+me\s+(?=calculate|work|figure)|(?:would|do)\s+you\s+mind\s+|mind\s+|you\s+can\s+"
    r"|after\s+that\s*,?\s+|afterwards\s*,?\s+|remind\s+me\s+(?=what|how\s+many|which)"
    r"|you\s+(?=(?:put|add|remove|delete|mark)\b)"
    # a filler before a question: "so like whats 3.5 * 4"
    r"|like\s*,?\s+(?=(?:what|how|can|could)\b)"
    # "I want you to ...", "I'd like to see ...": addressed to the assistant. "I need to remove the
    # stain" is about the user's day, not the list: only "I want to add/put X on my list" is read.
    r"|i\s+(?:want|would\s+like|need|wanna)\s+you\s+to\s+"
    r"|i\s+(?:want|would\s+like|wanna)\s+to\s+(?=(?:see|know|calculate|compute|convert|find|work|figure)\b)"
    r"|i\s+(?:want|would\s+like|wanna|need)\s+(?:to\s+)?(?=(?:add|put)\b.*\b(?:list|todos?|tasks?|things|items)\b)"
    # "I want that you add 'visit aunt Rosa' in my list": English learnt from another language
    r"|i\s+(?:want|would\s+like)\s+that\s+you\s+(?=(?:add|put|remove|delete|mark|tick|show|tell)\b)"
    # "i need to add mow the lawn": what is added is a task (a verb first), not salt to a soup
    rf"|i\s+(?:want|would\s+like|wanna|need)\s+(?:to\s+)?(?=add\s+(?:{'|'.join(sorted(lexicon.TODO_VERBS))})\s))+",
    _F,
)
_POLITE_ONLY = re.compile(
    r"(?:thanks?(?:\s+you)?(?:\s+(?:so\s+much|a\s+lot|very\s+much|kindly|in\s+advance|ever\s+so\s+much|dear|love))?"
    r"|thanks?\s+(?:for\s+(?:earlier|before|that|everything|all\s+your\s+help|your\s+help|the\s+help))"
    r"|(?:many|big)\s+thanks|thx|ty|cheers|please|pls|bless\s+you|(?:love|luv)\s+(?:you|ya|u)|x{1,3}|(?:xo)+|sorry(?:\s+(?:to\s+(?:bother|trouble)\s+you|for\s+(?:the\s+)?(?:bother|trouble"
    r"|bothering\s+you)|to\s+be\s+a\s+pain))?|good\s+(?:morning|afternoon|evening)\s+(?:dear|love|mate|all|there)"
    r"|ok(?:ay)?|great|cool|awesome|perfect|nice|start\s+fresh|start\s+over|lol|haha|hah|good\s+(?:morning|afternoon"
    r"|evening)"
    # a feeling about what came before: "called the dentist, finally", "groceries done, yay"
    r"|(?:(?:and\s+)?(?:finally|at\s+(?:long\s+)?last|phew|whew|yay+|yey|woo+(?:\s*hoo+)?|hooray|hurrah|ugh"
    r"|argh|oops|oh\s+well|thank\s+(?:god|goodness)|yes+|done\s+and\s+dusted)[\s,!.]*)+"
    # a pause before the request: "wait, is buy milk on there?", "hmm, what's 6 * 7"
    r"|wait|hm+|um+|uh+|oh|ah|actually|anyway|so|right|well"
    # a greeting and good wishes: "hi there, hope you're well!"
    r"|(?:hi|hello|hey)\s+there|(?:i\s+)?hope\s+(?:you\s+are|you're|ur|all\s+is|everything\s+is)\s+(?:well|good|ok|okay"
    r"|fine|doing\s+well)"
    # that it is done, said again after a report: "spoke to the surgery, all sorted"; "please
    # update the same": Indian English for "update the list with it"
    r"|all\s+(?:sorted|done|good)|(?:please\s+)?update\s+the\s+same"
    # how pressing the rest is, said on its own: "urgent!! add call the school back"
    r"|(?:super\s+|very\s+)?urgent|asap"
    # a reassurance, not a request: "don't remove anything, just show me what I have"
    r"|(?:do\s+not|don't)\s+(?:change|remove|delete|touch|mark|add|clear)\s+(?:anything|a\s+thing)(?:\s+(?:yet|for\s+now))?"
    # after a sum: "don't add it to the list, just tell me", "just asking, not for the list"
    r"|(?:but\s+)?(?:do\s+not|don't|no\s+need\s+to)\s+(?:add|put|save)\s+(?:it|that|this|the\s+answer)"
    r"(?:\s+(?:to|on)\s+(?:the|my)\s+(?:todo\s+)?list)?|(?:just\s+)?tell\s+me|(?:i\s+am\s+)?just\s+(?:asking|curious)"
    r"|not\s+for\s+the\s+list|that(?:'s|\s+is)\s+(?:it|all|everything)(?:\s+for\s+now)?"
    r"|hi|hiya|heya|hello|hey(?:\s+there)?|much\s+appreciated|if\s+you\s+(?:would|could)\s+be\s+so\s+kind"
    # a greeting: "hope ur well", "first time using this"
    r"|(?:i\s+)?hope\s+(?:you\s+are|your|you're|u\s+are|all\s+is|everything\s+is)\s+(?:well|good|ok|okay|doing\s+well)"
    r"|how\s+are\s+you(?:\s+doing)?(?:\s+today)?|(?:my\s+)?first\s+time\s+using\s+(?:this|you)(?:\s+app)?"
    r"|if\s+you\s+can|if\s+possible|when\s+you\s+can|no\s+rush|(?:keep|leave)\s+the\s+rest"
    r"|be\s+honest|no\s+pressure|no\s+judg(?:e?ment)?|(?:go|come)\s+on"
    r"|(?:whether\s+)?(?:done|finished|completed)\s+or\s+not"
    # which todos, said again after a listing of all: "show me my whole list, finished and unfinished"
    r"|(?:both\s+)?(?:done|finished|completed)\s+(?:and|&|or)\s+(?:not\s+done|unfinished|open|undone|pending|not)"
    r"|(?:both\s+)?(?:open|unfinished|pending)\s+(?:and|&|or)\s+(?:done|finished|completed)"
    r"|(?:a\s+)?(?:fresh|clean)\s+(?:start|slate)(?:\s+for\s+(?:the\s+)?[a-z ]{1,30})?"
    # asking for the answer of the clause before: "..., what does that make?"
    r"|what\s+(?:does|do|is|would)\s+(?:that|it|this)\s+(?:make|come\s+to|equal|give|be)"
    r"|what\s+is\s+the\s+(?:answer|result))",
    _F,
)
_POLITE_WORDS = (
    *("thank you", "thanks", "please", "for me", "pls", "thx", "lol", "haha", "if you can", "ta", "cheers"),
    *("thank you kindly", "will you", "would you", "i guess", "i suppose", "go on", "yeah"),
    # chatter at the end ("add text jess back omg"), and "now" said of the asking ("add buy milk
    # now please"): a list has no time to do a todo at, only the order it was asked in
    *("omg", "lmao", "now", "right now", "just now"),
    *(
        "thanks a lot",
        "thank you so much",
        "thanks so much",
        "many thanks",
        "much appreciated",
        "thank you very much",
    ),
)
# "... when you get a sec": when the listener may do it, said to the listener, never the todo's
# own time (that is said of the speaker: "call mom when I can").
_POLITE_WORDS += (
    *(
        f"when{ever} you {get} {a} {moment}"
        for ever in ("", "ever")
        for get in ("get", "have", "find")
        for a in ("a", "the")
        for moment in ("sec", "second", "chance", "minute", "moment")
    ),
    *("when you can", "whenever you can", "if you do not mind", "if you don't mind", "if possible"),
    # "add milk, when you're done": when the listener is free, not when the todo is
    *(
        f"{when} you {are} {free}"
        for when in ("when", "whenever", "once")
        for are in ("are", "'re", "re")
        for free in ("done", "free", "ready", "finished")
    ),
)
# Chatter that closes a message and is no todo's words ("buy eggs pretty please", "... :)").
_POLITE_WORDS += (
    *("pretty please", "real quick", "would ya", "will ya", "xx", "xxx", ":)", ":-)", ";)", ":d", "<3"),
    *(
        f"if {that} {ok}"
        for that in ("that's", "that is", "thats")
        for ok in ("ok", "okay", "alright", "fine")
    ),
)
# What closes a message to the listener, never a todo's words: that nothing else follows ("that's
# all"), how welcome it would be, why ("so I don't forget").
_POLITE_WORDS += (
    *(
        f"{a}{that} {it}"
        for a in ("", "and ")
        for that in ("that is", "thats", "that's")
        for it in ("all", "it")
    ),
    *("nothing else", "and nothing else", "thank u", "thank u so much", "ty", "tysm", "if you could"),
    *(
        "thanks in advance",
        "thank you in advance",
        "if you would",
        "if you would be so kind",
        "cheers in advance",
        "tho",
        "though",
        # a tag at the end, said to the listener: "hoovered the stairs innit", "... this morning x"
        "innit",
        "xx",
        # how the speaker feels about it: "pay rent is finished finally", "... done yay"
        "finally",
        "at last",
        "at long last",
        "yay",
        "yey",
        "woohoo",
        "hooray",
        "phew",
    ),
    *(
        "thanks a bunch",
        "thanks a ton",
        "thanks a million",
        "thanks heaps",
        "tia",
        "no rush",
        "no hurry",
        "whenever",
        "you are the best",
        "you're the best",
        "ur the best",
        # a reassurance after a reading: "show me my list but don't change anything"
        "but do not change anything",
        "but do not touch anything",
        "without changing anything",
        # when, said of the request: "add X to my list rn"
        "right now",
        "your the best",
        # other closings: thanks in other words or tongues, goodbyes, kisses
        "ta very much",
        "much obliged",
        "appreciated",
        "love you",
        "love u",
        "gracias",
        "merci",
        "danke",
        "xoxo",
        "kthx",
        "kthxbye",
        "bye",
        "bye bye",
        "thanks bye",
        "ok thanks bye",
        "k thanks bye",
        "good night",
        "goodnight",
        "have a nice day",
        "have a good day",
        "you rock",
        "appreciate it",
        "i appreciate it",
        "i'd appreciate it",
        "i would appreciate it",
        "nice one",
        "please do",
        "yes please",
        # more said to the listener: "add call the plumber, would you mind", "..., you're a star"
        "would you mind",
        "do you mind",
        *(
            f"{you} {a} {star}"
            for you in ("you are", "you're", "ur", "your")
            for a, star in (("a", "star"), ("a", "gem"), ("an", "angel"), ("a", "lifesaver"), ("a", "legend"))
        ),
        *(f"cheers {who}" for who in ("babe", "love", "hun", "mate", "pal", "dear")),
        "god bless",
        *(f"when{ever} you {have} time" for ever in ("", "ever") for have in ("have", "get", "find")),
    ),
    # "sweet thanks", "ok cheers": a word of assent that only comes with the thanks
    *(
        f"{word}{comma} {thanks}"
        for word in (
            "sweet",
            "great",
            "perfect",
            "awesome",
            "cool",
            "brilliant",
            "lovely",
            "nice",
            "ok",
            "okay",
            "yes",
            "super",
            "fab",
            "grand",
            "ace",
            "excellent",
            "wonderful",
            "fantastic",
        )
        for comma in ("", ",")
        for thanks in ("thanks", "thank you", "ty", "thx", "cheers", "please")
    ),
    # how welcome it would be: "that'd be amazing" (tidied to "that would be amazing")
    *(
        f"{that}would be {so}{good}"
        for that in ("", "that ", "it ", "this ")
        for so in ("", "so ", "really ", "very ", "super ")
        for good in (
            *("great", "nice", "lovely", "awesome", "amazing", "perfect", "good", "wonderful", "brilliant"),
            *("fantastic", "helpful", "a big help", "a great help", "a huge help", "a help"),
        )
    ),
    *(f"before i forget{it}" for it in ("", " it", " again")),
    *(
        f"so i {no} forget{it}"
        for no in ("don't", "do not", "dont", "won't", "will not")
        for it in ("", " it")
    ),
    *("so i remember", "so i remember it"),
    *(
        "sorry",
        "sorry to bother you",
        "sorry for the bother",
        "sorry for bothering you",
        "sorry to be a pain",
    ),
)
_POLITE_WORDS = tuple(sorted(_POLITE_WORDS, key=len, reverse=True))  # "many thanks" before "thanks"
_HELD_THANKS = re.compile(r"\b(thank\s+you|thank\s+u|thanks|thx|ty|pls|plz|please|cheers)(?<=(\w))\2+$", _F)
# "thaaanks", "pleeease": a vowel held down inside the word
_HELD_VOWEL = re.compile(r"\b(?:th(a)\1+nks|ple(e)\2+a?se|pl(z)\3+)$", _F)
# A word to the listener at the end ("chuck it on the list mate"), not a word of the todo ("call
# my mate"): dropped only when what comes before it could not own it.
_VOCATIVES = ("mate", "dear", "love", "pal", "buddy", "bro", "dude", "hun")
# "ok?" at the end asks the listener ("add buy milk ok?"), unless it says how something is ("check
# the boiler is ok"): dropped only when the word before it cannot be followed by one.
_CHECKS = ("ok", "okay", "k", "kk")
_SAYS_HOW = frozenset(["is", "are", "be", "was", "were", "feel", "feels", "look", "looks", "seem", "seems",
                       "it's", "its", "am", "not", "all", "if", "everyone's", "everything's"])  # fmt: skip
_OWNERS = frozenset(
    ["my", "your", "his", "her", "our", "their", "the", "a", "an", "best", "old", "dear", "to"]
)
_TODO_NOUN = r"(?:todo|to-do|to do|task|reminder|item)"

_EXPLICIT_TOOL = re.compile(
    r"^(?:use|call|run|invoke)\s+(?:the\s+)?(?:tool\s+)?(?P<tool>[a-z][a-z0-9_]*)(?:\s+tool)?\s+with\s+(?P<args>\{.*\})$",
    re.IGNORECASE | re.DOTALL,
)
# "what did I just add?", "what was the answer?": answered from the thread's history.
_RECALL = [
    (
        re.compile(
            r"^(?:what|which (?:todos?|tasks?|items?))\s+(?:did|have)\s+i\s+(?:just\s+|last\s+)?add(?:ed)?"
            rf"(?:\s+(?:to|on)\s+(?:my|the)\s+(?:{_TODO_NOUN}\s+)?list)?(?:\s+again)?$",
            _F,
        ),
        "added",
    ),
    (
        re.compile(rf"^what (?:was|is) the (?:last\s+)?(?:{_TODO_NOUN}|thing) i (?:just\s+)?added$", _F),
        "added",
    ),
    (
        re.compile(
            r"^(?:what (?:was|were) (?:the|that|your) (?:last\s+)?(?:answer|result)s?"
            r"|what(?:'s| is) (?:the|that) (?:answer|result)(?: again)?"
            r"|what did you (?:just\s+)?(?:say|answer|get))(?:\s+again)?$",
            _F,
        ),
        "answer",
    ),
]


# A prompt's pieces are cleaned many times while it is planned (plan() empties the cache first:
# it saves work within one plan, and no figure is flattered by prompts seen before).
@functools.lru_cache(maxsize=1024)
def _clean(clause: str) -> str:
    """The clause with whitespace collapsed (rules then never meet runs of spaces or newlines,
    where backtracking patterns go quadratic or worse) and polite words trimmed. A JSON object
    (the arguments of "use TOOL with {...}") is kept byte for byte."""
    brace = clause.find("{")
    head, arguments = (clause, "") if brace < 0 else (clause[:brace], clause[brace:].strip())
    head = normalize.substituted(_FEELING_ABOUT_THE_LIST, r"\1 ", " ".join(head.split()))
    for _ in range(2):  # "please just remind me what's left": each may open the other
        opened = normalize.substituted(_FILLER_ADVERB, r"\1", _POLITE_PREFIX.sub("", head))
        if opened == head:  # (nothing more to open)
            break
        head = opened
    if arguments:
        return f"{head} {arguments}".strip()
    return _strip_polite_suffix(head)


# A word that only colours the request ("just clear the list", "have I actually done"), where
# it stands between the speaker and the verb: dropped, as the rules would never read it.
_FILLER_ADVERB = re.compile(
    r"(^|\b(?:i|we|you|have|had|did|do|does|has)\s+)(?:just|actually|really|literally|basically|honestly|simply)\s+"
    r"(?!(?:now|that|this|it|one)\b)",
    _F,
)


# "show me my glorious list": what the speaker thinks of the list, not which list. ("whole" and
# "entire" say which: "clear the whole list".)
_FEELING_ABOUT_THE_LIST = re.compile(
    r"\b(my|the|your|our)\s+(?:glorious|lovely|wonderful|endless|never-ending|ever-growing|little|sad|pathetic|long"
    r"|massive|giant|huge|beautiful|precious|dreaded|infamous|famous|trusty|poor|silly|stupid|dumb|damn|darn)\s+"
    r"(?=(?:todo\s+|to-do\s+)?(?:list|todos|tasks)\b)",
    _F,
)


def _polite_index() -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """_POLITE_WORDS by their last run of letters and digits ("thanks a lot" under "lot"), in their
    order; and those that end in neither (":)"). A text can end with a closing only if its own
    last run is that closing's, so each step of _strip_polite_suffix tries a few, not all."""
    by_last: dict[str, list[str]] = {}
    other: list[str] = []
    for word in _POLITE_WORDS:
        run = _last_run(word)
        if run:
            by_last.setdefault(run, []).append(word)
        else:
            other.append(word)
    return {run: tuple(words) for run, words in by_last.items()}, tuple(other)


def _last_run(text: str) -> str:
    """The letters and digits that end `text` ("" when it ends in anything else)."""
    start = len(text)
    while start and text[start - 1].isalnum():
        start -= 1
    return text[start:]


_POLITE_BY_LAST, _POLITE_OTHER = _polite_index()


def _polite_candidates(lowered: str) -> tuple[str, ...]:
    return _POLITE_BY_LAST.get(_last_run(lowered), ()) if lowered[-1:].isalnum() else _POLITE_OTHER


_REPORTS_MORE = {
    also: re.compile(rf"(?:\bis|\bare|'s)\s+(?:done|finished|completed|sorted){also}$")
    for also in (" too", " as well")
}


# Cached as _clean is, and emptied with it: _clean and the pieces' checks in _plan strip the same
# piece more than once within one plan.
@functools.lru_cache(maxsize=1024)
def _strip_polite_suffix(text: str) -> str:
    """Drop trailing punctuation and a closing "please"/"thanks"/"thank you" (string operations,
    not a regex: a pattern anchored at the end is retried from every position)."""
    text = text.rstrip(" .!?")
    # "add buy milk (thanks!)": thanks in brackets are thanks
    opened = text.rfind("(")
    if text.endswith(")") and opened > 0 and _POLITE_ONLY.fullmatch(text[opened + 1 : -1].strip(" .!?,")):
        text = text[:opened].rstrip(" .!?,")
    # "thank youuu", "thanksss", "plsss": a held key at the end of a closing word
    if held := _HELD_THANKS.search(text):
        text = text[: held.end(1)]
    if held_vowel := _HELD_VOWEL.search(text):
        text = text[: held_vowel.start()] + "thanks"
    stripped = True
    # "buy new headphones lol thanks!", "add milk thanks love": each closing word in turn, a word
    # to the listener included, so that the thanks before it goes too.
    while stripped:
        stripped = False
        lowered = text.lower()
        for word in _polite_candidates(lowered):
            if lowered.endswith(word) and (len(text) == len(word) or not text[-len(word) - 1].isalnum()):
                text = text[: -len(word)].rstrip(" ,.!?-")
                stripped = True
                break
        words = text.rstrip(" ,.!?").split()
        if (
            not stripped
            and len(words) > 3
            and words[-1].lower() in _VOCATIVES
            and words[-2].lower().strip(",") not in _OWNERS
        ):
            text = text.rstrip(" ,.!?")[: -len(words[-1])].rstrip(" ,.!?-")
            stripped = True
    words = text.rstrip(" ,.!?").split()
    if len(words) > 3 and words[-1].lower() == "x":  # a kiss after a message: "... this morning x"
        text, words = text.rstrip(" ,.!?")[:-1].rstrip(" ,.!?"), words[:-1]
    if len(words) > 2 and words[-1].lower() in _CHECKS and words[-2].lower().strip(",") not in _SAYS_HOW:
        text = text.rstrip(" ,.!?")[: -len(words[-1])]
    # "add buy bulbs too", "mark it done as well": one more request; but "tell Ben his mum is invited
    # too" says "too" inside what is told.
    lowered = text.lower().rstrip(" ,.!?")
    for also, reports_more in _REPORTS_MORE.items():
        if not lowered.endswith(also) or len(words) <= 2:
            continue
        # "wash car is done too": a report of one more done, though "is" usually says how
        says_how = _SAYS_HOW & set(lowered.split()[:-1])
        if reports_more.search(lowered) or not says_how:
            text = text.rstrip(" ,.!?")[: -len(also)]
            break
    return text.rstrip(" ,.!?")


def _recall(clause: str) -> Intent | None:
    for pattern, kind in _RECALL:
        if pattern.match(clause):
            return Intent(clause, "", {}, f'"{clause}" asks about an earlier turn', recall=kind)
    return None


def _explicit(clause: str) -> Intent | None:
    match = _EXPLICIT_TOOL.match(clause)
    if not match:
        return None
    try:
        arguments = json.loads(match.group("args"))
    except json.JSONDecodeError:
        return None
    if not isinstance(arguments, dict):
        return None
    tool = match.group("tool")
    reasoning = f'"{clause}" names tool {tool} and its arguments explicitly'
    return Intent(clause, tool, arguments, reasoning, f"{tool} returned {{{{out}}}}", explicit=True)


# ("did the laundry!" reports; only "did" with who did it asks: "did I pay the rent")
_QUESTION = re.compile(
    r"^(?:did(?!\s+(?:the|my|our|all|both)\s(?!.*\b(?:get|go|happen|come|work)\b))|is|was|were|has|have|are|do|does|had)\b(?!\s+not\b)",
    _F,
)
_REQUEST = re.compile(r"\b(?:can|could|would|will)\s+(?:you|u)\b|\bplease\b|\bpls\b|\bmind\b", _F)
# "mind adding X?": the request in the gerund, as a command.
_GERUNDS = {"adding": "add", "putting": "put", "removing": "remove", "deleting": "delete", "marking": "mark",
            "crossing": "cross", "ticking": "tick", "checking": "check", "showing": "show", "listing": "list",
            "calculating": "calculate", "clearing": "clear", "counting": "count"}  # fmt: skip


# What to do with the list, said as how to do it: the "how" is the request.
_BY_MEANS = re.compile(
    r"^(?:tidy|clean|sort|organi[sz]e|declutter|trim|prune|update|fix)(?:\s+(?:up|out))?\s+(?:my|the)\s+"
    r"(?:todo\s+|to-do\s+)?(?:list|todos|tasks)\s+by\s+(?P<how>\w+ing\s.+)$",
    re.IGNORECASE,
)


def parse_clause(clause: str) -> Intent | None:
    cleaned = _clean(clause)
    if not cleaned:
        return None
    if m := _BY_MEANS.match(cleaned):  # "tidy up my list by deleting the ticked-off items"
        cleaned = m.group("how")
    first, _, rest = cleaned.partition(" ")
    if first.lower() in _GERUNDS:
        cleaned = f"{_GERUNDS[first.lower()]} {rest}".strip()
    # A question ("laundry done?", "did I pay the rent?") may read or compute, never report a todo done.
    question = bool(_QUESTION.match(cleaned)) or (
        clause.rstrip().endswith("?") and not _REQUEST.search(clause)  # "can you tick it off?" asks for it
    )
    return (
        _explicit(cleaned)
        or _recall(cleaned)
        or _results_combined(cleaned)
        or _amount_in_text(_computed_add(todos.parse(cleaned, question)))
        or arithmetic.parse(cleaned)
    )


def _results_combined(cleaned: str) -> Intent | None:
    """ "add the two together", "add them up": the results before it combined, never a todo of
    those words (quoted, they are one: "add 'them up' to my list")."""
    calculation = arithmetic.parse(cleaned)
    if calculation is None or not RESULTS.search(str(calculation.arguments.get("expression", ""))):
        return None
    return None if normalize.quoted_spans(cleaned) else calculation


# "that amount", "this sum", "the same amount", "that much": an earlier result named inside a
# todo's words. Only these: "the total" or "that number" are as often a todo's own words ("check
# the total of the invoice", "call that number back").
_AMOUNT_REFERENCE = re.compile(
    r"\b(?:that|this|the\s+same)\s+(?:amount|sum|figure)\b|\bthat\s+much\b", re.IGNORECASE
)


def _amount_in_text(intent: Intent | None) -> Intent | None:
    """ "add a todo to pay Jamie that amount": the todo names the amount an earlier result is
    ("pay Jamie 24"), never the words "that amount". Bound like any result reference
    (_bind_result): to a result computed earlier in the message, else the thread's one latest
    result; refused when there is none or several. Quoted, the words are the todo's name."""
    if intent is None or intent.tool != "todo_store" or set(intent.arguments) != {"action", "text"}:
        return intent
    text = intent.arguments["text"]
    if intent.arguments["action"] != "add" or not isinstance(text, str) or RESULT_TEXT in text:
        return intent
    found = _AMOUNT_REFERENCE.search(text)
    if found is None or todos.quoted_in(intent.clause, text):
        return intent
    return replace(
        intent,
        arguments={"action": "add", "text": text[: found.start()] + RESULT_TEXT + text[found.end() :]},
        reasoning=f"{intent.reasoning} ({found.group(0)!r} read as an earlier result)",
        refers=found.group(0).lower(),
    )


_OPERATION = re.compile(r"[-+*/%^(]")


def _computed_add(intent: Intent | None) -> Intent | None:
    """ "add the sum of 250 and 175 as a todo": the todo is the sum (425), not those words. Only
    when the whole text is arithmetic with an operation in it ("add 42 to my list" adds "42")."""
    if intent is None or intent.tool != "todo_store" or set(intent.arguments) != {"action", "text"}:
        return intent
    if intent.arguments["action"] != "add":
        return intent
    calculation = arithmetic.parse(intent.arguments["text"])
    if calculation is None or calculation.refers:
        # "add the result of 97 * 68 to my list": the result, not those words
        said = re.sub(
            r"^(?:the\s+)?(?:result|answer|value)\s+(?:of|to|for)\s+", "", intent.arguments["text"], flags=_F
        )
        if said != intent.arguments["text"]:
            calculation = arithmetic.parse(said)
    if calculation is not None and calculation.refers:
        # "add the result plus 2 to my list": a sum on an earlier result, never those words as a
        # todo; not planned as a sum either (refused: say the sum, then add the result). Quoted,
        # they are the todo's name as written.
        return intent if todos.quoted_in(intent.clause, intent.arguments["text"]) else None
    if calculation is None or calculation.then is not None:
        return intent
    if not _OPERATION.search(calculation.arguments["expression"].lstrip("-")):
        return intent
    adding = replace(
        intent,
        arguments={"action": "add", "text": RESULT_TEXT},
        reasoning=f'"{intent.clause}" adds the result as a todo',
        refers="the result",
    )
    return replace(calculation, clause=intent.clause, then=adding)


def _protected_spans(text: str) -> list[tuple[int, int]]:
    """Spans of top-level {...} JSON objects (and the strings inside them), where a comma or
    "and" is part of the arguments rather than a clause separator, and of quoted names, kept as
    written (tidy leaves them be) and whole (no clause ends inside one)."""
    objects = _json_spans(text)
    quoted = [(a, b) for a, b in normalize.quoted_spans(text) if not any(s < b and a < e for s, e in objects)]
    taken = objects + quoted
    # an emoji _emoji_end kept as a word (between its marks)
    kept = [(m.start(), m.end()) for m in _KEPT_EMOJI.finditer(text)] if "\ue002" in text else []
    taken += [(a, b) for a, b in kept if not any(s < b and a < e for s, e in taken)]
    # "buy batteries (AA, not AAA)": a comma in parentheses is the todo's, not a clause's end.
    bracketed = [(a, b) for a, b in _paren_spans(text) if not any(s < b and a < e for s, e in taken)]
    return sorted(taken + bracketed)


def _paren_spans(text: str) -> list[tuple[int, int]]:
    """Spans of balanced top-level (...) groups of at most 200 characters."""
    if "(" not in text:  # most prompts: no walk through them a character at a time
        return []
    spans, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "(":
            if depth == 0:
                start = index
            depth += 1
        elif char == ")" and depth:
            depth -= 1
            if depth == 0 and index - start <= 200:
                spans.append((start, index + 1))
    return spans


def _json_spans(text: str) -> list[tuple[int, int]]:
    if "{" not in text:  # most prompts: no walk through them a character at a time
        return []
    spans, depth, start, in_string, escaped = [], 0, 0, False, False
    for index, char in enumerate(text):
        if in_string:
            escaped = char == "\\" and not escaped
            if char == '"' and not escaped:
                in_string = False
            continue
        if char == '"' and depth:
            in_string = True
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, index + 1))
    if depth:
        spans.append((start, len(text)))
    return spans


# Bullets on lines of their own ("add\n- eggs\n- milk"): a list, written as one.
_NUMBERED = re.compile(r"(?<!\S)(\d{1,2})[.)]\s+(?=[A-Za-z])")
_BULLET = re.compile(r"[ \t]*\n\s*(?:[-*\u2022]|\d{1,2}[.)])\s+")
# A line that opens a list of todos, one a line after it: "add:", "add these to my list",
# "todo list:", "new todos:".
_LINES_HEADER = re.compile(
    r"(?:(?:please\s+)?(?:add|put|jot\s+down)(?:\s+(?:these|the\s+following|this|them|all\s+of\s+these))?"
    r"(?:\s+(?:to|on|onto)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?list)?|(?:new\s+)?(?:todos?|to-dos?|tasks?)"
    r"|(?:my\s+)?(?:todo\s+|to-do\s+)?list)\s*:?",
    re.IGNORECASE,
)


def _emoji_end(match: re.Match[str]) -> str:
    """A check mark after words says done ("litter box ✔"), unless they say it already; any other
    emoji says nothing."""
    if any(start < match.start() < end for start, end in normalize.quoted_spans(match.string)):
        return match.group()  # "add 'buy 🎂 for dad'": quoted, it is part of the name as written
    before = match.string[: match.start()].rstrip()
    if before and _CHECK_MARK.search(match.group()) and not _SAYS_DONE.search(before):
        # "tidy garage ✓ clean car ✓": a mark between two names also ends the first
        more = re.match(r"\s*\w", match.string[match.end() :])
        return "done," if more else "done"
    after = match.string[match.end() : match.end() + 40]
    near = before[-200:]  # (bounded: a message of many emoji looks back a little, each)
    if (last := _LAST_WORD.search(near)) and re.match(r"\s*\w", after):
        word = last.group().lower()
        if not _NEXT_COMMAND.match(after) and (
            word in _WANTS_MORE or (word in lexicon.TODO_VERBS and _IN_AN_ADD.search(near))
        ):
            # "add buy 🎂 for dad", "fix the 🚿 drip": the emoji is the thing, kept as a word is
            return f"\ue002{match.group()}\ue003"
        if not re.match(r"\s*(?:and|or|but|&)\b", after, _F):
            return "."  # "hope ur well 😊 could you add ...": between two sentences, it ends the first
    return ""


_KEPT_EMOJI = re.compile("\ue002[^\ue003]*\ue003")
_LAST_WORD = re.compile(r"\b\w+$")
# Words a sentence cannot end on: what follows them, an emoji included, is their object; and a
# task's verb inside an add ("add buy 🎂 for dad"; "just finished my run 🏃 mark gym done" ends at it).
_WANTS_MORE = frozenset(
    ["a", "an", "the", "my", "your", "our", "his", "her", "their", "some", "new", "for", "to", "of", "with"]
)
_IN_AN_ADD = re.compile(r"(?:^|[.!?]\s+)(?:please\s+|pls\s+)?(?:add|put)\s[^.!?]*$", _F)
_NEXT_COMMAND = re.compile(
    r"\s*(?:mark|delete|remove|add|put|tick|check|cross|clear|show|list|tell|count|complete|finish|then|also)\b",
    _F,
)


_CHECK_MARK = re.compile("[\u2705\u2611\u2713\u2714]")
_SAYS_DONE = re.compile(r"\b(?:done|finished|completed|complete|sorted|ticked|checked)\W*$", _F)
_EMOJI = "[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff\ufe0f\u200d]"
# An emoji standing alone, a word of its own (one stuck to a word stays part of it).
_EMOJI_WORD = re.compile(rf"(?<!\S)(?:{_EMOJI})+(?=\s|[,.;:!?-]|$)")


# The private-use marks _tidy puts around what it keeps: dropped from what the user sent first.
_NO_MARKS = dict.fromkeys(range(0xE000, 0xE004))
_MARKED = re.compile("\ue000(\\d+)\ue001")


def _tidy(prompt: str) -> str:
    """normalize.tidy on the prompt's words; a JSON object's text stays byte for byte. Bulleted
    lines become "first: a, b, c"."""
    prompt = normalize.plain_quotes(prompt).translate(_NO_MARKS)  # the marks below
    # "post office run done ✅ thanks", "🎉 finished the taxes": an emoji between the words says
    # how the person feels, never what to do.
    prompt = _EMOJI_WORD.sub(_emoji_end, prompt)
    numbered = list(_NUMBERED.finditer(prompt))
    if len(numbered) >= 2 and [int(m.group(1)) for m in numbered] == list(range(1, len(numbered) + 1)):
        # "1. call the bank 2. cancel netflix 3. buy stamps": a list, written as one
        parts = [prompt[: numbered[0].start()]]
        parts += [
            prompt[m.end() : (numbered[k + 1].start() if k + 1 < len(numbered) else len(prompt))].strip()
            for k, m in enumerate(numbered)
        ]
        # ("add these 1) ... 2) ...": the head says what the list is for, as a colon would)
        head = parts[0].strip().rstrip(":").rstrip()
        prompt = (f"{head}: " if head else "") + ", ".join(p for p in parts[1:])
    lines = [line.strip() for line in prompt.strip().splitlines() if line.strip()]
    if len(bullets := list(_BULLET.finditer(prompt))) >= 2:
        head = prompt[: bullets[0].start()].rstrip().rstrip(":")
        items = [
            prompt[m.end() : (bullets[k + 1].start() if k + 1 < len(bullets) else len(prompt))].strip()
            for k, m in enumerate(bullets)
        ]
        prompt = f"{head}: " + ", ".join(items)
    elif (
        len(lines) >= 3 and _LINES_HEADER.fullmatch(lines[0]) and not any(_STOP.search(x) for x in lines[1:])
    ):
        # "add:\nmilk\neggs\nbread": a line each, as bullets are
        prompt = f"{lines[0].rstrip(':').rstrip()}: " + ", ".join(lines[1:])
    # Each protected span waits behind a mark tidy leaves alone (private-use characters around
    # its number, which nobody types), so tidy still reads the sentence around it whole ("ad
    # '...' to my list").
    kept, out, last = [], [], 0
    for start, end in _protected_spans(prompt):
        out.append(prompt[last:start] + f"\ue000{len(kept)}\ue001")
        kept.append(prompt[start:end].replace("\ue002", "").replace("\ue003", ""))
        last = end
    tidied = normalize.tidy("".join([*out, prompt[last:]]))
    return _MARKED.sub(lambda m: kept[int(m.group(1))], tidied) if kept else tidied


def _split(prompt: str) -> tuple[list[str], list[str]]:
    """Split at clause separators outside JSON objects: (pieces, separators between them)."""
    protected = _protected_spans(prompt)
    pieces, separators, last = [], [], 0
    for match in _SEPARATORS.finditer(prompt):
        if any(start <= match.start() < end for start, end in protected):
            continue
        if "." in match.group() and _ABBREVIATION.search(prompt, max(0, match.start() - 5), match.start()):
            continue  # "call Dr. Smith": the full stop of an abbreviation does not end a sentence
        pieces.append(prompt[last : match.start()])
        separators.append(match.group())
        last = match.end()
    pieces.append(prompt[last:])
    return pieces, separators


# "kitchen is spotless now, mark it off", "haircut's cancelled, remove it": a report, then a
# command whose "it" is what the report is about. The report's subject names the todo (todo_store
# finds it by its words, or refuses); the command says what to do with it.
_ABOUT_IT = re.compile(
    r"^(?P<report>[^,;.!?]+?)(?:\s*(?:[,;.!]+|\s-)\s*|\s+(?=(?:you|ya)\s+can\s|so\s+(?:that|it)\s))(?:so\s+)?"
    r"(?:(?:you|ya)\s+can\s+|pls\s+|please\s+)?"
    r"(?:(?P<done>(?:mark|tick|check|cross|strike)(?:\s+(?:it|that|em|them|that\s+one))?(?:\s+off)?"
    r"(?:\s+(?:as\s+)?(?:done|complete|completed|finished))?(?:\s+(?:on|in)\s+(?:my|the)\s+(?:todo\s+)?list)?"
    # "rang the vet, that's handled", "had my haircut so that one can go down as done"
    r"|(?:that|it)(?:'s|\s+is)\s+(?:handled|done|sorted|taken\s+care\s+of|dealt\s+with)"
    r"|(?:that|it)(?:\s+one)?\s+can\s+(?:go\s+down|be\s+marked|be\s+ticked|count)\s+as\s+done)"
    r"|(?P<gone>(?:remove|delete|bin|drop|ditch|scrap|nuke|axe|trash)(?:\s+(?:it|that|em|them|that\s+one))?"
    r"|get\s+(?:it|that|em|them)\s+off\s+(?:the|my)\s+list|take\s+(?:it|that|em|them)\s+off(?:\s+(?:the|my)\s+list)?))"
    r"(?:\s+(?:pls|please|thanks|thx|cheers))?\s*[.!]*$",
    _F,
)
_REPORT_LEAD = re.compile(
    r"^(?:(?:i\s+am|i'm|im|we\s+are|we're)\s+not\s+doing|(?:i|we)\s+(?:do\s+not|don't|dont)\s+need"
    r"|no\s+need\s+for|(?:i\s+|we\s+)?(?:had|got)\s+(?:my|our|the)|(?:the|my|our))\s+",
    _F,
)
_REPORT_TAIL = re.compile(
    r"(?:'s|\s+(?:is|are|was|were|went|has\s+been|have\s+been|not))\b.*$"
    r"|\s+(?:any\s?more|after\s+all|this\s+morning|yesterday|today|now|already)$",
    _F,
)
# "once I finish the report, mark it done": what is not done yet is no report of it.
_CONDITION_LEAD = re.compile(
    r"^(?:once|when|whenever|if|after|before|as\s+soon\s+as|unless|until|till|while|in\s+case)\b", _F
)
_REQUEST_LEAD = re.compile(
    r"^(?:add|put|new|create|delete|remove|mark|tick|check|cross|show|list|tell|count|clear|what|how|why|when"
    r"|is|are|can|could|would|will|do|does|did|should|please|don't|do\s+not|not|"
    + "|".join(re.escape(v).replace("\\ ", r"\s+") for v in sorted(lexicon.DELETE_VERBS, key=len)[::-1])
    + r")\b",
    _F,
)


_NOT_A_SUBJECT = frozenset(
    ["it", "that", "this", "they", "them", "these", "those", "everything", "all", "i", "we", "you", "he"]
)


def _about_it(tidied: str) -> str | None:
    """The message as one plain command when it is a report and an "it" command about it."""
    match = _ABOUT_IT.match(tidied)
    if not match:
        return None
    report = " ".join(match.group("report").split())
    if _REQUEST_LEAD.match(report) or _CONDITION_LEAD.match(report) or any(q in report for q in '?"{'):
        return None
    said = _report_alone(report)
    if said is not None:
        return f"mark {said} as done" if match.group("done") else f"delete {said}"
    past = re.match(rf"(?:i\s+|we\s+)?(?:{todos.PAST}|{todos.SIMPLE_PAST})\s", report, _F)
    if not past and not _REPORT_LEAD.match(report) and re.match(r"(?:i|we|you|he|she|they)\b", report, _F):
        return None  # "I want pizza, delete it": what the person wants is no todo's name
    subject = report if past else _REPORT_TAIL.sub("", _REPORT_LEAD.sub("", report)).strip()
    words = subject.split()
    if not words or len(words) > 6 or subject.lower() in _NOT_A_SUBJECT:
        return None
    return f"mark {subject} as done" if match.group("done") else f"delete {subject}"


def _report_alone(report: str) -> str | None:
    """The todo a report names when the rules read the report alone as one done todo ("finally
    got my taxes done" names "taxes")."""
    try:
        intents = _cover(report, report)
    except PlanningFailed:
        return None
    if len(intents) != 1 or intents[0].arguments.get("action") != "complete":
        return None
    text = intents[0].arguments.get("text")
    return text if isinstance(text, str) and text else None


# A message signed off like a letter ("... Many thanks, Margaret", "..., cheers Bob"): the closing
# words and the name are no part of the request (never a todo "cheers Bob").
_SIGNED = re.compile(
    r"(?<=[\w'\")])\s*[,.!;]+\s*(?:(?:many|big)\s+thanks|thanks(?:\s+(?:again|so\s+much|a\s+lot))?|thank\s+you(?:\s+so\s+much)?"
    r"|cheers|(?:kind\s+|best\s+|warm\s+)?regards|best(?:\s+wishes)?|all\s+the\s+best|love|ta|thx)\s*,?\s*[-\u2013\u2014]?\s*"
    r"(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z])\.?)?[.!\s]*$",
    _F,
)


def plan(
    prompt: str, available_tools: set[str], max_steps: int = 0, context: Discourse | None = None
) -> list[Intent]:
    """Plan `prompt` into intents, or raise PlanningFailed saying what was understood.
    `context`: what the thread's earlier turns did (references bind to it); none for a one-shot run."""
    _clean.cache_clear()
    _strip_polite_suffix.cache_clear()
    tidied = _SIGNED.sub("", _tidy(prompt.strip()).strip())
    retracted = _RETRACTED.search(tidied) if _may_take_back(tidied) else None
    if retracted is None and (undone := _UNDONE.search(tidied)) and _ADDS.search(tidied[: undone.start()]):
        retracted = undone
    if retracted:
        taken_back = _quote(retracted.group(0).strip(" ,.;!?-"))
        raise _cannot_plan(
            f"the message takes back what it asks ({taken_back}): nothing was done; say the request "
            "again if you still want it"
        )
    if tag := _TAG_QUESTION.search(tidied):
        raise _cannot_plan(
            f"the message asks whether something is so ({_quote(tag.group(0).strip(' ,.;!-'))}): nothing "
            'was changed; to check a todo ask "did I ...?", or say what you did plainly'
        )
    if (acted := acts.act(tidied, context or Discourse(), available_tools)) is not None:
        intents = _checked(acted, available_tools, max_steps)
    elif corrected := list(_CORRECTION.finditer(tidied)):
        intents = _plan_correction(
            _correction(tidied, corrected[-1]), prompt, available_tools, max_steps, context
        )
    elif (listed := todos.listed_first(tidied)) is not None:
        intents = _checked([listed], available_tools, max_steps)
    else:
        try:
            intents = _planned(tidied, prompt, available_tools, max_steps, context)
        except PlanningFailed as failed:
            # Only what no other rule read: a report and an "it" command about it. Not in a
            # thread, where "it" may as well be a todo an earlier turn named.
            if (context is not None and context.turns) or (plain := _about_it(tidied)) is None:
                raise
            try:
                intents = _planned(plain, prompt, available_tools, max_steps, context)
            except PlanningFailed:
                raise failed from None
    if any(i.quantity for i in intents) and (
        any(i.tool == "calculator" for i in intents) or (context is not None and context.turns)
    ):
        counted = next(i for i in intents if i.quantity)
        raise _cannot_plan(
            f"{_quote(counted.clause)} may add a number to a sum or put a todo with a number on the list: "
            "nothing was done; say which (quote the todo: add '3 apples')"
        )
    return [_as_said(i, prompt) for i in intents]


def _places_said(name: str, prompt: str) -> list[str]:
    """Where `name` stands in `prompt` as _said_pattern reads it (the first two places, which is
    as many as _as_said tells apart). In an ASCII prompt, a name whose places are all words (each
    as itself, or as one of tidy's spellings) is looked for as those words (_said_runs); any other
    compiles its pattern. A pattern compiled for each new name cost more than all the rest of its
    plan, and a todo's name is new to the planner more often than not."""
    places = _said_places(name.split())
    if prompt.isascii() and _only_words(places):
        return _said_runs(places, prompt, limit=2)
    pattern = re.compile(rf"(?<!\w){_said_pattern(name)}(?!\w)", re.IGNORECASE)
    return [m.group() for m in itertools.islice(pattern.finditer(prompt), 2)]


def _said_places(words: list[str]) -> list[list[tuple[str, ...]]]:
    """`words` as the user may have written them, place by place: a word or words tidy spells out
    (_SPELT_OUT) may be any of the forms tidy read as them, or themselves (a run of words, one or
    more spaces apart), in that order; any other word is one way, itself. _said_pattern writes
    these as a pattern; _said_runs looks for them as they are."""
    places: list[list[tuple[str, ...]]] = []
    k = 0
    while k < len(words):
        for size in (3, 2, 1):
            said = " ".join(words[k : k + size]).lower()
            if k + size <= len(words) and said in _SPELT_OUT:
                places.append([(form,) for form in _SPELT_OUT[said]] + [tuple(words[k : k + size])])
                k += size
                break
        else:
            places.append([(words[k],)])
            k += 1
    return places


def _only_words(places: list[list[tuple[str, ...]]]) -> bool:
    """Whether _said_pattern finds `places` as nothing but their words: all ASCII, and no word of
    its own (one way) that the pattern widens (a number tidy may have taken a thousands separator
    from, a dash)."""
    return all(word.isascii() for ways in places for way in ways for word in way) and not any(
        "-" in ways[0][0] or _FOUR_DIGITS.search(ways[0][0]) for ways in places if len(ways) == 1
    )


_FOUR_DIGITS = re.compile(r"\d{4,}")


def _said_runs(places: list[list[tuple[str, ...]]], text: str, limit: int) -> list[str]:
    """Up to `limit` places in `text` (ASCII) where `places` stand, as re.finditer finds the
    pattern they stand for: leftmost first, each after the last; any case; one or more spaces
    between places; neither end inside a word; each place's ways tried in order."""
    lowered = text.lower()
    ways = [[tuple(word.lower() for word in way) for way in place] for place in places]
    openings = {way[0] for way in ways[0]}  # a place is found only where one of these is
    found: list[str] = []
    at = 0
    while len(found) < limit:
        at = min((i for opening in openings if (i := lowered.find(opening, at)) >= 0), default=-1)
        if at < 0:
            break
        if (at and _in_word(lowered[at - 1])) or (end := _said_at(ways, 0, lowered, at)) is None:
            at += 1
        else:
            found.append(text[at:end])
            at = end
    return found


def _said_at(places: list[list[tuple[str, ...]]], i: int, text: str, at: int) -> int | None:
    """Where the places from the i-th on end when they start at `at` in `text` (lower case),
    backtracking over each place's ways as the pattern's alternation does; None if nowhere."""
    for way in places[i]:
        end: int | None = at
        for k, word in enumerate(way):
            if k:
                start = end
                end = _past_spaces(text, end)
                if end == start:
                    end = None
                    break
            if not text.startswith(word, end):
                end = None
                break
            end += len(word)
        if end is None:
            continue
        if i + 1 == len(places):
            if end == len(text) or not _in_word(text[end]):
                return end
            continue
        following = _past_spaces(text, end)
        if following > end and (last := _said_at(places, i + 1, text, following)) is not None:
            return last
    return None


def _past_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _in_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # (ASCII: what \w matches)


# What tidy spells out that a todo's name keeps as the user wrote it: "don't" read as "do not"
# to understand the request is "don't" again in the todo ("add don't forget the keys").
def _spelt_out() -> dict[str, list[str]]:
    """Each word or words tidy writes (lexicon.CHAT: "do not", "calculate") and what the user may
    have written for it ("don't", "dont", "calc")."""
    spelt: dict[str, list[str]] = {}
    for short, long in lexicon.CHAT.items():
        if (short != long and long.replace(" ", "") != short.replace("'", "")) or "'" in short:
            spelt.setdefault(long, []).append(short)
    return spelt


_SPELT_OUT = _spelt_out()


def _said_pattern(text: str) -> str:
    """A pattern for `text` in the prompt it came from: its words, each word tidy wrote as itself
    or what the user may have written for it (a contraction, a chat spelling), any spacing. (A
    command word's typo stays corrected: "lsit" in a name is "list".)"""
    out = []
    for ways in _said_places(text.split()):
        if len(ways) > 1:  # a spelling of tidy's: any of its forms, or the words themselves
            out.append("(?:" + "|".join(r"\s+".join(re.escape(w) for w in way) for way in ways) + ")")
            continue
        # "1200" was "1,200" (tidy drops thousands separators): either is the user's
        # and a dash was any dash ("Q3 report — send to Ana"): tidy writes each as "-"
        word = _FOUR_DIGITS.sub(lambda m: _thousands(m.group()), re.escape(ways[0][0]))
        out.append(word.replace("\\-", "[-\u2013\u2014]"))
    return r"\s+".join(out)


def _thousands(digits: str) -> str:
    head = len(digits) % 3 or 3
    groups = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return ",?".join(groups)


def _as_said(intent: Intent, prompt: str) -> Intent:
    """A todo_store call whose names are in the user's own words where tidy changed them (a
    contraction spelt out, "I'm" as "i am"): the todo is what they wrote, not how it was read.
    Found once in the prompt, or left as it is."""
    if intent.tool != "todo_store" or intent.explicit:
        return intent
    arguments = dict(intent.arguments)
    plain = normalize.plain_quotes(prompt)
    for key in ("text", "texts"):
        value = arguments.get(key)
        names = value if isinstance(value, list) else [value]
        said = []
        for name in names:
            if isinstance(name, str) and name and "{{" not in name:
                found = _places_said(name, plain)
                said.append(" ".join(found[0].split()) if len(found) == 1 else name)
            else:
                said.append(name)
        if value is not None:
            arguments[key] = said if isinstance(value, list) else said[0]
    return replace(intent, arguments=arguments) if arguments != intent.arguments else intent


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


def _plan_correction(
    correction: _Correction, prompt: str, available_tools: set[str], max_steps: int, context: Discourse | None
) -> list[Intent]:
    """What the message says after its last correction, when that is a request whole ("24 times
    16", "mark return library books done"); a part to put in place of another ("no wait, oat
    milk", "make that 20 percent") is refused: which part it replaces is a guess."""
    head, tail = correction.head, correction.tail
    try:
        intents = _planned(tail, prompt, available_tools, max_steps, context) if tail else []
    except PlanningFailed:
        intents = []
        if correction.named is not None:
            with contextlib.suppress(PlanningFailed):
                intents = _planned(correction.named, prompt, available_tools, max_steps, context)
    whole = bool(intents) and all(
        i.tool != "calculator" or _OPERATION.search(str(i.arguments.get("expression", "")).rstrip("% "))
        for i in intents
    )
    if not whole and correction.replaced is not None:
        with contextlib.suppress(PlanningFailed):  # the replaced request is refused like any other
            intents, whole = _planned(correction.replaced, prompt, available_tools, max_steps, context), True
    if not whole:
        raise _cannot_plan(
            f"the message corrects itself ({_quote(head)} ... {_quote(tail)}), and what it corrects to is "
            "not a request of its own: say the request once, as you mean it"
        )
    return intents


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


def _planned(
    tidied: str, prompt: str, available_tools: set[str], max_steps: int, context: Discourse | None
) -> list[Intent]:
    """One text planned: first the readings of a part of it (_part_readings), each kept only when
    its plan is what that reading needs; else the text whole (_read). Each reading goes through the
    stages once (cover, bind, check): no stage plans again."""
    pieces, separators = _split(tidied)
    if len(pieces) > MAX_PIECES:
        raise _cannot_plan(f"the prompt has too many parts to plan (more than {MAX_PIECES} clauses)")
    for part, keep in _part_readings(pieces, separators):
        with contextlib.suppress(PlanningFailed):
            if keep(intents := _read(part.strip(), prompt, available_tools, max_steps, context)):
                return intents
    return _read(tidied, prompt, available_tools, max_steps, context, split=(pieces, separators))


def _part_readings(
    pieces: list[str], separators: list[str]
) -> list[tuple[str, Callable[[list[Intent]], bool]]]:
    """The parts of a text to read alone before it whole, each with what its plan must be to be
    kept: the question before talk ("how many miles is 42 km? Training for the marathon": when it
    only reads, whatever the talk meant changes nothing); the request after a scene set first
    ("before I start on the delete-spam job, what's still open?", only a reading request); the
    request after why it is asked ("party's off, delete both party ones", only deletes that the
    why explains)."""
    readings: list[tuple[str, Callable[[list[Intent]], bool]]] = []
    if (asked := _talk_after_question(pieces, separators)) is not None:
        head = "".join(p + sep for p, sep in zip(pieces[:asked], separators[:asked], strict=True))
        readings.append((head, _reads_only))
    if len(pieces) < 2 or "," not in separators[0]:
        return readings
    first = _clean(pieces[0])
    rest = "".join(p + sep for p, sep in zip(pieces[1:], [*separators[1:], ""], strict=True))
    if _SETTING_THE_SCENE.match(first):
        readings.append((rest, _reads_only))
    elif _CALLED_OFF.match(first):

        def explained(intents: list[Intent]) -> bool:
            changes = [i for i in intents if i.arguments.get("action") != "find"]
            return bool(changes) and _why_deleted(changes[:1], first)

        readings.append((rest, explained))
    return readings


def _read(
    tidied: str,
    prompt: str,
    available_tools: set[str],
    max_steps: int,
    context: Discourse | None,
    *,
    split: tuple[list[str], list[str]] | None = None,
) -> list[Intent]:
    """One reading through the stages: its cover (the clauses understood), its references bound,
    checked against the catalog and max_steps."""
    planned = _cover(tidied, prompt, split)
    return _checked(_bind(planned, context or Discourse()), available_tools, max_steps)


def _cover(tidied: str, prompt: str, split: tuple[list[str], list[str]] | None = None) -> list[Intent]:
    """The intents of a text: its clauses (split at separators, the split whose clauses all parse
    and weigh the most), asides and remarks set aside, shaped into steps (merged, expanded, names
    checked first); references not bound yet."""
    pieces, separators = split or _split(tidied)
    if len(pieces) > MAX_PIECES:
        raise _cannot_plan(f"the prompt has too many parts to plan (more than {MAX_PIECES} clauses)")

    def segment(i: int, j: int) -> str:
        return "".join(p + s for p, s in zip(pieces[i:j], [*separators[i : j - 1], ""], strict=True))

    parsed: dict[tuple[int, int], Intent | None] = {}
    # "then", ";" and the end of a sentence always end a clause; only "," and "and" may also
    # belong inside one ("buy milk and eggs"). So "add a todo to buy milk, then book a flight"
    # is two clauses, one not understood, never one todo that swallowed the second.
    strong = [
        bool(_STRONG_SEPARATOR.search(s))
        and not _QUESTION_TAIL.match(following := _clean(pieces[k + 1]))
        and not ("then" not in s.lower() and todos.pronoun_action(following))
        for k, s in enumerate(separators)
    ]
    # "add these: a; b; c": after a list's header, a ";" separates its items, not clauses.
    for k, s in enumerate(separators):
        if s.strip() == ";" and _LIST_HEADER.search(segment(0, k + 1)):
            strong[k] = False
    # "add pick up prescription; drop off parcel; call Gran": after an add, a list of tasks that
    # are no request of their own are its items ("add milk; delete eggs" stays two requests, and
    # "add milk; book me a flight" asks for a flight: two pieces are no list).
    if (
        len(pieces) > 2
        and todos.ADD_FIRST.match(_clean(pieces[0]))
        and all(s.strip() == ";" for s in separators)
        and all(todos.a_task(_clean(p)) and parse_clause(p) is None for p in pieces[1:])
    ):
        strong = [False] * len(separators)

    def intent(i: int, j: int) -> Intent | None:
        if (i, j) not in parsed:
            parsed[(i, j)] = None if any(strong[i : j - 1]) else parse_clause(segment(i, j))
        return parsed[(i, j)]

    n = len(pieces)
    # A prompt that ends by asking about what it told ("... What did I spend altogether?") is
    # read as one word problem first, when it is one: its sentences are not requests of their own.
    if (
        n > 1
        and _QUESTION_TAIL.match(_clean(pieces[-1]))
        and (whole := _word_problem(tidied, pieces, separators)) is not None
    ):
        return _expanded([whole])
    # best[j]: the intents covering pieces[:j] entirely that weigh the most (each clause is 1, a
    # statement read with its pronoun more: Intent.weight), with their weight. A piece that is
    # only politeness ("Thanks!") is covered by nothing.
    polite, remarks_to_end, polite_to_end = _closings(pieces)
    best: list[tuple[int, list[Intent]] | None] = [(0, [])] + [None] * n
    reasons: set[int] = set()  # pieces that say why the delete before them was asked (_why_deleted)
    for j in range(1, n + 1):
        if (
            (before := best[j - 1]) is not None
            and before[1]
            # "list everything, the done ones too": those as well, not only those
            and not _AS_WELL.search(f"{separators[j - 2] if j > 1 else ''} {pieces[j - 1]}")
            and (narrowed := todos.narrowed(before[1][-1], _clean(pieces[j - 1]))) is not None
        ):
            best[j] = (before[0], [*before[1][:-1], narrowed])  # "what's left? just the open ones"
        elif (
            (before := best[j - 1]) is not None
            and (
                polite[j - 1]
                # "keep the rest pls"; "that'd be amazing": closing words alone
                or _POLITE_ONLY.fullmatch(said := _strip_polite_suffix(" ".join(pieces[j - 1].split())))
                or not said
                or (n > 1 and _aside(pieces[j - 1]))
                # "read me my list please, I've forgotten what I wrote": after a request that only
                # reads, why it is asked (nothing in it can change the list)
                or (j > 1 and bool(before[1]) and _read_why(before[1], pieces[j - 1], separators[j - 2]))
                # "walked the dog, milk's still to do": what is not done yet, beside a request, asks
                # for nothing (there is nothing to change for it)
                or (n > 1 and bool(_STILL_OPEN.fullmatch(_clean(pieces[j - 1]))))
                # "don't delete the milk one, delete the bread one": what not to do asks for nothing
                or (n > 1 and bool(_NOT_THIS.match(_clean(pieces[j - 1]))))
                or (
                    j > 1
                    and before[1]
                    and remarks_to_end[j - 1]
                    # "could you add 'buy stamps'? I'm going to the post office anyway": a request
                    # asked as a question ends its sentence too
                    and bool(
                        _STOP.search(separators[j - 2])
                        # "... . We've got none left and it's Monday.": a remark after a remark
                        or (j > 2 and remarks_to_end[j - 2] and best[j - 2] is before)
                        or ("?" in separators[j - 2] and _REQUEST.search(pieces[j - 2]))
                        # "what is 15 percent of 60? My grandson usually helps me with this": after
                        # a question that only reads, a remark can change nothing
                        or ("?" in separators[j - 2] and _reads_only(before[1]))
                    )
                )
                # "ugh the car is making that noise again. add take car to mechanic": told first
                or (
                    j < n
                    and not before[1]
                    and _remark(_clean(pieces[j - 1]))
                    and (
                        bool(_LEAD_STOP.search(separators[j - 1]))
                        # "the kids have a half day and i forgot the slip. add ...": one told thing
                        # and another, the last ending its sentence
                        or (" and " in f" {separators[j - 1]} " and _remark(_clean(pieces[j])))
                    )
                )
                # "... did 6 and a half hours, what did I make?": the question asks for the sum before it
                or (
                    j > 1
                    and before[1]
                    and before[1][-1].tool == "calculator"
                    and (j == n or _STRONG_SEPARATOR.search(separators[j - 1]))
                    and bool(_QUESTION_TAIL.match(tail := _clean(pieces[j - 1])))
                    and (
                        not _TAIL_WITH_MORE.search(tail)
                        # "... up by 10% and then down by 10%, what's the final price?": the last step's
                        or (bool(_FINAL_ONLY.fullmatch(tail)) and bool(before[1][-1].refers))
                    )
                )
                or (
                    j > 1
                    and before[1]
                    # "..., my membership ran out, cheers": thanks after the remark still end it
                    and _comment(
                        pieces[j - 1],
                        separators[j - 2],
                        [] if polite_to_end[j] else separators[j - 1 : j],
                        pieces[j] if j < n else "",
                    )
                )
                or (j == 1 and n > 1 and "," in separators[0] and bool(_COMMENT.fullmatch(_clean(pieces[0]))))
            )
            # "add milk, I don't need it actually": what takes the request back is never skipped
            and not _takes_back(before[1], pieces[j - 1])
        ):
            best[j] = before
        # "delete all my todos, trip is cancelled": why, after a delete, never a second change
        if j > 1 and (before := best[j - 1]) is not None and _why_deleted(before[1], pieces[j - 1]):
            best[j] = before
            reasons.add(j - 1)  # no clause starts with it ("..., trip is cancelled, cheers" neither)
        for i in range(max(0, j - MAX_CLAUSE_PIECES), j):
            prefix, current = best[i], best[j]
            if prefix is None or i in reasons:
                continue
            if (found := intent(i, j)) is not None and (
                current is None or prefix[0] + found.weight > current[0]
            ):
                best[j] = (prefix[0] + found.weight, [*prefix[1], found])
        if best[j] is None and j > 1 and (before := best[j - 1]) is not None and before[1]:
            best[j] = _followed_up(before, pieces[j - 1], separators[j - 2])
    intents = best[n][1] if best[n] is not None else None
    if intents is None and (whole := _word_problem(tidied, pieces, separators)) is not None:
        intents = [whole]  # no split understood, but the sentences together are one word problem
    if intents is None:
        raise _explain(prompt, pieces, intent)
    if not intents:  # only politeness: "thanks!"
        raise _unplannable(prompt, [], [prompt.strip()])
    _it_is_the_list(intents, whole=len(pieces) == 1)
    _nothing_kept_from_a_sweep(intents, pieces)
    return _names_checked_first(_merged(_expanded(intents)))


def _closings(pieces: list[str]) -> tuple[list[bool], list[bool], list[bool]]:
    """For each piece: whether it is only politeness ("Thanks!"); whether it and all after it
    are remarks after a full stop ("... Sadly she passed away last month.": said about the
    request, asking for nothing, _remark) or politeness; whether it and all after it are
    politeness. (The last two have one more entry, True: nothing is after the last piece.)"""
    n = len(pieces)
    polite = [bool(_POLITE_ONLY.fullmatch(piece.strip(" .!?,"))) for piece in pieces]
    remarks_to_end = [False] * n + [True]
    for k in range(n - 1, 0, -1):
        remarks_to_end[k] = remarks_to_end[k + 1] and (_remark(pieces[k]) or polite[k])
    polite_to_end = [False] * n + [True]
    for k in range(n - 1, -1, -1):
        polite_to_end[k] = polite_to_end[k + 1] and polite[k]
    return polite, remarks_to_end, polite_to_end


# "show it", "print them": the list, when it is what the message spoke of
_SHOW_IT = re.compile(r"^(?:(?:and|then)\s+)*(?:show|print|display|read)(?:\s+(?:me|us))?\s+(?:it|them)$", _F)


def _it_is_the_list(intents: list[Intent], *, whole: bool) -> None:
    """Refuse "print it" read as the list when "it" may be something else the message spoke of:
    "I'll finish the essay after dinner, then print it" prints the essay. Alone, or after a
    request about the list ("add X to my list, then show it"), it is the list."""
    if whole:
        return
    for k, intent in enumerate(intents):
        if (
            intent.tool == "todo_store"
            and intent.arguments.get("action") == "list"
            and _SHOW_IT.match(_clean(intent.clause))
            and not any(i.tool == "todo_store" for i in intents[:k])
        ):
            raise _cannot_plan(
                f"{_quote(intent.clause)}: what it refers to is not clear (the list, or something else the "
                "message spoke of); to see the list, say 'show my todos'"
            )


# What a sweep is asked to leave ("clear my list, keep the dentist one", "delete everything, well
# not the dentist"); not the rest, which a sweep of some leaves anyway ("clear the done ones, keep
# the rest").
_KEPT_FROM = re.compile(
    r"^(?:(?:but|well|and|though|oh)\s+)*(?:keep|leave|except|excluding|apart\s+from|other\s+than|save\s+for"
    # "not the dentist", not a reason ("not happening", "not needed anymore")
    r"|bar|minus|without|not(?!\s+(?:[a-z]+(?:ing|ed)|now|yet|today|any\s?more|relevant|important|necessary|worth\b)))"
    r"\b(?!\s+(?:the\s+)?(?:rest|others|other\s+ones|remaining\s+ones)\b)",
    _F,
)


def _nothing_kept_from_a_sweep(intents: list[Intent], pieces: list[str]) -> None:
    """Refuse a sweep the message keeps something from: the tools sweep all that fits, so read
    without its exception it would delete or tick off the very todo the person wants kept."""
    if not any(_sweeps(i) for i in intents):
        return
    clauses = " ".join(_clean(i.clause) for i in intents)
    for piece in pieces:
        said = _clean(piece)
        if _KEPT_FROM.match(said) and said not in clauses:
            raise _cannot_plan(
                f"the message keeps something out of a sweep ({_quote(said)}), and a sweep takes every todo "
                "it fits: name the todos to change one by one instead"
            )


def _sweeps(intent: Intent) -> bool:
    action = intent.arguments.get("action")
    return intent.tool == "todo_store" and (
        action == "delete_all" or (action in ("delete", "complete") and bool(intent.arguments.get("every")))
    )


def _followed_up(
    before: tuple[int, list[Intent]], piece: str, separator: str
) -> tuple[int, list[Intent]] | None:
    """The intents before, with `piece` read as a follow-up of the last of them that is nothing
    on its own: one more todo of an add ("put X on the list, and also Y"), or the conversion
    asked again of another amount ("how many km is 3 miles? and 6 miles?"); None otherwise."""
    weight, intents = before
    if (
        not _STRONG_SEPARATOR.search(separator)
        and (said := _strip_polite_suffix(" ".join(piece.split())))
        and (more := todos.also_added(intents[-1], said, separator)) is not None
    ):
        return weight, [*intents[:-1], more]
    if (asked := arithmetic.again(intents[-1], _clean(piece))) is not None:
        return weight + 1, [*intents, asked]
    return None


def _merged(intents: list[Intent]) -> list[Intent]:
    """Clauses in a row that complete (or delete) todos by name, as one intent naming them all
    ("I called mom and walked the dog"): todo_store then changes all of them or none, so a name
    that fits no todo never leaves the others half done."""
    out: list[Intent] = []
    for intent in intents:
        named = _named_todos(intent)
        before = _named_todos(out[-1]) if out else None
        if (
            named is not None
            and before is not None
            and out[-1].arguments["action"] == intent.arguments["action"]
            and isinstance(before[0], int) == isinstance(named[0], int)
        ):
            last = out[-1]
            out[-1] = replace(
                last,
                clause=f"{last.clause}; {intent.clause}",
                arguments={"action": last.arguments["action"]},
                reasoning=f"{last.reasoning}; {intent.reasoning}",
                each=(*before, *named),
            )
        else:
            out.append(intent)
    return out


_CHANGES = frozenset(["add", "complete", "delete", "delete_all"])


def _names_checked_first(intents: list[Intent]) -> list[Intent]:
    """The plan, opened by a todo_store find of every todo a later step completes or deletes by
    name after an earlier step has changed the list ("add eggs, then mark the dentist done"): a
    name that fits no todo then fails the run before anything changed, so a refused request has
    changed nothing. A name of a todo the plan itself adds is not checked (it is not there yet),
    nor an id after an add (it may be the added one's)."""
    changed, adds, added = False, False, set()
    texts: list[str] = []
    ids: list[int] = []
    clauses: list[str] = []
    for intent in intents:
        if intent.tool != "todo_store":
            continue
        action = intent.arguments.get("action")
        if changed and (names := _named_todos(intent)) is not None:
            # an id after an add may be the added todo's ("add bread; then mark todo 1 done")
            fresh = [n for n in names if (not adds if isinstance(n, int) else not (_words(n) & added))]
            texts += [n for n in fresh if isinstance(n, str)]
            ids += [n for n in fresh if isinstance(n, int)]
            clauses += [intent.clause] if fresh else []
        if action == "add":
            adds = True
            for text in intent.arguments.get("texts", [intent.arguments.get("text")]):
                added |= _words(text) if isinstance(text, str) else set()
        changed = changed or action in _CHANGES
    # "both bills": every todo a name fits, so many of them, checked on its own
    every = [
        Intent(
            intent.clause,
            "todo_store",
            {**intent.arguments, "action": "find"},
            f"checks that {intent.arguments['text']!r} names "
            f"{intent.arguments.get('matching', 'some')} todos before the plan changes the list",
        )
        for k, intent in enumerate(intents)
        if ("matching" in intent.arguments or "every" in intent.arguments)
        and any(i.tool == "todo_store" and i.arguments.get("action") in _CHANGES for i in intents[:k])
    ]
    checks = [
        Intent(
            "; ".join(clauses),
            "todo_store",
            {"action": "find", **({f"{key}s": names} if len(names) > 1 else {key: names[0]})},
            f"checks that {', '.join(map(repr, names))} each name one todo before the plan changes the list",
        )
        for key, names in (("text", texts), ("id", ids))
        if names
    ]
    return [*every, *checks, *intents]


def _words(text: str) -> set[str]:
    """A name's words that say which todo (not "the", "a", "to"): for matching names loosely."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in _FILLER_NAME}


_FILLER_NAME = frozenset(
    ["the", "and", "for", "with", "one", "todo", "task", "item", "that", "this", "off", "done"]
)


def _named_todos(intent: Intent) -> tuple[str | int, ...] | None:
    """The todos a complete or delete names by text or id (none by reference), or None."""
    arguments = intent.arguments
    if (
        intent.tool != "todo_store"
        or intent.explicit
        or arguments.get("action") not in ("complete", "delete")
        or intent.todos is not None
        or intent.refers
        or intent.then is not None
        or intent.recall
        or intent.confirm
    ):
        return None
    if intent.each:
        return intent.each
    if set(arguments) == {"action", "text"} and isinstance(arguments["text"], str):
        return (arguments["text"],)
    if set(arguments) == {"action", "id"} and isinstance(arguments["id"], int):
        return (arguments["id"],)
    return None


def _expanded(intents: list[Intent]) -> list[Intent]:
    """Each intent, and right after it the calculation it asks to be followed by (Intent.then)."""
    out: list[Intent] = []
    for intent in intents:
        if intent.refers == arithmetic.TOTAL_REFERENCE and out and (total := arithmetic.total_after(out[-1])):
            out.append(total)  # "tip 20% on 65. then split the total": the bill and the tip first
        # (Intent is frozen: one without a follow-up is appended as it is, not copied.)
        out.append(intent if intent.then is None else replace(intent, then=None))
        if isinstance(intent.then, Intent):
            out.append(intent.then)
        elif intent.then is not None:
            expr, answer = intent.then
            follow = arithmetic.calculation(intent.clause, expr, "the result", answer)
            out.append(follow)
    return out


def _checked(intents: list[Intent], available_tools: set[str], max_steps: int) -> list[Intent]:
    """`intents`, if the catalog has their tools and they fit in max_steps."""
    missing = sorted({i.tool for i in intents if i.tool} - available_tools)
    if missing:
        known = ", ".join(sorted(available_tools)) or "none"
        raise _cannot_plan(
            f"understood the prompt, but the tool catalog lacks {', '.join(missing)} (available: {known})",
            understood=intents,
        )
    steps = sum(1 for i in intents if i.tool)
    if max_steps and steps > max_steps:
        raise _cannot_plan(
            f"the prompt needs {steps} steps but max_steps is {max_steps}",
            understood=intents,
            reason="MAX_STEPS_EXCEEDED",
        )
    return intents


# A remark after a request ("scrap the printer ink thing, don't need it anymore", "wipe the list,
# I'm starting fresh"): it says why, and asks for nothing more.
_COMMENT = re.compile(
    # never which one it is ("add milk, the oat one", "..., the kind with the blue cap")
    r"(?!(?:the|that|this)\s+(?:[\w'-]+\s+){0,3}one$|(?:the|that|this)\s+(?:kind|sort|type|brand)\b)"
    # never a condition ("if it rains, add buy an umbrella"): what follows it is not asked for now
    rf"(?!{lexicon.alternation(lexicon.CONDITIONS)}\b)"
    r"(?:(?:i|i\s+am|i\s+do\s+not|i\s+don't|it\s+is|it's|the|we|they|my|our|she|he|do\s+not|don't|no\s+longer|not|that\s+is"
    r"|that's|cannot|can\s+not)\b|[\w' ]+\s+(?:is|are|was|got|has\s+been)\s+"
    r"(?:cancell?ed|off|postponed|over|not\s+happening)$"
    # "..., never gonna happen", "..., Sam doesn't want a party": why, of what the request named
    r"|(?:never|not|no\s+way\s+it's|ain't)\s+(?:gonna|going\s+to|happening)\b"
    # "..., turns out it's valid till 2030": what was found out, the reason
    r"|turns\s+out\b"
    # "add call the vet, Biscuit is limping again": someone or something named and how it is
    r"|[a-z][\w'-]*\s+(?:is|was|are|were|has\s+been|keeps)\s+(?!(?:done|finished|completed|sorted|booked|paid|sent"
    r"|bought|cancell?ed|off|over|postponed|not\s+happening)\b)[a-z]+ing\b"
    # "..., is not needed anymore": said of it, the subject left out
    r"|(?:is|it's)\s+(?:not\s+needed|no\s+longer\s+needed|not\s+necessary)(?:\s+any\s?more)?$"
    r"|[a-z]+\s+(?:does\s+not|doesn't|did\s+not|didn't|will\s+not|won't)\s+(?:want|need|like|care)\b"
    r"|(?:mum|mom|dad|she|he|they|my\s+\w+)\s+(?:can't|cannot|can\s+not)\s+(?:say|complain|moan)\b"
    # a reason, about someone or something already named: "sarah hates them", "found some"; not
    # a request of its own ("get them from the store", "then dry it": a verb and what it acts on,
    # unless that verb says what was done: "found some")
    rf"|(?!(?:{'|'.join(sorted(lexicon.TODO_VERBS))}|then|and|also|now)\b)(?=.*\b(?:it|them|some|she|he|they|we)\b)"
    rf"(?!(?!(?:{todos.PAST}|{todos.SIMPLE_PAST})\b)[a-z]+\s+(?:it|them|some)\b))"
    # (nor what it should be: "it needs to be oat milk", "my boss wants it in euros")
    r"(?!.*\b(?:needs?\s+to|have\s+to|has\s+to|wants?|wanted|should|must|euros?|dollars?|pounds?|convert"
    r"|add|remind|put|delete|remove|mark|what|how|please|also"
    # "..., don't forget bread": one more thing to remember, not a remark
    r"|todo|task|(?:do\s+not|don't|dont|never)\s+(?:let\s+me\s+)?forget)\b)[^0-9?]*",
    _F,
)


# A question after a sum that asks for more than it ("what's 20% of 50? what's the total"):
# not the sum's own answer, so not read as asking for it.
_TAIL_WITH_MORE = re.compile(
    r"\b(?:total|new|final|left|after|altogether|all|with|each|per|sale|tip|owe|rent|payment|in|into)\b"
    r"|^(?:so\s+|and\s+|then\s+)?how\s+many\b",  # "... 2.5 hours? and how many seconds is that?" asks more
    _F,
)
# ... unless the question only asks for the last of several chained steps ("... up by 10% and then
# down by 10%, what's the final price?").
_FINAL_ONLY = re.compile(
    r"(?:so\s+|and\s+)?(?:what\s+is|what\s+would\s+be|how\s+much\s+is)\s+the\s+final\s+(?:price|amount|cost|value|number)"
    r"(?:\s+then)?",
    _F,
)


_STOP = re.compile(r"[.!;]|\s-\s")
_NOT_THIS = re.compile(
    r"^(?:please\s+)?(?:do\s+not|never|not)\s+(?:delete|remove|mark|complete|tick|add|touch|change|clear|erase)\b[^,;]*$"
    # "leave the milk one, delete the bread one": which one stays, beside the request
    r"|^(?:leave|keep)\s+(?:the\s+)?[\w' -]+?\s+(?:one|thing|todo|task)(?:\s+alone|\s+as\s+it\s+is)?$",
    _F,
)
_LEAD_STOP = re.compile(r"[.!;,]|\bso\b|\s-\s", _F)
# A sentence that tells something, with its subject first ("she passed away last month", "my
# daughter has already arranged it"), and none of the words a request, a number, a todo, a
# correction or a question would have.
# The words a sentence that asks for something, counts, names a todo or corrects has: a remark
# has none of them (nor a digit, a question mark or a currency sign).
_ASKING_WORDS = (
    r"need|needs|needed|want|wants|wanted|should|must|have\s+to|has\s+to|please|can|could|would|will"
    r"|let\s+me\s+know|remind|todos?|to-do|tasks?|list|items?|reminders?|percent|plus|minus|times|divided|total"
    r"|tip|each|per|split|convert|euros?|dollars?|pounds?|currency|exchange|instead|rather|also|too|as\s+well"
    r"|only|first|then|one|ones|not\s+(?:the|that|this|my|a|an|it)|add|delete|remove|mark|done|finished|complete"
    r"|cancel|show|tell|count|how|what|which|when|where|why|who|but|if"
)
_REMARK = re.compile(
    r"^(?:(?:sadly|unfortunately|luckily|thankfully|apparently|obviously|anyway|honestly|of\s+course),?\s+)?"
    # a pronoun or a possessive, never a capital word alone: "Book a flight." starts with one
    r"(?:i|she|he|they|we|it|(?:my|our|his|her|their|the)\s+[\w'-]+|(?:i\s+am\s+)?feeling"
    # "add bin bags - ran out this morning": the subject left out of why
    r"|(?:ran|run|running)\s+out"
    # or one word and how it is or was: "work was long", "everything's fine" (not news that may
    # undo what follows: "party's off, add buy cake"; nor a question: "what is ...", "weather is it ...")
    rf"|(?!(?:{_ASKING_WORDS}|there|here|this|that)\b)[a-z][\w-]*(?='s\b|\s+(?:is|was|are|were)\s)"
    r"(?!.*\b(?:off|cancell?ed|postponed|over|is\s+it|was\s+it|are\s+they)\b))\b"
    rf"(?!.*\b(?:{_ASKING_WORDS})\b)[^0-9?%$£€]*$",
    _F,
)
# After a question that only reads (a sum, the list), a sentence that asks nothing is talk, whatever
# its first word ("how many miles is 42 km? Training for the marathon, bit knackered"): nothing it
# could mean would change the list, so skipping it cannot change anything wrongly.
_TALK = re.compile(rf"^(?!.*\b(?:{_ASKING_WORDS}|is|are|it|that|this)\b)[^0-9?%$£€]*$", _F)


def _remark(piece: str) -> bool:
    """Whether `piece`, a sentence of its own after a request, only tells something about it."""
    text = " ".join(piece.split()).rstrip(" .!")
    return 0 < len(text.split()) <= 12 and bool(_REMARK.match(text))


def _aside(piece: str) -> bool:
    """Whether `piece` only says how the speaker feels ("wow, so productive", "oh joy", "long
    day"): a few words, each of lexicon.ASIDE_WORDS, so it can hold no request and no number; or
    says why, in words that ask for nothing ("starting fresh", "I just did it")."""
    words = re.findall(r"[\w']+", piece.lower())
    if _ASIDE_PHRASE.fullmatch(" ".join(words)):
        return True
    if set(words) <= {"me", "you", "him", "her", "them", "us", "i", "we"}:
        return False  # "me and 4 friends ...": who, not how the speaker feels
    return 0 < len(words) <= 5 and all(w in lexicon.ASIDE_WORDS for w in words)


_ASIDE_PHRASE = re.compile(
    r"(?:actually\s+|so\s+)?(?:(?:i\s+am|i'm|im)\s+)?(?:starting\s+(?:fresh|over)|fresh\s+start|clean\s+slate"
    r"|start(?:ing)?\s+from\s+scratch)"
    r"|(?:oh\s+)?(?:before\s+i\s+forget(?:\s+it)?|while\s+i\s+(?:remember|think\s+of\s+it)(?:\s+and\s+before\s+i\s+forget)?)"
    r"|(?:actually\s+)?(?:i\s+)?(?:(?:just|already)\s+)?(?:did|paid|sent|finished|booked|bought)\s+(?:it|that)"
    r"(?:\s+already)?"
    # "sqrt of 2, as many decimals as you've got": the calculator's answer is exact to begin with
    r"|(?:(?:to|with|in|give\s+me)\s+)?as\s+many\s+(?:decimals|decimal\s+places|digits|places)\s+as\s+"
    r"(?:you(?:\s+have|'ve)?\s+(?:got|can)|possible)|(?:to\s+|at\s+|in\s+)?full\s+precision",
    _F,
)


def _reads_only(intents: list[Intent]) -> bool:
    return bool(intents) and all(
        i.tool == "calculator" or (i.tool == "todo_store" and i.arguments.get("action") in ("list", "count"))
        for i in intents
    )


# Why a reading was asked ("I've forgotten what I wrote down", "because I want to see how much
# I've done"): words that change the list, or say which todos or which part of a sum, are none
# of it (nor a number or a question).
_READ_WHY_SUBJECT = re.compile(r"^(?:i|i\s+have|i\s+am|i\s+was|we|my\s+\w+)\b", _F)
_CHANGES_OR_SCOPES = re.compile(
    r"\b(?:add|added|delete|deleted|remove|removed|mark|tick|complete|clear|erase|cross|put|change|update|move"
    r"|too|also|as\s+well|only|just|instead|except|but|not|first|last|then|each|per|split|tip|total|plus|minus)\b"
    r"|[0-9?%$£€]",
    _F,
)
_STATE_SAID = re.compile(
    r"\b(?:done|finished|completed|open|left|remaining|ticked|pending|outstanding)\b", _F
)


def _read_why(intents: list[Intent], piece: str, before: str) -> bool:
    """Whether `piece`, after `intents` that only read the list, says why (_READ_WHY_SUBJECT
    first, or after "because"), asking for nothing more."""
    said = _clean(piece)
    # (a list read: after a sum, "my boss wants it in euros" may ask for more of the sum)
    lists = all(i.tool == "todo_store" and i.arguments.get("action") in ("list", "count") for i in intents)
    if not lists or not said or len(said.split()) > 20 or _CHANGES_OR_SCOPES.search(said):
        return False
    if "because" in before.lower():
        return True
    return bool(_READ_WHY_SUBJECT.match(said)) and not _STATE_SAID.search(said)


def _talk_after_question(pieces: list[str], separators: list[str]) -> int | None:
    """How many pieces the question is, when the message's last sentences after its first question
    mark are all talk (_TALK); None otherwise."""
    for k, separator in enumerate(separators):
        if "?" in separator:
            rest = pieces[k + 1 :]
            talk = [
                0 < len(p.split()) <= 12 and bool(_TALK.match(" ".join(p.split()).rstrip(" .!")))
                for p in rest
            ]
            return k + 1 if rest and all(talk) else None
    return None


_CALLED_OFF = re.compile(
    r"^(?:the\s+|my\s+|our\s+)?[\w' -]+?(?:'s|\s+(?:is|are|was|were|got|has\s+been|have\s+been))\s+"
    r"(?:now\s+)?(?:cancell?ed|called\s+off|off|postponed|over|not\s+happening)$"
    # a headline: "exams cancelled", "trip called off" (after a delete: why, not a todo reported done)
    r"|^(?:the\s+|my\s+|our\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+(?:cancell?ed|called\s+off|postponed)$"
    r"|^(?:(?:my|our|the)\s+)?plans\s+(?:have\s+)?changed$|^(?:a\s+)?change\s+of\s+plans?$"
    r"|^(?:it\s+is\s+|it's\s+)?(?:not|no\s+longer)\s+needed(?:\s+any\s?more)?$",
    _F,
)


def _why_deleted(intents: list[Intent], piece: str) -> bool:
    """Whether `piece`, after the todos deleted by the last of `intents`, says why ("drop 'book
    flights', the trip is canceled"): the reason for the delete, not a report of another todo."""
    if not (
        bool(intents)
        and intents[-1].tool == "todo_store"
        and intents[-1].arguments.get("action") in ("delete", "delete_all")
    ):
        return False
    said = _clean(piece)
    if _CALLED_OFF.match(said):
        return True
    # "..., she's coming to visit us instead", "..., turns out it's valid till 2030": a remark
    # about it, even with the "instead" or the year that may not be in one elsewhere (after an add,
    # "instead" may correct it; a number may be a sum's)
    bare = _A_YEAR.sub("then", re.sub(r"\s+instead$", "", said, flags=_F))
    return bare != said and (_remark(bare) or bool(_COMMENT.fullmatch(bare)))


_A_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def _comment(piece: str, before: str, after: list[str], following: str = "") -> bool:
    """Whether `piece` is a remark that ends a sentence after a comma: skipped, not refused."""
    # "... called the plumber, he's coming Thursday, anyway you can tick that one off": "anyway"
    # comes back from the remark as a full stop would
    ends_sentence = not after or bool(_STRONG_SEPARATOR.search(after[0]) or _BACK_TO_IT.match(following))
    reason = "because" in before.lower()  # "what's 15% of 60 because that's the discount"
    exclaimed = "!" in before  # "delete everything! party's over!"
    # "... cleaned my room. mum can't say anything now": a sentence of its own, said about it
    stopped = bool(_STOP.search(before))
    return (
        ("," in before or reason or exclaimed or stopped)
        and ends_sentence
        and bool(_COMMENT.fullmatch(_clean(piece)))
    )


# A denial after an add ("add milk, I don't need it actually"): it takes the add back, so it is
# no remark to skip; after a delete, the same words say why ("delete milk, I don't need it").
# (Not every "not": "add milk, we do not have any" says why.)
_DENIED = re.compile(
    r"\b(?:not|never|no\s+longer)\s+(?:really\s+)?(?:need|needed|want|wanted|necessary|required)\b|\bno\s+need\b"
    r"|\bnever\s*mind\b|\bforget\s+(?:it|that|about\s+it)\b|\bscratch\s+that\b|\bnot\s+any\s?more\b"
    # "add milk. we already have some": then why add it? Not for the rules to guess
    r"|\balready\s+(?:have|has|got|bought|added|on)\b|\b(?:have|has|got)\s+(?:plenty|enough|loads|lots)\b"
    r"|\binstead\b"  # "add call grandma, she's coming instead": then what is added?
    # "add renew the car insurance, I think": a hedge (as "add X I think" is, README)
    r"|^(?:i\s+think|i\s+suppose|maybe|perhaps|probably|not\s+sure|idk|possibly)\b",
    _F,
)


# ... and after a report, words that say it is not done ("walked the dog, it's not done yet").
_NOT_DONE = re.compile(
    r"\b(?:not|n't|never)\s+(?:\w+\s+)?(?:done|finished|complete|completed|over|sorted)\b|\bnot\s+yet\b"
    r"|\b(?:almost|nearly|half|partly|partially|mostly)\b",
    _F,
)


def _takes_back(intents: list[Intent], piece: str) -> bool:
    """Whether `piece`, after the last of `intents`, says the opposite of it: not a remark."""
    if not intents or intents[-1].tool != "todo_store":
        return False
    said, action = _clean(piece), intents[-1].arguments.get("action")
    if action == "add":
        return bool(_DENIED.search(said))
    # (not what another todo is: "walked the dog, milk's still to do")
    if action not in ("complete", "complete_all"):
        return False
    return bool(_NOT_DONE.search(said)) and not _STILL_OPEN.fullmatch(said)


_STILL_OPEN = re.compile(
    r"(?:but\s+|and\s+|though\s+)?(?:the\s+|my\s+)?(?!(?:i|we|you|it|that|this|they|he|she)\b)[\w'-]+(?:\s+[\w'-]+){0,3}?"
    r"(?:'s|\s+is|\s+are)?\s*:?\s+(?:"
    r"still\s+(?:to\s+do|todo|open|pending|left|not\s+done|waiting|gross|dirty|filthy|a\s+mess|messy|a\s+tip"
    r"|on\s+the\s+list|on\s+there|needs?\s+doing|to\s+go)"
    r"|not\s+(?:done\s+|finished\s+)?yet|(?:still\s+)?not\s+done)"
    r"(?:\s+(?:tho|though|lol|haha|sadly|unfortunately|ugh))?",
    _F,
)
_BACK_TO_IT = re.compile(r"(?:but\s+|so\s+)?anyway\b|anyhow\b", _F)
_FURTHER = re.compile(r"(?:an?\s+)?(?:extra|another|additional|further)\s+\d", _F)


_AS_WELL = re.compile(r"\b(?:too|also|as\s+well|including|included|plus)\b", _F)
_SETTING_THE_SCENE = re.compile(r"^(?:before|while|when|until)\s+(?:i|we)\b", _F)


def _word_problem(prompt: str, pieces: list[str], separators: list[str]) -> Intent | None:
    """The prompt as one word problem, when it is one: no "then" or ";" in it, and each of its
    clauses has a number or asks for one in a word problem's terms (what the story reading needs)."""
    if any(
        re.search(r"then|;", s, _F) and not _FURTHER.match(_clean(pieces[k + 1]))
        for k, s in enumerate(separators)
    ):
        return None  # "... then book a flight" is a second request; "then an extra 10% off" is the story's
    asides = [bool(_aside(p)) for p in pieces]
    if not all(
        arithmetic.part_of_a_story(c)
        or _QUESTION_TAIL.match(c)
        or _POLITE_ONLY.fullmatch(c)
        or aside
        or c.lower() in ("me", "i", "myself")  # "me and 4 friends split ...": one of the heads
        for c, aside in zip((_clean(p) for p in pieces), asides, strict=True)
        if c
    ):
        return None
    if any(asides):  # "cable went from 89 to 112. love that for me. what's the percent increase"
        prompt = "".join(
            p + s for p, s, aside in zip(pieces, [*separators, ""], asides, strict=True) if not aside
        )
    return arithmetic.word_problem(prompt)


def _bind(intents: list[Intent], context: Discourse) -> list[Intent]:
    """Bind every reference: to the latest earlier step of this plan that can be meant, else to
    the thread's history (`context`). A reference to several todos becomes one step per todo, and
    a question about an earlier turn an answer with no step."""
    bound: list[Intent] = []
    last_calc: str | None = None  # step id of the latest calculator step
    calcs: list[str] = []  # ... and of every calculator step so far ("add them up")
    last_todo: tuple[str, Intent] | None = None  # ... and of the latest todo_store step
    steps = 0  # tool intents bound so far: the next one is step s<steps + 1>
    for parsed in intents:
        try:
            if parsed.recall:
                recalled = (
                    followups.recall_added(context)
                    if parsed.recall == "added"
                    else followups.recall_answer(context)
                )
                made = [replace(parsed, answer=_literal(recalled))]
            elif parsed.todos is not None:
                made = _bind_todos(parsed, last_todo, context)
            elif parsed.each:
                # One step for them all: todo_store changes every todo named, or none (a name that
                # fits no todo leaves the others as they were, and the request is refused whole).
                key = "id" if isinstance(parsed.each[0], int) else "text"
                several = {f"{key}s": list(parsed.each)} if len(parsed.each) > 1 else {key: parsed.each[0]}
                made = [replace(parsed, arguments={**parsed.arguments, **several}, each=())]
            elif RESULTS.search(str(parsed.arguments.get("expression", ""))):
                made = [_bind_results(parsed, calcs)]
            else:
                made = [_bind_result(parsed, last_calc, context)]
        except PlanningFailed as exc:
            raise _cannot_plan(str(exc), understood=intents, not_understood=[parsed.clause]) from None
        for intent in made:
            bound.append(intent)
            if intent.tool:
                steps += 1
                position = step_id(steps)
                if intent.tool == "calculator":
                    last_calc = position
                    # ", rounded down" after a sum is that sum, rounded: one result, not two
                    again = calcs and RESULT_VALUE in str(parsed.arguments.get("expression", ""))
                    calcs[-1:] = [position] if again else [*calcs[-1:], position]
                elif intent.tool == "todo_store":
                    last_todo = (position, intent)
    return bound


def _bind_results(intent: Intent, calcs: list[str]) -> Intent:
    """ "calculate 3*4 and 5*6, then add them up": "them" is every result of this plan before it,
    two at least (one is "it"; and a thread's earlier results are not "them": which ones?)."""
    if len(calcs) < 2:
        raise PlanningFailed(
            f"{intent.clause!r} means earlier results, but this message computes "
            f"{'one' if calcs else 'none'} before it: say the numbers"
        )
    values = [f"({{{{steps.{c}.output.value}}}})" for c in calcs]
    expression = RESULTS.sub(
        lambda m: str(len(values)) if m.group() == RESULTS_COUNT else f" {m.group(1)} ".join(values),
        intent.arguments["expression"],
    )
    why = f"{intent.reasoning} (the results of {', '.join(calcs)})"
    return replace(intent, arguments={**intent.arguments, "expression": expression}, reasoning=why)


def _bind_result(intent: Intent, last_calc: str | None, context: Discourse) -> Intent:
    """Result placeholders bound to the latest earlier calculator step, else the history's result."""
    arguments = intent.arguments
    text = " ".join(str(v) for v in arguments.values())
    if RESULT_VALUE not in text and RESULT_TEXT not in text:
        return intent
    if last_calc is not None:
        value = f"{{{{steps.{last_calc}.output.value}}}}"
        # "add the answer as a todo": the todo is the answer ("42"), as the people who wrote the
        # eval's requests, asked what they expect, all wrote it.
        described, word = value, "the result"
        why = f"uses {last_calc}'s result"
    else:
        earlier = followups.result(intent.refers or "the result", context)
        if intent.refers == arithmetic.TOTAL_REFERENCE and "%" in earlier.expression:
            # "split the total" after "a 20% tip on 45": the tip alone, or the bill with it?
            raise PlanningFailed(
                f"'the total' after {earlier} from turn {context.result_turn}: that is a percentage, and "
                "whether the total is it alone or with what it is of is not said: say the amount to split"
            )
        value, described, word = _literal(earlier.value), _literal(earlier.value), _literal(earlier.value)
        why = f"{(intent.refers or 'the result')!r} is {earlier} from turn {context.result_turn}"
    arguments = {
        k: v.replace(RESULT_VALUE, value).replace(RESULT_TEXT, described) if isinstance(v, str) else v
        for k, v in arguments.items()
    }
    return replace(
        intent,
        arguments=arguments,
        reasoning=f"{intent.reasoning} ({why})",
        answer=intent.answer.replace(RESULT_WORD, word),
    )


_WHOLE_LIST = frozenset(["it all", "them all", "all of it", "all of them", "that all", "those all"])


def _bind_todos(intent: Intent, last_todo: tuple[str, Intent] | None, context: Discourse) -> list[Intent]:
    """A complete or delete of earlier todos: one step per todo meant, by id. The todos an earlier
    step of this plan adds or completes are meant when there is one (by reference to its output:
    their ids are not known yet), else the ones the history says."""
    reference = intent.todos
    assert reference is not None
    action = intent.arguments["action"]
    view = context.view(intent.tool)
    earlier = bool(view.focus_turn or view.group_turn)  # a turn of the thread named todos
    if last_todo is not None and (everything := _all_listed(intent, reference, *last_todo)) is not None:
        return [everything]
    if (
        last_todo is not None
        and action in ("delete", "complete")
        and last_todo[1].arguments.get("action") == action
        and "text" in last_todo[1].arguments
        and reference.count == 1
        and reference.index is None
    ):
        # "forget about the concert tickets, it's sold out. take it off": the todo the step before
        # already deletes, asked again (not a second todo: the step names one)
        return []
    if last_todo is None and not earlier and reference.words in _WHOLE_LIST and action == "delete":
        # "wipe it all, I'm starting fresh" with nothing before it: "it all" can only be the list.
        why = f"{intent.reasoning}: nothing was named before {reference.words!r}, so the whole list"
        return [replace(intent, arguments={"action": "delete_all"}, reasoning=why, todos=None, confirm=True)]
    if last_todo is not None:
        ids: list[Any] = [{"$ref": path} for path in _pick(reference, *_todos_made_by(*last_todo))]
        whats = [f"the todo {last_todo[0]} makes"] * len(ids)
    elif (
        reference.index is not None
        and not earlier
        and (
            reference.words.endswith("list")
            # "scratch the last item": the list's last; "the last one" says "of those" (none here)
            or (reference.index == -1 and not reference.words.endswith(("one", "ones")))
        )
    ):
        # "the second one on my list", "the last item on the list" with nothing before it: a place
        # on the whole list, found by todo_store when the step runs (ids have gaps; places do not).
        place = "the last" if reference.index == -1 else f"number {reference.index}"
        why = f"{intent.reasoning}: the todo at place {place} of the list"
        return [
            replace(
                intent, arguments={"action": action, "position": reference.index}, reasoning=why, todos=None
            )
        ]
    elif (
        reference.index is not None
        and reference.index > 0
        and not earlier
        and not reference.words.endswith(("one", "ones"))
    ):
        # "mark the third todo as done" with nothing listed before: the todo numbered 3, as every
        # listing shows it ("3. pay rent"); a number no todo has is refused by todo_store. "The
        # first one" says "one of those": with nothing before it, there are none (refused below).
        ids, whats = [reference.index], [f"the todo numbered {reference.index}"]
    else:
        things = reference.resolve(context, intent.tool)
        whats = [f"{reference.words!r} read as {t}" for t in things]
        # The answer says how the reference was read, before what changed: a person sees at once
        # which todo "it" was taken to be.
        read = f"Reading {reference.words!r} as {', '.join(str(t) for t in things)}: "
        return [
            replace(
                intent,
                arguments={"action": action, "id": thing.id},
                reasoning=f"{intent.reasoning}: {what}",
                todos=None,
                answer=(read if n == 0 else "") + intent.answer,
            )
            for n, (thing, what) in enumerate(zip(things, whats, strict=True))
        ]
    return [
        replace(
            intent,
            arguments={"action": action, "id": todo_id},
            reasoning=f"{intent.reasoning}: {what}",
            todos=None,
        )
        for todo_id, what in zip(ids, whats, strict=True)
    ]


def _all_listed(intent: Intent, reference: TodoReference, step: str, earlier: Intent) -> Intent | None:
    """ "list my todos, then clear them all", "show me what's done, then delete those": every todo
    the listing showed, which is every todo (in its state) there is: one delete_all, confirmed."""
    listing = earlier.arguments
    if (
        listing.get("action") not in ("list", "count")
        or reference.count is not None
        or reference.index is not None
    ):
        return None
    if intent.arguments.get("action") != "delete":
        raise PlanningFailed(
            f"{reference.words!r} means every todo {step} lists, but I can only "
            f"{intent.arguments.get('action')} todos one at a time: name them"
        )
    state = {"state": listing["state"]} if "state" in listing else {}
    return replace(
        intent,
        arguments={"action": "delete_all", **state},
        reasoning=f"{intent.reasoning}: every todo {step} lists (a person confirms it)",
        todos=None,
        confirm=True,
    )


def _todos_made_by(step: str, intent: Intent) -> tuple[str, list[str]]:
    """(what the step is, output paths of the ids of the todos it adds or completes, in order)."""
    arguments = intent.arguments
    if arguments.get("action") == "add" and isinstance(arguments.get("texts"), list):
        return f"step {step}", [f"steps.{step}.output.todos.{n}.id" for n in range(len(arguments["texts"]))]
    if arguments.get("action") in ("add", "complete"):
        return f"step {step}", [f"steps.{step}.output.todo.id"]
    raise PlanningFailed(
        f"it is not clear which todos the reference means: the step before it ({step}) "
        f"{arguments.get('action', 'uses')}s todos whose number is not known until it runs; name the todo"
    )


def _pick(reference: TodoReference, step: str, paths: list[str]) -> list[str]:
    """The paths `reference` means among those a step of this plan makes."""
    if reference.index is not None:
        position = len(paths) if reference.index == -1 else reference.index
        if len(paths) == 1:
            # "mark the first todo done and delete the last one": a place picks one of several,
            # and the step makes one todo, so the words mean other todos (the list's?): unclear
            raise PlanningFailed(
                f"{reference.words!r} picks one of several todos, but {step} makes only one; name the todo"
            )
        if not 1 <= position <= len(paths):
            raise PlanningFailed(
                f"{reference.words!r} points at todo {position}, but {step} makes {len(paths)}"
            )
        return [paths[position - 1]]
    if reference.count is not None and reference.count != len(paths):
        raise PlanningFailed(
            f"{reference.words!r} means {reference.count} todo(s), but {step} makes {len(paths)}; "
            "name the todo"
        )
    return paths


def _literal(text: str) -> str:
    """Text from an earlier turn, put into a plan: never read as a step reference."""
    return text.replace("{{", "{ {")


def _explain(prompt: str, pieces: list[str], intent: Any) -> PlanningFailed:
    """Greedy left-to-right cover: longest parsable segment at each position, else one piece unknown."""
    understood: list[Intent] = []
    unknown: list[str] = []
    i, n = 0, len(pieces)
    while i < n:
        for j in range(min(n, i + MAX_CLAUSE_PIECES), i, -1):
            if (found := intent(i, j)) is not None:
                understood.append(found)
                i = j
                break
        else:
            unknown.append(_clean(pieces[i]))
            i += 1
    return _unplannable(prompt, understood, unknown)


# A piece that only sets a condition ("if I finish the report", "once the parcel arrives"); not a
# question that starts with the same word ("when did I add call mom").
# ("should" opens a condition only in its inverted form, "should it rain": alone, a question.)
_A_CONDITION = re.compile(
    rf"^{lexicon.alternation([c for c in lexicon.CONDITIONS if c != 'should'])}\b"
    r"(?!\s+(?:did|do|does|is|are|was|were|will|can|could|should|would|has|have)\b)",
    _F,
)


def _unplannable(prompt: str, understood: list[Intent], unknown: list[str]) -> PlanningFailed:
    not_understood = [u for u in unknown if u] or [prompt.strip()]
    unknown_text = _listing([_quote(u) for u in not_understood], ", ")
    parts = [f"could not plan the prompt: no rule understands {unknown_text}"]
    if conditions := [u for u in not_understood if _A_CONDITION.match(u)]:
        parts.append(
            f"{_listing([_quote(c) for c in conditions], ', ')} is a condition, and I only do what can be "
            "done now: ask again once it holds"
        )
    if understood:
        described = [f"{_quote(i.clause)} -> {i.tool} {_args(i.arguments)}" for i in understood]
        parts.append("Understood: " + _listing(described, "; "))
    parts.append(CAPABILITIES)
    return _cannot_plan(". ".join(parts), understood=understood, not_understood=not_understood)


def _args(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_quote(v) if isinstance(v, str) else repr(v)}" for k, v in arguments.items())


def _listing(items: list[str], separator: str) -> str:
    shown = separator.join(items[:MAX_ECHOED])
    return shown + (f"{separator}and {len(items) - MAX_ECHOED} more" if len(items) > MAX_ECHOED else "")


def _quote(text: str) -> str:
    """An echo of the user's words, bounded: the message travels in gRPC metadata."""
    return repr(clip(text, MAX_ECHO_CHARS))


class RulePlanner:
    """The rule planner as a member of the chain: each understood clause is one step, run in the
    order the user wrote them ("add ..., then show ..." must see the add)."""

    name = "rules"

    async def plan(self, request: PlanRequest) -> plan_pb2.Plan:
        if request.replan is not None:
            raise _cannot_plan("the rule planner cannot revise a failed plan")
        context = Discourse.of(request.history, request.thread_turn, request.tools)
        intents = plan(request.prompt, {t.name for t in request.tools}, request.max_steps, context)
        steps = [
            plan_pb2.PlanStep(
                id=step_id(n),
                tool=intent.tool,
                arguments=dict_to_struct(intent.arguments),
                depends_on=[step_id(n - 1)] if n > 1 else [],
                reasoning=intent.reasoning,
                confirm=intent.confirm,
            )
            for n, intent in enumerate((i for i in intents if i.tool), start=1)
        ]
        return plan_pb2.Plan(steps=steps, planner=self.name, answer_template=answer_template(intents))


def _listed_after(intent: Intent, later: list[Intent]) -> bool:
    """Whether `intent` deletes todos and a later step lists the list, or completes todos and a
    later step lists the open ones (where the completed ones are no more)."""
    action = intent.arguments.get("action")
    return intent.tool == "todo_store" and any(
        i.tool == "todo_store"
        and i.arguments.get("action") == "list"
        and (
            action in ("delete", "delete_all")
            or (action == "complete" and i.arguments.get("state") == "open")
        )
        for i in later
    )


def answer_template(intents: list[Intent]) -> str:
    """The run's answer: each step's answer, its {{out.x}} bound to that step's output, as
    sentences ("Added 'buy milk' (#3). You have 3 todos: ...")."""
    parts: list[str] = []
    steps = 0
    for k, intent in enumerate(intents):
        steps += bool(intent.tool)
        if not intent.tool:  # answered from the history: the answer is the text itself
            parts.append(intent.answer)
        elif _listed_after(intent, intents[k + 1 :]):
            # "delete the done ones and show me what's left": the list that follows is the
            # answer; naming what went as well reads as if it were still there
            action = intent.arguments.get("action")
            parts.append(
                f"Todos deleted: {{{{steps.{step_id(steps)}.output.deleted_count}}}}."
                if action == "delete_all"
                else "Marked done."
                if action == "complete"
                else "Deleted."
            )
        elif intent.answer:
            here = step_id(steps)
            parts.append(
                intent.answer.replace("{{out}}", f"{{{{steps.{here}.output}}}}").replace(
                    "{{out.", f"{{{{steps.{here}.output."
                )
            )
    if len(parts) == 1:
        return parts[0]
    # A tool's summary is a whole sentence already; the other answers end where their value does.
    return " ".join(p if p.endswith((".", "!", "?", "summary}}")) else p + "." for p in parts)
