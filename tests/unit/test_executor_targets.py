"""Which executor replica the gateway sends a call to (gateway/executors.py)."""

import pytest

from gateway import executors
from gateway.executors import replica_targets


@pytest.mark.parametrize(
    ("target", "replicas"),
    [
        ("ipv4:10.0.0.5:50052,10.0.0.6:50052", ["ipv4:10.0.0.5:50052", "ipv4:10.0.0.6:50052"]),
        ("ipv4:10.0.0.5:1, 10.0.0.6:2,", ["ipv4:10.0.0.5:1", "ipv4:10.0.0.6:2"]),
        ("ipv6:[::1]:50052,[::1]:50053", ["ipv6:[::1]:50052", "ipv6:[::1]:50053"]),
        # One address, or names gRPC resolves (the replicas behind them are not known here).
        ("ipv4:10.0.0.5:50052", []),
        ("127.0.0.1:50052", []),
        ("dns:///executor_svc:50052", []),
        ("executor_svc:50052", []),
        ("unix:/run/agentrt.sock", []),
    ],
)
def test_replica_targets(target: str, replicas: list[str]) -> None:
    assert replica_targets(target) == replicas


async def test_a_runs_calls_follow_the_replica_that_drives_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(executors.Replica, "ready", lambda self: True)
    monkeypatch.setattr(executors, "RECENT", 2)
    pool = executors.Executors("ipv4:127.0.0.1:1,127.0.0.1:2")
    try:
        first, second = pool.for_create(), pool.for_create()
        assert first is not None and second is not None and first is not second  # in turn
        pool.drives("r1", first)
        assert pool.for_run("r1") is first
        assert pool.stub_for("r1") is first.stub
        pool.drives("r1", second)  # a RetryRun or a decision served there: it drives now
        assert pool.for_run("r1") is second
        pool.drives("r1", None)  # served through the balanced channel: which one is not known
        assert pool.for_run("r1") is None
        assert pool.stub_for("r1") is pool.balanced
        for run_id in ("a", "b", "c"):
            pool.drives(run_id, first)
        assert pool.for_run("a") is None  # only the newest RECENT runs are remembered
        assert pool.for_run("c") is first
        monkeypatch.setattr(executors.Replica, "ready", lambda self: False)
        assert pool.for_run("c") is None  # not ready: any replica serves it
        assert pool.for_create() is None
    finally:
        await pool.close()
