"""A run planned by a real local model, end to end: gateway -> executor -> planner -> litellm ->
llama.cpp's server (xllamacpp) on 127.0.0.1 serving Qwen2.5-Coder-0.5B-Instruct from PyPI."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agentrt.cli import local_model
from tests.e2e.procs import BIN, free_ports, start_system

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def model_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    try:
        # The small model: the suite tests the path through a real model, not its judgement.
        local_model.fetch(local_model.QWEN_05B, log=lambda *_: None)
    except local_model.ModelUnavailable as exc:
        pytest.skip(f"the local model cannot be downloaded here: {exc}")
    port = free_ports(1)[0]
    log = tmp_path_factory.mktemp("model") / "model.log"
    with log.open("ab") as out:
        server = subprocess.Popen(
            [str(BIN / "agentrt"), "model", "serve", "--port", str(port), "--size", "0.5b"],
            stdout=out,
            stderr=out,
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
                    if json.load(response).get("status") == "ok":
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the model server did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_real_model_plans_a_run_that_succeeds(model_api: str, tmp_path: Path) -> None:
    models = [{"model": "openai/local", "api_base": model_api, "response_format": "json_schema"}]
    system = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
        AGENTRT_PLANNER_CHAIN='["llm", "rules"]',
        AGENTRT_LLM_MODELS=json.dumps(models),
        # A 0.5B model on two loaded cores: about a minute a plan alone, more beside the other
        # test worker; the budgets are the machine's, not what is under test.
        AGENTRT_LLM_TIMEOUT_S="240",
        AGENTRT_PLANNER_TIMEOUT_S="500",
    )
    try:
        with httpx.Client(base_url=system.http, timeout=600) as client:
            # Greedy decoding (temperature 0) on a prompt the 0.5B model planned right in every
            # evaluation run; the point is the path (LLM plan -> validation -> execution), not
            # how clever a tiny model is.
            prompt = "calculate (10 + 5) * 2"
            run = client.post("/v1/runs", json={"prompt": prompt, "mode": "RUN_MODE_PLAN"}).json()["run"]
            with client.stream("GET", f"/v1/runs/{run['runId']}/events") as events:
                for _ in events.iter_lines():
                    pass  # until the stream ends after the terminal event
            final = client.get(f"/v1/runs/{run['runId']}").json()["run"]
    finally:
        system.stop()
    plan = final["plan"]
    assert final["status"] == "RUN_STATUS_SUCCEEDED", final.get("error")
    assert plan["planner"] == "llm", f"the LLM did not produce the plan: {plan.get('attempts')}"
    assert all(s["status"] == "STEP_STATUS_SUCCEEDED" for s in final["steps"])
    assert final["result"]["value"] == 30
    assert int(final["usage"]["llmCalls"]) >= 1 and int(final["usage"]["promptTokens"]) > 0


def test_the_real_model_drives_an_agent_run_through_the_gateway(model_api: str, tmp_path: Path) -> None:
    """Agent mode on the real local model over REST and SSE: each turn is decided by the model,
    recorded with its usage before its calls run, and the run ends with an answer or a named
    reason. The path is under test, not a 0.5B model's judgement: budgets keep it short."""
    models = [
        {
            "model": "openai/local",
            "api_base": model_api,
            "response_format": "json_schema",
            "tool_calling": "json",
        }
    ]
    system = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
        AGENTRT_LLM_MODELS=json.dumps(models),
        AGENTRT_LLM_TIMEOUT_S="240",
        AGENTRT_PLANNER_TIMEOUT_S="500",
        # Whatever the small model calls runs: a held write would keep the stream open.
        AGENTRT_APPROVAL_POLICY="never",
    )
    try:
        with httpx.Client(base_url=system.http, timeout=600) as client:
            body = {
                "prompt": "use the calculator to work out 6 * 7",
                "mode": "RUN_MODE_AGENT",
                "budgets": {"maxTurns": 3},
            }
            run = client.post("/v1/runs", json=body).json()["run"]
            events = []
            with client.stream("GET", f"/v1/runs/{run['runId']}/events") as stream:
                for line in stream.iter_lines():
                    if line.startswith("data:"):
                        events.append(json.loads(line.removeprefix("data:")))
            final = client.get(f"/v1/runs/{run['runId']}").json()["run"]
    finally:
        system.stop()
    assert final["mode"] == "RUN_MODE_AGENT"
    stored = [e for e in events if not e.get("transient")]
    assert [int(e["seq"]) for e in stored] == list(range(1, len(stored) + 1))
    decided = [e["turnDecided"]["turn"] for e in stored if "turnDecided" in e]
    assert decided, f"no turn was decided: {final.get('error')}"
    assert all(int(t["usage"]["promptTokens"]) > 0 for t in decided)
    assert final["turns"] == decided
    called = [c["stepId"] for t in decided for c in t.get("calls", [])]
    steps = {s["stepId"]: s for s in final.get("steps", [])}
    assert set(called) == set(steps)
    assert all(s["status"] in ("STEP_STATUS_SUCCEEDED", "STEP_STATUS_FAILED") for s in steps.values())
    if final["status"] == "RUN_STATUS_SUCCEEDED":
        assert final["answer"]
    else:
        assert final["error"]["reason"] in ("BUDGET_EXCEEDED", "REFUSED", "INVALID_DECISION"), final["error"]
