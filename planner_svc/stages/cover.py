"""Choosing the cover of a text: the split into clauses that all parse and weigh the most, with
politeness, asides, remarks, reasons and follow-ups set aside; then shaped into steps."""

from __future__ import annotations

import re

from planner_svc.grammar import arithmetic, todos
from planner_svc.grammar.intent import Intent
from planner_svc.stages.after_change import one_more_named, talk_after_change
from planner_svc.stages.clauses import _REQUEST, parse_clause
from planner_svc.stages.closings import _POLITE_ONLY, _strip_polite_suffix
from planner_svc.stages.common import _F, MAX_CLAUSE_PIECES, MAX_PIECES, _cannot_plan, _quote
from planner_svc.stages.explain import _explain, _unplannable
from planner_svc.stages.polite import _clean
from planner_svc.stages.remarks import (
    _AS_WELL,
    _COMMENT,
    _FINAL_ONLY,
    _FURTHER,
    _LEAD_STOP,
    _NOT_THIS,
    _STILL_OPEN,
    _TAIL_WITH_MORE,
    _aside,
    _comment,
    _read_why,
    _reads_only,
    _remark,
    _takes_back,
    dismissed,
)
from planner_svc.stages.segment import _LIST_HEADER, _QUESTION_TAIL, _STOP, _STRONG_SEPARATOR, _split
from planner_svc.stages.shaping import _expanded, _merged, _names_checked_first
from planner_svc.stages.why_said import _why_deleted, _why_told


