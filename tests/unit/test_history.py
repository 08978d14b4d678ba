"""What a thread's turn sees of the earlier turns: the latest that fit the byte budget."""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf import struct_pb2

from agentrt.v1 import run_pb2
from executor_svc.run.history import prior_turns


def turn(n: int, output_bytes: int = 10) -> run_pb2.Run:
    output = struct_pb2.Value(string_value="x" * output_bytes)
    step = run_pb2.StepState(step_id="s1", tool="echo", status=run_pb2.STEP_STATUS_SUCCEEDED, output=output)
    return run_pb2.Run(
        thread_turn=n, prompt=f"p{n}", answer=f"a{n}", status=run_pb2.RUN_STATUS_SUCCEEDED, steps=[step]
    )


def test_the_latest_turns_that_fit_oldest_first() -> None:
    """The store hands the turns over newest first; the history is oldest first."""
    earlier = [turn(n) for n in range(1, 6)]
    one = prior_turns(reversed(earlier[-1:]), 10_000)[0].ByteSize()
    kept = prior_turns(reversed(earlier), 3 * one)
    assert [t.turn for t in kept] == [3, 4, 5]
    assert prior_turns(reversed(earlier), 10_000)[0].steps[0].output.string_value == "x" * 10
    assert prior_turns(reversed(earlier), 0) == []


def test_a_turn_too_large_whole_goes_without_outputs_and_nothing_older_follows_a_gap() -> None:
    earlier = [turn(1), turn(2, output_bytes=50_000), turn(3)]
    kept = prior_turns(reversed(earlier), 2_000)
    assert [t.turn for t in kept] == [1, 2, 3]
    assert not kept[1].steps[0].HasField("output") and kept[1].steps[0].tool == "echo"
    assert kept[0].steps[0].HasField("output") and kept[2].steps[0].HasField("output")
    tight = prior_turns(reversed(earlier), turn(3).ByteSize() + 5)
    assert [t.turn for t in tight] == [3]  # turn 2 without outputs does not fit: no gap, so no turn 1


def test_turns_past_the_budget_are_never_read() -> None:
    read: list[int] = []

    def newest_first() -> Iterator[run_pb2.Run]:
        for n in range(50, 0, -1):
            read.append(n)
            yield turn(n)

    kept = prior_turns(newest_first(), 3 * prior_turns([turn(50)], 10_000)[0].ByteSize())
    assert [t.turn for t in kept] == [48, 49, 50] and read == [50, 49, 48, 47]
