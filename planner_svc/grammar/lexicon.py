"""The words of each intent, in one place: the frames (arithmetic/, todos/) build their
patterns from these lists, and normalize.py corrects a misspelt word only to one of them.

Adding a synonym here teaches every frame that uses the list, which is the point: a new
phrasing should need a word, not a new pattern."""

from __future__ import annotations

import re


def alternation(words: tuple[str, ...] | list[str]) -> str:
    """A regex alternation of `words`, longest first (so "check off" is tried before "check")."""
    escaped = (re.escape(w).replace(r"\ ", r"\s+").replace(" ", r"\s+") for w in words)
    return "(?:" + "|".join(sorted(escaped, key=len, reverse=True)) + ")"


# --- todos ----------------------------------------------------------------------------------

TODO_NOUNS = ("todo", "to-do", "task", "reminder", "item", "entry", "chore", "note")
TODO_NOUNS_PLURAL = (
    "todos",
    "to-dos",
    "tasks",
    "reminders",
    "items",
    "entries",
    "chores",
    "things",
    "jobs",
    "errands",
)
# What the whole list is called: "my list", "my todo list", "my todos".
LIST_NOUNS = (
    "todo list", "to-do list", "task list", "tasks list", "todos list", "list", "todos", "to-dos",
    "shopping list", "grocery list", "to do list",
    "tasks", "reminders", "checklist", "list of todos", "list of tasks",
)  # fmt: skip

ADD_VERBS = (
    "add", "put", "stick", "throw", "pop", "write down", "jot down", "note down", "note", "save",
    "put down", "include", "append", "insert", "record", "create", "make", "set up", "new", "shove", "chuck",
)  # fmt: skip
COMPLETE_VERBS = (
    "complete", "finish", "check off", "tick off", "cross off", "cross out", "mark off", "strike off",
    "strike", "close", "check", "tick", "cross", "finalize",
)  # fmt: skip
DELETE_VERBS = (
    "delete", "remove", "drop", "erase", "get rid of", "scrap", "ditch", "cancel", "trash",
    "discard", "forget about", "forget", "nix", "take out", "strike out", "scratch", "lose",
    "nuke", "axe", "bin", "zap", "toss", "yeet",
)  # fmt: skip
# Verbs that empty the list (with a word that says all of it: "clear my list").
CLEAR_VERBS = (*DELETE_VERBS, "clear", "clear out", "wipe", "wipe out", "empty", "reset", "purge",
               "clean out", "clean up")  # fmt: skip
SHOW_VERBS = ("show", "list", "display", "view", "print", "see", "give", "read", "tell", "get", "bring up",
              "pull up", "read out", "what", "which", "anything")  # fmt: skip

# A todo's state in words. "left", "still" and "remaining" say open; "did" and "finished" done.
OPEN_WORDS = (
    "open", "left", "remaining", "remain", "remains", "outstanding", "pending", "unfinished",
    "incomplete", "undone", "active", "uncompleted", "unchecked", "current", "still",
)  # fmt: skip
DONE_WORDS = (
    "done", "finished", "completed", "complete", "checked", "crossed", "ticked", "closed", "did",
    "finish", "accomplished", "knocked", "sorted", "finnish",
)  # fmt: skip

# Words that open a condition or a time still to come ("if it rains", "once the essay is done",
# "as soon as Tom calls"): a clause they lead tells when, not that anything happened, and what it
# leads to cannot be done now. ("in case it rains, add buy an umbrella" gives a reason: not here.)
CONDITIONS = (
    "if", "unless", "when", "whenever", "once", "as soon as", "after", "before", "until", "till",
    "assuming", "provided", "providing", "supposing", "should", "in the event",
)  # fmt: skip

