"""Where each service spends its CPU on the compared work (`python bench/hotspots.py`).

Starts `agentrt up` (SQLite), attaches py-spy to each of the four services, runs compare.py's work
("add a todo, then list my todos") at the given concurrency through the gateway over gRPC, and
summarises each service's samples two ways:
- by room: the innermost Python frame's library (gRPC, SQLAlchemy, protobuf, asyncio, ...) or,
  for agentrt's own code, its module: where the time is spent;
- by our function, inclusive: which agentrt code paths (a WatchRun, a step, a tool call) cost it.

Then, one run at a time, where a run's latency goes: the median time between its consecutive
events (from the events' own timestamps, taken by the executor) and from the client's call to
the first and from the last to the client seeing the stream end.

Samples are taken only while a thread holds the GIL (`--gil`): in this sandbox py-spy counts
threads blocked in epoll as busy, so without it an idle event loop would dominate every profile.
A GIL sample means Python ran; time in C without the GIL (SQLite's own work, socket writes) does
not show. The raw samples go to `--out` (flamegraph-ready collapsed stacks) with summary.txt.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from compare import WORKS, Agentrt  # noqa: E402
from procstat import cpu_seconds  # noqa: E402

from agentrt.server.logs import configure_logging  # noqa: E402
from agentrt.v1 import run_pb2  # noqa: E402
from bench import percentile  # noqa: E402  (this script's folder)

OURS = ("agentrt/", "executor_svc/", "tools_svc/", "planner_svc/", "gateway/")
LIBRARIES = {
    "grpc/": "gRPC",
    "sqlalchemy/": "SQLAlchemy",
    "sqlite3/": "sqlite3",
    "asyncpg/": "asyncpg",
    "google/protobuf/": "protobuf",
    "protobuf/": "protobuf",
    "asyncio/": "asyncio",
    "json/": "json",
    "structlog/": "logging",
    "logging/": "logging",
    "prometheus_client/": "metrics",
    "opentelemetry/": "tracing",
    "concurrent/": "threads",
    "threading.py": "threads",
}
# Wrappers every call passes through: not a code path worth naming inclusively.
WRAPPERS = re.compile(r"^(main|run_service|<module>|_wrap_(unary|stream)\.<locals>\.handler|.*<lambda>)$")
FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^:()]*)(:\d+)?\)$")


def _room(file: str) -> str | None:
    for prefix, room in LIBRARIES.items():
        if file.startswith(prefix) or f"/{prefix}" in file:
            return room
    for prefix in OURS:
        if file.startswith(prefix):
            return file
    return None


def summarise(path: Path, top: int = 8) -> tuple[int, list[tuple[str, int]], list[tuple[str, int]]]:
    """(samples, by room, by our function inclusive) of one py-spy raw file."""
    rooms: collections.Counter[str] = collections.Counter()
    ours: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        samples = int(count)
        total += samples
        frames = [m.groupdict() for f in stack.split(";") if (m := FRAME.match(f))]
        if frames and frames[-1]["function"] == "Handle._run":
            # An event-loop callback with no Python frame under it: C code, which here is
            # gRPC's Cython core (and asyncio's C tasks resuming coroutines).
            room = "C under the event loop (gRPC core)"
        else:
            room = next((r for f in reversed(frames) if (r := _room(f["file"]))), "other")
        rooms[room] += samples
        seen = {
            f"{f['function']} ({f['file']})"
            for f in frames
            if f["file"].startswith(OURS) and not WRAPPERS.match(f["function"])
        }
        for name in seen:
            ours[name] += samples
    return total, rooms.most_common(top), ours.most_common(top)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--out", type=Path, default=ROOT / "hotspots")
    parser.add_argument("--latency-runs", type=int, default=300, help="runs, one at a time")
    parser.add_argument(
        "--work",
        choices=list(WORKS),
        default="todo-list",
        help="compare.py's work to profile (calc-12: per step)",
    )
    args = parser.parse_args()
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        raise SystemExit("py-spy is not installed (it is a dev dependency: make .venv/.installed)")
    configure_logging("warning")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        agentrt = Agentrt(Path(tmp) / "data", reset_every=200)
        return asyncio.run(_profile(agentrt, spy, args))


async def _profile(agentrt: Agentrt, spy: str, args: argparse.Namespace) -> int:
    await agentrt.start()
    try:
        prompt = WORKS[args.work]
        for _ in range(50):  # warm up: connections, caches, the catalog
            await agentrt.grpc_run(prompt)
        pids = agentrt.system.service_pids()
        for name in pids:
            (args.out / f"{name}.txt").unlink(missing_ok=True)  # no stale profile of an earlier run
        record = [spy, "record", "--gil", "--rate", str(args.rate), "--format", "raw"]
        spies = {
            name: subprocess.Popen(  # noqa: ASYNC220 -- started once, before the measurement
                [*record, "--output", str(args.out / f"{name}.txt"), "--pid", str(pid)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for name, pid in pids.items()
        }
        await asyncio.sleep(1)  # py-spy attaches
        before = {name: cpu_seconds([pid]) for name, pid in pids.items()}
        result = await agentrt.batch(lambda: agentrt.grpc_run(prompt), args.runs, args.concurrency)
        cpu = {name: (cpu_seconds([pid]) - before[name]) / args.runs * 1e3 for name, pid in pids.items()}
        for process in spies.values():
            process.send_signal(signal.SIGINT)
        failed = {}
        for name, process in spies.items():
            _, err = process.communicate(timeout=120)
            if not (args.out / f"{name}.txt").exists():  # e.g. no ptrace permission in a container
                failed[name] = err.decode(errors="replace").strip()[-300:]
        latency = await _latency(agentrt, args.latency_runs, prompt)
    finally:
        await agentrt.stop()
    lines = [
        f"{args.runs} runs of the compared work {args.work!r} at concurrency {args.concurrency} "
        "over gRPC, SQLite: "
        f"{args.runs / result['wall_s']:.1f} runs/s, "
        f"{sum(cpu.values()):.1f} ms CPU per run in all ({', '.join(f'{n} {c:.1f}' for n, c in cpu.items())})"
    ]
    for name, why in failed.items():
        lines.append(f"\n{name}: no profile, py-spy could not sample it: {why}")
    for name in [n for n in pids if n not in failed]:
        total, rooms, ours = summarise(args.out / f"{name}.txt")
        if not total:
            continue
        lines.append(f"\n{name}: {cpu[name]:.1f} ms CPU per run, {total} samples")
        lines.append(
            "  by room (innermost Python frame): "
            + ", ".join(f"{r} {100 * n / total:.0f}%" for r, n in rooms)
        )
        lines.append("  by our function (inclusive):")
        lines += [f"    {100 * n / total:5.1f}%  {function}" for function, n in ours]
    lines += latency
    text = "\n".join(lines)
    print(text)
    (args.out / "summary.txt").write_text(text + "\n")
    return 0


def _label(event: run_pb2.RunEvent) -> str:
    kind = event.WhichOneof("kind")
    if kind == "status_changed":
        return run_pb2.RunStatus.Name(event.status_changed.status).removeprefix("RUN_STATUS_")
    if kind == "step_updated":
        step = event.step_updated.step
        return f"{step.step_id} {run_pb2.StepStatus.Name(step.status).removeprefix('STEP_STATUS_')}"
    return kind or "?"


async def _latency(agentrt: Agentrt, runs: int, prompt: str) -> list[str]:
    """Median gaps along one run at a time (the first fifth of the runs left out: warm-up)."""
    gaps: dict[str, list[float]] = {}
    totals = []
    stub = agentrt.stub
    for _ in range(runs):
        start = time.time()
        run = (await stub.CreateRun(run_pb2.CreateRunRequest(prompt=prompt))).run
        previous, label = start, "client calls CreateRun"
        async for response in stub.WatchRun(run_pb2.WatchRunRequest(run_id=run.run_id)):
            at, name = response.event.time.ToNanoseconds() / 1e9, _label(response.event)
            gaps.setdefault(f"{label} -> {name}", []).append(at - previous)
            previous, label = at, name
        end = time.time()
        gaps.setdefault(f"{label} -> client sees the stream end", []).append(end - previous)
        totals.append(end - start)
    skip = runs // 5
    lines = [f"\none run at a time ({runs} runs): p50 {percentile(totals[skip:], 50) * 1e3:.2f} ms, of which"]
    for name, values in gaps.items():
        if len(values) == runs:  # the gaps every run has
            lines.append(f"  {percentile(values[skip:], 50) * 1e3:6.2f} ms  {name}")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
