"""CPU per run of the embedded topology without the client's gRPC (`python bench/inprocess.py`).

The four servers start in this process (as `agentrt up` starts them, SQLite in a temporary data
directory), and the load generator calls the gateway through the in-process channel
(`local:gateway`), so the figures leave out the client-facing gRPC server and its client, whose
per-message cost is grpc.aio's. What is left is agentrt's own work per run, measured as this
process's CPU time (the load generator's few calls included) over `--runs` runs at
`--concurrency`, after a warm-up; with the CPU time of the main rooms of a run (each handler's
thread time, wrapped here: none of them pauses for another task, so what they wrap is their own;
CreateRun is not one since its insert joined the group commit, where it is counted now).

Why it exists: on this machine the speed of `agentrt up` runs drifts by more than most changes
save (neighbouring runs of one tree differ by up to 60%), while this measure, in one process and
without the sockets, repeats within a few percent. Compare two trees by running it in each, in
turns.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from compare import PROMPT  # noqa: E402  (compare.py's todo-list work)


def _environment(data: str) -> None:
    os.environ.update(
        {
            "AGENTRT_DATA_DIR": data,
            "AGENTRT_LOG_LEVEL": "warning",
            "AGENTRT_LOG_FORMAT": "json",
            # The user's own words run without asking, as compare.py's works do.
            "AGENTRT_APPROVAL_EXEMPT_RULES": "true",
        }
    )
    for name in ("gateway", "executor", "planner", "tools", "http"):
        os.environ[f"AGENTRT_{name.upper()}_PORT"] = "0"
    for name in ("gateway", "executor", "planner", "tools"):
        os.environ[f"AGENTRT_{name.upper()}_METRICS_PORT"] = "0"


def _timed(rooms: collections.Counter[str], cls: type, name: str, label: str) -> None:
    """Add the thread time of each call of the coroutine method cls.name to rooms[label]."""
    inner: Callable[..., Any] = getattr(cls, name)

    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return await inner(*args, **kwargs)
        finally:
            rooms[label] += time.thread_time() - started

    setattr(cls, name, timed)


async def measure(runs: int, concurrency: int, warmup: int) -> None:
    # Imported here: the environment above is the configuration they load.
    from agentrt.cli.embedded import start_embedded, stop_embedded  # noqa: PLC0415
    from agentrt.config import load_settings  # noqa: PLC0415
    from agentrt.server import localcalls  # noqa: PLC0415
    from agentrt.server.logs import configure_logging  # noqa: PLC0415
    from agentrt.v1 import run_pb2, run_pb2_grpc  # noqa: PLC0415
    from executor_svc.groupcommit import GroupCommit  # noqa: PLC0415
    from planner_svc.rules import RulePlanner  # noqa: PLC0415
    from tools_svc.service import ToolServicer  # noqa: PLC0415

    configure_logging("warning", "json")
    rooms: collections.Counter[str] = collections.Counter()
    _timed(rooms, RulePlanner, "plan", "the rule planner (RulePlanner.plan)")
    _timed(rooms, ToolServicer, "InvokeTool", "tool calls (ToolServicer.InvokeTool)")
    _timed(rooms, GroupCommit, "_write_batch", "the group commit's transactions (runs' inserts and saves)")

    async def one(stub: run_pb2_grpc.RunServiceStub) -> None:
        run = (await stub.CreateRun(run_pb2.CreateRunRequest(prompt=PROMPT))).run
        async for _ in stub.WatchRun(run_pb2.WatchRunRequest(run_id=run.run_id)):
            pass

    async def load(stub: run_pb2_grpc.RunServiceStub, total: int) -> None:
        remaining = iter(range(total))

        async def worker() -> None:
            for _ in remaining:
                await one(stub)

        await asyncio.gather(*(worker() for _ in range(concurrency)))

    started = await start_embedded(load_settings())
    try:
        stub = run_pb2_grpc.RunServiceStub(localcalls.LocalChannel("local:gateway"))
        await load(stub, warmup)
        rooms.clear()
        cpu, wall = time.process_time(), time.perf_counter()
        await load(stub, runs)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        await stop_embedded(started, 5)
    print(
        f"{runs} runs of {PROMPT!r} at concurrency {concurrency}, in one process without gRPC: "
        f"{cpu / runs * 1e3:.3f} ms CPU per run, {runs / wall:.0f} runs/s"
    )
    for room, seconds in rooms.most_common():
        print(f"  {seconds / runs * 1e3:.3f} ms per run in {room}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        _environment(data)
        asyncio.run(measure(args.runs, args.concurrency, args.warmup))
    return 0


if __name__ == "__main__":
    sys.exit(main())
