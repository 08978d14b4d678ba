import asyncio
from pathlib import Path

from google.protobuf import timestamp_pb2

from agentrt.v1 import run_pb2
from executor_svc.store import SqliteRunStore, page_cursor_of


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


async def test_runs_and_events_survive_reopen(tmp_path: Path) -> None:
    store = await SqliteRunStore.open(tmp_path / "runs.db")
    run, events = make_run("r1", 100)
    assert (await store.create_run(run, events))[1] is True
    run.status = run_pb2.RUN_STATUS_SUCCEEDED
    run.last_seq = 2
    done = run_pb2.RunEvent(
        run_id="r1", seq=2, status_changed=run_pb2.RunStatusChanged(status=run_pb2.RUN_STATUS_SUCCEEDED)
    )
    await store.save(run, [done])
    await store.close()

    store = await SqliteRunStore.open(tmp_path / "runs.db")
    stored = await store.get_run("r1")
    assert stored is not None and stored.status == run_pb2.RUN_STATUS_SUCCEEDED
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1, 2]
    assert [e.seq for e in await store.list_events("r1", 1, 10)] == [2]
    assert await store.list_events("r1", 2, 10) == []
    assert await store.unfinished_run_ids() == []
    await store.close()


async def test_concurrent_duplicates_with_one_idempotency_key_create_one_run(tmp_path: Path) -> None:
    store = await SqliteRunStore.open(tmp_path / "runs.db")
    attempts = [make_run(f"r{i}", 100, key="same") for i in range(20)]
    results = await asyncio.gather(*(store.create_run(r, e) for r, e in attempts))
    created = [run for run, new in results if new]
    assert len(created) == 1
    assert {run.run_id for run, _ in results} == {created[0].run_id}
    assert len(await store.list_runs(100, None, 0)) == 1
    await store.close()


async def test_list_runs_pages_newest_first_with_status_filter(tmp_path: Path) -> None:
    store = await SqliteRunStore.open(tmp_path / "runs.db")
    for i in range(7):
        run, events = make_run(f"r{i}", 100 + i)
        if i % 2:
            run.status = run_pb2.RUN_STATUS_FAILED
        await store.create_run(run, events)
    page1 = await store.list_runs(3, None, 0)
    assert [r.run_id for r in page1] == ["r6", "r5", "r4"]
    page2 = await store.list_runs(3, page_cursor_of(page1[-1]), 0)
    assert [r.run_id for r in page2] == ["r3", "r2", "r1"]
    failed = await store.list_runs(10, None, run_pb2.RUN_STATUS_FAILED)
    assert [r.run_id for r in failed] == ["r5", "r3", "r1"]
    assert await store.unfinished_run_ids() == ["r0", "r2", "r4", "r6"]
    await store.close()


async def test_duplicate_seq_is_rejected(tmp_path: Path) -> None:
    store = await SqliteRunStore.open(tmp_path / "runs.db")
    run, events = make_run("r1", 100)
    await store.create_run(run, events)
    try:
        await store.save(run, events)
    except Exception as exc:
        assert "UNIQUE" in str(exc)
    else:
        raise AssertionError("a second event with seq 1 must be refused")
    # The failed transaction left nothing behind.
    assert [e.seq for e in await store.list_events("r1", 0, 10)] == [1]
    await store.close()
