"""Questions about the list: counting and listing todos ("how many open tasks", "what's left"),
whether a todo is there, and a listing narrowed or an add extended by the clause after it."""

from __future__ import annotations

import re
from dataclasses import replace

from planner_svc.grammar import lexicon, normalize
from planner_svc.grammar.intent import RESULT_TEXT, SUMMARY, Intent
from planner_svc.grammar.todos.todo_items import _TOO, a_task
from planner_svc.grammar.todos.todo_naming import _GENERIC, _name
from planner_svc.grammar.todos.todo_words import (
    _ALL_WORDS,
    _COUNT_LEAD,
    _F,
    _NOUN,
    _NOUN_WORDS,
    _NOUNS,
    _PAST,
    _SHOW_LEAD,
    _SIMPLE_PAST,
    _TERSE_LIST,
    _THE_LIST,
    _bag,
    _state,
)

# Whether a todo is there, asked by its name: the list answers it (and shows what else is there).
_IS_IT_THERE = [
    re.compile(p, _F)
    for p in (
        rf"^(?:is|are)\s+(?P<x>.+?)\s+(?:still\s+|already\s+)?{_THE_LIST}$",
        r"^did\s+(?:i|we|you)\s+(?:already\s+)?(?:add|put|write\s+down|save)\s+(?P<x>.+?)"
        r"(?:\s+(?:already|yet))?(?:\s+(?:to|on)\s+(?:my|the)\s+(?:todo\s+|to-do\s+)?(?:list|todos|tasks))?$",
        rf"^(?:do|did)\s+(?:i|we)\s+(?:still\s+)?(?:have|got)\s+(?:anything|something|a\s+{_NOUN})\s+"
        rf"(?:about|for|with|called|named|saying)\s+(?P<x>.+?)(?:\s+{_THE_LIST})?$",
        rf"^which\s+(?P<x>.+?)\s+(?:ones|{_NOUNS})\s+(?:have\s+i\s+got|do\s+i\s+have|are\s+there|are\s+{_THE_LIST})$",
        # a short name ("what was the dentist one again"), not a question about todos ("what's the
        # difference between deleting and completing a todo")
        rf"^what\s+(?:was|is)\s+the\s+(?P<x>(?!difference\b)\S+(?:\s+\S+){{0,2}})\s+(?:one|{_NOUN})(?:\s+again)?$",
        rf"^(?:does|do)\s+(?:my\s+|the\s+)?(?:todo\s+|to-do\s+)?(?:list|todos|tasks)\s+(?:have|include|contain)\s+"
        rf"(?:anything|something|a\s+{_NOUN})\s+(?:about|for|with|on)\s+(?P<x>.+?)$",
        # whether it is done: "did I call mom?", "is the rent paid?", "have I booked the vet yet?"
        # "did I tick off the dentist?": whether it is marked done
        r"^(?:did|have)\s+(?:i|we)\s+(?:already\s+)?(?:tick(?:ed)?|check(?:ed)?|cross(?:ed)?|mark(?:ed)?)\s+off\s+"
        r"(?P<x>.+?)(?:\s+(?:yet|already))?$",
        rf"^(?:did|have|has)\s+(?:i|we)\s+(?:already\s+|ever\s+)?(?P<x>(?:{'|'.join(sorted(lexicon.TODO_VERBS))}"
        rf"|{_PAST}|{_SIMPLE_PAST})\s.+?)(?:\s+(?:yet|already))?$",
        r"^(?:did|have|has)\s+(?:i|we)\s+(?:already\s+)?(?:done|finished|completed|ticked\s+off|crossed\s+off)\s+"
        r"(?P<x>.+?)(?:\s+(?:yet|already))?$",
        # whether it is still to do: "is the dentist thing still open?", "do I still need to call mom?"
        r"^(?:is|are)\s+(?:the\s+|my\s+)?(?P<x>.+?)\s+(?:still\s+)?(?:open|pending|outstanding|not\s+done|undone)$",
        r"^(?:do|does)\s+(?:i|we)\s+still\s+(?:need|have|got)\s+to\s+(?P<x>.+?)$",
        r"^(?:do|does)\s+(?:i|we)\s+(?:need|have|got)\s+to\s+(?P<x>.+?)\s+still$",
        rf"^(?:is|are|has|have)\s+(?:the\s+|my\s+)?(?P<x>.+?)\s+(?:been\s+)?(?:done|finished|completed|sorted"
        rf"|{_PAST}|paid|bought|sent|made|written|taken|booked)(?:\s+(?:yet|already))?$",
    )
]


def _is_it_there(clause: str) -> Intent | None:
    for pattern in _IS_IT_THERE:
        if (m := pattern.match(clause)) and _name(m.group("x")) and m.group("x").lower() not in _GENERIC:
            reasoning = f'"{clause}" asks about {m.group("x")!r}: the list shows whether it is there'
            return Intent(clause, "todo_store", {"action": "list"}, reasoning, SUMMARY)
    return None


