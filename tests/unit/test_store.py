"""The run store on both backends: SQLite files and PostgreSQL (skipped when unreachable)."""

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
import sqlalchemy as sa
from google.protobuf import timestamp_pb2
from sqlalchemy.engine import Connection

from agentrt.config import Settings
from agentrt.server.db import SqliteDatabase, open_database
from agentrt.v1 import run_pb2
from executor_svc import groupcommit
from executor_svc.groupcommit import RUN_CHANNEL
from executor_svc.hub import EventHub
from executor_svc.leases import UNFINISHED, Lease, LeaseLost
from executor_svc.run.recorder import ActiveRun, Recorder
from executor_svc.schema import runs
from executor_svc.server import MIGRATIONS
from executor_svc.store import RunStore, page_cursor_of
from tests import pg

TTL = 30.0


@pytest.fixture(params=["sqlite", "postgres"])
def store_settings(request: pytest.FixtureRequest, settings: Settings) -> Settings:
    if request.param == "postgres":
        return request.getfixturevalue("pg_settings")
    return settings


async def open_store(settings: Settings) -> RunStore:
    return RunStore(await open_database(settings, "executor", MIGRATIONS))


@pytest.fixture
async def store(store_settings: Settings) -> AsyncIterator[RunStore]:
    opened = await open_store(store_settings)
    try:
        yield opened
    finally:
        await opened.close()


def make_run(run_id: str, seconds: int, key: str = "") -> tuple[run_pb2.Run, list[run_pb2.RunEvent]]:
    run = run_pb2.Run(
        run_id=run_id,
        prompt=f"prompt {run_id}",
        status=run_pb2.RUN_STATUS_PENDING,
        idempotency_key=key,
        last_seq=1,
        create_time=timestamp_pb2.Timestamp(seconds=seconds),
    )
    event = run_pb2.RunEvent(
        run_id=run_id, seq=1, status_changed=run_pb2.RunStatusChanged(status=run_pb2.RUN_STATUS_PENDING)
    )
    return run, [event]


def finish(run: run_pb2.Run, end_seconds: int = 200) -> list[run_pb2.RunEvent]:
    run.status = run_pb2.RUN_STATUS_SUCCEEDED
    run.end_time.seconds = end_seconds
    run.last_seq += 1
    change = run_pb2.RunStatusChanged(status=run_pb2.RUN_STATUS_SUCCEEDED)
    return [run_pb2.RunEvent(run_id=run.run_id, seq=run.last_seq, status_changed=change)]


async def test_runs_and_events_survive_reopen(store_settings: Settings) -> None:
    store = await open_store(store_settings)
    run, events = make_run("r1", 100)
    _, lease = await store.create_run(run, events, "a", TTL)
    assert lease == Lease("a", 1)
    await store.commits.save(run, finish(run), lease)
    await store.close()

    store = await open_store(store_settings)  # migrations find the schema current
    stored = await store.get_run("r1")
    assert stored is not None and stored.status == run_pb2.RUN_STATUS_SUCCEEDED
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1, 2]
    assert [e.seq for e in await store.list_events("r1", 1, 10)] == [2]
    assert await store.list_events("r1", 2, 10) == []
    assert await store.unfinished_run_ids() == []
    await store.close()


async def test_concurrent_duplicates_with_one_idempotency_key_create_one_run(store: RunStore) -> None:
    attempts = [make_run(f"r{i}", 100, key="same") for i in range(20)]
    results = await asyncio.gather(*(store.create_run(r, e, "a", TTL) for r, e in attempts))
    created = [run for run, lease in results if lease is not None]
    assert len(created) == 1
    assert {run.run_id for run, _ in results} == {created[0].run_id}
    assert len(await store.list_runs(100, None, 0)) == 1


async def test_list_runs_pages_newest_first_with_status_filter(store: RunStore) -> None:
    for i in range(7):
        run, events = make_run(f"r{i}", 100 + i)
        if i % 2:
            run.status = run_pb2.RUN_STATUS_FAILED
        await store.create_run(run, events, "a", TTL)
    page1 = await store.list_runs(3, None, 0)
    assert [r.run_id for r in page1] == ["r6", "r5", "r4"]
    page2 = await store.list_runs(3, page_cursor_of(page1[-1]), 0)
    assert [r.run_id for r in page2] == ["r3", "r2", "r1"]
    failed = await store.list_runs(10, None, run_pb2.RUN_STATUS_FAILED)
    assert [r.run_id for r in failed] == ["r5", "r3", "r1"]
    assert await store.unfinished_run_ids() == ["r0", "r2", "r4", "r6"]


