"""schemathesis fuzzes the REST API from /openapi.json against the real processes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.e2e.procs import BIN, start_system

pytestmark = pytest.mark.e2e


def test_generated_requests_never_get_a_server_error_and_responses_match_the_schema(tmp_path: Path) -> None:
    system = start_system(tmp_path / "data", tmp_path / "up.log")
    try:
        result = subprocess.run(
            [
                str(BIN / "schemathesis"),
                "run",
                f"{system.http}/openapi.json",
                "--checks",
                "not_a_server_error,response_schema_conformance,content_type_conformance",
                "--max-examples",
                "25",
                "--seed",
                "1",
                "--suppress-health-check",
                "all",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        system.stop()
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "passed" in output.splitlines()[-1] or " passed" in output