# Words a todo item's text usually starts with: "wash the car and change the oil" is two todos
# because both halves start with one; "buy salt and pepper" is one.
_EVERYDAY_VERBS = frozenset(
    """
    add apply arrange ask back bake book bring brush buy call cancel change charge check choose
    clean clear collect confirm contact cook copy cut deliver deposit do download drop dust email
    empty feed file fill find finish fix fold get go grab hang help hire install invite iron learn
    leave let look mail make meet mop move mow order organize organise pack paint pay phone pick
    plan plant post practice practise prepare print read recycle refill register remember renew rent
    repair replace reply reserve return review ring schedule see sell send set shop sign sort start
    study submit sweep take text tidy try turn update vacuum visit wash watch water wipe write
    """.split()  # noqa: SIM905  (a word list reads better as words)
)
_MORE_VERBS = frozenset(
    """
    walk run jog exercise meditate shower shave sleep eat drink carry ship track research reschedule
    recharge rinse scrub polish sew knit fetch drive park wrap unpack repot prune weed rake shovel
    hoover groom bathe vaccinate fax scan photocopy backup withdraw transfer budget grill roast boil
    message thank finish submit defrost descale sand varnish hang mend
    decide undo redo cool ice frost hem chop fry slice peel discuss follow compare declutter sharpen
    oil prep rsvp respond borrow lend throw trim tighten assemble uninstall unsubscribe subscribe
    celebrate congratulate apologise apologize interview train teach tutor babysit vote bank
    split work figure remind stretch floss journal swim hike cycle nap
    """.split()  # noqa: SIM905
)
# Verbs that are also commands to the assistant: after "add" they start a todo of their own ("add
# remove the stain from the carpet", "add show the house to buyers").
_COMMAND_LIKE_VERBS = frozenset(
    """
    remove delete show tell exchange count list mark open close test measure upload translate donate
    """.split()  # noqa: SIM905
)
TODO_VERBS = _EVERYDAY_VERBS | _MORE_VERBS | _COMMAND_LIKE_VERBS

# Things whose names have "and" in them: "add mac and cheese" is one todo, "add milk and eggs" two.
FIXED_PAIRS = frozenset(
    """
    mac and cheese|fish and chips|salt and pepper|bread and butter|rock and roll|cheese and crackers
    |chips and salsa|milk and cookies|fruit and veg|peanut butter and jelly|pb and j|spaghetti and meatballs
    |bacon and eggs|ham and cheese|rice and beans|soap and water|nuts and bolts|pros and cons|odds and ends
    |arts and crafts|bed and breakfast|hide and seek|black and white|cookies and cream|surf and turf
    """.split("|")  # noqa: SIM905
)
FIXED_PAIRS = frozenset(" ".join(p.split()) for p in FIXED_PAIRS)
# Of those, the ones that are one thing even in a list of things ("add mac and cheese, eggs and
# bread"): dishes, games, idioms. Not "bread and butter" or "salt and pepper", which a shopping
# list names as two items ("add eggs, bread and butter" is three todos).
ONE_THING_PAIRS = frozenset(
    """
    mac and cheese|fish and chips|spaghetti and meatballs|peanut butter and jelly|pb and j|surf and turf
    |cookies and cream|rock and roll|bed and breakfast|hide and seek|arts and crafts|pros and cons
    |odds and ends|black and white
    """.replace("\n", "")
    .replace("    ", "")
    .split("|")
)
assert ONE_THING_PAIRS <= FIXED_PAIRS

# --- arithmetic -----------------------------------------------------------------------------

