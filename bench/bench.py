"""`make bench`: measure agentrt against its own services, started for real (`agentrt up`), on
SQLite and, when a server answers (--postgres-url), on PostgreSQL in a throwaway schema.

Reports, as a table and as JSON (bench/results.json):
- cold start: `agentrt up` until all four services answer health checks;
- end-to-end runs/s and run latency p50/p99 at 1, 10, 50 and 200 concurrent runs of a 3-step
  plan through the gateway (CreateRun, then WatchRun to the terminal event);
- per-step orchestration overhead: (run end - run start) / steps, minus the time the tool itself
  takes (the calculator, timed in-process: microseconds);
- WatchRun publish-to-receipt latency for 1 and 100 watchers of a live run (event.time ->
  arrival), the run held at a gated provider tool while the watchers connect;
- resident memory of each service before and after N runs (default 10,000);
- the same 3-step workload in-process with LangGraph, as the baseline users compare against;
- the gRPC floor: what a run's RPCs cost in CPU on this machine with no work done (grpc_floor.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, TypedDict

import asyncpg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grpc_floor import describe, grpc_floor  # noqa: E402  (this script's folder)
from langgraph.graph import END, START, StateGraph  # noqa: E402
from procstat import memory_mb  # noqa: E402

from agentrt.core.channels import aio_channel  # noqa: E402
from agentrt.server.logs import configure_logging  # noqa: E402
from agentrt.tools_sdk import ToolProvider, tool  # noqa: E402
from agentrt.v1 import run_pb2, run_pb2_grpc  # noqa: E402
from tools_svc import calculator  # noqa: E402

PROMPT = "calculate 1+1 then add 2 to it then add 3 to it"  # three calculator steps, chained
EXPRESSIONS = ["1+1", "2 + (2)", "3 + (4)"]
SERVICES = ("gateway", "executor", "planner", "tools")


def free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


class System:
    """`agentrt up` on free ports: the four services in one process, or (`split`) one each."""

    def __init__(self, data: Path, split: bool = False, **extra_env: str) -> None:
        self.split = split
        ports = dict(zip((*SERVICES, "http"), free_ports(5), strict=True))
        self.ports = ports
        self.env = {
            **os.environ,
            "AGENTRT_DATA_DIR": str(data),
            "AGENTRT_LOG_FORMAT": "json",
            "AGENTRT_LOG_LEVEL": "warning",  # a log line per RPC would be measured too
            # The waiting-runs measurement asks rule plans for approval (approval_policy always).
            "AGENTRT_APPROVAL_EXEMPT_RULES": "false",
            **{f"AGENTRT_{name.upper()}_PORT": str(port) for name, port in ports.items()},
            **{f"AGENTRT_{name.upper()}_METRICS_PORT": "0" for name in SERVICES},
            **extra_env,
        }
        self.log = data / "up.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Start `agentrt up`; return seconds until it reported all services healthy."""
        self.log.parent.mkdir(parents=True, exist_ok=True)
        begin = time.perf_counter()
        with self.log.open("ab") as out:
            command = [sys.executable, "-m", "agentrt", "up", *(["--split"] if self.split else [])]
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=self.env)
        while "Press Ctrl-C to stop." not in self.log.read_text():
            if self.process.poll() is not None:
                raise SystemExit(f"agentrt up failed:\n{self.log.read_text()}")
            time.sleep(0.01)
        return time.perf_counter() - begin

    def service_pids(self) -> dict[str, int]:
        """Each process that serves: the four services' own (split), or `up`'s own (embedded)."""
        assert self.process is not None
        if not self.split:
            return {"agentrt": self.process.pid}
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        pids = {}
        for pid in children:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"serve" in cmdline:
                pids[cmdline[cmdline.index(b"serve") + 1].decode()] = int(pid)
        return pids

    def rss_mb(self) -> dict[str, float]:
        return {name: memory_mb(pid, "Rss") for name, pid in self.service_pids().items()}

    def pss_mb(self) -> dict[str, float]:
        return {name: memory_mb(pid, "Pss") for name, pid in self.service_pids().items()}

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=60)


async def one_run(stub: run_pb2_grpc.RunServiceStub) -> tuple[float, run_pb2.Run]:
    start = time.perf_counter()
    run = (await stub.CreateRun(run_pb2.CreateRunRequest(prompt=PROMPT))).run
    async for _ in stub.WatchRun(run_pb2.WatchRunRequest(run_id=run.run_id)):
        pass  # the stream ends after the terminal event
    latency = time.perf_counter() - start
    return latency, run


