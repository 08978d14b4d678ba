"""The CPU cost of grpc.aio itself on this machine: what a run's RPCs cost before any work.

A bare server (a separate process, no interceptors, no protobuf: raw bytes) answers a unary
method and a server-streaming method of STREAM_MESSAGES messages; a client calls each at
concurrency 50. The CPU time of both processes per call, times the calls a run makes, is the
floor under agentrt's CPU per run: `python bench/grpc_floor.py` prints it on its own.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc

STREAM_MESSAGES = 11  # about the events of a 3-step run
MESSAGE = b"x" * 200
# What one run through the gateway costs in RPCs: CreateRun (client -> gateway -> executor),
# CreatePlan, three InvokeTool; WatchRun client -> gateway and gateway -> executor. (The
# executor holds the tool catalog from a WatchTools stream: no ListTools per run.)
RUN_UNARY_CALLS = 6
RUN_STREAMS = 2

_SERVER = f"""
import asyncio, sys, grpc
MESSAGE = {MESSAGE!r}

async def unary(request, context):
    return MESSAGE

async def stream(request, context):
    for _ in range({STREAM_MESSAGES}):
        yield MESSAGE

async def main():
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("floor.Floor", {{
        "Unary": grpc.unary_unary_rpc_method_handler(unary),
        "Stream": grpc.unary_stream_rpc_method_handler(stream),
    }}),))
    server.add_insecure_port("127.0.0.1:" + sys.argv[1])
    await server.start()
    print("ready", flush=True)
    await server.wait_for_termination()

asyncio.run(main())
"""


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _measure(port: int, server_pid: int, calls: int, concurrency: int) -> dict[str, float]:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    unary = channel.unary_unary("/floor.Floor/Unary")
    stream = channel.unary_stream("/floor.Floor/Stream")

    async def one_stream() -> None:
        async for _ in stream(b""):
            pass

    out: dict[str, float] = {}
    for name, call in (("unary", lambda: unary(b"")), ("stream", one_stream)):
        for _ in range(100):
            await call()  # warm up
        client0, server0 = time.process_time(), _cpu_s(server_pid)

        async def worker(call: Any = call) -> None:
            for _ in range(calls // concurrency):
                await call()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        done = calls // concurrency * concurrency
        out[f"{name}_client_ms"] = (time.process_time() - client0) / done * 1e3
        out[f"{name}_server_ms"] = (_cpu_s(server_pid) - server0) / done * 1e3
    await channel.close()
    return out


def grpc_floor(calls: int = 5000, concurrency: int = 50) -> dict[str, float]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-c", _SERVER, str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        costs = asyncio.run(_measure(port, server.pid, calls, concurrency))
    finally:
        server.terminate()
        server.wait(timeout=10)
    unary = costs["unary_client_ms"] + costs["unary_server_ms"]
    stream = costs["stream_client_ms"] + costs["stream_server_ms"]
    per_run = RUN_UNARY_CALLS * unary + RUN_STREAMS * stream
    cores = len(os.sched_getaffinity(0))
    return {
        **costs,
        "unary_ms": unary,
        "stream_ms": stream,
        "per_run_ms": per_run,
        "cores": cores,
        "max_runs_per_s": cores * 1000 / per_run,
    }


def describe(floor: dict[str, float]) -> str:
    return (
        f"gRPC floor (bare grpc.aio, concurrency 50): unary call {floor['unary_ms']:.2f} ms CPU, "
        f"{STREAM_MESSAGES}-message stream {floor['stream_ms']:.2f} ms; a run's {RUN_UNARY_CALLS} "
        f"unary calls and {RUN_STREAMS} streams: {floor['per_run_ms']:.2f} ms CPU, at most "
        f"{floor['max_runs_per_s']:.0f} runs/s on {floor['cores']:.0f} cores with no other work"
    )


if __name__ == "__main__":
    print(describe(grpc_floor()))
