"""The one way every agentrt service process starts: settings, logging, tracing, metrics, serve."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from agentrt.config import Settings, load_settings
from agentrt.grpcserver import BuiltServer, serve_until_signalled
from agentrt.logs import configure_logging
from agentrt.metrics import serve_metrics
from agentrt.tracing import configure_tracing


def run_service(name: str, build_server: Callable[[Settings], Awaitable[BuiltServer]]) -> None:
    """Run service `name` ("gateway", "executor", "planner", "tools") until SIGTERM/SIGINT."""
    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format, service=name)
    configure_tracing(settings, name)  # before any server or channel exists

    async def serve() -> None:
        built = await build_server(settings)
        serve_metrics(settings.host, getattr(settings, f"{name}_metrics_port"), name)
        await serve_until_signalled(built, settings.shutdown_grace_s, name)

    asyncio.run(serve())
