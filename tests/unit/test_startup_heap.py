"""keep_startup_heap: what start-up made is out of the collector's reach, its garbage is not kept,
and what is made later is collected as before."""

from __future__ import annotations

import gc
import weakref

from agentrt.server.service_main import keep_startup_heap


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


def test_startup_objects_are_frozen_and_its_garbage_collected() -> None:
    kept = _Node()
    dropped = _Node()
    dropped_ref = weakref.ref(dropped)
    del dropped
    assert any(o is kept for o in gc.get_objects())  # before: in a generation the collector walks
    try:
        keep_startup_heap()
        assert dropped_ref() is None  # start-up's garbage went first, not frozen with the rest
        assert gc.get_freeze_count() > 0
        assert not any(o is kept for o in gc.get_objects())  # no generation holds it any more

        later = _Node()
        later_ref = weakref.ref(later)
        del later
        gc.collect()
        assert later_ref() is None  # a cycle made afterwards is collected as before
    finally:
        gc.unfreeze()  # the rest of this test process as it was
