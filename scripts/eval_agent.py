"""`make eval-agent`: evals/agent_prompts.json through the agent loop, under an approval policy.

These prompts need the model to look at tool results (find a todo's id by its text, count,
carry a value into the next call, recover from a tool error, decline what no tool can do), and
everyday requests ("add X and show my list"). Each runs on real services in this process
(tools_svc, planner_svc, executor_svc on free ports, a fresh SQLite store per prompt) against an
OpenAI-compatible server: the local model (started here, `--size 0.5b` or `1.5b`) or
`--api-base`.

`--policy default` runs under the server's default approval policy (a change the model chose
waits for a person), with a simulated careful person: it approves a call only if its effect is
one the task asked for (judged against the case's expected end state, on the real list at that
moment), and otherwise rejects it ("that is not what I asked"), which the model reads. `--policy
never` lets every call run unasked: what the model does alone. Each case counts as right (the
end state and answer are as expected), refused (REFUSED, or an answer that declines), and
whether it left a wrong side effect: a todo added, completed or deleted that the task did not
ask for, read off the tools' real state at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentrt.config import LLMModel, Settings  # noqa: E402
from agentrt.core.values import dict_to_struct, struct_to_dict, value_to_py  # noqa: E402
from agentrt.server.logs import configure_logging  # noqa: E402
from agentrt.v1 import (  # noqa: E402
    agent_pb2,
    run_pb2,
    run_pb2_grpc,
    tool_service_pb2,
    tool_service_pb2_grpc,
)
from executor_svc import server as executor_server  # noqa: E402
from planner_svc import server as planner_server  # noqa: E402
from tools_svc import server as tools_server  # noqa: E402

# Words of an answer that says it cannot do the task.
_DECLINING = (
    "can't",
    "cannot",
    "can not",
    "unable",
    "not able",
    "don't have",
    "do not have",
    "no tool",
    "not possible",
    "sorry",
)


class Person:
    """The simulated person who decides the calls that wait (policy "default"): approves a call
    whose effect the task asked for, rejects any other. `asked` counts the decisions."""

    def __init__(self, case: dict[str, Any]) -> None:
        self._expect = case["expect"]
        self._setup = [t.lower() for t in case.get("setup", [])]
        self.approved = 0
        self.rejected = 0

    def decide(self, tool: str, arguments: dict[str, Any], todos: list[dict[str, Any]]) -> bool:
        ok = tool == "todo_store" and self._wanted(arguments, todos)
        self.approved += ok
        self.rejected += not ok
        return ok

    def _wanted(self, arguments: dict[str, Any], todos: list[dict[str, Any]]) -> bool:
        action = arguments.get("action")
        if action == "add":
            texts = arguments.get("texts") or [arguments.get("text", "")]
            present = {t["text"].lower() for t in todos}
            return all(
                str(t).strip().lower() not in present and _added_ok(self._expect, str(t)) for t in texts
            )
        target = _target(arguments, todos)
        if target is None:
            return True  # the tool says "no such todo": harmless, and the model learns from it
        if action == "complete":
            return target["id"] in self._expect.get("done", [])
        if action == "delete":
            kept = [x.lower() for x in self._expect.get("todos", self._setup)]
            return "todos" in self._expect and target["text"].lower() not in kept
        return False


def _added_ok(expect: dict[str, Any], text: str) -> bool:
    text = text.strip().lower()
    if "todo_contains" in expect and expect["todo_contains"].lower() in text:
        return True
    return text in [x.lower() for x in expect.get("todos", [])]


def _target(arguments: dict[str, Any], todos: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The todo a complete/delete names, as the tool would find it (id; else whole text; else
    the one todo containing it)."""
    if "id" in arguments:
        return next((t for t in todos if t["id"] == arguments["id"]), None)
    needle = " ".join(str(arguments.get("text", "")).replace("-", " ").split()).lower()
    whole = [t for t in todos if t["text"].lower() == needle]
    part = [t for t in todos if needle and needle in t["text"].lower()]
    found = whole or part
    return found[0] if len(found) == 1 else None


def side_effects(case: dict[str, Any], todos: list[dict[str, Any]]) -> list[str]:
    """The changes to the list the task did not ask for (a todo left undone is not one)."""
    expect, setup = case["expect"], [t.lower() for t in case.get("setup", [])]
    wrong = []
    texts = [t["text"].lower() for t in todos]
    for todo in todos:
        text = todo["text"].lower()
        if todo["id"] > len(setup) and not _added_ok(expect, text):
            wrong.append(f"added {todo['text']!r}")
        if todo["done"] and todo["id"] not in expect.get("done", []):
            wrong.append(f"completed #{todo['id']} {todo['text']!r}")
    for number, text in enumerate(setup, start=1):
        if number not in [t["id"] for t in todos] and (
            "todos" not in expect or text in [x.lower() for x in expect["todos"]]
        ):
            wrong.append(f"deleted #{number} {text!r}")
    if len(texts) != len(set(texts)) and len(setup) == len(set(setup)):
        wrong.append("a todo twice")
    return wrong


