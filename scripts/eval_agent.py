"""The agent-mode half of `make eval-planner`: evals/agent_prompts.json through the agent loop.

These prompts need the model to look at tool results (find a todo's id by its text, count,
carry a value into the next call, recover from a tool error, decline what no tool can do). Each
runs on real services in this process (tools_svc, planner_svc, executor_svc on free ports, a
fresh SQLite store per prompt) against an OpenAI-compatible server: the local model (started
here, `--size 0.5b` or `1.5b`) or `--api-base`. The outcome is checked on the tools' real state
and the run's answer; success, turns, tokens and latency are reported per model.
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


async def run_case(settings: Settings, case: dict[str, Any]) -> dict[str, Any]:
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
            started = time.perf_counter()
            created = (
                await runs.CreateRun(
                    run_pb2.CreateRunRequest(prompt=case["prompt"], mode=agent_pb2.RUN_MODE_AGENT)
                )
            ).run
            async for _ in runs.WatchRun(run_pb2.WatchRunRequest(run_id=created.run_id), timeout=900):
                pass
            latency = time.perf_counter() - started
            run = (await runs.GetRun(run_pb2.GetRunRequest(run_id=created.run_id))).run
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
        "status": run_pb2.RunStatus.Name(run.status),
        "error": run.error.message,
        "answer": run.answer,
        "turns": len(run.turns),
        "calls": [f"{c.tool} {json.dumps(struct_to_dict(c.arguments))}" for t in run.turns for c in t.calls],
        "tokens": run.usage.prompt_tokens + run.usage.completion_tokens,
        "latency_s": latency,
    }


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


async def evaluate(settings: Settings, label: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    results = []
    for case in cases:
        result = await run_case(settings, case)
        results.append({"model": label, **result})
        mark = "ok  " if result["ok"] else "FAIL"
        print(
            f"  {label:<10} {mark} {result['latency_s']:6.1f}s {result['turns']} turns "
            f"{result['tokens']:>6} tok  {case['prompt']}",
            flush=True,
        )
        if not result["ok"]:
            print(
                f"{'':17}calls {result['calls']} -> {result['status']} {result['answer'] or result['error']}"[
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


def agent_settings(api_base: str, model: str, tool_calling: str) -> Settings:
    return Settings(
        log_level="warning",
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
    settings = agent_settings(args.api_base, args.model, args.tool_calling)
    return await evaluate(settings, args.label, cases)


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