async def test_duplicate_seq_is_rejected_and_leaves_nothing(store: RunStore) -> None:
    run, events = make_run("r1", 100)
    _, lease = await store.create_run(run, events, "a", TTL)
    assert lease is not None
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        await store.commits.save(run, events, lease)
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1]


async def test_a_replica_claims_only_lapsed_or_released_leases(store: RunStore) -> None:
    for i in range(3):
        run, events = make_run(f"r{i}", 100 + i)
        await store.create_run(run, events, "a", ttl_s=30 if i == 0 else 0.01)
    await asyncio.sleep(0.05)
    claims = await store.leases.claim("b", TTL, limit=10)
    assert sorted(claims) == ["r1", "r2"]  # r0's lease is live
    assert all(c.takeover and c.lease == Lease("b", 2) for c in claims.values())
    assert await store.leases.claim("c", TTL, limit=10) == {}  # b holds them now
    # A restarted replica takes its own runs back at once; released ones are free for anyone.
    assert list(await store.leases.claim("a", TTL, limit=10, reclaim_own=True)) == ["r0"]
    await store.leases.release({"r1": claims["r1"].lease})
    reclaimed = await store.leases.claim("c", TTL, limit=10)
    assert list(reclaimed) == ["r1"] and not reclaimed["r1"].takeover


async def test_writes_are_fenced_by_the_lease_epoch(store: RunStore) -> None:
    run, events = make_run("r1", 100)
    _, old = await store.create_run(run, events, "a", ttl_s=0.01)
    assert old is not None
    await asyncio.sleep(0.05)
    new = (await store.leases.claim("b", TTL, limit=10))["r1"].lease
    run.last_seq += 1
    step = run_pb2.RunEvent(run_id="r1", seq=run.last_seq, step_updated=run_pb2.StepUpdated())
    with pytest.raises(LeaseLost):
        await store.commits.save(run, [step], old)
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1]  # nothing written
    await store.commits.save(run, [step], new)
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1, 2]
    # Renewal keeps only leases still held at their epoch.
    assert await store.leases.renew({"r1": old}, TTL) == set()
    assert await store.leases.renew({"r1": new}, TTL) == {"r1"}


async def test_take_over_fences_the_driver_only_in_the_given_statuses(store: RunStore) -> None:
    run, events = make_run("r1", 100)
    _, driver = await store.create_run(run, events, "a", TTL)
    assert driver is not None
    assert await store.leases.take_over("r1", "b", TTL, {run_pb2.RUN_STATUS_FAILED}) is None
    taken = await store.leases.take_over("r1", "b", TTL, UNFINISHED)
    assert taken == Lease("b", 2)
    with pytest.raises(LeaseLost):
        await store.commits.save(run, finish(run), driver)
    assert await store.leases.take_over("missing", "b", TTL, UNFINISHED) is None


async def test_finishing_releases_the_lease_and_retention_prunes_old_runs(store: RunStore) -> None:
    for i in range(5):
        run, events = make_run(f"r{i}", 100 + i)
        _, lease = await store.create_run(run, events, "a", TTL)
        assert lease is not None
        if i < 4:
            await store.commits.save(run, finish(run, end_seconds=1000 + i), lease)
    assert await store.leases.claim("b", TTL, limit=10) == {}  # finished runs are never claimed
    # Older than r1's end -> r0 goes; then keep the newest 2 finished -> r1 goes too.
    assert await store.prune(1001 * 1_000_000, keep_newest=0) == 1
    assert await store.prune(None, keep_newest=2) == 1
    remaining = sorted(r.run_id for r in await store.list_runs(10, None, 0))
    assert remaining == ["r2", "r3", "r4"]  # r4 is unfinished: never pruned
    assert await store.list_events("r0", 0, 10) == []


async def test_saves_committed_together_fail_only_for_themselves(store: RunStore) -> None:
    leases, runs = {}, {}
    for i in range(20):
        run, events = make_run(f"r{i}", 100 + i)
        _, leases[run.run_id] = await store.create_run(run, events, "a", TTL)
        runs[run.run_id] = run
    stale = Lease("a", 0)  # r0: written with a lease that moved on
    duplicate = run_pb2.RunEvent(run_id="r1", seq=1)  # r1: an event seq already stored

    def step_event(run: run_pb2.Run) -> list[run_pb2.RunEvent]:
        run.last_seq += 1
        return [run_pb2.RunEvent(run_id=run.run_id, seq=run.last_seq, step_updated=run_pb2.StepUpdated())]

    saves = [
        store.commits.save(
            run,
            [duplicate] if run_id == "r1" else step_event(run),
            stale if run_id == "r0" else leases[run_id],
        )
        for run_id, run in runs.items()
    ]
    outcomes = await asyncio.gather(*saves, return_exceptions=True)
    assert isinstance(outcomes[0], LeaseLost)
    assert isinstance(outcomes[1], Exception) and not isinstance(outcomes[1], LeaseLost)
    assert outcomes[2:] == [None] * 18
    for i in range(20):
        assert [e.seq for e in await store.list_events(f"r{i}", 0, 10)] == ([1] if i < 2 else [1, 2])


