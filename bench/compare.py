"""agentrt next to the durable libraries users would otherwise pick, measured in one run.

The works (WORKS), each a prompt agentrt's rule planner turns into a plan, and the same steps
written for each baseline:
- `todo-list`: "add a todo, then list my todos" (two steps; the list is emptied every 200 adds,
  so it grows to 200 todos, of which a listing answers 100);
- `todo-count`: "add a todo, then count my todos": the same two steps with a small output, so
  the two show how CPU per run grows with output size;
- `calc`: three chained calculator steps ("calculate 1+1 then add 2 to it then add 3 to it");
- `calc-12`: the same chain to twelve steps, so that the two show how a run grows with its steps
  (the cost of each step past the third).
Systems:
- agentrt over gRPC and over REST (+SSE), in both topologies side by side: `agentrt up` (the four
  services in one process: `agentrt-grpc`, `agentrt-rest`) and `agentrt up --split` (one process
  each: `agentrt-split-grpc`, `agentrt-split-rest`), on SQLite (or, with `--agentrt-postgres URL`,
  on PostgreSQL in a schema made for the run, one per topology);
- DBOS (PostgreSQL), LangGraph + SqliteSaver, LangGraph without a checkpointer (bench/baselines.py,
  each in its own process).

With `--stored N` (default 5000; 0: not measured), how each system grows with the runs it has
already stored: `calc` at concurrency 1 measured (`--stored-probe` runs), then N more of its runs
stored at concurrency 50 (not measured), then measured again; reported as p50 and CPU per run
after over before, beside how many runs each had stored by then.

Each cell (work x system x concurrency) runs `--runs` runs in `--batches` batches, the systems taking
turns batch by batch, so a slow minute of the machine falls on all of them alike. Reported per
cell: runs/s, p50/p99 latency, CPU per run (agentrt: its process, or its four services together;
a baseline: its process, not PostgreSQL's), resident memory, and each figure as a ratio agentrt /
baseline (the embedded topology's), and split / embedded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from procstat import cpu_seconds  # noqa: E402

from agentrt.core.channels import aio_channel  # noqa: E402
from agentrt.server.logs import configure_logging  # noqa: E402
from agentrt.v1 import run_pb2, run_pb2_grpc  # noqa: E402
from bench import System, _pg, percentile  # noqa: E402  (this script's folder)

WORKS = {
    "todo-list": "add a todo to buy milk, then list my todos",
    "todo-count": "add a todo to buy milk, then count my todos",
    "calc": "calculate 1+1 then add 2 to it then add 3 to it",
    "calc-12": "calculate 1+1" + "".join(f" then add {k} to it" for k in range(2, 13)),
}
PROMPT = WORKS["todo-list"]  # the work of scaleout.py and hotspots.py
BASELINES = ("dbos", "langgraph-sqlite", "langgraph-memory")


async def grpc_run(stub: run_pb2_grpc.RunServiceStub, prompt: str = PROMPT) -> None:
    """One run through the gateway: CreateRun, then WatchRun to its end."""
    run = (await stub.CreateRun(run_pb2.CreateRunRequest(prompt=prompt))).run
    async for _ in stub.WatchRun(run_pb2.WatchRunRequest(run_id=run.run_id)):
        pass


async def timed_runs(
    run: Callable[[], Awaitable[None]], runs: int, concurrency: int
) -> tuple[float, list[float]]:
    """`runs` calls of `run`, `concurrency` at a time: the seconds they took in all, and each
    call's latency."""
    latencies: list[float] = []
    remaining = iter(range(runs))

    async def worker() -> None:
        for _ in remaining:
            start = time.perf_counter()
            await run()
            latencies.append(time.perf_counter() - start)

    begin = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - begin, latencies


