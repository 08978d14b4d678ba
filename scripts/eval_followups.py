"""`make eval`: multi-turn conversations (evals/followups/) through the whole system, no LLM.

Each conversation is sent turn by turn to one thread of a real stack (tools, planner with the
rule planner, executor on SQLite, gateway; in this process, on free ports), as its own principal
(its own API key: a todo list of its own, numbered from #1). A turn is right when it did what
the conversation expects (evals/followups/README.md): the tool calls it made, the answer's
words, or a refusal naming what it should. A conversation is right when all its turns are.

Two parts: `tuning` (the cases the rules were written against) and `heldout` (written apart from
the rules and never used to change them). Both figures are printed; `--check` only validates the
files' format, without running anything.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402
from pydantic import BaseModel, ConfigDict, Field  # noqa: E402

from agentrt.core.values import struct_to_dict, value_to_py  # noqa: E402
from agentrt.server.logs import configure_logging  # noqa: E402
from agentrt.v1 import run_pb2, run_pb2_grpc  # noqa: E402
from scripts.evalstack import eval_key, eval_stack  # noqa: E402

CORPUS = ROOT / "evals" / "followups"
# The tuning part, the first held-out part, and each later held-out batch (heldout_r1.json, ...:
# one written apart from the rules before each round of changes, its first-run figure reported).
PARTS = ("tuning", "heldout", *sorted(p.stem for p in CORPUS.glob("heldout_*.json")))
R = run_pb2


class Step(BaseModel):
    """One expected tool call: its tool, and arguments it must have (`text_contains`: a part of
    its "text" argument; every other key must equal the argument of that name)."""

    model_config = ConfigDict(extra="allow")
    tool: str
    text_contains: str | None = None


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    say: str = Field(min_length=1, max_length=2000)
    steps: list[Step] | None = None  # the calls, in order (None: not checked)
    answer_contains: list[str] = []  # words the answer has (case does not matter)
    refused: bool = False  # the turn must be refused (not planned), not run
    mentions: list[str] = []  # words the refusal has
    note: str | None = None  # why the author expects this, where a reader might wonder (not checked)


class Conversation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    kind: str
    note: str | None = None
    turns: list[Turn] = Field(min_length=1, max_length=20)


def load(part: str, path: Path | None = None) -> list[Conversation]:
    data = json.loads((path or CORPUS / f"{part}.json").read_text())
    conversations = [Conversation.model_validate(c) for c in data["conversations"]]
    ids = [c.id for c in conversations]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"{part}: duplicate conversation ids")
    return conversations


# A refusal, as the requests part counts one: the planner did not understand, or the todo named
# is not one todo of the list (the tool says which ones it could be), and nothing changed.
REFUSALS = ("UNPLANNABLE", "MAX_STEPS_EXCEEDED", "AMBIGUOUS_TODO", "TODO_NOT_FOUND")


def judge(turn: Turn, run: run_pb2.Run) -> str:
    """'' when the run did what the turn expects, else what went wrong."""
    if turn.refused:
        changed = any(
            (s.tool, struct_to_dict(s.arguments).get("action")) in CHANGING
            and s.status == R.STEP_STATUS_SUCCEEDED
            for s in run.steps
        )
        if run.status != R.RUN_STATUS_FAILED or run.error.reason not in REFUSALS or changed:
            return (
                f"expected a refusal, got {R.RunStatus.Name(run.status)} {run.answer or run.error.message!r}"
            )
        missing = [w for w in turn.mentions if w.lower() not in run.error.message.lower()]
        return f"refusal does not mention {missing}: {run.error.message!r}" if missing else ""
    if run.status != R.RUN_STATUS_SUCCEEDED:
        return f"{R.RunStatus.Name(run.status)}: {run.error.message}"
    if turn.steps is not None:
        made = [(s.tool, struct_to_dict(s.arguments)) for s in run.steps if not _a_check(s)]
        expected = [e for step in turn.steps for e in _each_expected(step)]
        readings = (
            [c for s in run.steps if not _a_check(s) for c in _calls_of(s, split)] for split in (False, True)
        )
        if not any(
            len(calls) == len(expected) and all(_matches(e, m) for e, m in zip(expected, calls, strict=True))
            for calls in readings
        ):
            return f"calls {made}"
    missing = [w for w in turn.answer_contains if w.lower() not in run.answer.lower()]
    return f"answer {run.answer!r} lacks {missing}" if missing else ""


# The calls that change a list: what a wrong change is made of. (The eval reads the built-in
# tool by name; the planner must not, issue 58.)
CHANGING = {
    ("todo_store", action) for action in ("add", "complete", "reopen", "delete", "restore", "delete_all")
}


def wrong_changes(turn: Turn, run: run_pb2.Run) -> list[str]:
    """The calls this turn made that changed the list and that its expectation does not allow:
    any, when it should have been refused; any not among its expected steps, when those are
    given (unstated steps: not judged). The worst error an agent makes, counted apart."""
    if not turn.refused and turn.steps is None:
        return []
    wrong = []
    allowed = [] if turn.refused else [e for step in turn.steps or () for e in _each_expected(step)]
    for step in run.steps:
        arguments = struct_to_dict(step.arguments)
        if (step.tool, arguments.get("action")) not in CHANGING or step.status != R.STEP_STATUS_SUCCEEDED:
            continue
        if any(
            all(any(_matches(e, c) for e in allowed) for c in _calls_of(step, split))
            for split in (False, True)
        ):
            continue  # allowed as one call or as one per todo
        for call in _calls_of(step, True):
            if not any(_matches(e, call) for e in allowed):
                wrong.append(
                    f"{call[0]} {json.dumps(call[1], sort_keys=True)}"
                )  # a Struct's order is not kept
    return wrong


def kind_of_wrong(turn: Turn, change: str) -> str:
    """What sort of wrong change this was, without the case's words: all a held-out part shows
    of one (which mechanism to look at, never the case to fit a rule to)."""
    action = json.loads(change.split(" ", 1)[1]).get("action", "?")
    if turn.refused:
        return f"{action} where a refusal was expected"
    expected = sorted(
        {str((e.model_extra or {}).get("action")) for s in turn.steps or () for e in _each_expected(s)}
    )
    if action in expected:
        return f"{action} of another todo (or text) than expected{_how_near(turn, change)}"
    return f"{action} where {'/'.join(expected) or 'no change'} was expected"


def _how_near(turn: Turn, change: str) -> str:
    """For an add of another text: how many of the words an expected add wanted its text has
    (counts, never the words), so a held-out part says whether a name lost words, gained a
    wrong one, or was another todo altogether."""
    made = json.loads(change.split(" ", 1)[1])
    if made.get("action") != "add":
        return ""
    text = set(re.findall(r"[^\W_]+", str(made.get("text", "")).lower()))
    wanted = [
        set(re.findall(r"[^\W_]+", e.text_contains.lower()))
        for s in turn.steps or ()
        for e in _each_expected(s)
        if e.text_contains and (e.model_extra or {}).get("action") == "add"
    ]
    if not wanted:
        return ""
    have, of = max(((len(w & text), len(w)) for w in wanted), key=lambda h: (h[0] / max(h[1], 1), -h[1]))
    return f" ({have} of the {of} words an expected add wanted)"


def _shape(run: run_pb2.Run) -> str:
    """What a run did, without a word of what it was said or named: its calls' tools and actions,
    and whether it failed ("todo_store.add, calculator"; "refused")."""
    calls = [
        f"{s.tool}.{struct_to_dict(s.arguments).get('action', '')}".rstrip(".")
        for s in run.steps
        if not _a_check(s)
    ]
    failed = run.status != R.RUN_STATUS_SUCCEEDED
    return (
        ", ".join(calls) + (" (failed)" if failed and calls else "")
        if calls
        else ("refused" if failed else "no call")
    )


def _expected_shape(turn: Turn) -> str:
    if turn.refused:
        return "a refusal"
    if turn.steps is None:
        return "anything"
    return (
        ", ".join(f"{s.tool}.{(s.model_extra or {}).get('action', '')}".rstrip(".") for s in turn.steps)
        or "no call"
    )


def _a_check(step: run_pb2.Step) -> bool:
    """A todo_store find: the check a plan makes that the todos it names are there before it
    changes anything. It reads, and no turn's author knows of it (the README's tool has no
    such action), so it is not one of the calls a turn expects."""
    return step.tool == "todo_store" and struct_to_dict(step.arguments).get("action") == "find"


def _calls_of(step: run_pb2.Step, split_adds: bool) -> list[tuple[str, dict[str, Any]]]:
    """A step as the calls it made, each with the id and text of the todo it changed (from its
    output) beside its own arguments: "delete 'cancel gym'" that deleted #1 is "delete #1" too, so
    a turn that expects either is judged on the todo changed, not on how the plan named it. An add
    of several texts is one call, or (`split_adds`) one add per text with the id its todo got: a
    turn may expect either, and is judged under both readings."""
    tool, arguments = step.tool, struct_to_dict(step.arguments)
    output = value_to_py(step.output) if step.HasField("output") else None
    changed = _todos_in(output) if step.status == R.STEP_STATUS_SUCCEEDED else []
    if arguments.get("action") == "add":
        if "texts" not in arguments and len(changed) == 1:
            return [(tool, {**arguments, "id": changed[0]["id"]})]  # the id its todo got, as below
        if not split_adds or "texts" not in arguments:
            return [(tool, arguments)]
        texts = [
            (tool, {**{k: v for k, v in arguments.items() if k != "texts"}, "text": t})
            for t in arguments["texts"]
        ]
        if len(changed) != len(texts):
            return texts
        return [(t, {**a, "id": todo["id"]}) for (t, a), todo in zip(texts, changed, strict=True)]
    if arguments.get("action") in ("list", "count") or not changed:
        return _each_call((tool, arguments))
    named = {k: v for k, v in arguments.items() if k not in ("id", "ids", "text", "texts")}
    given = _each_call((tool, arguments))
    if len(changed) == 1 and len(given) == 1:
        return [(tool, {**named, **changed[0], **given[0][1]})]  # its own words first
    if {"texts", "ids", "matching", "every"} & arguments.keys():  # one call for several: one per todo changed
        return [(tool, {**named, **todo}) for todo in changed]
    return given


def _todos_in(output: Any) -> list[dict[str, Any]]:
    """The todos a todo_store output says it changed ("todo", "deleted", "todos"), as id and text."""
    if not isinstance(output, dict):
        return []
    found = output.get("todos") if isinstance(output.get("todos"), list) else None
    if found is None:
        one = output.get("todo", output.get("deleted"))
        found = [one] if isinstance(one, dict) else []
    todos = [t for t in found if isinstance(t, dict) and "id" in t and "text" in t]
    return [{"id": t["id"], "text": t["text"]} for t in todos]


# One call naming several todos by ids is the same change as one call per id, in that order: the
# two are compared as the latter, whichever a turn expects and a plan makes.
def _each_call(call: tuple[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    tool, arguments = call
    ids = arguments.get("ids")
    if not isinstance(ids, list):
        return [call]
    rest = {k: v for k, v in arguments.items() if k != "ids"}
    return [(tool, {**rest, "id": i}) for i in ids]


def _each_expected(step: Step) -> list[Step]:
    extra = step.model_extra or {}
    if not isinstance(extra.get("ids"), list):
        return [step]
    rest = {k: v for k, v in extra.items() if k != "ids"}
    return [Step(tool=step.tool, text_contains=step.text_contains, **rest, id=i) for i in extra["ids"]]


def _matches(expected: Step, made: tuple[str, dict[str, Any]]) -> bool:
    tool, arguments = made
    wanted = expected.model_extra or {}
    if tool != expected.tool or any(arguments.get(k) != v for k, v in wanted.items()):
        return False
    return (
        expected.text_contains is None
        or expected.text_contains.lower() in str(arguments.get("text", "")).lower()
    )


async def converse(
    stub: run_pb2_grpc.RunServiceStub, key: str, conversation: Conversation
) -> tuple[list[str], list[str]]:
    """Each turn's verdict ('' = right), and the kind of each wrong change the conversation made."""
    metadata = (("authorization", f"Bearer {key}"),)
    thread = (await stub.CreateThread(R.CreateThreadRequest(), metadata=metadata)).thread.thread_id
    verdicts, changed_wrongly = [], []
    before = "nothing"
    for at, turn in enumerate(conversation.turns, 1):
        run = (
            await stub.CreateRun(R.CreateRunRequest(prompt=turn.say, thread_id=thread), metadata=metadata)
        ).run
        async for _ in stub.WatchRun(R.WatchRunRequest(run_id=run.run_id), metadata=metadata, timeout=60):
            pass  # the stream ends with the run
        run = (await stub.GetRun(R.GetRunRequest(run_id=run.run_id), metadata=metadata)).run
        verdict, wrong = judge(turn, run), wrong_changes(turn, run)
        made = _shape(run)
        changed_wrongly += [
            f"{kind_of_wrong(turn, change)} [turn {at}; the run before made {before}; this one {made}; "
            f"expected {_expected_shape(turn)}]"
            for change in wrong
        ]
        before = made
        verdicts.append(f"{verdict} WRONG CHANGE {wrong}" if wrong else verdict)
    return verdicts, changed_wrongly