# A question asked inside a request to answer it: "tell me if call mom is done" asks "is call mom
# done", "check what is done" asks "what is done".
_ASKED_INSIDE = re.compile(
    r"^(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?(?:tell\s+me|check|let\s+me\s+know|see|find\s+out)\s+"
    r"(?:(?:if|whether)\s+(?P<x>.+?)\s+(?P<be>is|are|has\s+been|have\s+been)\s+(?P<state>.+?)"
    r"|(?P<wh>(?:what|which|how\s+many)\s.+?))(?:\s+or\s+not)?$",
    _F,
)


_STATEMENT_ORDER = re.compile(
    r"^(?P<q>how\s+many(?:\s+\w+)?)\s+(?P<who>i|we)\s+(?P<verb>have|got|need)\b", _F
)


_FOR_A_TIME = re.compile(
    r"\s+(?:for\s+)?(?:today|tonight|this\s+(?:week|weekend|morning|afternoon|evening))(?:\s+(?:ugh|lol|then))?$",
    _F,
)


# "everything on my list, done ones (too)": all of it, then a state said after a comma (as well:
# "only"/"just"/"but" would narrow it, and are read as narrowing)
_WHOLE_THEN_STATE = re.compile(
    r"^\s*(?:me\s+)?(?P<whole>(?:everything|all)\b[^,]*),\s*(?!.*\b(?:only|just|but)\b)(?:and\s+|including\s+)?"
    r"(?:the\s+)?(?:done|finished|completed|ticked(?:\s+off)?|checked(?:\s+off)?)\s+(?:ones|stuff|things|items|tasks|todos)\b.*$",
    _F,
)


def _question(clause: str) -> Intent | None:
    """Counting or listing todos ("how many open tasks", "what's left", "show my done tasks")."""
    if (scoped := _FOR_A_TIME.sub("", clause)) != clause and (intent := _question(scoped)) is not None:
        # "how many things do i still have to do this week": the todos have no dates; the list is it
        return replace(intent, clause=clause)
    if m := _ASKED_INSIDE.match(clause):
        asked = m.group("wh") or f"{m.group('be')} {m.group('x')} {m.group('state')}"
        if intent := _question(asked):
            return replace(intent, clause=clause)
    if (asked := normalize.substituted(_STATEMENT_ORDER, r"\g<q> do \g<who> \g<verb>", clause)) != clause:
        # asked in a statement's order ("tell me how many i have"): "how many do i have"
        return None if (intent := _question(asked)) is None else replace(intent, clause=clause)
    if intent := _is_it_there(re.sub(r",?\s+or\s+not$", "", clause, flags=_F)):  # "did I finish X or not?"
        return intent
    if m := _TERSE_LIST.match(clause):  # "open tasks?", "my todos"
        state = (
            "open"
            if m.group("open") or m.group("else")
            else _state([m.group("s").lower()])
            if m.group("s")
            else None
        )
        arguments = {"action": "list", **({"state": state} if state else {})}
        return Intent(clause, "todo_store", arguments, f'"{clause}" lists the todos', SUMMARY)
    for lead, action in ((_COUNT_LEAD, "count"), (_SHOW_LEAD, "list")):
        if not (m := lead.match(clause)):
            continue
        rest = m.group("rest")
        if (
            action == "list"
            and re.fullmatch(r"\s*(?:me\s+)?(?:it|them)", rest, _F)
            and not clause.lower().startswith("what")
        ):
            rest = " list"  # "add X to my list, then show it"
        words = _bag(rest)
        if words is None:
            return None
        if not words and re.match(r"(?:todos?|tasks?)\s+|ls$", clause, _F):
            words = ["todos"]  # "todo ls", "tasks list": the list
        if (
            action == "list"
            and words
            and set(words) <= _ALL_WORDS
            and re.match(r"(?:ls|show|list|display|print)\b", clause, _F)
        ):
            words = ["todos"]  # "list all", "show everything": said to a todo list, all of it
        state = _state(words)
        if action == "list" and (
            ({"whole", "entire", "full"} & set(words) and "list" in words)
            or re.search(r"\bcomplete\s+(?:task\s+|todo\s+|to-do\s+)?list\b", rest, _F)
        ):
            state = None  # "show me the whole list, done stuff too": all of it (only ever to read)
        if (
            action == "list"
            and state
            and (whole := _WHOLE_THEN_STATE.match(rest))
            and not _state(_bag(whole.group("whole")) or [])
        ):
            state = None  # "show me everything on my list, done stuff too": the state said after all of it
        about_todos = any(w in _NOUN_WORDS for w in words) or state
        if state == "" or not about_todos:
            return None
        if (
            action == "list"
            and clause.lower().startswith(("what", "which", "any"))
            and not (
                state
                or set(words) & {"list", "todos", "tasks", "items", "todo", "reminders", "chores", "they"}
            )
        ):
            return None  # "what is everything": not a request for the list
        arguments = {"action": action, **({"state": state} if state else {})}
        which = f"{state} " if state else ""
        verb = "counts" if action == "count" else "lists"
        return Intent(clause, "todo_store", arguments, f'"{clause}" {verb} the {which}todos', SUMMARY)
    return None


