"""Issue 65's "done when", against `agentrt up` as users run it (both topologies): the A2A body
nested 600 deep that once held the one process for 21 s and wrote a 78 MB log line is a client
error while /healthz keeps answering, no log line passes the bound, the event loop is never held
past the watchdog's threshold, and the absurd headers and versions are client errors too."""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from pathlib import Path

import httpx
import pytest

from agentrt.server.logbounds import MAX_LINE_CHARS
from tests.e2e.procs import free_ports, start_system

pytestmark = pytest.mark.e2e


def deep_send(depth: int) -> str:
    metadata = '{"a":' * depth + "{}" + "}" * depth
    message = '{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}'
    return (
        '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":'
        + message
        + ',"metadata":'
        + metadata
        + "}}"
    )


def lag_over_one_second(metrics_port: int) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
    count = float(re.search(r"^agentrt_event_loop_lag_seconds_count (\S+)$", text, re.M).group(1))  # type: ignore[union-attr]
    within = float(
        re.search(r'^agentrt_event_loop_lag_seconds_bucket\{le="1\.0"\} (\S+)$', text, re.M).group(1)
    )  # type: ignore[union-attr]
    return count - within


def test_hostile_requests_are_client_errors_and_the_process_keeps_serving(tmp_path: Path) -> None:
    (metrics_port,) = free_ports(1)
    log = tmp_path / "up.log"
    system = start_system(tmp_path / "data", log, AGENTRT_GATEWAY_METRICS_PORT=str(metrics_port))
    probes: list[int] = []
    done = threading.Event()

    def probe() -> None:
        # /healthz all along: each probe must be answered (a held loop would hold them all).
        with httpx.Client(base_url=system.http, timeout=30) as http:
            while not done.is_set():
                probes.append(http.get("/healthz").status_code)

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        with httpx.Client(base_url=system.http, timeout=30) as http:
            headers = {"A2A-Version": "1.0", "content-type": "application/json"}
            for depth in (300, 600, 900, 10_000):
                refused = http.post("/a2a", content=deep_send(depth), headers=headers)
                assert refused.status_code == 400, refused.text
                assert refused.json()["error"]["code"] == -32600
            # Within the bounds, a failure the SDK itself reports (and logs) is still bounded.
            for params in ({"id": "x" * 5000}, {"message": {"parts": "x" * 50_000}}):
                body = {"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": params}
                answered = http.post("/a2a", json=body, headers=headers)
                assert answered.status_code < 500 and answered.json()["error"]["code"] != -32603
            version = http.post("/a2a", json={}, headers={"A2A-Version": "9" * 10_000})
            assert version.status_code in (400, 431) and b"-32603" not in version.content
            many = http.get("/healthz", headers={f"x-h{i}": "a" * 4000 for i in range(100)})
            assert many.status_code == 431
            assert http.get("/").headers["x-frame-options"] == "DENY"
        # The loop was never held past a second (the watchdog's samples, from its metric).
        assert lag_over_one_second(metrics_port) == 0
    finally:
        done.set()
        prober.join()
        assert system.stop() == 0
    assert probes and set(probes) == {200}, probes[-5:]
    text = log.read_text()
    assert "event_loop.stalled" not in text
    longest = max(len(line) for line in text.splitlines())
    assert longest <= MAX_LINE_CHARS, longest
    for line in text.splitlines():
        if line.startswith("{") and '"exception"' in line:
            assert '"locals"' not in line or all(
                frame.get("locals") is None for e in json.loads(line)["exception"] for frame in e["frames"]
            )