def _cover(tidied: str, prompt: str, split: tuple[list[str], list[str]] | None = None) -> list[Intent]:
    """The intents of a text: its clauses (split at separators, the split whose clauses all parse
    and weigh the most), asides and remarks set aside, shaped into steps (merged, expanded, names
    checked first); references not bound yet."""
    pieces, separators = split or _split(tidied)
    if len(pieces) > MAX_PIECES:
        raise _cannot_plan(f"the prompt has too many parts to plan (more than {MAX_PIECES} clauses)")

    def segment(i: int, j: int) -> str:
        return "".join(p + s for p, s in zip(pieces[i:j], [*separators[i : j - 1], ""], strict=True))

    parsed: dict[tuple[int, int], Intent | None] = {}
    # "then", ";" and the end of a sentence always end a clause; only "," and "and" may also
    # belong inside one ("buy milk and eggs"). So "add a todo to buy milk, then book a flight"
    # is two clauses, one not understood, never one todo that swallowed the second.
    strong = [
        bool(_STRONG_SEPARATOR.search(s))
        and not _QUESTION_TAIL.match(following := _clean(pieces[k + 1]))
        and not ("then" not in s.lower() and todos.pronoun_action(following))
        for k, s in enumerate(separators)
    ]
    # "add these: a; b; c": after a list's header, a ";" separates its items, not clauses.
    for k, s in enumerate(separators):
        if s.strip() == ";" and _LIST_HEADER.search(segment(0, k + 1)):
            strong[k] = False
    # "add pick up prescription; drop off parcel; call Gran": after an add, a list of tasks that
    # are no request of their own are its items ("add milk; delete eggs" stays two requests, and
    # "add milk; book me a flight" asks for a flight: two pieces are no list).
    if (
        len(pieces) > 2
        and todos.ADD_FIRST.match(_clean(pieces[0]))
        and all(s.strip() == ";" for s in separators)
        and all(todos.a_task(_clean(p)) and parse_clause(p) is None for p in pieces[1:])
    ):
        strong = [False] * len(separators)

    def intent(i: int, j: int) -> Intent | None:
        if (i, j) not in parsed:
            parsed[(i, j)] = None if any(strong[i : j - 1]) else parse_clause(segment(i, j))
        return parsed[(i, j)]

    n = len(pieces)
    # A prompt that ends by asking about what it told ("... What did I spend altogether?") is
    # read as one word problem first, when it is one: its sentences are not requests of their own.
    if (
        n > 1
        and _QUESTION_TAIL.match(_clean(pieces[-1]))
        and (whole := _word_problem(tidied, pieces, separators)) is not None
    ):
        return _expanded([whole])
    # best[j]: the intents covering pieces[:j] entirely that weigh the most (each clause is 1, a
    # statement read with its pronoun more: Intent.weight), with their weight. A piece that is
    # only politeness ("Thanks!") is covered by nothing.
    polite, remarks_to_end, polite_to_end = _closings(pieces)
    best: list[tuple[int, list[Intent]] | None] = [(0, [])] + [None] * n
    reasons: set[int] = (
        set()
    )  # pieces that say why the request before them was asked (_why_deleted, _why_told)
    # "forget it, delete the license one": the first piece lets go of the turn before
    dismissal = n > 1 and dismissed(pieces[0], pieces[1])
    for j in range(1, n + 1):
        if (
            (before := best[j - 1]) is not None
            and before[1]
            # "list everything, the done ones too": those as well, not only those
            and (
                not _AS_WELL.search(f"{separators[j - 2] if j > 1 else ''} {pieces[j - 1]}")
                or todos.widens(_clean(pieces[j - 1]))  # "... Including the finished ones."
            )
            and (narrowed := todos.narrowed(before[1][-1], _clean(pieces[j - 1]))) is not None
        ):
            best[j] = (before[0], [*before[1][:-1], narrowed])  # "what's left? just the open ones"
        elif (
            (before := best[j - 1]) is not None
            and (
                polite[j - 1]
                # "keep the rest pls"; "that'd be amazing": closing words alone
                or _POLITE_ONLY.fullmatch(said := _strip_polite_suffix(" ".join(pieces[j - 1].split())))
                or not said
                or (n > 1 and _aside(pieces[j - 1]))
                or (j == 1 and dismissal)
                # "read me my list please, I've forgotten what I wrote": after a request that only
                # reads, why it is asked (nothing in it can change the list)
                or (j > 1 and bool(before[1]) and _read_why(before[1], pieces[j - 1], separators[j - 2]))
                # "walked the dog, milk's still to do": what is not done yet, beside a request, asks
                # for nothing (there is nothing to change for it)
                or (n > 1 and bool(_STILL_OPEN.fullmatch(_clean(pieces[j - 1]))))
                # "don't delete the milk one, delete the bread one": what not to do asks for nothing
                or (n > 1 and bool(_NOT_THIS.match(_clean(pieces[j - 1]))))
                or (
                    j > 1
                    and before[1]
                    and remarks_to_end[j - 1]
                    # "could you add 'buy stamps'? I'm going to the post office anyway": a request
                    # asked as a question ends its sentence too
                    and bool(
                        _STOP.search(separators[j - 2])
                        # "... . We've got none left and it's Monday.": a remark after a remark
                        or (j > 2 and remarks_to_end[j - 2] and best[j - 2] is before)
                        or ("?" in separators[j - 2] and _REQUEST.search(pieces[j - 2]))
                        # "what is 15 percent of 60? My grandson usually helps me with this": after
                        # a question that only reads, a remark can change nothing
                        or ("?" in separators[j - 2] and _reads_only(before[1]))
                    )
                )
                # "ugh the car is making that noise again. add take car to mechanic": told first
                or (
                    j < n
                    and not before[1]
                    and _remark(_clean(pieces[j - 1]))
                    # "and the last jedi too, watched it": one more, asked for, never a remark
                    and not _ONE_MORE_SAID.search(pieces[j - 1])
                    and (
                        bool(_LEAD_STOP.search(separators[j - 1]))
                        # "the kids have a half day and i forgot the slip. add ...": one told thing
                        # and another, the last ending its sentence
                        or (" and " in f" {separators[j - 1]} " and _remark(_clean(pieces[j])))
                    )
                )
                # "... did 6 and a half hours, what did I make?": the question asks for the sum before it
                or (
                    j > 1
                    and before[1]
                    and before[1][-1].tool == "calculator"
                    and (j == n or _STRONG_SEPARATOR.search(separators[j - 1]))
                    and bool(_QUESTION_TAIL.match(tail := _clean(pieces[j - 1])))
                    and (
                        not _TAIL_WITH_MORE.search(tail)
                        # "... up by 10% and then down by 10%, what's the final price?": the last step's
                        or (bool(_FINAL_ONLY.fullmatch(tail)) and bool(before[1][-1].refers))
                    )
                )
                or (
                    j > 1
                    and before[1]
                    # "..., my membership ran out, cheers": thanks after the remark still end it
                    and _comment(
                        pieces[j - 1],
                        separators[j - 2],
                        [] if polite_to_end[j] else separators[j - 1 : j],
                        pieces[j] if j < n else "",
                    )
                    and not one_more_named(before[1], pieces[j - 1])
                )
                or (
                    j == 1
                    and n > 1
                    and "," in separators[0]
                    and bool(_COMMENT.fullmatch(_clean(pieces[0])))
                    and not _ONE_MORE_SAID.search(pieces[0])
                )
            )
            # "add milk, I don't need it actually": what takes the request back is never skipped
            and not _takes_back(before[1], pieces[j - 1])
        ):
            best[j] = before
            if j == 1 and dismissal:
                reasons.add(0)  # "forget it, delete the license one": never "forget it" read as a delete
        # "delete all my todos, trip is cancelled": why, after a delete, never a second change
        if (
            j > 1
            and (before := best[j - 1]) is not None
            and (
                _why_deleted(before[1], pieces[j - 1])
                # "add order new glasses since I sat on mine": why, after any request
                or _why_told(before[1], separators[j - 2], pieces[j - 1])
                or (
                    talk_after_change(before[1], separators[j - 2], pieces[j - 1])
                    and parse_clause(pieces[j - 1]) is None
                )
            )
        ):
            best[j] = before
            reasons.add(j - 1)  # no clause starts with it ("..., trip is cancelled, cheers" neither)
        for i in range(max(0, j - MAX_CLAUSE_PIECES), j):
            prefix, current = best[i], best[j]
            if prefix is None or i in reasons:
                continue
            if (found := intent(i, j)) is not None and (
                current is None or prefix[0] + found.weight > current[0]
            ):
                best[j] = (prefix[0] + found.weight, [*prefix[1], found])
        if best[j] is None and j > 1 and (before := best[j - 1]) is not None and before[1]:
            best[j] = _followed_up(before, pieces[j - 1], separators[j - 2])
    intents = best[n][1] if best[n] is not None else None
    if intents is None and (whole := _word_problem(tidied, pieces, separators)) is not None:
        intents = [whole]  # no split understood, but the sentences together are one word problem
    if intents is None:
        raise _explain(prompt, pieces, intent)
    if not intents:  # only politeness: "thanks!"
        raise _unplannable(prompt, [], [prompt.strip()])
    _it_is_the_list(intents, whole=len(pieces) == 1)
    _nothing_kept_from_a_sweep(intents, pieces)
    return _names_checked_first(_merged(_expanded(intents)))