async def load(stub: run_pb2_grpc.RunServiceStub, concurrency: int, total: int) -> dict[str, Any]:
    latencies: list[float] = []
    run_ids: list[str] = []
    queue = iter(range(total))

    async def worker() -> None:
        for _ in queue:
            latency, run = await one_run(stub)
            latencies.append(latency)
            run_ids.append(run.run_id)

    begin = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - begin
    # Per-step orchestration overhead, from the executor's own timestamps of a sample of runs.
    tool_s = statistics.median(_time_tool() for _ in range(50))
    per_step = []
    for run_id in run_ids[: min(len(run_ids), 200)]:
        run = (await stub.GetRun(run_pb2.GetRunRequest(run_id=run_id))).run
        assert run.status == run_pb2.RUN_STATUS_SUCCEEDED, run.error.message
        duration = (run.end_time.ToNanoseconds() - run.start_time.ToNanoseconds()) / 1e9
        per_step.append(duration / len(run.steps) - tool_s)
    return {
        "concurrency": concurrency,
        "runs": total,
        "runs_per_s": total / wall,
        "latency_p50_ms": percentile(latencies, 50) * 1e3,
        "latency_p99_ms": percentile(latencies, 99) * 1e3,
        "step_overhead_p50_ms": percentile(per_step, 50) * 1e3,
        "step_overhead_p99_ms": percentile(per_step, 99) * 1e3,
    }


def _time_tool() -> float:
    start = time.perf_counter()
    for expression in EXPRESSIONS:
        calculator.evaluate(expression)
    return (time.perf_counter() - start) / len(EXPRESSIONS)