_NARROWING = re.compile(r"^(?:but\s+)?(?:(?:just|only)\s+)?(?P<rest>(?:the|those)\s+.+)$", _F)


_WIDENING = re.compile(
    r"^(?:and\s+|plus\s+)?(?:including|incl\.?|with|even)\s+(?:the\s+)?(?:done|finished|completed|ticked(?:\s+off)?"
    r"|checked(?:\s+off)?)\s+(?:ones|stuff|things|items|tasks|todos)(?:\s+(?:too|as\s+well|also))?[\s.!]*$",
    _F,
)
_KEPT = re.compile(r"^(?:but\s+|and\s+)?(?:leave|keep)\s+(?P<rest>.+?)(?:\s+(?:alone|as\s+they\s+are))?$", _F)


def widens(clause: str) -> bool:
    """Whether `clause` adds the done todos to a listing ("including the finished ones")."""
    return bool(_WIDENING.match(clause))


def narrowed(asked: Intent, clause: str) -> Intent | None:
    """A list or count that the next clause narrows to one state ("what's left? just the open
    ones", "show my todos, but only the ones I haven't done"): the same call with that state; None
    when the clause is not such a narrowing, or says another state than the question did."""
    if (
        asked.tool == "todo_store"
        and asked.arguments.get("action") == "delete_all"
        and (kept := _KEPT.match(clause))
    ):
        # "remove the completed tasks, but leave the open ones": what stays, said of the sweep
        words = _bag(kept.group("rest")) or []
        if not set(words) & _NOUN_WORDS or (state := _state(words)) not in ("open", "done"):
            return None
        other = "done" if state == "open" else "open"
        if asked.arguments.get("state", other) != other:
            return None  # "delete the done ones, but keep the done ones": which?
        joined = f"{asked.clause}, {clause}"
        return replace(
            asked,
            clause=joined,
            arguments={**asked.arguments, "state": other},
            reasoning=f'"{joined}" keeps the {state} todos and deletes the {other} ones (a person confirms)',
        )
    if asked.tool != "todo_store" or asked.arguments.get("action") not in ("list", "count") or asked.each:
        return None
    if _WIDENING.match(clause) and asked.arguments.get("action") == "list":
        # "show me all my tasks. Including the finished ones.": every todo, done or not
        arguments = {k: v for k, v in asked.arguments.items() if k != "state"}
        return replace(asked, clause=f"{asked.clause}, {clause}", arguments=arguments)
    if not (m := _NARROWING.match(clause)) or (words := _bag(m.group("rest"))) is None:
        return None
    state = _state(words)
    if not state or not set(words) & _NOUN_WORDS or asked.arguments.get("state", state) != state:
        return None
    return replace(
        asked,
        clause=f"{asked.clause}, {clause}",
        arguments={**asked.arguments, "state": state},
        reasoning=f'"{asked.clause}, {clause}" {asked.arguments["action"]}s the {state} todos',
    )


_ALSO_LEAD = re.compile(
    r"^(?:(?:oh|ah)\s+)?(?:(?:and\s+)?also\s+|(?:and\s+)?(?:plus|as\s+well\s+as)\s+"
    # "oh and 'book flights' too": one more, said with "too" at its end
    r"|and\s+(?=\S.*\s(?:too|as\s+well)$))",
    _F,
)


def also_added(asked: Intent, clause: str, joined_by: str) -> Intent | None:
    """An add that the next clause extends with one more task, said with "also" ("put wash car on
    the list, and also hoover the stairs"): the same add with that todo after the others. Only a
    task (a verb and what it acts on, no pronoun): "also" then repeats the request before it,
    as "add milk, and also eggs" does inside one clause."""
    if asked.tool != "todo_store" or asked.arguments.get("action") != "add" or asked.refers or asked.each:
        return None
    texts = asked.arguments.get("texts") or [asked.arguments.get("text")]
    if not all(isinstance(t, str) and t and t != RESULT_TEXT for t in texts):
        return None
    said = f"{joined_by.strip(' ,.!')} {clause}".strip()
    if not (m := _ALSO_LEAD.match(said)):
        return None
    task = _TOO.sub("", said[m.end() :]).strip()
    if len(task) > 2 and (quoted := _name(task)) != task and task[:1] in "'\"" and task[-1:] == task[:1]:
        task = quoted  # "and 'book flights' too": the name as written
    elif not a_task(task) or _name(task) != task:  # only a task said plainly, nothing trimmed off its name
        return None
    if not task.strip():
        return None
    joined = f"{asked.clause}, {said}"
    arguments = {"action": "add", "texts": [*texts, task]}
    return replace(
        asked, clause=joined, arguments=arguments, reasoning=f'"{joined}" adds {len(texts) + 1} todos'
    )
