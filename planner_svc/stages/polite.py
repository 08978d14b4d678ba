"""Politeness and filler before a request ("please", "could you", "btw", "ok so"): what `_clean`
strips from a clause before it is parsed (its closing words, "thanks so much", are closings.py's)."""

from __future__ import annotations

import functools
import re

from planner_svc.grammar import lexicon, normalize
from planner_svc.stages.closings import _strip_polite_suffix
from planner_svc.stages.common import _F

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
    r"|(?:please|kindly|now|also|next(?!\s+(?:one|ones|two|three|\d)\b)|first(?!\s+(?:one|ones|two|three|four|five|\d)\b)|finally|and|actually|ok|okay|k(?=\s*[,!]|\s+(?:add|done|mark|delete|remove|tick|now|so|then|thanks)\b)|kk|oh|great|alright|so|hey|hi|hiya|heya|hello|omg|wow"
    r"|yo|um|uh|well|then|lastly|plus(?!\s+(?:[-\d.(]|(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|a\s+hundred)\b))|quick\s+(?:one|question|q)|question|one\s+more\s+thing|start\s+fresh(?=\s*[,:!.-])|yeah|yes|yep|yup"
    r"|ngl|tbh|guess\s+what|sorry|oops|whoops|hm+|er+m*|nah+|naa+"
    r"|wait(?=\s*[,:!]|\s+(?:what|how|which|did|is|are|was|can|could|undo|reopen|untick|mark|delete|remove|put)\b)"
    # "cool, split that ...", "ok fine then, add ...", "random one, what's 7 times 8"
    r"|(?:cool|nice|perfect|awesome|whatever|fine(?:\s+then)?|random\s+(?:one|question|q)|another\s+(?:one|question))(?=\s*[,:!])"
    # "nvm remove the gym one": the removal is what "never mind" takes back ("never mind, add
    # bread" may be a correction of an add: not stripped)
    rf"|never\s*mind(?=\s*[,:!]?\s*(?:{lexicon.alternation(list(lexicon.DELETE_VERBS))}|undo|mark|tick|check|complete)\b)"
    r"|asap(?=\s*[,:!]|\s+(?:please|pls|plz)\b)|urgent(?=\s*[,:!])"
    r"|(?:start\s+over|fresh\s+start)(?=\s*[,:!.-])|ugh|argh|sigh|phew|anyway|anyhow|so\s+yeah|right(?=\s*[,:!])"
    # news before it: "btw", "good news:", "quick update:" ("update" alone may be the task's verb)
    r"|remind\s+me\s*:|btw|by\s+the\s+way|fyi|heads\s+up|(?:just\s+)?(?:to\s+let\s+you\s+know|so\s+you\s+know|letting\s+you\s+know)(?=\s*[,:!])|(?:good|great|some)\s+news|(?:quick\s+)?update(?=\s*[,:!])"
    r"|yay|woo+(?:hoo+)?|hooray|lol|lmao|haha+)(?:\s*[,:!]\s*|\s+)"
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