class Agentrt:
    """agentrt up, on SQLite or (`postgres`: URL and schema) PostgreSQL; runs over gRPC or REST."""

    def __init__(
        self, data: Path, reset_every: int, postgres: tuple[str, str] | None = None, split: bool = False
    ) -> None:
        env = (
            {"AGENTRT_DATABASE_URL": postgres[0], "AGENTRT_DATABASE_SCHEMA": postgres[1]} if postgres else {}
        )
        # The works are the user's own words (rule plans): they run without asking, as by default
        # (bench.py's System asks, for its measurement of runs waiting for approval).
        env["AGENTRT_APPROVAL_EXEMPT_RULES"] = "true"
        self.label = "agentrt-split" if split else "agentrt"
        self.system = System(data, split=split, **env)
        self._tools_db = data / "tools.db"
        self._postgres = postgres
        self._reset_every = reset_every
        self._adds = 0
        self.ran = 0  # runs this system has run, so stored (warm-ups included)

    async def start(self) -> None:
        self.system.start()
        self._pids = list(self.system.service_pids().values())
        self._channel = aio_channel(f"127.0.0.1:{self.system.ports['gateway']}")
        self.stub = run_pb2_grpc.RunServiceStub(self._channel)
        self._http = httpx.AsyncClient(base_url=f"http://127.0.0.1:{self.system.ports['http']}", timeout=60)

    async def _maybe_reset(self, prompt: str) -> None:
        if "todo" not in prompt:
            return
        self._adds += 1  # each todo work adds one, as the baselines' lists count them
        if self._adds % self._reset_every == 0:
            await self._empty_todos()

    async def grpc_run(self, prompt: str = PROMPT) -> None:
        await self._maybe_reset(prompt)
        self.ran += 1
        await grpc_run(self.stub, prompt)

    async def rest_run(self, prompt: str = PROMPT) -> None:
        await self._maybe_reset(prompt)
        self.ran += 1
        created = (await self._http.post("/v1/runs", json={"prompt": prompt})).json()
        async with self._http.stream("GET", f"/v1/runs/{created['run']['runId']}/events") as events:
            async for _ in events.aiter_lines():
                pass

    async def batch(self, run: Callable[[], Awaitable[None]], runs: int, concurrency: int) -> dict[str, Any]:
        cpu = cpu_seconds(self._pids)
        wall, latencies = await timed_runs(run, runs, concurrency)
        return {
            "latencies": latencies,
            "wall_s": wall,
            "cpu_s": cpu_seconds(self._pids) - cpu,
            "rss_mb": sum(self.system.rss_mb().values()),
        }

    async def stop(self) -> None:
        await self._channel.close()
        await self._http.aclose()
        self.system.stop()

    async def _empty_todos(self) -> None:
        if self._postgres is not None:
            url, schema = self._postgres
            problem = await _pg(url, f'DELETE FROM "{schema}".todos')
            if problem:
                raise RuntimeError(problem)
            return
        await asyncio.to_thread(_empty_sqlite_todos, self._tools_db)


def _empty_sqlite_todos(path: Path) -> None:
    with sqlite3.connect(path, timeout=30) as conn:
        conn.execute("DELETE FROM todos")


