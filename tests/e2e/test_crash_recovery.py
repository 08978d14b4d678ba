"""The executor is SIGKILLed in the middle of a burst of runs, then started again."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from agentrt.client import Client, ClientError
from agentrt.core.values import value_to_py
from agentrt.v1 import run_pb2
from tests.e2e.procs import free_ports, serve, service_env, start_system

pytestmark = pytest.mark.e2e
RUNS = 30


# A burst the process may finish before the kill lands on a fast machine: tried again, larger, in
# a fresh data directory, until the kill lands mid-burst (the check needs runs in flight).
BURSTS = (RUNS, RUNS * 4, RUNS * 16)


def prompt(i: int) -> str:
    return f"add a todo to pack item {i}, then show me all my tasks"


def assert_each_run_done_once(target: str, first_ids: list[str], log: Path) -> int:
    """After the kill and a restart: every run finished, with gap-free events, each todo added
    once. How many runs the restarted process resumed (none: the kill proved nothing)."""
    runs = len(first_ids)
    with Client(target) as client:
        # Clients that were unsure whether CreateRun landed repeat it with the same key.
        again = [client.create_run(prompt(i), idempotency_key=f"item-{i}").run_id for i in range(runs)]
        assert again == first_ids
        for run_id in first_ids:
            events = list(client.watch(run_id))
            assert [e.seq for e in events] == list(range(1, len(events) + 1)), run_id
            assert events[-1].status_changed.status == run_pb2.RUN_STATUS_SUCCEEDED, run_id
            run = client.get_run(run_id)
            assert run.status == run_pb2.RUN_STATUS_SUCCEEDED, run.error.message
        listing = client.create_run("show me all my tasks")
        list(client.watch(listing.run_id))
        todos = value_to_py(client.get_run(listing.run_id).result)["todos"]
    texts = sorted(t["text"] for t in todos)
    assert texts == sorted(f"pack item {i}" for i in range(runs)), "a todo was lost or added twice"
    return log.read_text().count('"event": "run.claimed"')


def test_sigkilled_executor_resumes_runs_without_losing_or_duplicating(tmp_path: Path) -> None:
    ports = dict(zip(("executor", "planner", "tools"), free_ports(3), strict=True))
    env = service_env(tmp_path / "data", ports)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        processes.append(serve("tools", env, tmp_path / "tools.log", ports["tools"]))
        processes.append(serve("planner", env, tmp_path / "planner.log", ports["planner"]))
        executor = serve("executor", env, tmp_path / "executor-1.log", ports["executor"])
        target = f"127.0.0.1:{ports['executor']}"

        with Client(target) as client:
            first_ids = [
                client.create_run(prompt(i), idempotency_key=f"item-{i}").run_id for i in range(RUNS)
            ]
            executor.send_signal(signal.SIGKILL)  # the newest runs are pending, planning or mid-step
            executor.wait()

        executor = serve("executor", env, tmp_path / "executor-2.log", ports["executor"])
        processes.append(executor)
        resumed = assert_each_run_done_once(target, first_ids, tmp_path / "executor-2.log")
        assert resumed > 0, "the kill landed after every run had finished; the test proved nothing"
    except ClientError as err:
        pytest.fail(f"{err}")
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=15)


def test_sigkilled_one_process_system_resumes_runs_without_losing_or_duplicating(tmp_path: Path) -> None:
    """The embedded topology (`agentrt up`, one process): a SIGKILL takes the gateway, executor,
    planner and tools_svc at once, mid-burst; started again, every run finishes exactly once."""
    for attempt, runs in enumerate(BURSTS):
        if _killed_mid_burst(tmp_path / f"attempt-{attempt}", runs) > 0:
            return
    pytest.fail(f"every burst ({BURSTS}) finished before the kill landed; the test proved nothing")


def _killed_mid_burst(where: Path, runs: int) -> int:
    """One burst of `runs`, SIGKILLed right after the last was created, started again: each run
    done once (asserted), and how many the second process resumed."""
    where.mkdir(parents=True)
    first = start_system(where / "data", where / "up-1.log", topology="embedded")
    ports = list(first.ports.values())
    second = None
    try:
        with Client(first.target) as client:
            first_ids = [
                client.create_run(prompt(i), idempotency_key=f"item-{i}").run_id for i in range(runs)
            ]
            first.process.send_signal(signal.SIGKILL)  # the newest runs are pending, planning or mid-step
            first.process.wait()

        second = start_system(where / "data", where / "up-2.log", ports, topology="embedded")
        return assert_each_run_done_once(second.target, first_ids, where / "up-2.log")
    except ClientError as err:
        pytest.fail(f"{err}")
    finally:
        for system in (first, second):
            if system is not None and system.process.poll() is None:
                system.stop()
