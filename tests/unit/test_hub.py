from agentrt.v1 import run_pb2
from executor_svc.hub import RECENT, EventHub


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


def test_a_gap_or_the_end_of_the_run_drops_the_ring() -> None:
    hub = EventHub()
    hub.publish("r", [event(1)])
    hub.publish("r", [event(5)])  # not contiguous
    assert hub.events_after("r", 1) is None
    hub.publish("r", [event(6, run_pb2.RUN_STATUS_SUCCEEDED)])
    assert hub.events_after("r", 5) is None  # ended: memory released, the store answers


async def test_wakeups_fire_on_publish() -> None:
    hub = EventHub()
    wakeup = hub.wakeup("r")
    assert not wakeup.is_set()
    hub.publish("r", [event(1)])
    assert wakeup.is_set()
