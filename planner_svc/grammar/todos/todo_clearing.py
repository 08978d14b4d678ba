"""Deleting every todo, or every open or done one: only when the words say the whole list ("clear
my list", "keep the open ones")."""

from __future__ import annotations

import re

from planner_svc.grammar import lexicon
from planner_svc.grammar.intent import SUMMARY, Intent
from planner_svc.grammar.todos.todo_naming import _LIST_WORDS
from planner_svc.grammar.todos.todo_words import (
    _ALL_WORDS,
    _CLEAR_LEAD,
    _EMPTYING,
    _F,
    _PRONOUNS,
    _alt,
    _bag,
    _state,
)

_SCOPE = frozenset(
    ["for", "from", "today", "that", "this", "these", "those", "now", "right", "moment", "only", "just"]
)
_IDIOMS = frozenset(
    ["cancel", "drop", "forget", "forget about", "reset", "take out", "scrap", "ditch", "nix", "trash",
     "discard", "strike out", "scratch", "lose", "bin"]
)  # fmt: skip


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