class Gate:
    """A provider tool, served from this process, whose calls wait until the bench opens the
    gate: a run can be held live at a known step while watchers connect."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()

        @tool(name="bench_gate", idempotent=True, read_only=True)  # no approval: it changes nothing
        async def bench_gate() -> str:
            """Wait until the benchmark opens the gate."""
            await self.opened.wait()
            return "open"

        self.tool = bench_gate


# The gated step, then three calculator steps: eight events are published after the gate opens.
WATCH_PROMPT = "use bench_gate with {} then calculate 1+1 then add 2 to it then add 3 to it"


async def watch_latency(
    stub: run_pb2_grpc.RunServiceStub, tools_port: int, watchers: int, rounds: int = 10
) -> dict[str, Any]:
    """Each round holds a run at its first (gated) step, connects the watchers, opens the gate,
    and times every event published after that from its timestamp to its arrival at each
    watcher."""
    gate = Gate()
    provider = ToolProvider([gate.tool], tools_addr=f"127.0.0.1:{tools_port}")
    await provider.start()
    latencies: list[float] = []
    try:
        for _ in range(rounds):
            gate.opened = asyncio.Event()
            run = (await stub.CreateRun(run_pb2.CreateRunRequest(prompt=WATCH_PROMPT))).run
            held_at = await _seq_of_gated_step(stub, run.run_id)
            connected = 0
            all_connected = asyncio.Event()

            async def watch(
                run_id: str = run.run_id, after: int = held_at - 1, ready: asyncio.Event = all_connected
            ) -> None:
                nonlocal connected
                first = True
                async for response in stub.WatchRun(run_pb2.WatchRunRequest(run_id=run_id, after_seq=after)):
                    if first:  # the held step's event: this stream is live on the server
                        first = False
                        connected += 1
                        if connected == watchers:
                            ready.set()
                        continue
                    latencies.append(time.time() - response.event.time.ToNanoseconds() / 1e9)

            tasks = [asyncio.create_task(watch()) for _ in range(watchers)]
            await all_connected.wait()
            gate.opened.set()
            await asyncio.gather(*tasks)
    finally:
        gate.opened.set()
        await provider.stop()
    return {
        "watchers": watchers,
        "events": len(latencies),
        "p50_ms": percentile(latencies, 50) * 1e3,
        "p99_ms": percentile(latencies, 99) * 1e3,
    }


async def _seq_of_gated_step(stub: run_pb2_grpc.RunServiceStub, run_id: str) -> int:
    """The seq of the event that shows the gated step running."""
    async for response in stub.WatchRun(run_pb2.WatchRunRequest(run_id=run_id)):
        event = response.event
        if event.HasField("step_updated") and event.step_updated.step.status == run_pb2.STEP_STATUS_RUNNING:
            return event.seq
        if event.HasField("status_changed") and event.status_changed.status == run_pb2.RUN_STATUS_FAILED:
            raise SystemExit(f"the watch benchmark's run failed: {event.status_changed.error.message}")
    raise SystemExit("the watch benchmark's run ended before its gated step ran")


def langgraph_baseline(total: int, concurrency: int) -> dict[str, Any]:
    """The same 3-step chain as a LangGraph StateGraph, in-process (no services, no persistence)."""

    class State(TypedDict):
        value: float

    def step(expression: str) -> Any:
        def node(state: State) -> State:
            return {"value": calculator.evaluate(expression.replace("PREV", str(state["value"])))}

        return node

    graph = StateGraph(State)
    graph.add_node("s1", step("1+1"))
    graph.add_node("s2", step("2 + (PREV)"))
    graph.add_node("s3", step("3 + (PREV)"))
    graph.add_edge(START, "s1")
    graph.add_edge("s1", "s2")
    graph.add_edge("s2", "s3")
    graph.add_edge("s3", END)
    app = graph.compile()

    async def main() -> float:
        semaphore = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with semaphore:
                result = await app.ainvoke({"value": 0})
                assert result["value"] == 7

        begin = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(total)))
        return time.perf_counter() - begin

    wall = asyncio.run(main())
    return {"concurrency": concurrency, "runs": total, "runs_per_s": total / wall}


async def waiting_runs(system: System, stub: run_pb2_grpc.RunServiceStub, total: int) -> dict[str, Any]:
    """`total` runs waiting for an approval at once on one executor, then `total` more: the
    executor's memory before, after the first wave and after the second (a waiting run holds no
    task, lease or slot: what the first wave adds is warm-up, the second should add ~nothing);
    then approve-to-end latency on a sample."""
    request = run_pb2.CreateRunRequest(prompt="calculate 1+1", approval_policy=run_pb2.APPROVAL_POLICY_ALWAYS)
    room = asyncio.Semaphore(50)

    async def create() -> str:
        async with room:
            return (await stub.CreateRun(request)).run.run_id

    async def count_waiting() -> int:
        waiting, token = 0, ""
        while True:  # through ListRuns' status filter, a page at a time
            page = await stub.ListRuns(
                run_pb2.ListRunsRequest(page_size=500, page_token=token, status=run_pb2.RUN_STATUS_WAITING)
            )
            waiting += len(page.runs)
            token = page.next_page_token
            if not token:
                return waiting

    rss = [system.rss_mb()["executor"]]
    run_ids: list[str] = []
    started = time.perf_counter()
    for wave in (1, 2):
        run_ids += await asyncio.gather(*(create() for _ in range(total)))
        while await count_waiting() < wave * total:  # noqa: ASYNC110 - polling another process
            await asyncio.sleep(0.5)
        await asyncio.sleep(2)  # whatever the executor frees lazily
        rss.append(system.rss_mb()["executor"])
    to_wait_s = time.perf_counter() - started
    latencies = []
    for run_id in run_ids[:200]:
        begin = time.perf_counter()
        approved = (await stub.ApproveStep(run_pb2.ApproveStepRequest(run_id=run_id, step_id="s1"))).run
        async for _ in stub.WatchRun(run_pb2.WatchRunRequest(run_id=run_id, after_seq=approved.last_seq)):
            pass
        latencies.append((time.perf_counter() - begin) * 1000)
    return {
        "runs": total,
        "seconds_to_all_waiting": to_wait_s,
        "executor_rss_mb": rss,
        "approve_to_end_p50_ms": percentile(latencies, 50),
        "approve_to_end_p99_ms": percentile(latencies, 99),
    }


async def measure(system: System, args: argparse.Namespace) -> dict[str, Any]:
    channel = aio_channel(f"127.0.0.1:{system.ports['gateway']}")
    stub = run_pb2_grpc.RunServiceStub(channel)
    await one_run(stub)  # warm up connections and code paths
    results: dict[str, Any] = {"load": [], "watch": []}
    for concurrency in args.concurrency:
        total = max(args.min_runs, concurrency * 5)
        print(f"  load: {total} runs at concurrency {concurrency}", flush=True)
        results["load"].append(await load(stub, concurrency, total))
    for watchers in (1, 100):
        print(f"  watch: {watchers} watcher(s)", flush=True)
        results["watch"].append(await watch_latency(stub, system.ports["tools"], watchers))
    before = system.rss_mb()
    print(f"  memory: {args.memory_runs} runs at concurrency 50", flush=True)
    await load(stub, 50, args.memory_runs)
    results["memory_mb"] = {"before": before, "after": system.rss_mb(), "runs": args.memory_runs}
    if args.waiting_runs:
        print(f"  waiting: {args.waiting_runs} runs awaiting approval at once", flush=True)
        results["waiting"] = await waiting_runs(system, stub, args.waiting_runs)
    await channel.close()
    return results


def report(results: dict[str, Any], baseline: dict[str, Any]) -> None:
    print(f"\n== {results['database']}")
    print(f"cold start (agentrt up -> all healthy): {results['cold_start_s']:.2f}s")
    header = ("concurrency", "runs", "runs/s", "p50 ms", "p99 ms", "step p50 ms", "step p99 ms")
    print("\n" + " ".join(f"{h:>11}" for h in header))
    for row in results["load"]:
        cells = (
            row["concurrency"],
            row["runs"],
            f"{row['runs_per_s']:.1f}",
            f"{row['latency_p50_ms']:.1f}",
            f"{row['latency_p99_ms']:.1f}",
            f"{row['step_overhead_p50_ms']:.2f}",
            f"{row['step_overhead_p99_ms']:.2f}",
        )
        print(" ".join(f"{c:>11}" for c in cells))
    print(f"\n{'watchers':>8} {'events':>7} {'p50 ms':>8} {'p99 ms':>8}")
    for row in results["watch"]:
        print(f"{row['watchers']:>8} {row['events']:>7} {row['p50_ms']:>8.2f} {row['p99_ms']:>8.2f}")
    memory = results["memory_mb"]
    print(f"\nresident memory (MB), before -> after {memory['runs']} runs:")
    for name in SERVICES:
        print(f"  {name:<9} {memory['before'].get(name, 0):7.1f} -> {memory['after'].get(name, 0):7.1f}")
    if waiting := results.get("waiting"):
        before, first, second = waiting["executor_rss_mb"]
        print(
            f"\nruns waiting for approval at once: executor {before:.1f} MB before, {first:.1f} MB with "
            f"{waiting['runs']}, {second:.1f} MB with {2 * waiting['runs']}; approve -> run ended p50 "
            f"{waiting['approve_to_end_p50_ms']:.1f} ms, p99 {waiting['approve_to_end_p99_ms']:.1f} ms"
        )
    # Compare at the measured concurrency closest to the baseline's.
    ours = min(results["load"], key=lambda r: abs(r["concurrency"] - baseline["concurrency"]))
    ratio = ours["runs_per_s"] / baseline["runs_per_s"]
    print(
        f"\nLangGraph in-process, same 3-step chain, concurrency {baseline['concurrency']}: "
        f"{baseline['runs_per_s']:.0f} runs/s; agentrt (4 services, durable, over gRPC) at concurrency "
        f"{ours['concurrency']}: {ours['runs_per_s']:.1f} runs/s = {ratio:.3f}x"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 10, 50, 200])
    parser.add_argument("--min-runs", type=int, default=200)
    parser.add_argument("--memory-runs", type=int, default=10_000)
    parser.add_argument("--waiting-runs", type=int, default=10_000, help="runs waiting for approval at once")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results.json")
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get("AGENTRT_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test"),
        help="also measure on this PostgreSQL server, in a schema created and dropped for the run",
    )
    parser.add_argument("--databases", nargs="+", choices=["sqlite", "postgresql"], default=None)
    args = parser.parse_args()
    configure_logging("warning")  # the gate provider's log lines would be measured too
    databases = args.databases or ["sqlite", "postgresql"]
    print("measuring the gRPC floor", flush=True)  # first, on an otherwise idle machine
    results: dict[str, Any] = {"grpc_floor": grpc_floor(), "databases": {}}
    for database in databases:
        extra: dict[str, str] = {}
        schema = ""
        if database == "postgresql":
            schema = f"bench_{uuid.uuid4().hex[:8]}"
            problem = asyncio.run(_pg(args.postgres_url, f'CREATE SCHEMA "{schema}"'))
            if problem:
                if args.databases:
                    raise SystemExit(f"PostgreSQL at {args.postgres_url}: {problem}")
                print(f"PostgreSQL not measured ({args.postgres_url}: {problem})", flush=True)
                continue
            extra = {"AGENTRT_DATABASE_URL": args.postgres_url, "AGENTRT_DATABASE_SCHEMA": schema}
        try:
            with tempfile.TemporaryDirectory() as tmp:
                # One process per service: what each one costs is measured apart (compare.py
                # measures both topologies side by side).
                system = System(Path(tmp) / "data", split=True, **extra)
                print(f"starting agentrt up ({database})", flush=True)
                cold = system.start()
                try:
                    measured = asyncio.run(measure(system, args))
                finally:
                    system.stop()
        finally:
            if schema:
                asyncio.run(_pg(args.postgres_url, f'DROP SCHEMA "{schema}" CASCADE'))
        results["databases"][database] = {"database": database, "cold_start_s": cold, **measured}
    results["langgraph"] = langgraph_baseline(max(args.min_runs, 1000), 50)
    args.json.write_text(json.dumps(results, indent=2))
    for measured in results["databases"].values():
        report(measured, results["langgraph"])
    print("\n" + describe(results["grpc_floor"]))
    print(f"\nJSON: {args.json}")
    return 0


async def _pg(url: str, statement: str) -> str | None:
    """Run one statement; None on success, else why PostgreSQL cannot be used."""
    try:
        conn = await asyncpg.connect(url, timeout=3)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        return f"{type(exc).__name__}: {exc}"
    try:
        await conn.execute(statement)
    finally:
        await conn.close()
    return None


if __name__ == "__main__":
    raise SystemExit(main())
