"""Two users of one `agentrt up` (separate processes, as a deployment runs): each sees only their
own runs and todos through the CLI, the internal ports refuse calls without the credential `up`
made for its services, and no process writes a key to its log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.procs import start_system
from tests.keys import key_for

pytestmark = pytest.mark.e2e

KEYS = {
    "alice": key_for("alice"),
    "bob": key_for("bob"),
    "root": {"key": key_for("root"), "roles": ["admin"]},
}


def test_two_users_of_one_system_through_the_cli(tmp_path: Path) -> None:
    system = start_system(tmp_path / "data", tmp_path / "up.log", AGENTRT_API_KEYS=json.dumps(KEYS))
    try:

        def cli(who: str, *args: str) -> tuple[int, str]:
            key = KEYS[who] if isinstance(KEYS[who], str) else KEYS[who]["key"]  # type: ignore[index]
            done = system.agentrt(*args, "--api-key", str(key))
            return done.returncode, done.stdout + done.stderr

        code, out = cli("alice", "run", "add a todo to buy milk", "--json")
        assert code == 0, out
        run_id = json.loads(out.splitlines()[0])["runId"]
        # A prompt quoting a key: the failed run's error is logged by several services.
        # (root's: bob's has "u8n8" in it, which the rule planner would echo as "you8and8")
        code, out = cli("alice", "run", f"book a flight with {key_for('root')}")
        assert code == 1 and key_for("root") in out, out  # alice's own words, echoed to her
        code, out = cli("bob", "run", "what's on my list")
        assert code == 0 and "Your todo list is empty." in out, out
        code, out = cli("bob", "get", run_id)
        assert code == 2 and "NOT_FOUND" in out and "run " + run_id + " not found" in out, out
        code, out = cli("bob", "cancel", run_id)
        assert code == 2 and "NOT_FOUND" in out, out
        code, out = cli("bob", "watch", run_id)
        assert code == 2 and "NOT_FOUND" in out, out
        refused = system.agentrt("list", "--api-key", "not-a-key")
        assert refused.returncode == 2 and "UNAUTHENTICATED" in refused.stderr, refused.stderr
        code, out = cli("bob", "list")
        assert run_id not in out, out
        code, out = cli("alice", "list")
        assert code == 0 and run_id in out, out
        code, out = cli("bob", "list", "--owner", "alice")
        assert code == 2 and "PERMISSION_DENIED" in out, out
        code, out = cli("root", "list", "--owner", "*")
        assert code == 0 and run_id in out, out

        # Straight to an internal port, naming a principal: refused without the credential.
        for name, method in (
            ("executor", "agentrt.v1.RunService/ListRuns"),
            ("planner", "agentrt.v1.PlannerService/CreatePlan"),
            ("tools", "agentrt.v1.ToolService/ListTools"),
        ):
            answer = system.grpcurl(
                "-H", "agentrt-principal: root", "-H", "agentrt-roles: admin",
                "-d", "{}", f"127.0.0.1:{system.ports[name]}", method,
            )  # fmt: skip
            assert answer.returncode != 0 and "Unauthenticated" in answer.stderr, answer.stderr
            health = system.grpcurl(f"127.0.0.1:{system.ports[name]}", "grpc.health.v1.Health/Check")
            assert health.returncode == 0 and "SERVING" in health.stdout, health.stderr
    finally:
        assert system.stop() == 0
    log = system.log.read_text()
    for key in (key_for("alice"), key_for("bob"), key_for("root")):
        assert key not in log
    # Every call through the gateway left an audit line naming its principal.
    audit = [json.loads(line) for line in log.splitlines() if line.startswith("{") and '"call"' in line]
    calls = [a for a in audit if a.get("event") == "call"]
    assert {(a.get("principal"), a["rpc"], a["code"]) for a in calls} >= {
        ("alice", "CreateRun", "OK"),
        ("bob", "GetRun", "NOT_FOUND"),
        ("bob", "CancelRun", "NOT_FOUND"),
        ("bob", "WatchRun", "NOT_FOUND"),
        ("bob", "ListRuns", "OK"),
    }
    # A refused key has no principal: its line names the client's address.
    assert {(a.get("address"), a["rpc"], a["code"]) for a in calls} >= {
        ("127.0.0.1", "ListRuns", "UNAUTHENTICATED")
    }
