"""How long the rule planner takes per prompt (`make bench`): every message of evals/requests/
(both parts) and of the follow-up conversations, planned in this process, ROUNDS times; the
p50, p99 and the slowest, in milliseconds, whether the prompt is understood or refused.

The first plan in a process that meets a word that may be a typo loads the English word list
(normalize._words): that one-off cost is reported apart, not mixed into the per-prompt figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from bench import percentile  # noqa: E402  (bench/bench.py)
from planner_svc import rules  # noqa: E402
from planner_svc.grammar import normalize  # noqa: E402
from planner_svc.planner import PlanningFailed  # noqa: E402

TOOLS = {"calculator", "todo_store"}


def prompts() -> list[str]:
    found = []
    for part in ("tuning", "heldout"):
        requests = json.loads((ROOT / "evals/requests" / f"{part}.json").read_text())["requests"]
        found += [r["say"] for r in requests]
        conversations = json.loads((ROOT / "evals/followups" / f"{part}.json").read_text())["conversations"]
        found += [t["say"] for c in conversations for t in c["turns"]]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    said = prompts()
    started = time.perf_counter()
    normalize._words()
    load_ms = (time.perf_counter() - started) * 1e3
    times, refused = [], 0
    for _ in range(args.rounds):
        for prompt in said:
            started = time.perf_counter()
            try:
                rules.plan(prompt, TOOLS)
            except PlanningFailed:
                refused += 1
            times.append(time.perf_counter() - started)
    print(
        f"rule planner: {len(said)} prompts x {args.rounds}: p50 {percentile(times, 50) * 1e3:.2f} ms, "
        f"p99 {percentile(times, 99) * 1e3:.2f} ms, slowest {max(times) * 1e3:.2f} ms "
        f"({refused // args.rounds} refused); the English word list loads once in {load_ms:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