async def test_a_failed_save_fails_the_saves_of_its_run_queued_after_it(
    store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine may go on without awaiting a save; a later save of the run must then never be
    stored past the failed one, leaving a gap in the run's events."""
    # SQLite on its thread, so that the batch is still being written when the next save comes
    # (on the loop it has failed by then, and the Recorder refuses to queue more: below).
    monkeypatch.setattr(SqliteDatabase, "INLINE", False)
    runs, leases = {}, {}
    for run_id in ("r1", "r2"):
        run, events = make_run(run_id, 100)
        _, leases[run_id] = await store.create_run(run, events, "a", TTL)
        runs[run_id] = run

    def step_event(run: run_pb2.Run) -> list[run_pb2.RunEvent]:
        run.last_seq += 1
        return [run_pb2.RunEvent(run_id=run.run_id, seq=run.last_seq, step_updated=run_pb2.StepUpdated())]

    r1, r2 = runs["r1"], runs["r2"]
    failing = store.commits.save(r1, [run_pb2.RunEvent(run_id="r1", seq=1)], leases["r1"])  # seq 1 is stored
    same_batch = store.commits.save(r1, step_event(r1), leases["r1"])
    other_run = store.commits.save(r2, step_event(r2), leases["r2"])
    await asyncio.sleep(0)  # the writer takes that batch; the next save waits in the queue
    queued = store.commits.save(r1, step_event(r1), leases["r1"])
    outcomes = await asyncio.gather(failing, same_batch, other_run, queued, return_exceptions=True)
    assert isinstance(outcomes[0], Exception)
    assert outcomes[1] is outcomes[0] or type(outcomes[1]) is type(outcomes[0])
    assert outcomes[2] is None
    assert type(outcomes[3]) is type(outcomes[0])
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1]
    assert [e.seq for e in await store.list_events("r2", 0, 10)] == [1, 2]


async def test_a_save_after_a_failed_one_is_refused_by_the_recorder(store: RunStore) -> None:
    """Whether the failed save has already failed when the next comes (SQLite on the loop) or
    fails in the same batch (above), no later save of the run is stored past it."""
    run, events = make_run("r1", 100)
    _, lease = await store.create_run(run, events, "a", TTL)
    hub = EventHub()
    recorder, active = Recorder(store.commits, hub), ActiveRun("r1", lease)
    run.last_seq = 0  # the next save's event is seq 1 again: already stored, so it fails
    recorder.pipeline(active, run, {"step_updated": run_pb2.StepUpdated()})
    with pytest.raises(sa.exc.IntegrityError):
        await active.last_save  # type: ignore[misc]
    with pytest.raises(sa.exc.IntegrityError):
        recorder.pipeline(active, run, {"step_updated": run_pb2.StepUpdated()})
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1]


async def test_a_batch_stores_each_runs_latest_snapshot_all_its_events_and_releases(store: RunStore) -> None:
    leases = {}
    runs_by_id = {}
    for run_id in ("r1", "r2", "r3"):
        run, events = make_run(run_id, 100)
        _, leases[run_id] = await store.create_run(run, events, "a", TTL)
        runs_by_id[run_id] = run
    r1, r2, r3 = runs_by_id.values()

    def step_event(run: run_pb2.Run) -> list[run_pb2.RunEvent]:
        run.last_seq += 1
        return [run_pb2.RunEvent(run_id=run.run_id, seq=run.last_seq, step_updated=run_pb2.StepUpdated())]

    saves = [
        store.commits.save(r1, step_event(r1), leases["r1"]),
        store.commits.save(r2, step_event(r2), leases["r2"]),
        store.commits.save(r1, step_event(r1), leases["r1"]),  # r1 twice in one batch
        store.commits.save(r3, step_event(r3), Lease("a", 0)),  # a lease that moved on
        store.commits.save(r2, finish(r2), leases["r2"]),  # r2 ends: its lease is released
    ]
    outcomes = await asyncio.gather(*saves, return_exceptions=True)
    assert outcomes[:3] == [None] * 3 and outcomes[4] is None
    assert isinstance(outcomes[3], LeaseLost)
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1, 2, 3]
    assert [e.seq for e in await store.list_events("r2", 0, 10)] == [1, 2, 3]
    assert [e.seq for e in await store.list_events("r3", 0, 10)] == [1]
    stored = {run_id: await store.get_run(run_id) for run_id in ("r1", "r2", "r3")}
    assert stored["r1"] is not None and stored["r1"].last_seq == 3
    assert stored["r2"] is not None and stored["r2"].status == run_pb2.RUN_STATUS_SUCCEEDED
    assert stored["r3"] is not None and stored["r3"].last_seq == 1
    owners = await store.db.read(
        lambda c: dict(c.execute(sa.select(runs.c.run_id, runs.c.lease_owner)).all())
    )
    assert owners == {"r1": "a", "r2": None, "r3": "a"}