async def evaluate(
    parts: dict[str, list[Conversation]], verbose: bool
) -> dict[str, tuple[int, int, int, int, int]]:
    everyone = [c for conversations in parts.values() for c in conversations]
    figures: dict[str, tuple[int, int, int, int, int]] = {}
    async with eval_stack(len(everyone)) as stack:
        stub = stack.gateway
        index = 0
        for part, conversations in parts.items():
            right_conversations = right_turns = turns = 0
            kinds: list[str] = []
            for conversation in conversations:
                verdicts, wrong = await converse(stub, eval_key(index), conversation)
                kinds += wrong
                index += 1
                turns += len(verdicts)
                right_turns += verdicts.count("")
                right_conversations += all(v == "" for v in verdicts)
                # Only the tuning part's misses are shown: a held-out case is never read to
                # change a rule, so its misses are counted, not printed.
                if verbose and part in ("tuning", "fresh") and any(verdicts):
                    print(f"  {part} {conversation.id} ({conversation.kind}):")
                    for turn, verdict in zip(conversation.turns, verdicts, strict=True):
                        print(f"    {'ok ' if not verdict else 'BAD'} {turn.say!r} {verdict}")
            figures[part] = (right_conversations, len(conversations), right_turns, turns, len(kinds))
            for kind, count in sorted(Counter(kinds).items()):
                print(f"  {part}: wrong change x{count}: {kind}")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=PARTS, action="append", help="only this part (default: all)")
    parser.add_argument("--check", action="store_true", help="validate the corpus files only")
    parser.add_argument("--quiet", action="store_true", help="figures only, not each wrong turn")
    parser.add_argument("--only", action="append", metavar="ID", help="only the tuning conversation ID")
    parser.add_argument(
        "--file",
        type=Path,
        help="a fresh batch in this format, run on its own, each miss shown (its first run)",
    )
    args = parser.parse_args()
    # a fresh batch (--file): its first-run figure is recorded before it joins a part
    parts = {"fresh": load("fresh", args.file)} if args.file else {p: load(p) for p in args.part or PARTS}
    if args.only:  # a tuning case being worked on; held-out cases are never picked out
        parts = {"tuning": [c for c in parts.get("tuning", load("tuning")) if c.id in args.only]}
    if args.check:
        for part, conversations in parts.items():
            turns = sum(len(c.turns) for c in conversations)
            print(f"{part}: {len(conversations)} conversations, {turns} turns")
        return 0
    configure_logging("error")  # the services' own lines would bury the figures
    figures = asyncio.run(evaluate(parts, verbose=not args.quiet))
    print("follow-ups (rule planner, no LLM): conversations right / all (turns right / all), wrong changes")
    for part, (right, total, right_turns, turns, wrong) in figures.items():
        print(
            f"  {part:10} {right}/{total} = {right / total:.0%} ({right_turns}/{turns} turns), "
            f"{wrong} wrong change{'' if wrong == 1 else 's'}"
        )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except grpc.aio.AioRpcError as exc:
        sys.exit(f"eval failed: {exc.code().name}: {exc.details()}")
