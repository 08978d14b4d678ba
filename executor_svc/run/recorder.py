"""One record per run this executor is driving, and how its transitions are saved."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from agentrt.v1 import run_pb2
from executor_svc.groupcommit import GroupCommit, releases
from executor_svc.hub import EventHub
from executor_svc.leases import Lease
from executor_svc.run.transitions import Payload, stamp


@dataclass(eq=False)
class ActiveRun:
    """A run this replica holds the lease of: driven by `task`, or written once by a CancelRun
    or RetryRun of a run nobody here was driving (then `task` is None)."""

    run_id: str
    lease: Lease
    task: asyncio.Task[None] | None = None
    # The run's latest save, until its task ends: a save not awaited (Recorder.pipeline) that
    # failed must stop the next one being queued.
    last_save: asyncio.Future[None] | None = None
    lost: bool = False  # the lease went elsewhere: the task is being stopped
    # The save giving the lease up (the run ended, or waits for an approval), once queued.
    release: asyncio.Future[None] | None = None
    cancel_requested: bool = False  # CancelRun cancelled the task: record CANCELLED

    @property
    def released(self) -> bool:
        """Whether a committed save gave the lease up: no renewal looks for it any more while the
        task finishes (it would find it gone: "lost"). Known from the moment the save's future is
        done, before its callbacks run or the task resumes (a renewal may come in between)."""
        release = self.release
        return release is not None and release.done() and not release.cancelled() and not release.exception()


class Recorder:
    """Saves a run with the events of its transitions (group commit) and publishes the events
    on the hub once they are committed."""

    def __init__(self, commits: GroupCommit, hub: EventHub) -> None:
        self._commits = commits
        self._hub = hub

    async def commit(self, active: ActiveRun, run: run_pb2.Run, *payloads: Payload) -> None:
        """Save and wait: when this returns the transition is durable and published. Every save
        is a commit except the two `pipeline` names."""
        await self.save(active, run, *payloads)

    def pipeline(self, active: ActiveRun, run: run_pb2.Run, *payloads: Payload) -> None:
        """Queue the save and go on while it commits. Only where a crash before it commits loses
        nothing, and the work it announces may start at once; there are three:
        - PLANNING (driver.py): planning has no side effect, a crash repeats it;
        - a step's attempt starting (steps.py): the tool call carries the step's idempotency key,
          so a crash repeats the call and tools_svc answers with the recorded output;
        - the success of a plan step no other step depends on (steps.py): no call starts from
          its output, and a crash leaves it in flight as stored, its call repeated with its key;
          the run's end, awaited, usually shares its transaction, and a run never reports its
          end before every step's result is stored.
        Safe because a run's saves commit in call order and a failed save fails those queued
        after it: the next commit answers for this one."""
        self.save(active, run, *payloads)

    def save(self, active: ActiveRun, run: run_pb2.Run, *payloads: Payload) -> asyncio.Future[None]:
        """Queue the save and return its future at once (`commit` awaits it; `pipeline` does not)."""
        previous = active.last_save
        if previous is not None and previous.done() and not previous.cancelled() and previous.exception():
            raise previous.exception()  # type: ignore[misc]
        # Seq numbers are assigned and the snapshot taken synchronously here (the save is queued
        # at the call), so concurrent steps of one run still produce 1, 2, 3 ... in order.
        events = stamp(run, payloads)
        saved = self._commits.save(run, events, active.lease)
        active.last_save = saved
        if releases(run.status):
            active.release = saved
        run_id = run.run_id
        hub = self._hub

        def published(future: asyncio.Future[None]) -> None:
            # exception() also marks a failure retrieved when nobody awaits this save.
            if not future.cancelled() and future.exception() is None:
                hub.publish(run_id, events)

        saved.add_done_callback(published)
        return saved