# Units people convert, each as (kind, size in the kind's base unit: seconds, metres, kilograms,
# litres). Sizes are exact decimals (a mile is 1609.344 m by definition, a pound 0.45359237 kg).
# Months are not here: how long one is depends on which one.
UNITS: dict[str, tuple[str, str]] = {}
for _names, _kind, _size in (
    (("second", "seconds", "sec", "secs"), "time", "1"),
    (("minute", "minutes", "min", "mins"), "time", "60"),
    (("hour", "hours", "hr", "hrs"), "time", "3600"),
    (("day", "days"), "time", "86400"),
    (("week", "weeks", "wk", "wks"), "time", "604800"),
    # A year is 365 days here, as people count hours or days "in a year"; months vary too much.
    (("year", "years", "yr", "yrs"), "time", "31536000"),
    (("millimeter", "millimeters", "millimetre", "millimetres", "mm"), "length", "0.001"),
    (("centimeter", "centimeters", "centimetre", "centimetres", "cm"), "length", "0.01"),
    (("meter", "meters", "metre", "metres", "m"), "length", "1"),
    (("kilometer", "kilometers", "kilometre", "kilometres", "km", "kms"), "length", "1000"),
    (("inch", "inches", "inchs"), "length", "0.0254"),
    (("foot", "feet", "ft"), "length", "0.3048"),
    (("yard", "yards", "yd", "yds"), "length", "0.9144"),
    (("mile", "miles", "mi"), "length", "1609.344"),
    (("milligram", "milligrams", "mg"), "mass", "0.000001"),
    (("gram", "grams", "gramme", "grammes", "g"), "mass", "0.001"),
    (("kilogram", "kilograms", "kilogramme", "kilo", "kilos", "kg", "kgs"), "mass", "1"),
    (("ounce", "ounces", "oz"), "mass", "0.028349523125"),
    (("pound", "pounds", "lb", "lbs"), "mass", "0.45359237"),
    (("milliliter", "milliliters", "millilitre", "millilitres", "ml"), "volume", "0.001"),
    (("liter", "liters", "litre", "litres", "l"), "volume", "1"),
):
    for _name in _names:
        UNITS[_name] = (_kind, _size)
TEMPERATURES = {
    "fahrenheit": "F", "f": "F", "°f": "F", "degrees fahrenheit": "F", "degrees f": "F",
    "celsius": "C", "c": "C", "°c": "C", "centigrade": "C", "degrees celsius": "C", "degrees c": "C",
}  # fmt: skip

# Number words (normalize.numeric turns them into digits).
SMALL_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
        "ninety": 90}  # fmt: skip
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000,
          "lakh": 100_000, "lakhs": 100_000, "crore": 10_000_000, "crores": 10_000_000}  # fmt: skip
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip
CURRENCY_WORDS = ("dollars", "dollar", "bucks", "euros", "euro", "pounds sterling", "usd", "eur", "cents")

# Every word a command is made of: normalize.py corrects a word that is not English to one of
# these when it is one typing slip away ("remnid" -> "remind", "lsit" -> "list").
COMMAND_WORDS = frozenset(
    w
    for phrase in (
        *ADD_VERBS, *COMPLETE_VERBS, *DELETE_VERBS, *CLEAR_VERBS, *SHOW_VERBS, *OPEN_WORDS, *DONE_WORDS,
        *TODO_NOUNS, *TODO_NOUNS_PLURAL, *LIST_NOUNS, *SMALL_NUMBERS, *TENS, *SCALES, *ORDINALS,
        *[u for u in UNITS if len(u) > 3], "fahrenheit", "celsius", "centigrade",
        "remind", "please", "also", "should", "first", "then", "percent", "percentage", "increase",
        "decrease", "average", "places", "decimal", "decimals", "difference", "multiply", "multiplied",
        "divide", "divided", "subtract", "calculate", "compute", "plus", "minus", "times", "squared",
        "cubed", "square", "root", "total", "split", "between", "among", "convert", "round", "nearest",
        "what", "many", "much", "have", "still", "everything", "something", "anything", "mark",
        "already", "again", "thanks", "tomorrow", "quarter", "half", "double", "triple", "power",
        "equals", "remainder", "product", "quotient", "whole", "number", "numbers", "people",
        "evenly", "each", "tip", "bill", "check", "discount", "reduce", "increased", "decreased",
        "forget", "delete", "remove", "finished", "completed", "done", "todos", "tasks", "finally",
        "inches", "following", "anymore", "completely", "there", "actually", "instead",
    )
    for w in phrase.split()
)  # fmt: skip
# Words a typo may be one slip from more than one of, that mean the same: either will do.
SAME_MEANING = (frozenset(DONE_WORDS), frozenset(OPEN_WORDS), frozenset(DELETE_VERBS), frozenset(ADD_VERBS))

