"""`agentrt up`: the four services in one process (the embedded topology, the default).

The same servers as `agentrt up --split` (supervisor.py) and a cluster run, each on its own port
with the same APIs (the gateway public, the others internal: tools_svc takes provider
registrations, `agentrt tools` commands and grpcurl reach each), started in the same order on
one event loop. What differs is between them: the gateway calls the executor, and the executor
the planner and tools_svc, through `local:` channels (agentrt/server/localcalls.py), the same
stubs without the network. One interpreter instead of four, no gRPC hop inside a run.

A crash takes the whole process, as it would take a process of the split topology; the
durable guarantees are the store's and the executor's, not the process layout's.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import traceback
from collections.abc import Callable
from typing import Any, TextIO

import structlog

from agentrt.config import Settings, StartupError
from agentrt.server import localcalls
from agentrt.server.grpcserver import BuiltServer
from agentrt.server.metrics import serve_metrics
from agentrt.server.service_main import configure_process, keep_startup_heap
from agentrt.server.tracing import SERVICE
from agentrt.server.watchdog import LoopWatchdog

log = structlog.get_logger("agentrt.embedded")

# Dependencies first: the gateway is the last to accept traffic (in either topology).
START_ORDER = ("tools", "planner", "executor", "gateway")

# What each in-process caller reaches its peers through.
LOCAL_TARGETS = {
    "tools_addr": "local:tools",
    "planner_addr": "local:planner",
    "executor_addr": "local:executor",
}


def _builders() -> dict[str, tuple[Callable[..., Any], list[Any]]]:
    # Imported when `up` runs, not when the CLI starts: client commands never load the servers.
    from executor_svc import metrics as executor_metrics  # noqa: PLC0415
    from executor_svc import server as executor_server  # noqa: PLC0415
    from gateway import server as gateway_server  # noqa: PLC0415
    from gateway import streams as gateway_streams  # noqa: PLC0415
    from planner_svc import metrics as planner_metrics  # noqa: PLC0415
    from planner_svc import server as planner_server  # noqa: PLC0415
    from tools_svc import metrics as tools_metrics  # noqa: PLC0415
    from tools_svc import server as tools_server  # noqa: PLC0415

    return {
        "tools": (tools_server.build_server, tools_metrics.METRICS),
        "planner": (planner_server.build_server, planner_metrics.METRICS),
        "executor": (executor_server.build_server, executor_metrics.METRICS),
        "gateway": (gateway_server.build_server, gateway_streams.METRICS),
    }


async def start_embedded(settings: Settings) -> dict[str, BuiltServer]:
    """Build and start the four servers in this process, each reachable by its peers as
    `local:NAME`; on a failure, what had started is stopped again."""
    local = settings.replace(**LOCAL_TARGETS)
    builders = _builders()
    started: dict[str, BuiltServer] = {}
    try:
        for name in START_ORDER:
            build, own_metrics = builders[name]
            # What this server starts (its RPC handlers, background work) runs as its service's
            # code (tracing.SERVICE); the variable is this task's, set back after the loop.
            SERVICE.set(name)
            section = getattr(local, name)
            try:
                built = await build(section)
            except StartupError as exc:  # the same line as the service alone would say
                raise StartupError(f"agentrt {name}: {exc.code}") from exc
            await built.start()
            localcalls.register(name, built.handlers, local.internal_secret())
            started[name] = built
            log.info("server.started", service=name, port=built.port)
            serve_metrics(section.internal_host, getattr(section, f"{name}_metrics_port"), own_metrics)
    except BaseException:
        await stop_embedded(started, 0)
        raise
    finally:
        SERVICE.set("")
    return started


async def stop_embedded(started: dict[str, BuiltServer], grace: float) -> None:
    """Stop the servers in reverse order (the gateway first: no new work comes in), each drained."""
    for name in reversed(list(started)):
        try:
            await started[name].stop(grace)
        finally:
            localcalls.unregister(name)
        log.info("server.stopped", service=name)


def print_up(model_lines: list[str], out: Any) -> None:
    """Under the banner: whether each model answers (a line each), and how to stop."""
    for n, line in enumerate(model_lines):
        print(f"  {'model' if n == 0 else '':<8}  {line}", file=out, flush=True)
    print("Press Ctrl-C to stop.", file=out, flush=True)


def up_embedded(
    settings: Settings,
    out: TextIO = sys.stdout,
    banner: Callable[[Settings], str] = str,
    models: Callable[[Settings], list[str]] | None = None,
) -> int:
    """Run the four services in this process until SIGTERM or Ctrl-C; `banner` says what is up,
    `models` (run off the event loop) whether the models answer."""
    configure_process(settings, settings, "")  # one process: "agentrt" in logs, each span its service

    async def serve() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        started = await start_embedded(settings)
        keep_startup_heap()
        watchdog = LoopWatchdog(settings.loop_stall_warn_s)  # the one loop all four share
        watchdog.start()
        try:
            print(banner(settings), file=out, flush=True)
            print_up(await asyncio.to_thread(models, settings) if models is not None else [], out)
            await stop.wait()
            log.info("server.stopping", service="agentrt", grace_s=settings.shutdown_grace_s)
        finally:
            await watchdog.stop()
            await stop_embedded(started, settings.shutdown_grace_s)
        return 0

    try:
        return asyncio.run(serve())
    except StartupError as exc:
        if settings.debug:
            traceback.print_exception(exc.__cause__ or exc)
        print(exc.code, file=sys.stderr)
        return 1
