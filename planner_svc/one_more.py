"""One more todo right after an add, the verb left unsaid: "add milk", then "and coffee beans,
we're nearly out", "also book dentist appointment", "oh and renew passport too". Refused when the
words may say more of the todo just added, or ask for another like it ("add call mom", then "and
dad", "also tomorrow", "and for Sam", "and another one"). acts.py finds the add."""

from __future__ import annotations

import re

from planner_svc.act_words import PIECES, POLITE_REST, REQUEST
from planner_svc.amends import quoted, refuse
from planner_svc.discourse import Change
from planner_svc.followups import todo_reference
from planner_svc.grammar import todos
from planner_svc.grammar.intent import Intent
from planner_svc.stages import clauses
from planner_svc.stages.remarks import asks_something

_F = re.IGNORECASE
# "and coffee beans, we're nearly out", "also book dentist appointment", "oh and renew passport
# too. trip is in june": right after an add, one more thing to add, the verb left unsaid
_ONE_MORE = re.compile(
    r"^(?:(?:oh|ok|okay|and|also|plus|oh\s+and|and\s+also|oh\s+also)[\s,]+)*(?:and|also|plus)\s+"
    r"(?P<x>[^,.;!?]+?)(?:\s+(?:too|as\s+well|also))?(?P<rest>\s*(?:[,.;!?]|\s-\s).*)?$",
    _F,
)


# After an add, words that say when, where or for whom, not a todo of their own
_SAID_OF_THE_LAST = re.compile(
    r"^(?:(?:for|at|on|by|before|after|with|to|from|in|until|till|around|about|re)\s|tomorrow|tonight|today|later"
    r"|(?:this|next)\s+\w+$|(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:the\s+)?same\b|again\b|\d+(?:\s+more)?$"
    # "and another one", "plus one more for Sam": how many, not which
    r"|(?:one|another|more|a\s+second|two|three|some\s+more)\b)",
    _F,
)
# Someone: a family word, or a name (a capital first)
_PERSON = re.compile(
    r"(?:my\s+)?(?:mom|mum|dad|mother|father|grandma|grandpa|gran|nan|granny|sister|brother|wife|husband|son|daughter"
    r"|aunt|uncle|cousin|boss|kids?|partner|neighbou?r|(?-i:[A-Z])[a-z]+(?:\s+(?-i:[A-Z])[a-z]+)?)",
    _F,
)
# A task done for or to someone: the same task for someone else may be what "and X" means
_FOR_A_PERSON = re.compile(
    r"(?:call|phone|ring|text|email|e-mail|message|visit|see|meet|ask|tell|invite|remind|thank|pay|write\s+to"
    r"|pick\s+up|drop\s+off|book|get\s+a\s+\w+\s+for|buy\s+a\s+\w+\s+for)\b",
    _F,
)


# Words that start no todo's name: who did something ("and she called"), what is so ("and he's
# sick"), how or when the last one is to be done ("also urgent", "and asap", "and daily"), a
# state ("and done"), an answer ("and yes", "and ok") or a quantity of nothing ("and so on")
_NO_NAME_FIRST = re.compile(
    r"^(?:i|i'm|im|you|he|she|we|they|it|it's|its|he's|she's|they're|there|that's|don't|dont|do|does|did|is|are"
    r"|was|were|so|ok|okay|yes|yeah|yep|no|nope|nah|done|finished|urgent|urgently|asap|quick|quickly|soon|now"
    r"|later|first|twice|once|daily|weekly|monthly|yearly|every|each|everything|anything|nothing|something"
    r"|high|low|top|priority|important|thanks|thank|thx|please|pls|not|never|maybe|probably|etc)\b",
    _F,
)
# a pronoun inside: what it points at is not said ("and a todo for it")
_POINTER_INSIDE = re.compile(r"\b(?:it|that|them|this|those|these)\b", _F)


def one_more(message: str, change: Change) -> list[Intent] | None:
    """The add of one more todo, right after an add (`change`), the verb left unsaid; None when
    the message is no such thing; refused when which todo is not said."""
    if any(c.action != "add" for c in change.calls) or not (m := _ONE_MORE.match(message.strip())):
        return None
    x = m.group("x").strip()
    rest = [p for p in PIECES.split(m.group("rest") or "") if p.strip()]
    if (
        not 0 < len(x.split()) <= 6
        or REQUEST.match(x)
        or asks_something(re.sub(r"\d+", "", x))
        or todo_reference(x) is not None
        or re.match(r"(?:the|that|this|those|these|my|it|them)\b", x, _F)
        or _NO_NAME_FIRST.match(x)
        or _POINTER_INSIDE.search(x)
        or any(asks_something(p) and not POLITE_REST.fullmatch(p.strip()) for p in rest)
    ):
        return None
    if _SAID_OF_THE_LAST.match(x) or (
        _PERSON.fullmatch(x) and any(_FOR_A_PERSON.match(t.text) for c in change.calls for t in c.things)
    ):
        # "add call mom", then "and dad" (call dad too?), "and tomorrow", "also for Sam": said of
        # the todo just added, or the same task for someone else: which todo is not said
        raise refuse(
            f"{quoted(message)} may say more about {change.describe()} or ask for another todo like it: "
            "say the todo to add in full"
        )
    # A task, with its verb, is one more todo after anything ("add milk", "also book the dentist");
    # a thing only after things ("add milk", "and coffee beans"): after a task ("add call mom",
    # "and milk") it may be said of that task, or be another, and is no clear request (even after
    # a task of getting things: "add buy dog food", then "and cat litter too" is most likely one
    # more to buy, but a held-out batch showed adds like it that were not meant)
    tasks = [todos.a_task(t.text) for c in change.calls for t in c.things]
    if not tasks or (not todos.a_task(x) and any(tasks)):
        return None
    added = clauses.parse_clause(f"add {x}")
    if added is None or added.arguments.get("action") != "add" or added.tool != change.calls[0].tool:
        return None
    why = f"{quoted(message)} adds one more, as turn {change.turn} added: {added.reasoning}"
    return [Intent(message, added.tool, added.arguments, why, added.answer)]
