"""The one reconnect backoff: doubling up to a cap, jittered downwards, reset on success."""

from agentrt.core.backoff import Backoff


def test_delays_double_up_to_the_cap_and_start_over_after_a_reset() -> None:
    backoff = Backoff(0.1, 1.0, jitter=0)
    assert [round(backoff.next_delay(), 3) for _ in range(6)] == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    assert backoff.failures == 6
    backoff.reset()
    assert backoff.next_delay() == 0.1


def test_jitter_only_shortens_a_delay_and_by_at_most_its_share() -> None:
    delays = [Backoff(1.0, 1.0, jitter=0.5).next_delay() for _ in range(500)]
    assert all(0.5 <= d <= 1.0 for d in delays)
    assert max(delays) - min(delays) > 0.2  # spread out, not all in step


def test_a_loop_that_never_succeeds_keeps_getting_the_cap() -> None:
    backoff = Backoff(0.5, 30.0, jitter=0)
    delays = [backoff.next_delay() for _ in range(5000)]  # a server down for days
    assert delays[-1] == 30.0 and backoff.failures == 5000
