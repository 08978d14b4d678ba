"""What the worst log lines cost (`make bench`): each hostile shape an attacker can put in a line
(a body nested 600 deep as a value or in a failing frame's locals, a megabyte of text in an
exception or a library's message, many long values, a million items), logged through the
services' own configuration (JSON, bounded: agentrt/server/logbounds.py) to /dev/null, ROUNDS
times each; the slowest and the median, in milliseconds, and the line's length. A line is
written on the event loop every call shares: before the bounds, the first shape took ~21 s.
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import structlog  # noqa: E402

from agentrt.server.logs import configure_logging  # noqa: E402

ROUNDS = 20


def deep(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def _fail(body: Any) -> None:  # `body` is a local of the failing frame, as the A2A SDK's was
    raise ValueError("Failed to parse: " + "x" * 1_000_000)


class Capture:
    """A stream that keeps the length of the last line written (and writes nowhere)."""

    def __init__(self) -> None:
        self.last = 0

    def write(self, text: str) -> int:
        self.last = len(text.rstrip("\n"))
        return len(text)

    def flush(self) -> None:
        pass


def shapes() -> dict[str, Callable[[], None]]:
    log = structlog.get_logger("bench")
    library = logging.getLogger("a2a.server.routes")
    body, values, items = deep(600), {f"v{i}": 'é"' * 2000 for i in range(40)}, list(range(1_000_000))

    def failing(write: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                _fail(body)
            except ValueError:
                write()

        return run

    return {
        "a value nested 600 deep": lambda: log.warning("bench", body=body),
        "an exception, a 600-deep local, 1 MB text": failing(lambda: log.exception("bench")),
        "a library's record, 1 MB message, traceback": failing(
            lambda: library.exception("Error %s", "y" * 10**6)
        ),
        "40 values of 4,000 characters": lambda: log.warning("bench", **values),
        "a list of a million items": lambda: log.warning("bench", items=items),
        "an ordinary RPC line": lambda: log.info("rpc", method="/agentrt.v1.RunService/GetRun", code="OK"),
    }


def main() -> None:
    out = Capture()
    configure_logging("info", "json", service="bench")
    # Both kinds of line write through sys.stdout as configured: point the writers at `out`.
    structlog.configure(logger_factory=structlog.WriteLoggerFactory(out))  # type: ignore[arg-type]
    for handler in logging.getLogger().handlers:
        handler._out = structlog.WriteLogger(out)  # type: ignore[attr-defined]  # logs._LineHandler
    print(f"{'shape':48} {'slowest ms':>11} {'median ms':>10} {'line chars':>11}")
    for name, write in shapes().items():
        times = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            write()
            times.append((time.perf_counter() - started) * 1000)
        print(f"{name:48} {max(times):11.2f} {statistics.median(times):10.2f} {out.last:11,}")


if __name__ == "__main__":
    main()
