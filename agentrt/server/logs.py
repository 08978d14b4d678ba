"""structlog setup: console renderer on a TTY, JSON lines otherwise, context from contextvars.

Services bind run_id (and later step_id) with structlog.contextvars so every line written while
handling a run carries it without threading a logger through every call.

Libraries log through the standard library (httpx, litellm, the MCP SDK, uvicorn). Their records
go through the same processors as the services' own lines (structlog's ProcessorFormatter), so
they are JSON lines too, with the service, level, timestamp, logger name, run and trace ids, and
redacted and bounded like every other line. The services' own lines keep their direct path to stdout: routing
them through the standard library would cost every RPC's log line a LogRecord and a handler.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TextIO

import structlog

from agentrt.server import logbounds
from agentrt.server.tracing import add_trace_ids

# Libraries say what went wrong at WARNING; their INFO and DEBUG lines (every HTTP request
# httpx makes, say) are noise in a service's log unless asked for (AGENTRT_LOG_LEVELS).
LIBRARY_LEVEL = logging.WARNING


@dataclass
class _Installed:
    """What the last configure_logging installed, so configuring again replaces it rather than
    adding a second handler or leaving an old logger's level behind."""

    handler: logging.Handler | None = None
    levels: set[str] = field(default_factory=set)


_installed = _Installed()


def configure_logging(
    level: str = "info",
    fmt: str = "auto",
    service: str | None = None,
    library_levels: Mapping[str, str] | None = None,
) -> None:
    """Configure the services' own lines (at `level`) and the standard library's records
    (WARNING and above, or what `library_levels` says by logger name: AGENTRT_LOG_LEVELS)."""
    use_json = fmt == "json" or (fmt == "auto" and not sys.stdout.isatty())
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if use_json else structlog.dev.ConsoleRenderer()
    )
    context: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        add_trace_ids,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if service:
        context.insert(0, _add_service(service))
    # A traceback is turned into data (without frame locals) before values are bounded and
    # redacted, so the secrets in an exception's text (an upstream error quoting a key) are
    # redacted too; the console renderer prints it as text. Every line is bounded
    # (logbounds.py): what an attacker sent never reaches a log whole.
    tracebacks = logbounds.tracebacks if use_json else structlog.processors.format_exc_info
    rendering: list[structlog.types.Processor] = [
        tracebacks,
        logbounds.bound_values,
        logbounds.BoundedRenderer(renderer, as_json=use_json),
    ]
    structlog.configure(
        processors=[*context, *rendering],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        # One write per line, the newline included: processes that share one log file (agentrt up
        # --split, and the tests' logs) never interleave two lines (print writes the line and its
        # newline apart when the stream is unbuffered).
        logger_factory=structlog.WriteLoggerFactory(sys.stdout),
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*context, structlog.stdlib.add_logger_name],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *rendering],
    )
    _install_handler(_LineHandler(sys.stdout), formatter, library_levels or {})
    # Python's warnings (a library's RuntimeWarning, say) become records of "py.warnings"
    # rather than text on stderr: one JSON line like any other.
    logging.captureWarnings(True)


def _install_handler(
    handler: logging.Handler, formatter: logging.Formatter, library_levels: Mapping[str, str]
) -> None:
    # The root logger's one handler also makes a library's own logging.basicConfig a no-op (the
    # MCP SDK's server calls it, and would otherwise install its own handler at INFO for every
    # library in the process).
    handler.setFormatter(formatter)
    root = logging.getLogger()
    if _installed.handler is not None:
        root.removeHandler(_installed.handler)
    root.addHandler(handler)
    _installed.handler = handler
    for name in _installed.levels:
        logging.getLogger(name).setLevel(logging.NOTSET)  # back to inheriting the default
    root.setLevel(LIBRARY_LEVEL)
    for name, name_level in library_levels.items():
        # "root" (or "") is the root logger: the default of every library not named.
        logging.getLogger(name).setLevel(name_level.upper())
    _installed.levels = set(library_levels)


class _LineHandler(logging.Handler):
    """Writes each formatted record as one line through structlog's WriteLogger, which takes the
    same lock per stream as the services' own lines: a library's line and a service's line
    written by two threads never end up sharing a line."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._out = structlog.WriteLogger(stream)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._out.msg(self.format(record))
        except Exception:
            self.handleError(record)


def _add_service(service: str) -> structlog.types.Processor:
    def processor(_logger: object, _name: str, event: dict) -> dict:
        event.setdefault("service", service)
        return event

    return processor
