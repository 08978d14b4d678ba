"""structlog setup: console renderer on a TTY, JSON lines otherwise, context from contextvars.

Services bind run_id (and later step_id) with structlog.contextvars so every line written while
handling a run carries it without threading a logger through every call.
"""

from __future__ import annotations

import logging
import sys

import structlog

from agentrt.client.text import redact
from agentrt.server.tracing import add_trace_ids


def configure_logging(level: str = "info", fmt: str = "auto", service: str | None = None) -> None:
    use_json = fmt == "json" or (fmt == "auto" and not sys.stdout.isatty())
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if use_json else structlog.dev.ConsoleRenderer()
    )
    processors: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        add_trace_ids,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if service:
        processors.insert(0, _add_service(service))
    if use_json:
        processors.append(structlog.processors.dict_tracebacks)
    processors += [_redact_secrets, renderer]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=True,
    )
    # Libraries that log through the standard library (httpx, litellm, the MCP SDK) print their
    # warnings and errors to stderr, one plain line each. Configuring the root logger here also
    # makes a library's own logging.basicConfig a no-op (the MCP SDK's server calls it, and would
    # otherwise install its own handler at INFO for every library in the process).
    if not logging.root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logging.root.addHandler(handler)
        logging.root.setLevel(logging.WARNING)


def _redact_secrets(_logger: object, _name: str, event: dict) -> dict:
    """Configured secrets never reach a log line, even inside an upstream error's text."""
    for key, value in event.items():
        if isinstance(value, str):
            event[key] = redact(value)
    return event


def _add_service(service: str) -> structlog.types.Processor:
    def processor(_logger: object, _name: str, event: dict) -> dict:
        event.setdefault("service", service)
        return event

    return processor