_ONE_MORE_SAID = re.compile(r"^\W*(?:and|also|plus)\b|\b(?:too|as\s+well|also)\W*$", _F)


def _closings(pieces: list[str]) -> tuple[list[bool], list[bool], list[bool]]:
    """For each piece: whether it is only politeness ("Thanks!"); whether it and all after it
    are remarks after a full stop ("... Sadly she passed away last month.": said about the
    request, asking for nothing, _remark) or politeness; whether it and all after it are
    politeness. (The last two have one more entry, True: nothing is after the last piece.)"""
    n = len(pieces)
    polite = [bool(_POLITE_ONLY.fullmatch(piece.strip(" .!?,"))) for piece in pieces]
    remarks_to_end = [False] * n + [True]
    for k in range(n - 1, 0, -1):
        remarks_to_end[k] = remarks_to_end[k + 1] and (_remark(pieces[k]) or polite[k])
    polite_to_end = [False] * n + [True]
    for k in range(n - 1, -1, -1):
        polite_to_end[k] = polite_to_end[k + 1] and polite[k]
    return polite, remarks_to_end, polite_to_end


# "show it", "print them": the list, when it is what the message spoke of
_SHOW_IT = re.compile(r"^(?:(?:and|then)\s+)*(?:show|print|display|read)(?:\s+(?:me|us))?\s+(?:it|them)$", _F)