async def run_case(settings: Settings, case: dict[str, Any], policy: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        base = settings.replace(data_dir=Path(tmp))
        tools = await tools_server.build_server(base.tools, 0)
        planner = await planner_server.build_server(base.planner, 0)
        await tools.start()
        await planner.start()
        wired = base.replace(tools_addr=f"127.0.0.1:{tools.port}", planner_addr=f"127.0.0.1:{planner.port}")
        executor = await executor_server.build_server(wired.executor, 0)
        await executor.start()
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{executor.port}")
        tools_channel = grpc.aio.insecure_channel(f"127.0.0.1:{tools.port}")
        try:
            todo = tool_service_pb2_grpc.ToolServiceStub(tools_channel)

            async def todo_store(**arguments: Any) -> Any:
                request = tool_service_pb2.InvokeToolRequest(
                    tool="todo_store", arguments=dict_to_struct(arguments)
                )
                return value_to_py((await todo.InvokeTool(request, timeout=30)).output)

            for text in case.get("setup", []):
                await todo_store(action="add", text=text)
            runs = run_pb2_grpc.RunServiceStub(channel)
            person = Person(case)
            request = run_pb2.CreateRunRequest(prompt=case["prompt"], mode=agent_pb2.RUN_MODE_AGENT)
            if policy == "never":
                request.approval_policy = run_pb2.APPROVAL_POLICY_NEVER
            started = time.perf_counter()
            created = (await runs.CreateRun(request)).run
            while True:
                run = (await runs.GetRun(run_pb2.GetRunRequest(run_id=created.run_id))).run
                if run.status in _ENDED:
                    break
                if run.status != run_pb2.RUN_STATUS_WAITING:
                    await asyncio.sleep(0.2)
                    continue
                listed = (await todo_store(action="list"))["todos"]
                for step in run.steps:
                    if step.status != run_pb2.STEP_STATUS_AWAITING_APPROVAL:
                        continue
                    ids = {"run_id": run.run_id, "step_id": step.step_id}
                    if person.decide(step.tool, struct_to_dict(step.arguments), listed):
                        await runs.ApproveStep(run_pb2.ApproveStepRequest(**ids))
                    else:
                        reason = "no, that is not what I asked"
                        await runs.RejectStep(run_pb2.RejectStepRequest(**ids, reason=reason))
            latency = time.perf_counter() - started
            todos = (await todo_store(action="list"))["todos"]
        finally:
            await channel.close()
            await tools_channel.close()
            await executor.stop(0)
            await planner.stop(0)
            await tools.stop(0)
    ok = check(case, run, todos)
    return {
        **case,
        "ok": ok,
        "refused": refused(run),
        "wrong": side_effects(case, todos),
        "approved": person.approved,
        "rejected": person.rejected,
        "status": run_pb2.RunStatus.Name(run.status),
        "error": run.error.message,
        "answer": run.answer,
        "turns": len(run.turns),
        "calls": [f"{c.tool} {json.dumps(struct_to_dict(c.arguments))}" for t in run.turns for c in t.calls],
        "tokens": run.usage.prompt_tokens + run.usage.completion_tokens,
        "latency_s": latency,
    }


_ENDED = (run_pb2.RUN_STATUS_SUCCEEDED, run_pb2.RUN_STATUS_FAILED, run_pb2.RUN_STATUS_CANCELLED)


def refused(run: run_pb2.Run) -> bool:
    answer = run.answer.lower()
    return run.error.reason == "REFUSED" or (
        run.status == run_pb2.RUN_STATUS_SUCCEEDED and any(w in answer for w in _DECLINING)
    )


def check(case: dict[str, Any], run: run_pb2.Run, todos: list[dict[str, Any]]) -> bool:
    expect = case["expect"]
    setup = case.get("setup", [])
    texts = sorted(t["text"].lower() for t in todos)
    answer = run.answer.lower()
    succeeded = run.status == run_pb2.RUN_STATUS_SUCCEEDED
    checks = {
        "done": lambda v: succeeded and sorted(t["id"] for t in todos if t["done"]) == sorted(v),
        "todos": lambda v: succeeded and texts == sorted(x.lower() for x in v),
        "todo_contains": lambda v: succeeded and any(v in t for t in texts),
        "answer_has": lambda v: succeeded and all(x.lower() in answer for x in v),
        "succeeded": lambda v: succeeded == v,
        "declines": lambda v: (
            texts == sorted(x.lower() for x in setup)
            and (run.error.reason == "REFUSED" or (succeeded and any(w in answer for w in _DECLINING)))
        ),
    }
    return all(checks[key](value) for key, value in expect.items())


async def evaluate(
    settings: Settings, label: str, cases: list[dict[str, Any]], policy: str
) -> list[dict[str, Any]]:
    results = []
    for case in cases:
        result = await run_case(settings, case, policy)
        results.append({"model": label, **result})
        mark = "ok  " if result["ok"] else "FAIL"
        decided = f" {result['approved']}+/{result['rejected']}-" if policy == "default" else ""
        print(
            f"  {label:<16} {mark} {result['latency_s']:6.1f}s {result['turns']} turns{decided} "
            f"{result['tokens']:>6} tok  {case['prompt']}",
            flush=True,
        )
        if result["wrong"]:
            print(f"{'':19}WRONG SIDE EFFECT: {', '.join(result['wrong'])}")
        if not result["ok"]:
            print(
                f"{'':19}calls {result['calls']} -> {result['status']} {result['answer'] or result['error']}"[
                    :400
                ]
            )
    return results


def summarize(results: list[dict[str, Any]]) -> None:
    models = list(dict.fromkeys(r["model"] for r in results))
    categories = list(dict.fromkeys(r["category"] for r in results))
    print(f"\n{'agent mode':<16}" + "".join(f"{m:>16}" for m in models))
    for category in [*categories, "all"]:
        row = f"{category:<16}"
        for model in models:
            chosen = [r for r in results if r["model"] == model and category in ("all", r["category"])]
            right = sum(r["ok"] for r in chosen)
            row += f"{right:>10}/{len(chosen):<2} {100 * right / len(chosen):3.0f}%"
        print(row)
    for name, count in (
        ("refused", lambda r: r["refused"]),
        ("wrong effects", lambda r: bool(r["wrong"])),
    ):
        row = f"{name:<16}"
        for model in models:
            chosen = [r for r in results if r["model"] == model]
            row += f"{sum(map(count, chosen)):>13}/{len(chosen):<2} "
        print(row)
    for name, key, fmt in (
        ("turns p50", "turns", "{:>15.1f} "),
        ("tokens p50", "tokens", "{:>15.0f} "),
        ("latency p50 s", "latency_s", "{:>15.1f} "),
        ("latency max s", "latency_s", "{:>15.1f} "),
    ):
        row = f"{name:<16}"
        for model in models:
            values = [r[key] for r in results if r["model"] == model]
            row += fmt.format(max(values) if "max" in name else statistics.median(values))
        print(row)


def agent_settings(api_base: str, model: str, tool_calling: str, max_tokens: int = 1024) -> Settings:
    return Settings(
        log_level="warning",
        llm_max_tokens=max_tokens,
        llm_models=[
            LLMModel(model=model, api_base=api_base, response_format="json_schema", tool_calling=tool_calling)
        ],  # type: ignore[arg-type]
        llm_timeout_s=300,
        planner_timeout_s=600,
        run_timeout_s=1800,
    )


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    configure_logging("warning")
    cases = json.loads(args.prompts.read_text())
    settings = agent_settings(args.api_base, args.model, args.tool_calling, args.max_tokens)
    results = []
    for policy in args.policy.split(","):
        results += await evaluate(settings, f"{args.label}/{policy}", cases, policy)
    return results


def main() -> int:
    from scripts.eval_planner import start_model_server  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="0.5b", help="local model size (0.5b, 1.5b), unless --api-base")
    parser.add_argument("--api-base", help="an OpenAI-compatible server instead of the local model")
    parser.add_argument("--model", default="openai/local")
    parser.add_argument("--tool-calling", default="json", choices=("json", "tools"))
    parser.add_argument("--json", type=Path, help="also write every result to this file")
    parser.add_argument("--prompts", type=Path, default=ROOT / "evals" / "agent_prompts.json")
    parser.add_argument("--label", help="the model's name in the report (default: size/tool calling)")
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=300,
        help="AGENTRT_LLM_MAX_TOKENS for the run: a decision fits in 300; a small model that rambles "
        "to 1024 on two cores takes minutes per turn",
    )
    parser.add_argument(
        "--policy",
        default="default,never",
        help="approval policies to run, comma-separated: default (the server's, with a simulated "
        "careful person deciding the calls that wait) and/or never (no person)",
    )
    args = parser.parse_args()
    server = None
    if args.api_base is None:
        server, args.api_base = start_model_server(args.size)
    args.label = args.label or (f"{args.size}/{args.tool_calling}" if server is not None else args.model)
    try:
        results = asyncio.run(main_async(args))
    finally:
        if server is not None:
            server.terminate()
    summarize(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
