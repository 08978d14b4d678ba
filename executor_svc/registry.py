"""The runs this replica is driving: one `ActiveRun` record each (its lease, its driver task, its
last save), added when a run is created or claimed and removed in one place when its driver
ends. A driver (the run kernel, executor_svc/run/) takes the run from where it is stored to its
end, saving its transitions through the Recorder.

Replicas share the runs through leases (leases.py): the keeper renews ours and claims runs whose
lease lapsed or was released (or a thread's queued turn whose time came), calling back here to
start or stop their drivers.
"""

from __future__ import annotations

import asyncio

import structlog

from agentrt.config import ExecutorSettings
from agentrt.v1 import run_pb2, tool_service_pb2_grpc
from executor_svc import metrics
from executor_svc.hub import EventHub
from executor_svc.leases import Claim, Lease, LeaseKeeper
from executor_svc.run.context import Kernel
from executor_svc.run.driver import RunDriver
from executor_svc.run.planning import Planning
from executor_svc.run.recorder import ActiveRun, Recorder
from executor_svc.store import RunStore

log = structlog.get_logger("executor_svc.registry")


class ActiveRuns:
    def __init__(
        self,
        store: RunStore,
        *,
        hub: EventHub,
        planning: Planning,
        recorder: Recorder,
        tools: tool_service_pb2_grpc.ToolServiceStub,
        settings: ExecutorSettings,
    ) -> None:
        self._hub = hub
        self._runs: dict[str, ActiveRun] = {}  # runs this replica is driving
        self._keeper = LeaseKeeper(
            store.leases,
            settings.run_lease_ttl_s,
            held=self._holding,
            room=lambda: settings.max_active_runs - len(self._runs),
            claimed=self._claimed,
            lost=self._lease_not_renewed,
        )
        self._kernel = Kernel(
            store,
            recorder,
            planning,
            tools,
            hub,
            settings,
            self.lose,
            self.claim_soon,
        )

    @property
    def replica(self) -> str:
        """This replica's name (the lease owner it writes as)."""
        return self._keeper.owner

    def _holding(self) -> dict[str, Lease]:
        """The leases this replica holds: its runs' but those a committed save released, whose
        drivers are finishing (a renewal would find them gone and call them lost)."""
        return {r: a.lease for r, a in self._runs.items() if not a.released}

    def get(self, run_id: str) -> ActiveRun | None:
        return self._runs.get(run_id)

    async def take_over(self, run_id: str, statuses: frozenset[int]) -> ActiveRun | None:
        """Lease a run this replica is not driving (CancelRun, RetryRun, a decision) if its status
        is one of `statuses`: from here on nobody else can write it. None if it is not in them."""
        lease = await self._keeper.take_over(run_id, statuses)
        if lease is None:
            return None
        self._hub.forget(run_id)
        return ActiveRun(run_id, lease)

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self, owner: str) -> None:
        """Become replica `owner`: take back its runs and any unleased ones, then keep leases."""
        await self._keeper.start(owner)

    async def close(self) -> None:
        """Stop driving runs without changing their stored state, and release their leases so
        another replica (or this one, restarted) resumes them at once."""
        await self._keeper.close()
        held = self._holding()
        tasks = [a.task for a in self._runs.values() if a.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._keeper.release(held)

    def claim_soon(self) -> None:
        """Look for claimable runs now rather than at the next renewal (leases were released)."""
        self._keeper.claim_soon()

    def on_remote_write(self, run_id: str, writer: str) -> None:
        """Replica `writer` saved events of `run_id` (a database notification)."""
        if writer == self._keeper.owner:
            return  # our own write, already published locally
        if run_id in self._runs:
            # Writes are fenced: another replica writing this run means it holds a newer lease.
            self.lose(run_id)
        # Every time, even after the loss: an event our driver published late must not linger.
        self._hub.forget(run_id)

    # -- drivers ----------------------------------------------------------------------

    def drive(self, active: ActiveRun, run: run_pb2.Run | None = None) -> None:
        """Drive `active`'s run; `run` is its current state when the caller holds it (a run just
        created), else the driver reads it from the store."""
        self._runs[active.run_id] = active
        driver = RunDriver(active, run, self._kernel)
        active.task = asyncio.create_task(self._until_done(active, driver), name=f"run-{active.run_id}")

    async def _until_done(self, active: ActiveRun, driver: RunDriver) -> None:
        try:
            await driver.drive()
        finally:
            # The one place a run leaves the registry.
            if self._runs.get(active.run_id) is active:
                del self._runs[active.run_id]

    def _claimed(self, run_id: str, claim: Claim) -> None:
        self._hub.forget(run_id)  # another replica may have written it since we last did
        active = self._runs.get(run_id)
        if active is not None:
            # Our own lease had lapsed (we stalled) and nobody else took the run: carry on
            # driving it under the new epoch.
            active.lease = claim.lease
            return
        metrics.LEASE_CLAIMS.labels("takeover" if claim.takeover else "resume").inc()
        log.info("run.claimed", run_id=run_id, takeover=claim.takeover, epoch=claim.lease.epoch)
        self.drive(ActiveRun(run_id, claim.lease))

    def _lease_not_renewed(self, run_id: str, lease: Lease) -> None:
        active = self._runs.get(run_id)
        # (A renewal that waited for its transaction may find a lease its run gave up meanwhile.)
        if active is not None and active.lease == lease and not active.released:
            self.lose(run_id)

    def lose(self, run_id: str) -> None:
        active = self._runs.get(run_id)
        if active is None or active.task is None or active.lost:
            return
        active.lost = True
        metrics.LEASES_LOST.inc()
        log.warning("run.lease_lost", run_id=run_id)
        if active.task is not asyncio.current_task():  # the driver itself found out: it just returns
            active.task.cancel()
        self._hub.forget(run_id)
