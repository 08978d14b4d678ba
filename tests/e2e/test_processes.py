"""End to end: `agentrt up` starts the four services, in one process and (--split) as separate
processes; we drive them with the `agentrt` CLI and with grpcurl (reflection only, no proto
files), then stop with SIGTERM."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.procs import SERVICES, TOPOLOGIES, System, free_ports, port_open, start_system
from tests.keys import key_for

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", params=TOPOLOGIES)
def system(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[System]:
    base = tmp_path_factory.mktemp("e2e")
    running = start_system(base / "data", base / "up.log", topology=request.param)
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


def test_cli_run_streams_both_steps_and_succeeds(system: System) -> None:
    result = system.agentrt("run", "Add a todo to buy milk, then show me all my tasks")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for expected in (
        "plan by rules, 2 step(s):",
        "s1 todo_store running (attempt 1)",
        "s1 todo_store succeeded",
        "s2 todo_store succeeded",
        "run succeeded",
        '"text": "buy milk"',
    ):
        assert expected in out, out
    lines = out.splitlines()
    assert lines.index(next(x for x in lines if "s1 todo_store succeeded" in x)) < lines.index(
        next(x for x in lines if "s2 todo_store running" in x)
    )


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("divide 1 by 0", "division by zero"),
        ("book a flight to Rome", "no rule understands 'book a flight to Rome'"),
    ],
)
def test_cli_exit_code_is_nonzero_when_the_run_fails(system: System, prompt: str, message: str) -> None:
    result = system.agentrt("run", prompt)
    assert result.returncode == 1
    assert "run failed" in result.stdout and message in result.stdout


def test_cli_reports_bad_input_clearly(system: System) -> None:
    result = system.agentrt("run", "   ")
    assert result.returncode == 2
    assert "INVALID_ARGUMENT" in result.stderr and "prompt: must not be empty" in result.stderr


def test_grpcurl_creates_and_watches_a_run_through_reflection(system: System) -> None:
    listed = system.grpcurl(system.target, "list")
    assert listed.returncode == 0, listed.stderr
    assert "agentrt.v1.RunService" in listed.stdout.split()
    described = system.grpcurl(system.target, "describe", "agentrt.v1.RunService.WatchRun")
    assert "returns ( stream .agentrt.v1.WatchRunResponse )" in described.stdout, described.stderr

    created = system.grpcurl(
        "-d", '{"prompt": "Calculate (41 * 7) + 13"}', system.target, "agentrt.v1.RunService/CreateRun"
    )
    assert created.returncode == 0, created.stderr
    run = json.loads(created.stdout)["run"]
    assert run["status"] == "RUN_STATUS_PENDING"

    watched = system.grpcurl(
        "-d", json.dumps({"run_id": run["run_id"]}), system.target, "agentrt.v1.RunService/WatchRun"
    )
    assert watched.returncode == 0, watched.stderr
    events = list(_json_stream(watched.stdout))
    assert [int(e["event"]["seq"]) for e in events] == list(range(1, len(events) + 1))
    final = events[-1]["event"]["status_changed"]
    assert final["status"] == "RUN_STATUS_SUCCEEDED"
    assert final["result"]["value"] == 300


def test_a_thread_understands_follow_ups_over_grpcurl_and_rest(system: System) -> None:
    """The issue's "done when", against `agentrt up` with no LLM: "mark it as done" marks the
    todo the turn before added; "add that as a todo" adds the result."""

    def say_grpc(thread_id: str, prompt: str) -> dict[str, object]:
        request = json.dumps({"prompt": prompt, "thread_id": thread_id})
        created = system.grpcurl("-d", request, system.target, "agentrt.v1.RunService/CreateRun")
        assert created.returncode == 0, created.stderr
        run_id = json.loads(created.stdout)["run"]["run_id"]
        watch = json.dumps({"run_id": run_id})
        assert system.grpcurl("-d", watch, system.target, "agentrt.v1.RunService/WatchRun").returncode == 0
        got = system.grpcurl("-d", watch, system.target, "agentrt.v1.RunService/GetRun")
        return json.loads(got.stdout)["run"]  # type: ignore[no-any-return]

    made = system.grpcurl("-d", "{}", system.target, "agentrt.v1.RunService/CreateThread")
    thread_id = json.loads(made.stdout)["thread"]["thread_id"]
    added = say_grpc(thread_id, "add buy oat milk to my todo list")
    done = say_grpc(thread_id, "mark it as done")
    assert done["status"] == "RUN_STATUS_SUCCEEDED", done
    todo_id = added["steps"][0]["output"]["todo"]["id"]  # type: ignore[index]
    assert done["answer"] == f"Reading 'it' as #{todo_id} 'buy oat milk': Marked 'buy oat milk' as done."
    assert done["steps"][0]["arguments"]["id"] == added["steps"][0]["output"]["todo"]["id"]  # type: ignore[index]
    assert say_grpc(thread_id, "what is 12 times 4")["answer"] == "12 * 4 = 48"
    todo = say_grpc(thread_id, "add that as a todo")
    assert todo["status"] == "RUN_STATUS_SUCCEEDED" and "48" in str(todo["answer"])

    with httpx.Client(base_url=system.http, timeout=30) as http:
        thread_id = http.post("/v1/threads", json={}).json()["thread"]["threadId"]

        def say_rest(prompt: str) -> dict[str, object]:
            run = http.post(f"/v1/threads/{thread_id}/runs", json={"prompt": prompt}).json()["run"]
            with http.stream("GET", f"/v1/runs/{run['runId']}/events") as events:
                for _ in events.iter_lines():
                    pass  # the stream ends with the run
            return http.get(f"/v1/runs/{run['runId']}").json()["run"]  # type: ignore[no-any-return]

        said = say_rest("add buy rye bread to my todo list")
        rye = said["steps"][0]["output"]["todo"]["id"]  # type: ignore[index]
        assert (
            say_rest("mark it as done")["answer"]
            == f"Reading 'it' as #{rye} 'buy rye bread': Marked 'buy rye bread' as done."
        )
        say_rest("what is 12 times 4")
        assert "48" in str(say_rest("add that as a todo")["answer"])
        turns = http.get(f"/v1/threads/{thread_id}").json()["thread"]["turns"]
        assert [t["turn"] for t in turns] == [1, 2, 3, 4]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_sigterm_stops_everything_and_data_survives_a_restart(tmp_path: Path, topology: str) -> None:
    first = start_system(tmp_path / "data", tmp_path / "up1.log", topology=topology)
    assert first.agentrt("run", "add a todo to water the plants").returncode == 0
    ports = list(first.ports.values())
    assert first.stop() == 0
    assert not any(port_open(p) for p in ports), "a service is still listening after agentrt up stopped"
    log = (tmp_path / "up1.log").read_text()
    for name in SERVICES:
        assert f'"service": "{name}", "event": "server.stopped"' in log, log

    second = start_system(tmp_path / "data", tmp_path / "up2.log", ports, topology=topology)
    try:
        listed = second.agentrt("run", "show me all my tasks")
        assert listed.returncode == 0, listed.stdout + listed.stderr
        assert '"text": "water the plants"' in listed.stdout
        history = second.agentrt("list")
        assert "add a todo to water the plants" in history.stdout
    finally:
        second.stop()


def _json_stream(text: str) -> Iterator[dict]:
    decoder, index = json.JSONDecoder(), 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return
        obj, index = decoder.raw_decode(text, index)
        yield obj


def test_cli_sends_the_api_key_when_the_gateway_requires_one(tmp_path: Path) -> None:
    guarded = start_system(
        tmp_path / "data", tmp_path / "up.log", AGENTRT_API_KEYS=json.dumps({"ci": key_for("ci")})
    )
    try:
        refused = guarded.agentrt("run", "add 1 and 2")
        assert refused.returncode == 2
        assert "UNAUTHENTICATED" in refused.stderr
        allowed = guarded.agentrt("run", "add 1 and 2", "--api-key", key_for("ci"))
        assert allowed.returncode == 0, allowed.stdout + allowed.stderr
        assert '"value": 3' in allowed.stdout
    finally:
        guarded.stop()


def test_every_service_serves_prometheus_metrics(tmp_path: Path) -> None:
    ports = free_ports(4)
    metrics = dict(zip(SERVICES, ports, strict=True))
    env = {f"AGENTRT_{name.upper()}_METRICS_PORT": str(port) for name, port in metrics.items()}
    system = start_system(tmp_path / "data", tmp_path / "up.log", **env)
    try:
        assert system.agentrt("run", "calculate 2+2").returncode == 0
        scraped = {name: httpx.get(f"http://127.0.0.1:{port}/metrics").text for name, port in metrics.items()}
    finally:
        system.stop()
    assert 'agentrt_runs_total{status="succeeded"} 1.0' in scraped["executor"]
    assert 'agentrt_tool_invocations_total{outcome="OK",tool="calculator"} 1.0' in scraped["tools"]
    assert 'agentrt_planner_duration_seconds_count{outcome="ok",planner="rules"} 1.0' in scraped["planner"]
    assert 'method="/agentrt.v1.RunService/CreateRun"' in scraped["gateway"]
    # Each service exports its own metrics only (and the process's).
    own = {
        "executor": "agentrt_runs_active",
        "tools": "agentrt_tool_invocations",
        "planner": "agentrt_llm_cost",
    }
    for name, text in scraped.items():
        assert "process_resident_memory_bytes" in text
        for owner, metric in own.items():
            assert (metric in text) == (name == owner), (name, metric)
