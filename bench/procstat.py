"""What a process costs, from /proc: CPU time and resident memory. Kept apart (nothing imported)
so that a baseline process reading its own figures does not load what the harness loads."""

from __future__ import annotations

import os
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLOCK_TICKS


def memory_mb(pid: int | str, field: str) -> float:
    """Resident memory of a process from /proc/<pid>/smaps_rollup: "Rss" counts every page it
    maps, shared or not; "Pss" divides each shared page among the processes mapping it, so the
    Pss of processes add up to what they hold together (the four services share the pages of
    the same Python, gRPC and SQLAlchemy libraries, which a sum of Rss counts four times)."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise ValueError(f"no {field} in /proc/{pid}/smaps_rollup")
