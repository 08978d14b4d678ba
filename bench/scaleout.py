"""Scale-out on PostgreSQL: runs/s with 1, 2 and 3 executor replicas (`python bench/scaleout.py`).

Each topology is separate processes on this machine: the planner, one tools_svc, N executors and
the gateway balancing over them (gRPC round_robin over a multi-address target), sharing one
PostgreSQL schema made for the measurement. The work is bench/compare.py's ("add a todo, then list
my todos") at concurrency 50 through the gateway. Besides runs/s, each process's CPU per run says
where the time goes: on a 2-core machine the replicas share the same cores, so the figure shows
what replication costs and where the ceiling is, not what more machines would give.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from compare import grpc_run, timed_runs  # noqa: E402
from procstat import cpu_seconds  # noqa: E402

from agentrt.core.channels import aio_channel  # noqa: E402
from agentrt.server.logs import configure_logging  # noqa: E402
from agentrt.v1 import run_pb2_grpc  # noqa: E402
from bench import _pg, percentile  # noqa: E402  (this script's folder)
from tests.e2e.procs import free_ports, serve, service_env  # noqa: E402


def start(replicas: int, data: Path, url: str, schema: str) -> tuple[dict[str, subprocess.Popen[bytes]], int]:
    ports = iter(free_ports(4 + replicas))
    planner, tools, gateway, http = next(ports), next(ports), next(ports), next(ports)
    executors = [next(ports) for _ in range(replicas)]
    env = service_env(
        data,
        {"gateway": gateway, "http": http},
        AGENTRT_DATABASE_URL=url,
        AGENTRT_DATABASE_SCHEMA=schema,
        AGENTRT_LOG_LEVEL="warning",
        AGENTRT_PLANNER_ADDR=f"127.0.0.1:{planner}",
        AGENTRT_TOOLS_ADDR=f"127.0.0.1:{tools}",
        AGENTRT_EXECUTOR_ADDR="ipv4:" + ",".join(f"127.0.0.1:{p}" for p in executors),
    )
    processes = {}
    for name, service, port in [
        ("planner", "planner", planner),
        ("tools", "tools", tools),
        *[(f"executor{i}", "executor", p) for i, p in enumerate(executors)],
        ("gateway", "gateway", gateway),
    ]:
        processes[name] = serve(
            service, {**env, f"AGENTRT_{service.upper()}_PORT": str(port)}, data / f"{name}.log", port
        )
    return processes, gateway


async def load(gateway: int, runs: int, concurrency: int) -> tuple[float, list[float]]:
    channel = aio_channel(f"127.0.0.1:{gateway}")
    stub = run_pb2_grpc.RunServiceStub(channel)
    for _ in range(20):  # warm up every replica's connections
        await grpc_run(stub)
    wall, latencies = await timed_runs(lambda: grpc_run(stub), runs, concurrency)
    await channel.close()
    return wall, latencies


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get("AGENTRT_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test"),
    )
    args = parser.parse_args()
    configure_logging("warning")
    rows = []
    for replicas in args.replicas:
        schema = f"scale_{uuid.uuid4().hex[:8]}"
        problem = asyncio.run(_pg(args.postgres_url, f'CREATE SCHEMA "{schema}"'))
        if problem:
            raise SystemExit(f"PostgreSQL at {args.postgres_url}: {problem}")
        try:
            with tempfile.TemporaryDirectory() as tmp:
                print(f"{replicas} executor(s): starting", flush=True)
                processes, gateway = start(replicas, Path(tmp), args.postgres_url, schema)
                try:
                    pids = {name: p.pid for name, p in processes.items()}
                    before = {name: cpu_seconds([pid]) for name, pid in pids.items()}
                    wall, latencies = asyncio.run(load(gateway, args.runs, args.concurrency))
                    cpu = {
                        name: (cpu_seconds([pid]) - before[name]) / args.runs * 1e3
                        for name, pid in pids.items()
                    }
                finally:
                    for process in processes.values():
                        process.send_signal(signal.SIGTERM)
                    for process in processes.values():
                        process.wait(timeout=60)
        finally:
            asyncio.run(_pg(args.postgres_url, f'DROP SCHEMA "{schema}" CASCADE'))
        rows.append((replicas, args.runs / wall, percentile(latencies, 50) * 1e3, cpu))
    base = rows[0][1]
    print(f"\nPostgreSQL, concurrency {args.concurrency}, {args.runs} runs per topology")
    print(f"{'executors':>9} {'runs/s':>8} {'x one':>6} {'p50 ms':>8}  CPU ms per run by process")
    for replicas, rate, p50, cpu in rows:
        spent = ", ".join(f"{name} {ms:.1f}" for name, ms in cpu.items())
        total = sum(cpu.values())
        print(f"{replicas:>9} {rate:>8.1f} {rate / base:>6.2f} {p50:>8.1f}  {spent} (total {total:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
