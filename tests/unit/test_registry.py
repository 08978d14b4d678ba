"""The registry of runs this replica drives (executor_svc/registry.py) and its lease keeper."""

import asyncio
from collections.abc import AsyncIterator

import pytest

from agentrt.config import Settings
from agentrt.server.db import open_database
from agentrt.v1 import run_pb2
from executor_svc import metrics
from executor_svc.hub import EventHub
from executor_svc.registry import ActiveRuns
from executor_svc.run.recorder import ActiveRun, Recorder
from executor_svc.server import MIGRATIONS
from executor_svc.store import RunStore
from tests.unit.test_store import make_run

REPLICA = "replica-a"


@pytest.fixture
async def store(backend: Settings) -> AsyncIterator[RunStore]:
    opened = RunStore(await open_database(backend, "executor", MIGRATIONS))
    try:
        yield opened
    finally:
        await opened.close()


async def test_a_run_whose_last_save_released_its_lease_is_not_lost_while_its_driver_finishes(
    store: RunStore, backend: Settings
) -> None:
    """A run's last save gives its lease up. If the keeper renews between that commit and the
    driver leaving the registry (many runs end in one group commit, their tasks resume after),
    the run is not reported lost, nor its finishing driver cancelled."""
    hub = EventHub()
    recorder = Recorder(store.commits, hub)
    registry = ActiveRuns(
        store,
        hub=hub,
        planning=None,  # type: ignore[arg-type]  # no run is driven here
        recorder=recorder,
        tools=None,  # type: ignore[arg-type]
        settings=backend.executor,
    )
    await registry.start(REPLICA)
    try:
        drivers = {}
        finishing = asyncio.Event()
        for run_id, seconds in (("ended", 100), ("going", 101)):
            run, events = make_run(run_id, seconds)
            _, lease = await store.create_run(run, events, REPLICA, 30.0)
            assert lease is not None
            drivers[run_id] = active = ActiveRun(run_id, lease)
            active.task = asyncio.create_task(finishing.wait())  # a driver, not done yet
            registry._runs[run_id] = active  # what drive() does, minus the driver
            if run_id == "ended":
                ended = run
        # The run ends: its last save commits (releasing the lease), and a renewal comes before
        # the save's callbacks run or its task resumes. (The writer takes the batch first.)
        ended.status = run_pb2.RUN_STATUS_SUCCEEDED
        ended.end_time.seconds = 200
        change = run_pb2.RunStatusChanged(status=run_pb2.RUN_STATUS_SUCCEEDED)
        lost_before = metrics.LEASES_LOST._value.get()
        saved = recorder.save(drivers["ended"], ended, {"status_changed": change})
        await asyncio.create_task(registry._keeper._round())  # a renewal now, as the timer would
        assert saved.done()
        assert not drivers["ended"].lost and not drivers["ended"].task.cancelled()  # type: ignore[union-attr]
        assert not drivers["going"].lost
        assert metrics.LEASES_LOST._value.get() == lost_before
        finishing.set()
    finally:
        await registry.close()
