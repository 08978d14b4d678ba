"""English verb forms that endings do not give ("bought" is "buy"), and what one typing slip is:
for the two places that read a todo by its words, the rule planner ("I rang the plumber" reports a
todo done) and todo_store (which finds "call the plumber" from "rang the plumber")."""

from __future__ import annotations

# Simple pasts that report something done ("I rang the plumber"). Not "forgot" ("I forgot to
# call mom" is not done), and not pasts spelt like their verb ("read", "put": "read chapter 4"
# is an instruction).
PAST_TENSE = {
    "took": "take", "went": "go", "bought": "buy", "paid": "pay", "wrote": "write", "made": "make",
    "sent": "send", "got": "get", "gave": "give", "ate": "eat", "drove": "drive", "ran": "run",
    "swept": "sweep", "fed": "feed", "hung": "hang", "brought": "bring", "sold": "sell", "rode": "ride",
    "flew": "fly", "met": "meet", "found": "find", "kept": "keep", "told": "tell", "caught": "catch",
    "built": "build", "chose": "choose", "threw": "throw", "drew": "draw", "grew": "grow",
    "spent": "spend", "lent": "lend", "won": "win", "spoke": "speak", "woke": "wake", "wore": "wear",
    "sat": "sit", "stood": "stand", "rang": "ring", "did": "do", "left": "leave", "sang": "sing",
    "swam": "swim", "dug": "dig", "began": "begin", "taught": "teach", "thought": "think",
    "sought": "seek", "fought": "fight", "bit": "bite", "hid": "hide", "shook": "shake", "froze": "freeze",
}  # fmt: skip
# Participles ("the car is taken in", "the form is written") and the pasts above, to their verb.
IRREGULAR = {
    **PAST_TENSE,
    "forgot": "forget", "taken": "take", "done": "do", "gone": "go", "written": "write",
    "gotten": "get", "given": "give", "eaten": "eat", "driven": "drive", "ridden": "ride",
    "flown": "fly", "chosen": "choose", "thrown": "throw", "drawn": "draw", "grown": "grow",
    "spoken": "speak", "woken": "wake", "worn": "wear", "rung": "ring", "sung": "sing", "swum": "swim",
    "begun": "begin", "bitten": "bite", "hidden": "hide", "shaken": "shake", "frozen": "freeze",
}  # fmt: skip


def base_forms(past: str) -> set[str]:
    """The verbs a past may be of ("bought": buy; "booked": book or booke; "filed": file or
    fil), as its ending or IRREGULAR gives them; none for a word that is no past."""
    if past in IRREGULAR:
        return {IRREGULAR[past]}
    return {past[:-2], past[:-1]} if past.endswith("ed") else set()


def one_slip(typed: str, word: str) -> bool:
    """Damerau-Levenshtein distance 1: one letter inserted, deleted, changed, or two swapped (the
    planner's reading of a typo'd command word, todo_store's of a typo'd name)."""
    if typed == word:
        return False
    if len(typed) == len(word):
        diffs = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        if len(diffs) == 1:
            return True
        i = diffs[0]
        return len(diffs) == 2 and diffs[1] == i + 1 and typed[i] == word[i + 1] and typed[i + 1] == word[i]
    short, long = (typed, word) if len(typed) < len(word) else (word, typed)
    return len(long) - len(short) == 1 and any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
