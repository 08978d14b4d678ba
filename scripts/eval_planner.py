"""`make eval-planner`: the prompt set in evals/planner_prompts.json through each planner.

Plans are scored by *executing* them against the real tool implementations (a fresh todo store
per prompt, references resolved as the executor resolves them) and checking the outcome, so
"41*7+13" and "41 * 7 + 13" are both right and a plausible-looking wrong plan is not. The LLM
planner runs against the local model (agentrt model serve), started here on a free port.
Prints accuracy per category and planner, and latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentrt.cli import local_model  # noqa: E402
from agentrt.config import LLMModel, PlannerSettings, ToolsSettings  # noqa: E402
from agentrt.core import refs  # noqa: E402
from agentrt.core.plans import validate_plan  # noqa: E402
from agentrt.core.values import struct_to_dict  # noqa: E402
from agentrt.server.db import open_database  # noqa: E402
from agentrt.v1 import plan_pb2  # noqa: E402
from planner_svc.llm import LLMPlanner  # noqa: E402
from planner_svc.planner import PlanningFailed, PlanRequest  # noqa: E402
from planner_svc.rules import RulePlanner  # noqa: E402
from tools_svc import server as tools_server  # noqa: E402
from tools_svc import todos  # noqa: E402


async def execute(plan: plan_pb2.Plan, setup: list[str]) -> dict[str, Any]:
    """Run the plan on real tools in a throwaway database; return what a check needs."""
    with tempfile.TemporaryDirectory() as tmp:
        db = await open_database(
            ToolsSettings(data_dir=Path(tmp), database_url=None), "tools", tools_server.MIGRATIONS
        )
        try:
            registry = tools_server.builtin_tools(db)
            store = todos.TodoStore(db)
            for text in setup:
                await store.run({"action": "add", "text": text})
            outputs: dict[str, Any] = {}
            order = validate_plan(plan, {"calculator", "todo_store"}, max(len(plan.steps), 1))
            by_id = {s.id: s for s in plan.steps}
            last: Any = None
            for step_id in order:
                step = by_id[step_id]
                arguments = refs.resolve(struct_to_dict(step.arguments), outputs)
                tool = registry.get(step.tool)
                assert tool is not None
                tool.validate(arguments)
                last = outputs[step_id] = await tool.handler(arguments)
            listed = await store.run({"action": "list"})
            answer = str(refs.resolve(plan.answer_template, outputs)) if plan.answer_template else ""
            return {
                "last": last,
                "todos": listed["todos"],
                "tools": [by_id[i].tool for i in order],
                "answer": answer,
            }
        finally:
            await db.close()


def check(expect: dict[str, Any], outcome: dict[str, Any] | None) -> bool:
    if expect.get("refuse"):
        return outcome is None
    if outcome is None:
        return False
    texts = [t["text"].strip().lower() for t in outcome["todos"]]
    last = outcome["last"] if isinstance(outcome["last"], dict) else {}
    checks = {
        "value": lambda v: abs(float(last.get("value", float("nan"))) - v) < 1e-9,
        "todos": lambda v: sorted(texts) == sorted(v),
        "todo_contains": lambda v: any(v in t for t in texts),
        "listed": lambda v: sorted(t["text"].lower() for t in last.get("todos", [])) == sorted(v),
        "done": lambda v: sorted(t["id"] for t in outcome["todos"] if t["done"]) == sorted(v),
        "tools": lambda v: outcome["tools"] == v,
        "count": lambda v: last.get("count") == v,
        "answer": lambda v: outcome["answer"] == v,
    }
    return all(checks[key](value) for key, value in expect.items())


async def evaluate(name: str, plan_fn: Any, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    results = []
    for case in cases:
        start = time.perf_counter()
        try:
            plan = await plan_fn(case["prompt"])
            error = ""
        except PlanningFailed as exc:
            plan, error = None, str(exc)
        latency = time.perf_counter() - start
        outcome = None
        if plan is not None:
            try:
                outcome = await execute(plan, case.get("setup", []))
            except Exception as exc:  # a plan that breaks when run is simply wrong
                error = f"plan failed when executed: {type(exc).__name__}: {exc}"
                outcome = {"last": None, "todos": [], "tools": []}
        ok = check(case["expect"], outcome if plan is not None else None)
        results.append({"planner": name, **case, "ok": ok, "latency_s": latency, "error": error})
        print(f"  {name:<6} {'ok  ' if ok else 'FAIL'} {latency:6.2f}s  {case['prompt']}", flush=True)
    return results


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_model_server(size: str = "0.5b") -> tuple[subprocess.Popen[bytes], str]:
    local_model.fetch(local_model.MODELS[size])
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "agentrt.cli.local_model", "serve", "--port", str(port), "--size", size],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(240):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if json.load(r).get("status") == "ok":
                    return server, f"http://127.0.0.1:{port}/v1"
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise SystemExit("the local model server did not start")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--planners", default="rules,llm")
    parser.add_argument(
        "--api-base", help="use this OpenAI-compatible server instead of starting the local model"
    )
    parser.add_argument("--model", default="openai/local")
    parser.add_argument("--size", default="0.5b", help="local model size (0.5b, 1.5b), unless --api-base")
    parser.add_argument("--json", type=Path, help="also write every result to this file")
    args = parser.parse_args()
    cases = json.loads((ROOT / "evals" / "planner_prompts.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        db = await open_database(
            ToolsSettings(data_dir=Path(tmp), database_url=None), "tools", tools_server.MIGRATIONS
        )
        catalog = tools_server.builtin_tools(db).specs()
        await db.close()

    results: list[dict[str, Any]] = []
    server = None
    try:
        for name in args.planners.split(","):
            print(f"planner {name}:", flush=True)
            if name == "rules":

                async def plan_rules(prompt: str) -> plan_pb2.Plan:
                    return await RulePlanner().plan(PlanRequest(prompt, catalog, 20))

                results += await evaluate("rules", plan_rules, cases)
            elif name == "llm":
                api_base = args.api_base
                if api_base is None:
                    server, api_base = start_model_server(args.size)
                settings = PlannerSettings(
                    planner_chain=["llm"],
                    llm_models=[LLMModel(model=args.model, api_base=api_base, response_format="json_schema")],
                    llm_timeout_s=120,
                )
                llm = LLMPlanner(settings)

                async def plan_llm(prompt: str, llm: LLMPlanner = llm) -> plan_pb2.Plan:
                    return await llm.plan(PlanRequest(prompt, catalog, 20))

                results += await evaluate("llm", plan_llm, cases)
    finally:
        if server is not None:
            server.terminate()
    summarize(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


def summarize(results: list[dict[str, Any]]) -> None:
    planners = sorted({r["planner"] for r in results}, key=["rules", "llm"].index)
    categories = list(dict.fromkeys(r["category"] for r in results))
    print(f"\n{'category':<14}" + "".join(f"{p:>16}" for p in planners))
    for category in [*categories, "all"]:
        row = f"{category:<14}"
        for planner in planners:
            chosen = [r for r in results if r["planner"] == planner and category in ("all", r["category"])]
            right = sum(r["ok"] for r in chosen)
            row += f"{right:>10}/{len(chosen):<2} {100 * right / len(chosen):3.0f}%"
        print(row)
    row = f"{'latency p50':<14}"
    for planner in planners:
        row += f"{statistics.median(r['latency_s'] for r in results if r['planner'] == planner):>14.3f}s "
    print(row)
    row = f"{'latency max':<14}"
    for planner in planners:
        row += f"{max(r['latency_s'] for r in results if r['planner'] == planner):>14.3f}s "
    print(row)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