def _it_is_the_list(intents: list[Intent], *, whole: bool) -> None:
    """Refuse "print it" read as the list when "it" may be something else the message spoke of:
    "I'll finish the essay after dinner, then print it" prints the essay. Alone, or after a
    request about the list ("add X to my list, then show it"), it is the list."""
    if whole:
        return
    for k, intent in enumerate(intents):
        if (
            intent.tool == "todo_store"
            and intent.arguments.get("action") == "list"
            and _SHOW_IT.match(_clean(intent.clause))
            and not any(i.tool == "todo_store" for i in intents[:k])
        ):
            raise _cannot_plan(
                f"{_quote(intent.clause)}: what it refers to is not clear (the list, or something else the "
                "message spoke of); to see the list, say 'show my todos'"
            )


# What a sweep is asked to leave ("clear my list, keep the dentist one", "delete everything, well
# not the dentist"); not the rest, which a sweep of some leaves anyway ("clear the done ones, keep
# the rest").
_KEPT_FROM = re.compile(
    r"^(?:(?:but|well|and|though|oh)\s+)*(?:keep|leave|except|excluding|apart\s+from|other\s+than|save\s+for"
    # "not the dentist", not a reason ("not happening", "not needed anymore")
    r"|bar|minus|without|not(?!\s+(?:[a-z]+(?:ing|ed)|now|yet|today|any\s?more|relevant|important|necessary|worth\b)))"
    r"\b(?!\s+(?:the\s+)?(?:rest|others|other\s+ones|remaining\s+ones)\b)",
    _F,
)


def _nothing_kept_from_a_sweep(intents: list[Intent], pieces: list[str]) -> None:
    """Refuse a sweep the message keeps something from: the tools sweep all that fits, so read
    without its exception it would delete or tick off the very todo the person wants kept."""
    if not any(_sweeps(i) for i in intents):
        return
    clauses = " ".join(_clean(i.clause) for i in intents)
    for piece in pieces:
        said = _clean(piece)
        if _KEPT_FROM.match(said) and said not in clauses:
            raise _cannot_plan(
                f"the message keeps something out of a sweep ({_quote(said)}), and a sweep takes every todo "
                "it fits: name the todos to change one by one instead"
            )


def _sweeps(intent: Intent) -> bool:
    action = intent.arguments.get("action")
    return intent.tool == "todo_store" and (
        action == "delete_all" or (action in ("delete", "complete") and bool(intent.arguments.get("every")))
    )


def _followed_up(
    before: tuple[int, list[Intent]], piece: str, separator: str
) -> tuple[int, list[Intent]] | None:
    """The intents before, with `piece` read as a follow-up of the last of them that is nothing
    on its own: one more todo of an add ("put X on the list, and also Y"), or the conversion
    asked again of another amount ("how many km is 3 miles? and 6 miles?"); None otherwise."""
    weight, intents = before
    if (
        not _STRONG_SEPARATOR.search(separator)
        and (said := _strip_polite_suffix(" ".join(piece.split())))
        and (
            (more := todos.also_added(intents[-1], said, separator))
            # ("'book flights' too": its "too" says one more, not politeness)
            or (more := todos.also_added(intents[-1], " ".join(piece.split()), separator))
        )
        is not None
    ):
        return weight, [*intents[:-1], more]
    if (asked := arithmetic.again(intents[-1], _clean(piece))) is not None:
        return weight + 1, [*intents, asked]
    return None


def _word_problem(prompt: str, pieces: list[str], separators: list[str]) -> Intent | None:
    """The prompt as one word problem, when it is one: no "then" or ";" in it, and each of its
    clauses has a number or asks for one in a word problem's terms (what the story reading needs)."""
    if any(
        re.search(r"then|;", s, _F) and not _FURTHER.match(_clean(pieces[k + 1]))
        for k, s in enumerate(separators)
    ):
        return None  # "... then book a flight" is a second request; "then an extra 10% off" is the story's
    asides = [bool(_aside(p)) for p in pieces]
    if not all(
        arithmetic.part_of_a_story(c)
        or _QUESTION_TAIL.match(c)
        or _POLITE_ONLY.fullmatch(c)
        or aside
        or c.lower() in ("me", "i", "myself")  # "me and 4 friends split ...": one of the heads
        for c, aside in zip((_clean(p) for p in pieces), asides, strict=True)
        if c
    ):
        return None
    if any(asides):  # "cable went from 89 to 112. love that for me. what's the percent increase"
        prompt = "".join(
            p + s for p, s, aside in zip(pieces, [*separators, ""], asides, strict=True) if not aside
        )
    return arithmetic.word_problem(prompt)