async def test_creates_share_a_batch_with_saves_and_a_failing_create_fails_only_itself(
    store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CreateRun's insert joins the group commit: new runs, a second use of an idempotency key
    and saves of running runs are written in one transaction; an insert that breaks a constraint
    rolls that batch back and fails alone when the rest are written again one by one."""
    run1, events1 = make_run("r1", 100)
    _, lease1 = await store.create_run(run1, events1, "a", TTL)
    assert lease1 is not None
    batches: list[int] = []
    write_all = groupcommit._write_all

    def counted(conn: Connection, batch: list[Any]) -> list[bool]:
        batches.append(len(batch))
        return write_all(conn, batch)

    monkeypatch.setattr(groupcommit, "_write_all", counted)
    run1.last_seq += 1
    step = run_pb2.RunEvent(run_id="r1", seq=run1.last_seq, step_updated=run_pb2.StepUpdated())
    r2, r3, r4, again = (
        make_run("r2", 101),
        make_run("r3", 102, "k"),
        make_run("r4", 103, "k"),
        make_run("r1", 104),
    )

    async def save() -> None:  # queued with the creates, not before them
        await store.commits.save(run1, [step], lease1)

    outcomes = await asyncio.gather(
        save(),
        store.create_run(*r2, "a", TTL),
        store.create_run(*r3, "a", TTL),
        store.create_run(*again, "a", TTL),  # r1 exists: the insert breaks the primary key
        store.create_run(*r4, "a", TTL),  # r3's key: r3 is the answer
        return_exceptions=True,
    )
    assert batches[0] == 5  # all five in one transaction, then one by one after the failure
    assert outcomes[0] is None
    assert outcomes[1] == (r2[0], Lease("a", 1)) and outcomes[2] == (r3[0], Lease("a", 1))
    assert isinstance(outcomes[3], sa.exc.IntegrityError)
    existing, lease = outcomes[4]  # type: ignore[misc]
    assert existing.run_id == "r3" and lease is None
    stored = await store.get_run("r1")
    assert stored is not None and stored.prompt == "prompt r1" and stored.last_seq == 2
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1, 2]
    assert await store.get_run("r4") is None
    assert sorted(r.run_id for r in await store.list_runs(10, None, 0)) == ["r1", "r2", "r3"]


async def test_a_create_whose_caller_went_away_before_its_batch_leaves_no_run(store: RunStore) -> None:
    """A CreateRun cancelled while its insert waits for the next batch (the client went away)
    leaves nothing behind, as when each create was a transaction of its own."""
    gone = asyncio.create_task(store.create_run(*make_run("gone", 100), "a", TTL))
    await asyncio.sleep(0)  # queued: it waits for the batch
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    _, lease = await store.create_run(*make_run("kept", 101), "a", TTL)
    assert lease is not None
    assert await store.get_run("gone") is None
    assert [r.run_id for r in await store.list_runs(10, None, 0)] == ["kept"]
    assert await store.list_events("gone", 0, 10) == []


async def test_postgres_announces_creates_and_batched_saves(pg_settings: Settings) -> None:
    """Other replicas learn of every write through RUN_CHANNEL ("<run_id> <owner>")."""
    store = await open_store(pg_settings)
    listener = await asyncpg.connect(pg.TEST_URL)
    heard: asyncio.Queue[str] = asyncio.Queue()
    await listener.add_listener(RUN_CHANNEL, lambda *args: heard.put_nowait(args[-1]))
    try:
        runs_by_id, leases = {}, {}
        for run_id in ("r1", "r2"):
            run, events = make_run(run_id, 100)
            _, leases[run_id] = await store.create_run(run, events, "a", TTL)
            runs_by_id[run_id] = run
        assert [await asyncio.wait_for(heard.get(), 5) for _ in range(2)] == ["r1 a", "r2 a"]
        # Saved together: one batched UPDATE, which must announce both.
        await asyncio.gather(
            *(store.commits.save(run, finish(run), leases[i]) for i, run in runs_by_id.items())
        )
        assert sorted([await asyncio.wait_for(heard.get(), 5) for _ in range(2)]) == ["r1 a", "r2 a"]
    finally:
        await listener.close()
        await store.close()
