"""Which executor replica a gateway call goes to.

Any replica can answer any call (they share the store), but not at the same cost: the replica
that created a run drives it and holds its latest events in memory, so its WatchRun streams
them as they are committed, while another replica re-reads the store at every NOTIFY of the
run (bench/scaleout.py measured each executor spending 8-10 ms of CPU per run of *all* runs
when watches landed anywhere). So when the executor address is a fixed list of several replicas
(`ipv4:10.0.0.5:50052,10.0.0.6:50052`), the gateway keeps a channel per replica, sends
CreateRun to the next ready one itself, remembers which replica drives each run (the one that
created it, or that took it over by serving a RetryRun or an approval decision; the newest RECENT
runs), and sends that run's calls there while that replica is ready.

Anything else falls back to the channel balanced over every replica (gRPC round_robin): a DNS
name (`dns:///executor_svc:50052`), whose replicas the gateway cannot address one by one; a run
it did not create or forgot; a replica that is not ready (down, restarting: the call must not
wait for it). A run whose lease moved since is still answered correctly by its first replica,
from the store, as any replica would. A replica that was ready but answers UNAVAILABLE (it went
away since) has the call sent once more through the balanced channel (edge.py).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

import grpc

from agentrt.server import localcalls
from agentrt.v1 import run_pb2_grpc

RECENT = 10_000  # runs whose driving replica is remembered (~100 bytes each)


class Replica:
    def __init__(self, target: str, interceptors: list[grpc.aio.ClientInterceptor] | None = None) -> None:
        self.channel = localcalls.channel(target, interceptors=interceptors)
        self.stub = run_pb2_grpc.RunServiceStub(self.channel)

    def ready(self) -> bool:
        # try_to_connect: an idle channel (none used yet, or idle for long) starts connecting,
        # and is used once connected; until then the balanced channel serves.
        return self.channel.get_state(try_to_connect=True) == grpc.ChannelConnectivity.READY


def replica_targets(target: str) -> list[str]:
    """One target per replica of a fixed multi-address target (`ipv4:a:1,b:2`, `ipv6:[::1]:1,...`);
    empty for a single address or a name (resolved by gRPC, so not addressable one by one)."""
    scheme, _, addresses = target.partition(":")
    if scheme not in ("ipv4", "ipv6") or "," not in addresses:
        return []
    return [f"{scheme}:{address.strip()}" for address in addresses.split(",") if address.strip()]


class Executors:
    def __init__(self, target: str, interceptors: list[grpc.aio.ClientInterceptor] | None = None) -> None:
        self.channel = localcalls.channel(target, interceptors=interceptors)  # balanced over every replica
        self.balanced = run_pb2_grpc.RunServiceStub(self.channel)
        self._replicas = [Replica(t, interceptors) for t in replica_targets(target)]
        self._turn = itertools.cycle(self._replicas)
        self._driver: OrderedDict[str, Replica] = OrderedDict()

    def for_create(self) -> Replica | None:
        """The replica for a CreateRun: the next ready one; None: use `balanced`."""
        for _ in self._replicas:
            replica = next(self._turn)
            if replica.ready():
                return replica
        return None

    def drives(self, run_id: str, replica: Replica | None) -> None:
        """`replica` drives `run_id` from now on: it created the run, or took it over by serving
        a RetryRun or a decision. None (served through the balanced channel): not known."""
        if replica is None:
            self._driver.pop(run_id, None)
            return
        self._driver[run_id] = replica
        self._driver.move_to_end(run_id)
        while len(self._driver) > RECENT:
            self._driver.popitem(last=False)

    def for_run(self, run_id: str) -> Replica | None:
        """The replica for a call about `run_id`: the one driving it, while it is ready; None:
        use `balanced`."""
        replica = self._driver.get(run_id)
        return replica if replica is not None and replica.ready() else None

    def stub_for(self, run_id: str) -> run_pb2_grpc.RunServiceStub:
        replica = self.for_run(run_id)
        return replica.stub if replica is not None else self.balanced

    async def close(self) -> None:
        for replica in self._replicas:
            await replica.channel.close()
        await self.channel.close()
