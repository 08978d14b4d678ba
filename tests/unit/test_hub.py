from google.protobuf import struct_pb2

from agentrt.v1 import run_pb2
from executor_svc.hub import ENDED, RECENT, EventHub


def event(seq: int, status: int = run_pb2.RUN_STATUS_RUNNING) -> run_pb2.RunEvent:
    return run_pb2.RunEvent(run_id="r", seq=seq, status_changed=run_pb2.RunStatusChanged(status=status))


def test_recent_events_come_from_memory_and_old_cursors_from_the_store() -> None:
    hub = EventHub()
    assert hub.events_after("r", 0) is None  # nothing published: read the store
    hub.publish("r", [event(1), event(2)])
    hub.publish("r", [event(3)])
    assert [e.seq for e in hub.events_after("r", 0) or []] == [1, 2, 3]
    assert [e.seq for e in hub.events_after("r", 2) or []] == [3]
    assert hub.events_after("r", 3) == []
    hub.publish("r", [event(s) for s in range(4, 4 + RECENT)])
    assert hub.events_after("r", 0) is None  # fell out of the ring: the store has it
    assert hub.events_after("r", 4 + RECENT - 2) is not None


def test_a_gap_drops_the_ring() -> None:
    hub = EventHub()
    hub.publish("r", [event(1)])
    hub.publish("r", [event(5)])  # not contiguous
    assert hub.events_after("r", 1) is None
    assert [e.seq for e in hub.events_after("r", 4) or []] == [5]


def test_an_ended_run_stays_in_memory_for_a_while_and_a_retry_revives_it() -> None:
    hub = EventHub()
    hub.publish("r", [event(1), event(2)])
    assert not hub.ended("r", 2)
    hub.publish("r", [event(3, run_pb2.RUN_STATUS_FAILED)])
    assert hub.holds("r")
    assert [e.seq for e in hub.events_after("r", 1) or []] == [2, 3]
    assert not hub.ended("r", 2)  # the watcher has not seen the terminal event yet
    assert hub.ended("r", 3)
    hub.publish("r", [event(4)])  # RetryRun
    assert not hub.ended("r", 3)
    assert [e.seq for e in hub.events_after("r", 3) or []] == [4]


def test_only_the_most_recently_ended_runs_are_kept() -> None:
    hub = EventHub()
    for n in range(ENDED + 1):
        hub.publish(f"r{n}", [event(1, run_pb2.RUN_STATUS_SUCCEEDED)])
    assert not hub.holds("r0")  # the oldest went: the store answers for it
    assert hub.events_after("r0", 0) is None
    assert hub.holds(f"r{ENDED}")


def test_forget_drops_live_and_ended_runs() -> None:
    hub = EventHub()
    hub.publish("live", [event(1)])
    hub.publish("ended", [event(1, run_pb2.RUN_STATUS_SUCCEEDED)])
    wakeup = hub.wakeup("live")
    hub.forget("live")
    hub.forget("ended")
    assert wakeup.is_set()
    assert not hub.holds("live") and not hub.holds("ended")
    assert not hub.ended("ended", 1)


async def test_wakeups_fire_on_publish() -> None:
    hub = EventHub()
    wakeup = hub.wakeup("r")
    assert not wakeup.is_set()
    hub.publish("r", [event(1)])
    assert wakeup.is_set()


def test_rings_are_bounded_by_bytes_as_well_as_count() -> None:
    from executor_svc import hub as hub_module  # noqa: PLC0415

    hub = hub_module.EventHub()
    big = "x" * 300_000

    def event(run_id: str, seq: int, terminal: bool = False) -> run_pb2.RunEvent:
        if terminal:
            return run_pb2.RunEvent(
                run_id=run_id,
                seq=seq,
                status_changed=run_pb2.RunStatusChanged(status=run_pb2.RUN_STATUS_SUCCEEDED),
            )
        step = run_pb2.StepState(step_id="s1", output=struct_pb2.Value(string_value=big))
        return run_pb2.RunEvent(run_id=run_id, seq=seq, step_updated=run_pb2.StepUpdated(step=step))

    hub.publish("r", [event("r", n) for n in range(1, 11)])  # ~3 MB of events
    held = hub.events_after("r", 9)
    assert held is not None and [e.seq for e in held] == [10]
    assert hub.events_after("r", 0) is None  # older ones: the store
    total = sum(e.ByteSize() for e in hub._recent["r"].events)
    assert total <= hub_module.RING_BYTES
    # Ended runs' rings are forgotten oldest first beyond ENDED_BYTES together.
    for n in range(200):
        run_id = f"e{n}"
        hub.publish(run_id, [event(run_id, 1), event(run_id, 2), event(run_id, 3, terminal=True)])
    assert hub._ended_bytes <= hub_module.ENDED_BYTES
    assert sum(r.bytes for r in hub._ended.values()) == hub._ended_bytes
    assert hub.holds("e199") and not hub.holds("e0")
