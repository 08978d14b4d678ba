"""The words that name a todo: "the buy eggs todo" is "buy eggs", with the words around a name
that are not part of it taken off."""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon
from planner_svc.grammar.todos.todo_add_words import _ADD_VERB
from planner_svc.grammar.todos.todo_words import (
    _F,
    _LIST,
    _MY,
    _NOT_A_NAME,
    _NOUN,
    _PAST,
    _SIMPLE_PAST,
    _STATE_WORDS,
    _alt,
)

_LIST_WORDS = frozenset(["list", "todos", "todo", "tasks", "task", "items", "reminders", "chores", "entries"])
# A quoted name, apostrophes inside its words included ('don't forget the keys').
_IN_QUOTES = r"(?:[^']|(?<=[A-Za-z])'(?=[A-Za-z]))+"
_QUOTE = rf"(?:'{_IN_QUOTES}'|\"[^\"]+\")"
_QUOTED_NAME = re.compile(rf"'({_IN_QUOTES})'|\"([^\"]+)\"")


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
# What doing a todo makes of it, said as its state ("mark the bread as bought")
_MADE_SO = (
    r"(?:bought|paid|sent|posted|booked|called|fixed|returned|collected|picked\s+up|submitted|renewed"
    r"|ordered|cleaned|mailed|signed|delivered|handled|sorted)"
)
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
    # "mark the bread as bought", "mark the phone bill paid": what doing it makes of it, its state
    rf"mark\s+(?P<x>.+?)\s+(?:as\s+)?{_MADE_SO}",
    rf"set\s+(?P<x>.+?)\s+as\s+{_MADE_SO}",
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
# Pasts that say a todo was not done: never a report of it done.
_NOT_DONE_PAST = r"(?:skipped|missed|postponed|delayed|rescheduled|forgot|forgotten|failed|abandoned)"
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
    r"(?:i\s+am|we\s+are|i\s+have)?\s*(?:all\s+|completely\s+|totally\s+|finally\s+|so\s+)?(?:done|finished)\s+(?:with|w/?)\s+"
    r"(?P<x>(?:(?!,\s*(?:what|how|which|is|are|anything)\b).)+)",
    # (no question inside: "check what is done", "tell me if call mom is done" ask, they report nothing)
    rf"(?P<x>(?!.*\b(?:what|whatever|which|whether|if|once|how|so\s+(?:that|it|this))\b).+?)"
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
    # "bins are out", "the recycling's out": put out, for things that are ("milk is out" is none
    # left, not a todo done)
    r"(?:the\s+|my\s+|our\s+)?(?P<x>(?:wheelie\s+|green\s+|blue\s+)?(?:bins?|trash|rubbish|garbage|recycling|compost)"
    r"(?:\s+bins?)?)(?:'s|\s+is|\s+are)\s+(?:all\s+|now\s+)?(?P<v>)(?P<p>out)(?:\s+(?:now|already|tonight|today))?",
    # "gutters cleaned", "electricity bill paid", "bins taken out": a headline, the "is" left out.
    # A thing's name of one to four words, never a person's or a pronoun ("mom called", "Sam paid"
    # say what someone else did: _HEADLINE_AGENTS), and a past that is done to things.
    rf"(?:all\s+)?(?:the\s+|my\s+|our\s+)?(?!(?:{_alt(lexicon.CLEAR_VERBS)}|{_ADD_VERB}|mark|complete|finish|all|it|that"
    r"|this|they|those|these|he|she|we|i|you|someone|somebody|everyone|everybody|nothing|something)\b)"
    # (a person's word before a thing of theirs is no person: "dentist appt booked")
    rf"(?P<x>(?![^,]*\b(?:(?:{_HEADLINE_AGENTS})(?!'?s?\s+(?:appt|appointment|checkup|check-up|visit|bill|invoice|card|gift"
    r"|present|form|forms|letter|booking)\b)|is|are|was|were|be|been|has|have|got|get|gets|and|or|done|not|no|never)\b)"
    r"(?:\d+\s+)?[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?)\s+"
    r"(?:(?:finally|now|all|just|already)\s+)?"
    rf"(?P<v>(?!postponed|finished|completed|deleted|removed|added|erased|cleared|ticked|checked|crossed|called|phoned|rang|texted|emailed|messaged|visited|replied|answered"
    r"|arrived|returned|asked|agreed|decided|offered|promised|wanted|needed|liked|loved|hated|started|stopped"
    # (what happens to things by itself: "membership expired" is no todo done)
    r"|expired|ended|died|crashed|leaked|closed|opened|failed|broke|lapsed"
    rf"|moved|changed|happened|looked|seemed|used|worked|tried|waited|stayed|played|laughed|cried)(?:{_PAST})"
    r"|bought|sent|made|written|taken|given|sold|swept|hung|paid)"
    r"(?P<p>\s+(?:up|off|out|in|away|back))?"
    r"(?:\s+(?:now|already|today|tonight|yesterday|earlier|at\s+last|finally"
    r"|(?:this|last)\s+(?:morning|afternoon|evening|night|week)"
    # "vet booked for tuesday": when it will be, not a part of its name
    r"|for\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next\s+week)))?",
    r"(?:i\s+)?(?:have\s+|just\s+|already\s+|finally\s+)*(?:finished|completed|done|did)\s+"
    # (never a joining word: "done so delete" names nothing)
    r"(?!.*(?:\b(?:what|how|which|each|total|per)\b|\d))(?!(?:so|and|but|then|now)\b)(?P<x>.+?)"
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
    # Not a past that says it was not done ("skipped the gym", "missed the dentist").
    rf"(?:i\s+)?(?:have\s+)?(?:just\s+|already\s+|finally\s+|now\s+)?(?!.*(?:\b(?:what|how|which|each|total|per)\b|\d))"
    rf"(?!{_NOT_DONE_PAST}\b)(?P<x>(?:{_PAST}|{_SIMPLE_PAST})(?:\s[^,]+?)?)(?:\s+(?:already|now|today|just\s+now))?",
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
    # ("never mind, remove X": what to do follows, it is no todo's name)
    r"(?:never\s*mind|forget)(?:\s+about)?\s+(?!(?:it|that|this|them|those|these|everything|all"
    rf"|add|put|mark|tick|undo|{lexicon.alternation(list(lexicon.DELETE_VERBS))})\b)(?P<x>.+)",
]
# "reopen it", "mark buy milk as not done", "untick the second one": a done todo open again
_NOT_DONE = r"(?:not\s+(?:done|complete|completed|finished)(?:\s+yet)?|undone|incomplete|unfinished|open)"
_REOPEN_COMMANDS = [
    r"(?:re-?open|un-?tick|un-?check|un-?mark|un-?complete)\s+(?P<x>.+?)(?:\s+again)?",
    rf"(?:mark|set|put)\s+(?P<x>.+?)\s+(?:back\s+)?(?:as\s+|to\s+)?{_NOT_DONE}(?:\s+again)?",
]
# "it's not done after all", "that one isn't actually finished": said of a todo marked done
# (only said as taking the done back: "it's not done yet" beside an add is how it stands)
_REOPEN_STATEMENTS = [
    r"(?P<x>it|that|that\s+one|this\s+one)(?:'s|\s+is|\s+was)\s+not\s+(?:actually|really)\s+"
    r"(?:done|finished|complete|completed|sorted)(?:\s+(?:after\s+all|yet))?",
    r"(?P<x>it|that|that\s+one|this\s+one)(?:'s|\s+is|\s+was)\s+not\s+(?:done|finished|complete|completed|sorted)"
    r"\s+after\s+all",
    # "I marked pay rent as done by mistake": the done taken back
    r"(?:i\s+|we\s+)?(?:accidentally\s+)?(?:marked|ticked|checked|crossed|completed)\s+(?:off\s+)?(?P<x>.+?)"
    r"(?:\s+(?:as\s+)?(?:done|complete|completed|finished|off))?\s+(?:by\s+mistake|by\s+accident|in\s+error)",
    r"(?:i\s+|we\s+)accidentally\s+(?:marked|ticked|checked|crossed|completed)\s+(?:off\s+)?(?P<x>.+?)"
    r"(?:\s+(?:as\s+)?(?:done|complete|completed|finished|off))?",
]
# (pattern, action, whether it is a statement: never read in a question)
_BY_TEXT = [
    *[(re.compile(rf"^(?:{p})$", _F), "reopen", False) for p in _REOPEN_COMMANDS],
    *[(re.compile(rf"^(?:{p})$", _F), "reopen", True) for p in _REOPEN_STATEMENTS],
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
