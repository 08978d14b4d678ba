"""A real service process in JSON mode writes nothing but JSON lines, its libraries' records too."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path

import pytest

from tests.e2e.procs import free_ports, serve, service_env, wait_for

pytestmark = pytest.mark.e2e


def test_a_library_warning_is_a_json_line_of_the_service(tmp_path: Path) -> None:
    grpc_port, http_port = free_ports(2)
    log = tmp_path / "gateway.log"
    env = service_env(tmp_path / "data", {"gateway": grpc_port, "http": http_port})
    gateway = serve("gateway", env, log, grpc_port)
    try:
        # Not HTTP: uvicorn (a library logging through the standard library) warns about it.
        with socket.create_connection(("127.0.0.1", http_port), timeout=5) as conn:
            conn.sendall(b"NOT HTTP AT ALL\r\n\r\n")
            while conn.recv(4096):
                pass
        wait_for(lambda: "Invalid HTTP request" in log.read_text(), "uvicorn's warning")
    finally:
        gateway.send_signal(signal.SIGTERM)
        gateway.wait(timeout=30)

    written = [line for line in log.read_text().splitlines() if line.strip()]
    records = []
    for line in written:
        try:
            records.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"not a JSON line: {line!r}") from None
    assert all(record.get("service") == "gateway" for record in records)
    (warning,) = [r for r in records if "Invalid HTTP request" in r["event"]]
    assert (warning["logger"], warning["level"]) == ("uvicorn.error", "warning")
    assert "timestamp" in warning
