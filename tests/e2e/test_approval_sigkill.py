"""Approvals survive SIGKILL, on SQLite and on PostgreSQL, each service its own process.

A run waits for an approval; the executor is SIGKILLed while it waits, restarted, the step is
approved, and the executor is SIGKILLed again right after ApproveStep returned (the call may be in
flight). Restarted once more, the run finishes: the todo was added exactly once, after the
approval, never before it."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentrt.client import Client
from agentrt.core.values import value_to_py
from agentrt.v1 import run_pb2
from tests import pg
from tests.e2e.procs import free_ports, serve, service_env, wait_for

pytestmark = pytest.mark.e2e


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    if request.param == "sqlite":
        yield {}
        return
    name = asyncio.run(pg.new_schema())
    try:
        yield {"AGENTRT_DATABASE_URL": pg.TEST_URL, "AGENTRT_DATABASE_SCHEMA": name}
    finally:
        asyncio.run(pg.drop_schema(name))


def todos(client: Client) -> list[str]:
    listing = client.create_run("show my todos")
    list(client.watch(listing.run_id))
    return [t["text"] for t in value_to_py(client.get_run(listing.run_id).result)["todos"]]


def test_an_approved_call_runs_exactly_once_across_sigkills(tmp_path: Path, database: dict[str, str]) -> None:
    ports = dict(zip(("executor", "planner", "tools"), free_ports(3), strict=True))
    # Rule plans ask too here, so a plain "add a todo" run waits (policy "writes" for this run).
    env = service_env(tmp_path / "data", ports, AGENTRT_APPROVAL_EXEMPT_RULES="false", **database)
    processes: list[subprocess.Popen[bytes]] = []
    executor = None
    try:
        processes.append(serve("tools", env, tmp_path / "tools.log", ports["tools"]))
        processes.append(serve("planner", env, tmp_path / "planner.log", ports["planner"]))
        executor = serve("executor", env, tmp_path / "executor-1.log", ports["executor"])
        target = f"127.0.0.1:{ports['executor']}"
        with Client(target) as client:
            run_id = client.create_run("add a todo to water the plants", approval_policy="writes").run_id
            wait_for(lambda: client.get_run(run_id).status == run_pb2.RUN_STATUS_WAITING, "the run to wait")
        executor.send_signal(signal.SIGKILL)  # while it waits
        executor.wait()

        executor = serve("executor", env, tmp_path / "executor-2.log", ports["executor"])
        with Client(target) as client:
            assert client.get_run(run_id).status == run_pb2.RUN_STATUS_WAITING
            assert todos(client) == []  # never without the approval
            approved = client.approve_step(run_id, "s1")
            assert approved.status == run_pb2.RUN_STATUS_RUNNING
        executor.send_signal(signal.SIGKILL)  # right after the approval was recorded
        executor.wait()

        executor = serve("executor", env, tmp_path / "executor-3.log", ports["executor"])
        with Client(target) as client:
            events = list(client.watch(run_id))
            run = client.get_run(run_id)
            texts = todos(client)
    finally:
        if executor is not None:
            processes.append(executor)
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=15)
    assert run.status == run_pb2.RUN_STATUS_SUCCEEDED, run.error.message
    assert run.steps[0].approval.decision == run_pb2.APPROVAL_DECISION_APPROVED
    assert texts == ["water the plants"], "the approved call ran more than once, or not at all"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