class Baseline:
    """bench/baselines.py in its own process."""

    def __init__(self, system: str, database_url: str, reset_every: int) -> None:
        command = [sys.executable, str(ROOT / "baselines.py"), system, "--database-url", database_url]
        self.process = subprocess.Popen(
            [*command, "--reset-every", str(reset_every)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        ready = json.loads(self.process.stdout.readline())
        self.idle_mb = {"rss": ready["rss_mb"], "pss": ready["pss_mb"]}
        self.ran = 0  # runs (workflows, graph invocations) it has run, so stored

    def batch(self, work: str, runs: int, concurrency: int) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.ran += runs
        request = {"work": work, "runs": runs, "concurrency": concurrency}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def merge(batches: list[dict[str, Any]]) -> dict[str, Any]:
    latencies = [x for b in batches for x in b["latencies"]]
    runs = len(latencies)
    return {
        "runs": runs,
        "runs_per_s": runs / sum(b["wall_s"] for b in batches),
        "p50_ms": percentile(latencies, 50) * 1e3,
        "p99_ms": percentile(latencies, 99) * 1e3,
        "cpu_ms_per_run": sum(b["cpu_s"] for b in batches) / runs * 1e3,
        "rss_mb": batches[-1]["rss_mb"],
    }


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    if args.agentrt_postgres is None:
        return await measure_on(args, None)
    # One schema per topology, made for the measurement and dropped after it.
    schemas = [f"compare_{uuid.uuid4().hex[:8]}" for _ in args.topologies]
    for schema in schemas:
        problem = await _pg(args.agentrt_postgres, f'CREATE SCHEMA "{schema}"')
        if problem:
            raise SystemExit(f"PostgreSQL at {args.agentrt_postgres}: {problem}")
    try:
        return await measure_on(args, [(args.agentrt_postgres, schema) for schema in schemas])
    finally:
        for schema in schemas:
            await _pg(args.agentrt_postgres, f'DROP SCHEMA "{schema}" CASCADE')


async def measure_on(args: argparse.Namespace, postgres: list[tuple[str, str]] | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        systems = [
            Agentrt(
                Path(tmp) / topology, args.reset_every, postgres[n] if postgres else None, topology == "split"
            )
            for n, topology in enumerate(args.topologies)
        ]
        database = "PostgreSQL" if postgres else "SQLite"
        print(f"starting agentrt up ({', '.join(args.topologies)}; {database}) and the baselines", flush=True)
        for agentrt in systems:
            await agentrt.start()
        idle = {
            agentrt.label: {
                "rss": sum(agentrt.system.rss_mb().values()),
                "pss": sum(agentrt.system.pss_mb().values()),
            }
            for agentrt in systems
        }
        baselines = {name: Baseline(name, args.database_url, args.reset_every) for name in args.baselines}
        idle.update({name: b.idle_mb for name, b in baselines.items()})
        try:
            cells = {work: await measure_work(work, systems, baselines, args) for work in args.works}
            # calc: what a run stores, and nothing else that grows (a todo work's listing grows
            # and shrinks with the list between resets)
            stored = await measure_stored("calc", systems, baselines, args) if args.stored else {}
        finally:
            for agentrt in systems:
                await agentrt.stop()
            for baseline in baselines.values():
                baseline.stop()
    return {
        "cells": cells,
        "stored": stored,
        "idle_mb": idle,
        "concurrency": args.concurrency,
        "database": database,
    }


async def measure_stored(
    work: str, systems: list[Agentrt], baselines: dict[str, Baseline], args: argparse.Namespace
) -> dict[str, dict[str, Any]]:
    """Per system (agentrt over gRPC), its c=1 cell on `work` before and after `args.stored`
    more runs were stored, and how many runs it had stored then (every run it ran so far)."""
    prompt = WORKS[work]
    probes: dict[str, dict[str, Any]] = {}

    async def probe(when: str) -> None:
        for agentrt in systems:
            batch = await agentrt.batch(lambda a=agentrt: a.grpc_run(prompt), args.stored_probe, 1)
            probes.setdefault(f"{agentrt.label}-grpc", {})[when] = merge([batch]) | {"stored": agentrt.ran}
        for name, baseline in baselines.items():
            batch = await asyncio.to_thread(baseline.batch, work, args.stored_probe, 1)
            probes.setdefault(name, {})[when] = merge([batch]) | {"stored": baseline.ran}

    await probe("before")
    print(f"  storing {args.stored} more runs of {work} in each system (not measured)", flush=True)
    for agentrt in systems:
        await agentrt.batch(lambda a=agentrt: a.grpc_run(prompt), args.stored, 50)
    for baseline in baselines.values():
        await asyncio.to_thread(baseline.batch, work, args.stored, 50)
    await probe("after")
    return probes


def growth_with_stored(stored: dict[str, dict[str, Any]]) -> list[str]:
    """Per system, p50 and CPU per run at concurrency 1 after the runs stored over before."""
    return [
        f"{name} ({cells['before']['stored']} -> {cells['after']['stored']} runs stored): "
        f"p50 {cells['after']['p50_ms'] / cells['before']['p50_ms']:.2f}x, "
        f"CPU/run {cells['after']['cpu_ms_per_run'] / cells['before']['cpu_ms_per_run']:.2f}x"
        for name, cells in stored.items()
    ]


async def measure_work(
    work: str, systems: list[Agentrt], baselines: dict[str, Baseline], args: argparse.Namespace
) -> dict[str, dict[int, dict[str, Any]]]:
    """One work's cells: per system, per concurrency, the batches merged."""
    prompt = WORKS[work]
    for agentrt in systems:
        await agentrt.grpc_run(prompt)  # warm up
        await agentrt.rest_run(prompt)
    cells: dict[str, dict[int, dict[str, Any]]] = {}
    for concurrency in args.concurrency:
        per_batch = max(concurrency, args.runs // args.batches)
        collected: dict[str, list[dict[str, Any]]] = {}
        for number in range(args.batches):
            print(f"  {work} at concurrency {concurrency}: batch {number + 1}/{args.batches}", flush=True)
            for agentrt in systems:
                for via, run in (("grpc", agentrt.grpc_run), ("rest", agentrt.rest_run)):
                    result = await agentrt.batch(lambda run=run: run(prompt), per_batch, concurrency)
                    collected.setdefault(f"{agentrt.label}-{via}", []).append(result)
            for name, baseline in baselines.items():
                result = await asyncio.to_thread(baseline.batch, work, per_batch, concurrency)
                collected.setdefault(name, []).append(result)
        for name, batches in collected.items():
            cells.setdefault(name, {})[concurrency] = merge(batches)
    return cells


def report(results: dict[str, Any]) -> None:
    for work, cells in results["cells"].items():
        report_work(work, cells, results["database"])
    print(
        "\nidle memory, MB (Rss summed / Pss summed: shared library pages counted once): "
        + ", ".join(f"{k} {v['rss']:.0f} / {v['pss']:.0f}" for k, v in results["idle_mb"].items())
    )
    growth = growth_with_output(results["cells"])
    if growth:
        print("\nCPU per run, todo-list (listings of up to 100 todos) over todo-count (a count):")
        print("  " + "; ".join(growth))
    per_step = growth_with_steps(results["cells"])
    if per_step:
        print("\neach step past the third, calc-12 (twelve chained steps) over calc (three):")
        print("  " + "; ".join(per_step))
    if stored := growth_with_stored(results.get("stored", {})):
        print("\nat concurrency 1 after more runs were stored, over before (gRPC for agentrt):")
        print("\n".join(f"  {line}" for line in stored))


def report_work(work: str, cells: dict[str, dict[int, dict[str, Any]]], database: str) -> None:
    print(f"\nwork {work}: {WORKS[work]!r}; agentrt on {database}")
    print("CPU: agentrt's process (split: its four services together); a baseline's own process")
    columns = ("runs", "runs/s", "p50 ms", "p99 ms", "CPU ms/run", "RSS MB")
    print(f"{'system':<18} {'c':>3} " + " ".join(f"{c:>10}" for c in columns))
    for name, by_c in cells.items():
        for c, cell in by_c.items():
            print(
                f"{name:<18} {c:>3} {cell['runs']:>10} {cell['runs_per_s']:>10.1f} {cell['p50_ms']:>10.2f} "
                f"{cell['p99_ms']:>10.2f} {cell['cpu_ms_per_run']:>10.2f} {cell['rss_mb']:>10.0f}"
            )
    first = "agentrt" if "agentrt-grpc" in cells else "agentrt-split"
    grpc, rest = cells[f"{first}-grpc"], cells[f"{first}-rest"]
    print(f"ratios ({first} over gRPC / baseline; lower is better for p50 and CPU, higher for runs/s)")
    for name in (n for n in cells if not n.startswith("agentrt")):
        parts = []
        for c, cell in cells[name].items():
            parts.append(
                f"c={c}: p50 {grpc[c]['p50_ms'] / cell['p50_ms']:.2f}x, runs/s "
                f"{grpc[c]['runs_per_s'] / cell['runs_per_s']:.2f}x, CPU/run "
                f"{grpc[c]['cpu_ms_per_run'] / cell['cpu_ms_per_run']:.2f}x"
            )
        print(f"  {name:<18} " + "; ".join(parts))
    for c in rest:
        print(f"  REST / gRPC p50 at c={c}: {rest[c]['p50_ms'] / grpc[c]['p50_ms']:.2f}x")
    if "agentrt-grpc" in cells and "agentrt-split-grpc" in cells:
        split = cells["agentrt-split-grpc"]
        parts = [
            f"c={c}: p50 {split[c]['p50_ms'] / cell['p50_ms']:.2f}x, runs/s "
            f"{split[c]['runs_per_s'] / cell['runs_per_s']:.2f}x, CPU/run "
            f"{split[c]['cpu_ms_per_run'] / cell['cpu_ms_per_run']:.2f}x"
            for c, cell in grpc.items()
        ]
        print("  split / one process (gRPC): " + "; ".join(parts))


Cell = dict[str, Any]


def _over(
    cells: dict[str, dict[str, dict[int, Cell]]], long: str, short: str
) -> list[tuple[str, int, Cell, Cell]]:
    """(system, concurrency, its cell on the `long` work, on the `short` one), over gRPC, when
    both works were measured."""
    if long not in cells or short not in cells:
        return []
    return [
        (name, c, cell, cells[short][name][c])
        for name, by_c in cells[long].items()
        if not name.endswith("-rest")
        for c, cell in by_c.items()
    ]


def growth_with_output(cells: dict[str, dict[str, dict[int, Cell]]]) -> list[str]:
    """Per system and concurrency, CPU per run with the long output over the short one."""
    return [
        f"{name} c={c} {long['cpu_ms_per_run'] - short['cpu_ms_per_run']:+.2f} ms "
        f"({long['cpu_ms_per_run'] / short['cpu_ms_per_run']:.2f}x)"
        for name, c, long, short in _over(cells, "todo-list", "todo-count")
    ]


def growth_with_steps(cells: dict[str, dict[str, dict[int, Cell]]]) -> list[str]:
    """Per system and concurrency, what each step past the third adds: p50 and CPU per run of the
    twelve-step chain over the three-step one, divided by the nine steps between them."""
    return [
        f"{name} c={c} {(long['p50_ms'] - short['p50_ms']) / 9:+.2f} ms p50, "
        f"{(long['cpu_ms_per_run'] - short['cpu_ms_per_run']) / 9:+.2f} ms CPU per step"
        for name, c, long, short in _over(cells, "calc-12", "calc")
    ]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=1000, help="runs per cell")
    parser.add_argument("--batches", type=int, default=5, help="interleaved batches per cell")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 50])
    parser.add_argument("--baselines", nargs="+", choices=BASELINES, default=list(BASELINES))
    parser.add_argument("--works", nargs="+", choices=list(WORKS), default=list(WORKS))
    parser.add_argument("--reset-every", type=int, default=200)
    parser.add_argument(
        "--stored", type=int, default=5000, help="runs stored between the two probes (0: none)"
    )
    parser.add_argument("--stored-probe", type=int, default=300, help="runs of each probe")
    parser.add_argument(
        "--topologies", nargs="+", choices=["embedded", "split"], default=["embedded", "split"]
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "AGENTRT_BENCH_DBOS_URL", "postgresql://postgres@127.0.0.1:5432/agentrt_bench_dbos"
        ),
        help="DBOS's system database (created if missing)",
    )
    parser.add_argument(
        "--agentrt-postgres",
        metavar="URL",
        help="run agentrt on this PostgreSQL server (in a schema made for the run) instead of SQLite",
    )
    parser.add_argument("--json", type=Path, default=ROOT / "compare.json")
    args = parser.parse_args()
    configure_logging("warning")
    results = asyncio.run(measure(args))
    args.json.write_text(json.dumps(results, indent=2))
    report(results)
    print(f"\nJSON: {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
