"""An agent run survives a SIGKILL of its executor: each process separate, the model a scripted
OpenAI-compatible server in the test, whose requests are the bill.

Turn 1 (add a todo) is decided and executed; the executor is killed while the model is thinking
about turn 2. The restarted executor resumes the run: turn 1 is neither asked again nor executed
twice, and turn 2 is asked again (it was never decided)."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from agentrt.client import Client
from agentrt.core.values import value_to_py
from agentrt.v1 import agent_pb2, run_pb2
from tests.e2e.procs import free_ports, serve, service_env, wait_for
from tests.scripted_llm import Reply, ScriptedLLM

pytestmark = pytest.mark.e2e


def test_a_sigkilled_executor_never_asks_a_decided_turn_again(tmp_path: Path) -> None:
    llm = ScriptedLLM()

    def model(request: dict[str, object]) -> Reply:
        messages = request["messages"]  # type: ignore[index]
        if len(messages) == 2:  # type: ignore[arg-type]
            return Reply(calls=[("todo_store", {"action": "add", "text": "survive a kill"})])
        return Reply(content="Added 'survive a kill'.")

    llm.script = model
    llm.start_in_thread()
    ports = dict(zip(("executor", "planner", "tools"), free_ports(3), strict=True))
    # The model's add runs unasked: this is about a decided turn surviving a kill, not approvals.
    env = service_env(
        tmp_path / "data",
        ports,
        AGENTRT_LLM_MODELS=json.dumps([llm.model()]),
        AGENTRT_APPROVAL_POLICY="never",
    )
    processes: list[subprocess.Popen[bytes]] = []
    try:
        processes.append(serve("tools", env, tmp_path / "tools.log", ports["tools"]))
        processes.append(serve("planner", env, tmp_path / "planner.log", ports["planner"]))
        executor = serve("executor", env, tmp_path / "executor-1.log", ports["executor"])
        target = f"127.0.0.1:{ports['executor']}"
        # Turn 1 is answered at once; turn 2 waits: the model is "thinking" when the kill lands.
        llm.hold_if = lambda request: len(request["messages"]) > 2  # type: ignore[arg-type]
        llm.hold_replies()
        with Client(target) as client:
            run_id = client.create_run("add a todo: survive a kill", mode=agent_pb2.RUN_MODE_AGENT).run_id
            wait_for(lambda: len(llm.requests) == 2, "the question for turn 2")
            assert client.get_run(run_id).steps[0].status == run_pb2.STEP_STATUS_SUCCEEDED
            executor.send_signal(signal.SIGKILL)
            executor.wait()
        executor = serve("executor", env, tmp_path / "executor-2.log", ports["executor"])
        processes.append(executor)
        llm.release()
        with Client(target) as client:
            events = list(client.watch(run_id))
            run = client.get_run(run_id)
            listing = client.create_run("show my todos", mode=agent_pb2.RUN_MODE_PLAN)
            list(client.watch(listing.run_id))
            todos = value_to_py(client.get_run(listing.run_id).result)["todos"]
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=15)
        llm.stop_thread()
    assert run.status == run_pb2.RUN_STATUS_SUCCEEDED, run.error.message
    assert run.answer == "Added 'survive a kill'."
    stored = [e for e in events if not e.transient]
    assert [e.seq for e in stored] == list(range(1, len(stored) + 1))
    first_turn = [r for r in llm.requests if len(r["messages"]) == 2]
    assert len(first_turn) == 1, "a decided turn was asked again after the SIGKILL"
    assert len(llm.requests) == 3  # turn 1, turn 2 (killed mid-call), turn 2 again
    assert [t["text"] for t in todos] == ["survive a kill"]
    assert [t.index for t in run.turns] == [1, 2]
