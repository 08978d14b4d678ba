"""Background loops stop when cancelled, whatever wakes them at that moment (a shutdown that
hung: Python 3.11's asyncio.wait_for swallows a cancellation that arrives just as the awaited
event is set, and the loop then runs on forever)."""

import asyncio

from agentrt.server.periodic import run_every, wait_event


async def test_a_loop_woken_as_it_is_cancelled_still_stops() -> None:
    async def nothing() -> None:
        return None

    for steps_between in range(8):  # every interleaving of the wake-up and the cancellation
        wake = asyncio.Event()
        task = asyncio.create_task(run_every(60, nothing, "test.failed", wake=wake, first_now=False))
        await asyncio.sleep(0.01)  # waiting for the interval, or a wake-up
        wake.set()
        for _ in range(steps_between):
            await asyncio.sleep(0)
        task.cancel()
        done, _ = await asyncio.wait([task], timeout=2)
        assert done, f"the loop ignored its cancellation ({steps_between} steps after the wake-up)"


async def test_wait_event_says_whether_the_event_came() -> None:
    event = asyncio.Event()
    assert await wait_event(event, 0.01) is False
    asyncio.get_running_loop().call_later(0.01, event.set)
    assert await wait_event(event, 5) is True
