"""structlog setup: console renderer on a TTY, JSON lines otherwise, context from contextvars.

Services bind run_id (and later step_id) with structlog.contextvars so every line written while
handling a run carries it without threading a logger through every call.
"""

from __future__ import annotations

import logging
import sys

import structlog

from agentrt.tracing import add_trace_ids


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
    processors.append(renderer)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        cache_logger_on_first_use=True,
    )


def _add_service(service: str) -> structlog.types.Processor:
    def processor(_logger: object, _name: str, event: dict) -> dict:
        event.setdefault("service", service)
        return event

    return processor
