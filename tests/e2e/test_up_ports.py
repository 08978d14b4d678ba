"""`agentrt up` on ports another program holds, or with a key that can be guessed: one clear line,
exit 1, no banner, no traceback."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from tests.e2e.procs import BIN, PORTS, free_ports, service_env, start_system
from tests.keys import key_for

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("taken", ["gateway", "http", "tools"])
def test_up_refuses_ports_in_use(tmp_path: Path, taken: str) -> None:
    port_of = dict(zip(PORTS, free_ports(len(PORTS)), strict=True))
    with socket.socket() as holder:  # another program (or another agentrt up) on that port
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.bind(("127.0.0.1", port_of[taken]))
        holder.listen(1)
        result = subprocess.run(
            [str(BIN / "agentrt"), "up"],
            env=service_env(tmp_path / "data", port_of),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 1
    assert "agentrt is up" not in result.stdout
    assert "Traceback" not in result.stderr
    line = result.stderr.strip()
    assert "\n" not in line
    assert f"port {port_of[taken]} (AGENTRT_{taken.upper()}_PORT)" in line and "in use" in line


@pytest.mark.parametrize("command", [["up"], ["serve", "gateway"]])  # all four; one, as in a cluster
def test_up_refuses_a_weak_api_key_saying_how_to_make_one(tmp_path: Path, command: list[str]) -> None:
    port_of = dict(zip(PORTS, free_ports(len(PORTS)), strict=True))
    keys = {"ci": key_for("ci"), "alice": "alice-key-0123456789"}
    result = subprocess.run(
        [str(BIN / "agentrt"), *command],
        env=service_env(tmp_path / "data", port_of, AGENTRT_API_KEYS=json.dumps(keys)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "agentrt is up" not in result.stdout
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "agentrt: invalid configuration",
        "  AGENTRT_API_KEYS: key 'alice' is too weak: about 20 bits of entropy by agentrt's estimate, "
        "128 needed; make one with `agentrt keys new` "
        '(or python -c "import secrets; print(secrets.token_urlsafe(32))")',
    ]
    made = subprocess.run([str(BIN / "agentrt"), "keys", "new"], capture_output=True, text=True, check=True)
    (key,) = made.stdout.split()
    assert len(key) == 43 and key != key_for("alice")


def test_the_banner_says_where_metrics_are_and_whether_keys_are_on(tmp_path: Path) -> None:
    key = key_for("ci")
    system = start_system(tmp_path / "data", tmp_path / "up.log", AGENTRT_API_KEYS=json.dumps({"ci": key}))
    try:
        banner = system.log.read_text()
        assert "  metrics   off" in banner  # the tests' environment turns them off
        assert "  API keys  on (1 key(s): ci); internal ports need the internal credential" in banner
        assert key not in banner
        assert "catalog.watch_interrupted" not in banner  # tools_svc starting is not an error
    finally:
        assert system.stop() == 0


def test_up_and_health_say_whether_the_model_answers(tmp_path: Path) -> None:
    """A model configured at a port nobody listens on: `agentrt up` says so in its banner and
    `agentrt health` on its own line (the gateway still SERVING: the rules work without it), and
    an agent run against it fails within seconds, naming the endpoint."""
    dead = free_ports(1)[0]
    base = f"http://127.0.0.1:{dead}/v1"
    models = f'[{{"model": "openai/local", "api_base": "{base}", "tool_calling": "json"}}]'
    system = start_system(tmp_path / "data", tmp_path / "up.log", AGENTRT_LLM_MODELS=models)
    try:
        banner = system.log.read_text()
        assert (
            f"  model     openai/local at {base}: DOES NOT ANSWER (LLM_UNREACHABLE): refused the connection"
            in banner
        )
        # No --target: the deployment this environment configures, whose planner it can ask.
        health = subprocess.run(
            [str(BIN / "agentrt"), "health"],
            capture_output=True,
            text=True,
            env=system.env,
            timeout=60,
            check=False,
        )
        assert health.returncode == 0
        assert health.stdout.splitlines()[0] == "SERVING"
        assert health.stdout.splitlines()[1].startswith(f"model: openai/local at {base}: DOES NOT ANSWER")
        run = system.agentrt("run", "--mode", "agent", "mark the buy eggs todo as done", timeout=120)
        assert run.returncode == 1
        lines = run.stdout.splitlines()
        assert sum("deciding: agent decision failed" in line and "; retry " in line for line in lines) == 3
        assert "refused the connection" in lines[-1] and base in lines[-1]
        assert "(gave up after 4 attempts in" in lines[-1]
    finally:
        assert system.stop() == 0