# Command words that are also ordinary words in todo names and brands ("pick up doner", "fix the
# Miele", "grab Tims coffee"): a typo is corrected to one of these only when two letters are swapped.
NAME_LIKE = frozenset(
    """
    done mark mile miles times trash list equals cross check tick close drop clear empty reset note item
    entry chore strike round second minute pound gram meter metre foot yard inch day week year hour today
    make new bill tip each power half double
    """.split()  # noqa: SIM905
)
# Chat spellings read as the words they stand for (some are English words too, so the typo
# check, which leaves English words alone, cannot do it).
CHAT = {
    "u": "you", "ur": "your", "pls": "please", "plz": "please", "plse": "please", "thx": "thanks",
    "thnx": "thanks", "thanx": "thanks", "tnx": "thanks", "tks": "thanks", "thankyou": "thank you",
    "ty": "thanks", "wat": "what", "wht": "what", "hav": "have", "stil": "still", "avg": "average",
    "tmrw": "tomorrow", "abt": "about", "n": "and",
    "todo's": "todos", "wats": "what is", "whts": "what is", "cna": "can", "teh": "the", "to-do's": "todos",
    "lemme": "let me", "nvm": "never mind", "wat's": "what is", "w/": "with", "gimme": "give me",
    "wanna": "want to", "rn": "right now", "what've": "what have", "what'd": "what did", "thees": "these",
    "\u2713": "done", "\u2714": "done", "\u2611": "done", "\u2705": "done",
    "gotta": "have to", "whats": "what is", "what's": "what is", "hows": "how is", "how's": "how is",
    "thats": "that is", "that's": "that is", "it's": "it is", "there's": "there is", "i'm": "i am",
    "im": "i am", "i've": "i have", "ive": "i have", "i'd": "i would", "we're": "we are",
    "don't": "do not", "dont": "do not", "didn't": "did not", "didnt": "did not",
    "haven't": "have not", "havent": "have not", "hasn't": "has not", "isn't": "is not",
    "aren't": "are not", "can't": "cannot", "cant": "cannot", "won't": "will not",
    "whatre": "what are", "what're": "what are", "where's": "where is", "who's": "who is",
    "let's": "let us", "calc": "calculate", "bc": "because", "cuz": "because", "coz": "because",
    "arent": "are not", "isnt": "is not", "doesn't": "does not", "rm": "remove",
    "doesnt": "does not", "wasn't": "was not", "wasnt": "was not", "weren't": "were not",
    "shouldn't": "should not", "shouldnt": "should not", "couldn't": "could not", "wouldn't": "would not",
    "you're": "you are", "youre": "you are", "they're": "they are",
    "that'd": "that would", "thatd": "that would", "it'd": "it would", "that'll": "that will",
}  # fmt: skip

# An aside: a few words that only say how the speaker feels ("wow, so productive", "oh joy",
# "long day", "shocking news", "party's over"). None is a verb of a request or a word of a
# number, so a piece made of these alone asks for nothing and is skipped (stages/remarks._aside).
ASIDE_WORDS = frozenset(
    """
    wow oh ah ahh ugh ooh oof yikes sigh omg gosh golly geez jeez blimey crikey whoa boy man yay
    so such very how what a an the my oh joy wonderful lovely great brilliant fantastic amazing awesome
    perfect fine terrific marvellous marvelous splendid typical classic nice productive exciting fun
    long day week night morning shocking news funny story true fact big surprise miracle
    genius mate dear love darling buddy pal hun sweetie friend
    party party's over bless him her them you me love that for another chore thing again here we go
    seriously honestly literally anyway lol haha hah lmao fr ngl tbh smh idk
    quick q qq question real hey hi hello okay ok right
    """.split()  # noqa: SIM905
)

# What one pays, never who: "Rent paid" reports a todo done where "Sam paid" may tell what Sam did.
PAYABLES = frozenset(
    ["rent", "bill", "bills", "invoice", "invoices", "tax", "taxes", "deposit", "fine", "fines", "loan",
     "mortgage", "insurance", "tuition", "fees", "subscription", "subscriptions", "electricity", "gas",
     "water", "phone", "internet", "broadband", "wifi", "council", "rates", "premium"]
)  # fmt: skip
