"""A tool provider as its own process: register, be used by a run, die, disappear after its TTL."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.procs import BIN, start_system

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
TTL_S = 1.5


def wait_for(condition, timeout: float, what: str) -> float:  # type: ignore[no-untyped-def]
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)
    return time.monotonic() - start


def test_provider_registers_serves_a_run_and_lapses_after_sigkill(tmp_path: Path) -> None:
    system = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
        AGENTRT_REGISTRY_REFRESH_S="0.2",
        AGENTRT_LEASE_TTL_MIN_S="0.5",
    )
    provider = None
    try:
        with (tmp_path / "provider.log").open("ab") as log:
            provider = subprocess.Popen(
                [
                    str(BIN / "agentrt"),
                    "tools",
                    "serve",
                    "examples.unit_converter:convert_units",
                    "--tools-addr",
                    f"127.0.0.1:{system.ports['tools']}",
                    "--ttl",
                    str(TTL_S),
                ],
                cwd=ROOT,
                env=system.env,
                stdout=log,
                stderr=log,
            )

        def listed() -> bool:
            return "convert_units" in system.agentrt("tools", "list").stdout

        wait_for(listed, 20, "the provider to register")
        catalog = system.agentrt("tools", "list").stdout
        line = next(x for x in catalog.splitlines() if x.startswith("convert_units"))
        assert line.split()[1:4] == ["1.0.0", "provider", "healthy"]

        run = system.agentrt(
            "run", 'use convert_units with {"value": 10, "from_unit": "km", "to_unit": "mi"}'
        )
        assert run.returncode == 0, run.stdout + run.stderr
        assert "10 km = 6.21371 mi" in run.stdout

        provider.send_signal(signal.SIGKILL)  # no deregistration: only the TTL can remove it
        provider.wait()
        gone_after = wait_for(lambda: not listed(), 15, "the lapsed provider to leave the catalog")
        assert gone_after < TTL_S + 3, f"took {gone_after:.1f}s, TTL is {TTL_S}s"

        failed = system.agentrt(
            "run", 'use convert_units with {"value": 1, "from_unit": "km", "to_unit": "mi"}'
        )
        assert failed.returncode == 1
        assert "convert_units" in failed.stdout and "run failed" in failed.stdout
    finally:
        if provider is not None and provider.poll() is None:
            provider.kill()
        system.stop()
