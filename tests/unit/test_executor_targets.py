"""Which executor targets the gateway can address replica by replica (gateway/executors.py)."""

import pytest

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
