"""What a piece of a prompt that asks for nothing is: a remark, an aside, a comment, talk after a
question, a scene set first, or words that take a request back (why a request was asked, said
beside it, is why_said.py's)."""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon, todos
from planner_svc.grammar.intent import Intent
from planner_svc.stages.common import _F
from planner_svc.stages.polite import _clean
from planner_svc.stages.segment import _STOP, _STRONG_SEPARATOR

# A remark after a request ("scrap the printer ink thing, don't need it anymore", "wipe the list,
# I'm starting fresh"): it says why, and asks for nothing more.
_COMMENT = re.compile(
    # never which one it is ("add milk, the oat one", "..., the kind with the blue cap")
    r"(?!(?:the|that|this)\s+(?:[\w'-]+\s+){0,3}one$|(?:the|that|this)\s+(?:kind|sort|type|brand)\b)"
    # never a condition ("if it rains, add buy an umbrella"): what follows it is not asked for now
    rf"(?!{lexicon.alternation(lexicon.CONDITIONS)}\b)"
    r"(?:(?:i|i\s+am|i\s+do\s+not|i\s+don't|it\s+is|it's|the|we|they|my|our|she|he|do\s+not|don't"
    r"|no\s+longer|not|that\s+is|that\s+was"
    r"|that's|cannot|can\s+not)\b|[\w' ]+\s+(?:is|are|was|got|has\s+been)\s+"
    r"(?:cancell?ed|off|postponed|over|not\s+happening)$"
    # "..., never gonna happen", "..., Sam doesn't want a party": why, of what the request named
    r"|(?:never|not|no\s+way\s+it's|ain't)\s+(?:gonna|going\s+to|happening)\b"
    # "... - guests coming saturday": who, and what they are doing
    r"|[a-z][\w'-]*s\s+(?:are\s+|were\s+)?[a-z]+ing\b"
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
    # "the first and the second, tick them off": which todos, not why
    r"|first|second|third|fourth|fifth|other|both|latter|former|last(?:\s+(?:one|two|three|ones))?$"
    # "..., don't forget bread": one more thing to remember, not a remark
    r"|todo|task|(?:do\s+not|don't|dont|never)\s+(?:let\s+me\s+)?forget|\d{1,2}(?:st|nd|rd|th)\s+ones?)\b)"
    # (no number, but a day of the month: "..., it's on the 14th")
    r"(?:[^0-9?]|(?<!\w)\d{1,2}(?:st|nd|rd|th)\b)*",
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
    r"|nearest|decimals?|cent|penny|pence"
    r"|only|first|second|third|fourth|fifth|last|other|both|latter|former|then|one|ones|not\s+(?:the|that|this|my|a|an|it)|add|delete|remove|mark|done|finished|complete"
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
    if 0 < len(words) <= 5 and all(w in lexicon.ASIDE_WORDS for w in words):
        return True
    # "saturday chores ugh", "mondays lol": a few words and how the speaker feels about them
    return 1 < len(words) <= 6 and words[-1] in _FEELING_LAST and not asks_something(piece)


_FEELING_LAST = frozenset(
    ["ugh", "lol", "haha", "lmao", "sigh", "yay", "smh", "omg", "ffs", "meh", "yikes", "urgh"]
)


# "never mind. mark call Ben done", "forget it, delete the license one": what was asked before let
# go of, before the request that is the one
_DISMISSAL = (
    r"(?:(?:oh|ok|okay|ah|ugh|no)\s+)?(?:never\s*mind|forget\s+(?:it|that|about\s+it)|scratch\s+that"
    r"|ignore\s+(?:that|me))(?:\s+then)?"
)


def dismissed(piece: str, following: str) -> bool:
    """Whether `piece` only lets go of what was asked before ("never mind", "forget it"), before
    a request to change a todo (before an add it may take back an earlier add: "never mind, add
    bread" is no plain add)."""
    return bool(re.fullmatch(_DISMISSAL, " ".join(re.findall(r"[\w']+", piece.lower())))) and bool(
        _CHANGE_FIRST.match(following.strip())
    )


_CHANGE_FIRST = re.compile(
    rf"(?:{lexicon.alternation(list(lexicon.DELETE_VERBS))}|undo|mark|tick|check|cross|complete|reopen)\b", _F
)


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


_WHY = re.compile(r"\b(?:because|since)\b", _F)
# After "because", a sentence with its subject first tells why ("the guest list grew to 140")
_TOLD = re.compile(
    r"^(?:the|my|our|his|her|their|i|i'm|im|we|he|she|they|it|it's|its|there|mum|mom|dad)\s+"
    r"(?!(?:need|want|have\s+to|must|should)\b)",
    _F,
)


def _comment(piece: str, before: str, after: list[str], following: str = "") -> bool:
    """Whether `piece` is a remark that ends a sentence after a comma: skipped, not refused."""
    # "... called the plumber, he's coming Thursday, anyway you can tick that one off": "anyway"
    # comes back from the remark as a full stop would
    ends_sentence = not after or bool(
        _STRONG_SEPARATOR.search(after[0])
        or _BACK_TO_IT.match(following)
        # "add call mum, she's been lonely since dad left": why, and why that is so
        or (_WHY.search(after[0]) and _TOLD.match(_clean(following)))
    )
    reason = bool(_WHY.search(before))  # "what's 15% of 60 because that's the discount"
    exclaimed = "!" in before  # "delete everything! party's over!"
    # "... cleaned my room. mum can't say anything now": a sentence of its own, said about it
    stopped = bool(_STOP.search(before))
    if reason and ends_sentence and _TOLD.match(told := _clean(piece)) and "?" not in told:
        return True  # "add order extra chairs since the guest list grew to 140": why, whatever it tells
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
    # (never a question: "how many still to go" asks)
    r"(?:but\s+|and\s+|though\s+)?(?:the\s+|my\s+)?"
    r"(?!(?:i|we|you|it|that|this|they|he|she|how|what|which|who|whats|is|are|do|does|did)\b)[\w'-]+(?:\s+[\w'-]+){0,3}?"
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
# A piece that starts with a verb as a request does ("book a flight", "email my boss"): asked of
# the agent, never why or what happened (a past, "booked the hotel", is no such start).
_REQUEST_FIRST = re.compile(
    r"^(?:(?:please|pls|and|also|then|now|ok|okay|(?:can|could|would)\s+you)\s+)*"
    rf"(?:{lexicon.alternation(sorted(lexicon.TODO_VERBS))}|tell|remind|find|get|give|help|look|text|message|ring"
    r"|phone|sort|do|go|check|ask)\b",
    _F,
)


def starts_as_a_request(piece: str) -> bool:
    return bool(_REQUEST_FIRST.match(piece.strip()))


_SETTING_THE_SCENE = re.compile(r"^(?:before|while|when|until)\s+(?:i|we)\b", _F)


# A piece of the message that asks for nothing ("I'll do it saturday", "the buyer backed out"):
# none of the words a request, a correction or a sum has. An act may come with such pieces.
_ASKS = re.compile(
    r"\b(?:add|put|delete|remove|mark|tick|check|cross|complete|finish|clear|show|list|calculate|compute"
    r"|what|how|which|undo|revert|redo|change|make|set|instead|also|too|then|rename|move|restore|reopen"
    r"|meant|mean|plus|minus|times|divided|percent|want|need|needs|should|must|rather|can|could"
    r"|would|please|pls|let's|let|keep|leave|don't)\b|\d|[?%]|"
    # "almond milk not oat milk" says what is right instead; "I have not been yet" says nothing of it
    + "".join(rf"(?<!\b{aux}\s)" for aux in ("have", "has", "had", "am", "is", "are", "was", "were", "do"))
    + "".join(rf"(?<!\b{aux}\s)" for aux in ("does", "did", "will", "would", "could", "should", "can"))
    + r"\bnot\b",
    _F,
)


def asks_something(piece: str) -> bool:
    """Whether a piece of a message has a word of a request, a correction or a sum ("no need"
    is no need: "the vet says no need to come in" asks for nothing)."""
    return bool(_ASKS.search(re.sub(r"\bno\s+need\b", "", piece, flags=_F)))
