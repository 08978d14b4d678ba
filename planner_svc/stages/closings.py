"""What closes a message to the listener and is no part of the request ("thanks so much",
"cheers mate", "ok?", "while you're at it", a "then" that ends it), and what counts as politeness
alone: `_strip_polite_suffix` trims a clause's end (stages/polite._clean calls it), `_POLITE_ONLY`
tells a piece that is only politeness."""

from __future__ import annotations

import functools
import re

from planner_svc.stages.common import _F

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
    # how it went, felt after a report: "done with the oven, what a mess", "fence is painted, looks
    # great", "suitcase is packed, ready to go"
    r"|what\s+a\s+(?:mess|relief|day|pain|nightmare|faff|hassle|saga|week|job|chore|ordeal|palaver)"
    r"|gross|so\s+excited|fingers\s+crossed|daylight\s+robbery|(?:it\s+)?took\s+(?:me\s+)?(?:ages|forever)"
    r"|(?:it\s+|that\s+|everything\s+)?looks?\s+(?:great|good|amazing|fantastic|lovely|brilliant|awesome|nice)"
    r"|(?:all\s+)?(?:ready|good)\s+to\s+go|(?:so|such\s+a)\s+(?:relieved|glad|happy|relief)"
    # what a result means to the person: "that's cheaper than I thought", "within budget"
    r"|(?:(?:that|it)(?:'s|\s+is|\s+was)\s+)?(?:(?:a\s+lot|way|much|bit)\s+)?(?:cheaper|more|less|dearer|pricier|better|worse"
    r"|higher|lower)\s+than\s+(?:i|we)\s+(?:thought|expected|hoped|feared)"
    r"|(?:(?:that|it)(?:'s|\s+is)\s+)?(?:well\s+)?(?:within|over|under|in)\s+(?:(?:my|our|the)\s+)?budget"
    r"|(?:(?:so|totally|definitely)\s+)?worth\s+it|not\s+bad|got\s+it|makes\s+sense|fair\s+enough"
    # what it cost, felt: "ugh 60 bucks", "ouch, 45 quid down the drain" (a sum said only after a sigh)
    r"|(?:ugh|ouch|oof|argh|yikes|sigh)\s*,?\s+[$\u00a3\u20ac]?\d+(?:\.\d+)?\s*(?:bucks|quid|dollars|pounds|euros)?"
    r"(?:\s+(?:down\s+the\s+drain|gone|wasted))?"
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
    r"(?:\s+(?:to|on)\s+(?:the|my)\s+(?:todo\s+)?list)?|(?:just\s+)?tell\s+me|(?:now\s+|so\s+)?remind\s+me(?:\s+again)?|(?:i\s+am\s+)?just\s+(?:asking|curious)"
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
    # "and add dish soap while you're at it"
    *(f"while {you} at it" for you in ("you're", "you are", "youre", "your", "ur", "u are", "you")),
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


# ... but "until then", "and then", "back then" say when, as part of what is asked
_THEN_KEPT = frozenset(
    ["and", "until", "till", "til", "since", "by", "from", "back", "now", "just", "only", "even", "but", "or"]
)


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
    last = words[-1].lower() if len(words) > 2 else ""
    if (last in _CHECKS and words[-2].lower().strip(",") not in _SAYS_HOW) or (
        # "ok mark it done then": "then" after a request says it follows from what was said, no more
        last == "then" and words[-2].lower() not in _THEN_KEPT
    ):
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
