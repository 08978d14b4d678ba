"""`make eval`: everyday one-message requests (evals/requests/) through the whole system, no LLM.

Each request is sent as one run of a real stack (tools, planner with the rule planner, executor
on SQLite, gateway; in this process, on free ports), as its own principal (its own API key: a
todo list of its own). Its list is first set to `todos_before` with explicit tool calls (`use
todo_store with {...}`, which no phrasing rule reads), then the request runs, then the list is
read again. A request is right when every check of evals/requests/README.md holds.

Every request that is not right is one of: refused (it should have run), wrong (it ran, and did
something else or answered wrongly) or not refused (it should have been). A **wrong side
effect** is counted apart: the list changed when it should not have, or not as asked.

Two parts: `tuning` (the cases the rules were written against) and `heldout` (written apart from
the rules and never used to change them). Both figures are printed; only the tuning part's
misses are shown one by one unless --show-heldout (look, and those cases can no longer count as
held out: add fresh ones instead).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from collections import Counter
from dataclasses import dataclass
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

CORPUS = ROOT / "evals" / "requests"
PARTS = ("tuning", "heldout")
R = run_pb2
# A refusal: the planner did not understand, or the todo named is not one todo of the list (the
# tool says which ones it could be). Either way nothing changed, and the person is told why.
REFUSALS = ("UNPLANNABLE", "MAX_STEPS_EXCEEDED", "AMBIGUOUS_TODO", "TODO_NOT_FOUND")
# Requests in flight at once (each its own principal): the stack is one process, as in make up.
CONCURRENCY = 8


class Todo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=1000)
    done: bool = False


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    kind: str
    say: str = Field(min_length=1, max_length=2000)
    todos_before: list[Todo | str] = []
    result: float | None = None
    todos_after: list[Todo | str] | None = None
    answer_contains: list[str] = []
    answer_excludes: list[str] = []
    refused: bool = False
    mentions: list[str] = []
    note: str = Field("", max_length=1000)  # the author's reason for an expectation; not checked
    # A held-out case whose outcome was once looked at (when, and why): it no longer counts as held
    # out (it is shown apart, and fresh cases take its place), and it is never moved to tuning.
    looked_at: str = Field("", max_length=300)

    def before(self) -> list[Todo]:
        return [Todo(text=t) if isinstance(t, str) else t for t in self.todos_before]

    def after(self) -> list[Todo] | None:
        if self.todos_after is None:
            return None
        return [Todo(text=t) if isinstance(t, str) else t for t in self.todos_after]


def load(part: str, path: Path | None = None) -> list[Request]:
    data = json.loads((path or CORPUS / f"{part}.json").read_text())
    requests = [Request.model_validate(r) for r in data["requests"]]
    ids = [r.id for r in requests]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"{part}: duplicate request ids")
    for r in requests:
        if r.refused and (r.result is not None or r.todos_after is not None):
            raise SystemExit(f"{part} {r.id}: a refused request has no result and no todos_after")
    return requests


@dataclass
class Verdict:
    outcome: str  # right, refused, wrong, not-refused
    why: str = ""
    side_effect: bool = False  # the list changed when it should not have, or not as asked


def _key(todos: list[Todo]) -> list[tuple[str, bool]]:
    return [(" ".join(t.text.lower().split()).rstrip("."), t.done) for t in todos]


def judge(request: Request, run: run_pb2.Run, before: list[Todo], after: list[Todo]) -> Verdict:
    expected_after = request.after()
    changed = _key(after) != _key(before)
    wanted = _key(expected_after) if expected_after is not None else _key(before)
    side_effect = changed and _key(after) != wanted
    refused = run.status == R.RUN_STATUS_FAILED and run.error.reason in REFUSALS and not changed
    if request.refused:
        if not refused:
            shown = run.answer or f"{R.RunStatus.Name(run.status)} {run.error.message}"
            return Verdict("not-refused", f"ran: {shown!r}", side_effect or changed)
        missing = [w for w in request.mentions if w.lower() not in run.error.message.lower()]
        if missing:
            return Verdict("wrong", f"refusal lacks {missing}: {run.error.message!r}")
        return Verdict("right")
    if refused:
        return Verdict("refused", run.error.message[:300], side_effect)
    if run.status != R.RUN_STATUS_SUCCEEDED:
        return Verdict("wrong", f"{R.RunStatus.Name(run.status)}: {run.error.message[:300]}", side_effect)
    problems = []
    if request.result is not None:
        outputs = [value_to_py(s.output) for s in run.steps if s.tool == "calculator"]
        values = [o.get("value") for o in outputs if isinstance(o, dict)]
        if not values or not _same(values[-1], request.result):
            problems.append(f"result {values[-1] if values else None} != {request.result}")
    if _key(after) != wanted:
        problems.append(f"todos {_key(after)} != {wanted}")
    answer = run.answer.lower()
    if missing := [w for w in request.answer_contains if w.lower() not in answer]:
        problems.append(f"answer lacks {missing}")
    if present := [w for w in request.answer_excludes if w.lower() in answer]:
        problems.append(f"answer has {present}")
    if problems:
        calls = [(s.tool, struct_to_dict(s.arguments)) for s in run.steps]
        return Verdict("wrong", f"{'; '.join(problems)}; answer {run.answer!r}; calls {calls}", side_effect)
    return Verdict("right")


def _same(value: Any, expected: float) -> bool:
    return isinstance(value, int | float) and math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12)


async def _run(stub: run_pb2_grpc.RunServiceStub, metadata: Any, prompt: str) -> run_pb2.Run:
    run = (await stub.CreateRun(R.CreateRunRequest(prompt=prompt), metadata=metadata)).run
    async for _ in stub.WatchRun(R.WatchRunRequest(run_id=run.run_id), metadata=metadata, timeout=60):
        pass  # the stream ends with the run
    return (await stub.GetRun(R.GetRunRequest(run_id=run.run_id), metadata=metadata)).run


def _use(arguments: dict[str, Any]) -> str:
    return f"use todo_store with {json.dumps(arguments)}"


async def _todos(stub: run_pb2_grpc.RunServiceStub, metadata: Any) -> list[Todo]:
    run = await _run(stub, metadata, _use({"action": "list"}))
    if run.status != R.RUN_STATUS_SUCCEEDED:
        raise RuntimeError(f"listing the todos failed: {run.error.message}")
    listed = value_to_py(run.steps[0].output)["todos"]
    return [Todo(text=t["text"], done=t["done"]) for t in listed]


async def attempt(stub: run_pb2_grpc.RunServiceStub, key: str, request: Request) -> Verdict:
    metadata = (("authorization", f"Bearer {key}"),)
    before = request.before()
    if before:
        # One todo at a time, each done one completed at once: an open todo's text added again is
        # the same todo (todo_store keeps one), so "buy milk" done and "buy milk" open are two
        # only when the first is done before the second is added.
        setup = []
        for n, t in enumerate(before, start=1):
            setup.append(_use({"action": "add", "text": t.text}))
            if t.done:
                setup.append(_use({"action": "complete", "id": n}))
        run = await _run(stub, metadata, " then ".join(setup))
        if run.status != R.RUN_STATUS_SUCCEEDED:
            raise RuntimeError(f"{request.id}: setting up the todos failed: {run.error.message}")
    run = await _run(stub, metadata, request.say)
    return judge(request, run, before, await _todos(stub, metadata))


async def evaluate(parts: dict[str, list[Request]]) -> dict[str, list[Verdict]]:
    everyone = [r for requests in parts.values() for r in requests]
    verdicts: dict[str, list[Verdict]] = {}
    async with eval_stack(len(everyone)) as stack:
        gate = asyncio.Semaphore(CONCURRENCY)
        index = 0
        for part, requests in parts.items():

            async def one(n: int, request: Request) -> Verdict:
                async with gate:
                    return await attempt(stack.gateway, eval_key(n), request)

            verdicts[part] = await asyncio.gather(*(one(index + n, r) for n, r in enumerate(requests)))
            index += len(requests)
    return verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=PARTS, action="append", help="only this part (default: both)")
    parser.add_argument("--check", action="store_true", help="validate the corpus files only")
    parser.add_argument("--quiet", action="store_true", help="figures only, not each wrong request")
    parser.add_argument(
        "--by-kind",
        action="store_true",
        help="each part's misses counted by the kind its author gave and how it missed (never a case)",
    )
    parser.add_argument(
        "--file",
        type=Path,
        help="a fresh batch in the corpus format, run on its own before it joins a part (shown in full)",
    )
    parser.add_argument(
        "--show-heldout", action="store_true", help="also show the held-out part's misses (see above)"
    )
    parser.add_argument(
        "--show-heldout-side-effects",
        action="store_true",
        help="also show the held-out cases with a wrong side effect, and only those (mark each one "
        "looked_at in heldout.json: it no longer counts as held out)",
    )
    args = parser.parse_args()
    corpus = {p: load(p) for p in PARTS}
    # One id names one case in the whole corpus (and a fresh batch joins it under ids of its own):
    # a tuning case under a held-out case's id would be read as that case in every report.
    tuning_ids, heldout_ids = ({r.id for r in corpus[p]} for p in PARTS)
    if clash := sorted(tuning_ids & heldout_ids):
        raise SystemExit(f"ids in both parts: {', '.join(clash[:10])}")
    if args.file:
        parts = {"file": load("file", args.file)}
        if clash := sorted({r.id for r in parts["file"]} & (tuning_ids | heldout_ids)):
            raise SystemExit(f"{args.file}: ids the corpus already has: {', '.join(clash[:10])}")
    else:
        parts = {p: corpus[p] for p in args.part or PARTS}
    if args.check:
        for part, requests in parts.items():
            kinds = Counter(r.kind for r in requests)
            print(f"{part}: {len(requests)} requests, {len(kinds)} kinds")
        return 0
    configure_logging("error")  # the services' own lines would bury the figures
    verdicts = asyncio.run(evaluate(parts))
    for part, found in verdicts.items():
        if args.quiet:
            continue
        for request, verdict in zip(parts[part], found, strict=True):
            shown = (
                part != "heldout"
                or args.show_heldout
                or (args.show_heldout_side_effects and verdict.side_effect)
            )
            if verdict.outcome != "right" and shown:
                print(f"  {part} {request.id} ({request.kind}) {verdict.outcome.upper()}: {request.say!r}")
                print(f"      {verdict.why}")
    print("everyday requests (rule planner, no LLM): right / all")
    for part, found in verdicts.items():
        cases = list(zip(parts[part], found, strict=True))
        _figure(part, [v for r, v in cases if not r.looked_at])
        if looked := [v for r, v in cases if r.looked_at]:
            _figure("  looked at, apart", looked)
        if args.by_kind:
            # which kinds of request a part misses most (all a held-out part shows of its misses:
            # where to look, never the case to fit a rule to)
            missed = Counter(
                (r.kind, v.outcome) for r, v in cases if v.outcome != "right" and not r.looked_at
            )
            for (kind, outcome), count in missed.most_common():
                print(f"    {count:3} {outcome:11} {kind}")
    return 0


def _figure(label: str, found: list[Verdict]) -> None:
    # (two decimals: at the bar, 5702/5880 = 96.97% would print as 97.0%)
    tally = Counter(v.outcome for v in found)
    effects = sum(v.side_effect for v in found)
    right = tally["right"]
    print(
        f"  {label:8} {right}/{len(found)} = {right / len(found):.2%}  (refused {tally['refused']}, "
        f"wrong {tally['wrong']}, not refused {tally['not-refused']}; wrong side effects: {effects})"
    )


if __name__ == "__main__":
    try:
        sys.exit(main())
    except grpc.aio.AioRpcError as exc:
        sys.exit(f"eval failed: {exc.code().name}: {exc.details()}")
