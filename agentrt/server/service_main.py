"""The one way every agentrt service process starts: settings, logging, tracing, metrics, the event
loop's watchdog, serve."""

from __future__ import annotations

import asyncio
import gc
import traceback
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import structlog
from prometheus_client.metrics import MetricWrapperBase

from agentrt.config import CommonSettings, Settings, StartupError, load_settings
from agentrt.core.text import register_secrets
from agentrt.server.grpcserver import BuiltServer, serve_until_signalled
from agentrt.server.logs import configure_logging
from agentrt.server.metrics import serve_metrics
from agentrt.server.tracing import SERVICE, configure_tracing
from agentrt.server.watchdog import LoopWatchdog

Section = TypeVar("Section", bound=CommonSettings)


def configure_process(settings: Settings, section: CommonSettings, name: str) -> None:
    """What a process serving agentrt sets up first: secrets kept out of its logs, the logs,
    tracing (before any server or channel exists). `name` is the service, or "" for the one
    process of `agentrt up` that serves all four (logs say "agentrt", spans say their service)."""
    # Whatever a service logs (a failed run's error quoting a prompt, say), no configured key or
    # internal credential reaches its log, whichever service wrote the line.
    register_secrets([settings.internal_secret(), *(secret for secret, _ in settings.principals().values())])
    configure_logging(
        settings.log_level, settings.log_format, service=name or "agentrt", library_levels=settings.log_levels
    )
    configure_tracing(section, name)


def keep_startup_heap() -> None:
    """Once the servers are built: what start-up made (modules, compiled patterns, descriptors,
    settings, catalogs: well over a hundred thousand objects that live as long as the process) is
    set outside the cyclic collector's reach. Otherwise each full collection walks all of them to
    find a few requests' cycles: in one process serving 3,000 runs at 50 clients (the load generator
    in it too; gc.callbacks), the collector's time per run fell from 0.46 to 0.16 ms and its longest
    pause from 339 to 35 ms. Objects made later are collected as before; start-up's garbage is
    collected first, so none of it is kept."""
    gc.collect()
    gc.freeze()


def run_service(
    name: str,
    build_server: Callable[[Section], Awaitable[BuiltServer]],
    own_metrics: Sequence[MetricWrapperBase] = (),
) -> None:
    """Run service `name` ("gateway", "executor", "planner", "tools") until SIGTERM/SIGINT,
    exporting `own_metrics` (its own module's) on its metrics port. The whole configuration is
    loaded (one bad setting stops every service, as it would `agentrt up`), and the service is
    built with its own section of it."""
    settings = load_settings()
    section: Section = getattr(settings, name)
    SERVICE.set(name)  # every span this process opens is this service's
    configure_process(settings, section, name)

    async def serve() -> None:
        built = await build_server(section)
        keep_startup_heap()
        serve_metrics(section.internal_host, getattr(section, f"{name}_metrics_port"), own_metrics)
        watchdog = LoopWatchdog(section.loop_stall_warn_s)
        watchdog.start()
        try:
            await serve_until_signalled(built, settings.shutdown_grace_s, name)
        finally:
            await watchdog.stop()

    try:
        asyncio.run(serve())
    except StartupError as exc:
        # One line for the operator (what, where, what to check); the traceback only on request.
        if settings.debug:
            traceback.print_exception(exc.__cause__ or exc)
        if settings.log_format == "json":  # collected logs get it as an event too
            structlog.get_logger("agentrt.server").error("service.start_failed", error=str(exc.code))
        raise StartupError(f"agentrt {name}: {exc.code}") from None
