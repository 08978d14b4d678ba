"""Normalising a prompt before it is segmented: list bullets and numbers, check marks and
emoji, lines as items, a letter's sign-off."""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon, normalize, todos
from planner_svc.stages.common import _F
from planner_svc.stages.segment import _STOP, _protected_spans

# Bullets on lines of their own ("add\n- eggs\n- milk"): a list, written as one.
_NUMBERED = re.compile(r"(?<!\S)(\d{1,2})[.)]\s+(?=[A-Za-z])")
_BULLET = re.compile(r"[ \t]*\n\s*(?:[-*\u2022]|\d{1,2}[.)])\s+")
# A line that opens a list of todos, one a line after it: "add:", "add these to my list",
# "todo list:", "new todos:".
# ("these two items", "the following" ... "to my list": what both headers below may say)
_HOW_MANY_ITEMS = r"(?:\s+(?:two|three|four|five|\d+))?(?:\s+(?:items?|things|todos?|tasks?))?"
_ONTO_THE_LIST = r"(?:\s+(?:to|on|onto)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?list)?"
_LINES_HEADER = re.compile(
    rf"(?:(?:please\s+)?(?:add|put|jot\s+down)(?:\s+(?:these|the\s+following|this|them|all\s+of\s+these){_HOW_MANY_ITEMS})?"
    rf"{_ONTO_THE_LIST}|(?:new\s+)?(?:todos?|to-dos?|tasks?)"
    r"|(?:my\s+)?(?:todo\s+|to-do\s+)?list)(?:\s+(?:please|pls))?\s*[:.]?",
    re.IGNORECASE,
)


# "add the following to my list, milk and eggs": the words that say a list comes, then it (as
# after a colon)
_HEADER_SAID = re.compile(
    rf"^((?:please\s+)?(?:add|put)\s+(?:the\s+following|these){_HOW_MANY_ITEMS}{_ONTO_THE_LIST})\s*[,;.]\s+(?=\S)",
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
# (or a past that reports it: "credit card paid off ✅")
_SAYS_DONE = re.compile(
    rf"\b(?:done|finished|completed|complete|sorted|ticked|checked|(?:{todos.PAST}|{todos.SIMPLE_PAST})"
    r"(?:\s+(?:off|out|up|back|in|away))?)\W*$",
    _F,
)
_EMOJI = "[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff\ufe0f\u200d]"
# An emoji standing alone, a word of its own (one stuck to a word stays part of it).
_EMOJI_WORD = re.compile(rf"(?<!\S)(?:{_EMOJI})+(?=\s|[,.;:!?-]|$)")


# The private-use marks _tidy puts around what it keeps: dropped from what the user sent first.
_NO_MARKS = dict.fromkeys(range(0xE000, 0xE004))
_MARKED = re.compile("\ue000(\\d+)\ue001")


_INCL = re.compile(r"\bincl\.?(?=\s)", _F)


def _tidy(prompt: str) -> str:
    """normalize.tidy on the prompt's words; a JSON object's text stays byte for byte. Bulleted
    lines become "first: a, b, c"."""
    prompt = normalize.plain_quotes(prompt).translate(_NO_MARKS)  # the marks below
    # "post office run done ✅ thanks", "🎉 finished the taxes": an emoji between the words says
    # how the person feels, never what to do.
    prompt = _EMOJI_WORD.sub(_emoji_end, prompt)
    prompt = _INCL.sub("including", prompt)  # "incl. the finished ones": no sentence ends there
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
        prompt = f"{lines[0].rstrip(':.').rstrip()}: " + ", ".join(lines[1:])
    elif len(lines) >= 2 and "{" not in prompt:
        # Lines that are no list end where they end: "add these please" on one line and the todos
        # on the next are never one todo "these please call bank pay rent".
        prompt = " ".join(x if x[-1] in ".,;:!?" else f"{x}." for x in lines[:-1]) + f" {lines[-1]}"
    # "add the following to my list, milk and eggs": the words that say a list comes, then it
    prompt = _HEADER_SAID.sub(r"\1: ", prompt)
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


# A message signed off like a letter ("... Many thanks, Margaret", "..., cheers Bob"): the closing
# words and the name are no part of the request (never a todo "cheers Bob").
_SIGNED = re.compile(
    r"(?<=[\w'\")])\s*[,.!;]+\s*(?:(?:many|big)\s+thanks|thanks(?:\s+(?:again|so\s+much|a\s+lot))?|thank\s+you(?:\s+so\s+much)?"
    r"|cheers|(?:kind\s+|best\s+|warm\s+)?regards|best(?:\s+wishes)?|all\s+the\s+best|love|ta|thx)\s*,?\s*[-\u2013\u2014]?\s*"
    r"(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z])\.?)?[.!\s]*$",
    _F,
)
