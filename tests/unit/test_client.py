"""The synchronous client against grpc_testing's channel: every request it sends and every
answer it gets are scripted by the test, so reconnects and error mapping are deterministic."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import grpc
import grpc_testing
import pytest

from agentrt.cli import render
from agentrt.client.runs import Client, ClientError
from agentrt.core.errors import InvalidArgument
from agentrt.v1 import run_pb2

SERVICE = run_pb2.DESCRIPTOR.services_by_name["RunService"]


def method(name: str) -> Any:
    return SERVICE.methods_by_name[name]


@pytest.fixture
def channel() -> Any:
    return grpc_testing.channel([SERVICE], grpc_testing.strict_real_time())


class Background:
    """Runs a blocking client call in a thread; the test plays the server meanwhile."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.result: Any = None
        self.error: BaseException | None = None

        def run() -> None:
            try:
                self.result = call()
            except BaseException as exc:
                self.error = exc

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def join(self) -> Any:
        self._thread.join(10)
        assert not self._thread.is_alive(), "the client call did not return"
        if self.error is not None:
            raise self.error
        return self.result


def event(seq: int, status: int = run_pb2.RUN_STATUS_RUNNING) -> run_pb2.WatchRunResponse:
    change = run_pb2.RunStatusChanged(status=status)
    return run_pb2.WatchRunResponse(event=run_pb2.RunEvent(run_id="r1", seq=seq, status_changed=change))


def test_the_api_key_travels_as_bearer_metadata(channel: Any) -> None:
    client = Client(channel=channel, api_key="k-123")
    call = Background(lambda: client.get_run("r1"))
    metadata, request, rpc = channel.take_unary_unary(method("GetRun"))
    assert request.run_id == "r1"
    assert ("authorization", "Bearer k-123") in metadata
    rpc.terminate(run_pb2.GetRunResponse(run=run_pb2.Run(run_id="r1")), (), grpc.StatusCode.OK, "")
    assert call.join().run_id == "r1"


def test_errors_keep_their_code_reason_and_violations(channel: Any) -> None:
    client = Client(channel=channel)
    call = Background(lambda: client.create_run(""))
    _, _, rpc = channel.take_unary_unary(method("CreateRun"))
    status = InvalidArgument(
        "invalid CreateRunRequest: prompt must not be empty", violations=[("prompt", "must not be empty")]
    ).to_status()
    rpc.terminate(None, status.trailing_metadata, status.code, status.details)
    with pytest.raises(ClientError) as info:
        call.join()
    details = info.value.details
    assert (details.code, details.reason, details.retryable) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        False,
    )
    assert details.violations == [("prompt", "must not be empty")]


def test_watch_reconnects_after_the_last_event_it_yielded(channel: Any) -> None:
    client = Client(channel=channel)
    seen: list[int] = []
    two_seen = threading.Event()

    def consume() -> list[int]:
        for e in client.watch("r1"):
            seen.append(e.seq)
            if e.seq == 2:
                two_seen.set()
        return seen

    call = Background(consume)
    _, first, rpc = channel.take_unary_stream(method("WatchRun"))
    assert first.after_seq == 0
    rpc.send_response(event(1))
    rpc.send_response(event(2))
    assert two_seen.wait(10)
    rpc.terminate((), grpc.StatusCode.UNAVAILABLE, "connection reset")  # a dropped connection
    _, second, rpc = channel.take_unary_stream(method("WatchRun"))
    assert second.after_seq == 2  # exactly what it had not seen
    rpc.send_response(event(3, run_pb2.RUN_STATUS_SUCCEEDED))
    rpc.terminate((), grpc.StatusCode.OK, "")
    assert call.join() == [1, 2, 3]


def test_watch_gives_up_on_errors_that_reconnecting_cannot_fix(channel: Any) -> None:
    client = Client(channel=channel)
    call = Background(lambda: list(client.watch("missing")))
    _, _, rpc = channel.take_unary_stream(method("WatchRun"))
    rpc.terminate((), grpc.StatusCode.NOT_FOUND, "run missing not found")
    with pytest.raises(ClientError) as info:
        call.join()
    assert info.value.code == grpc.StatusCode.NOT_FOUND


def test_cancel_watches_ends_a_blocked_watch_quietly(channel: Any) -> None:
    """What a command line's Ctrl-C does (from a signal handler): the watch stops without an
    error and without reconnecting; the run itself is not touched."""
    client = Client(channel=channel)
    one_seen = threading.Event()

    def consume() -> list[int]:
        seen = []
        for e in client.watch("r1"):
            seen.append(e.seq)
            one_seen.set()
        return seen

    call = Background(consume)
    _, _, rpc = channel.take_unary_stream(method("WatchRun"))
    rpc.send_response(event(1))
    assert one_seen.wait(10)
    client.cancel_watches()  # while the watch waits for event 2
    assert call.join() == [1]
    rpc.cancelled()  # grpc_testing: returns once the client cancelled the call (blocks otherwise)


def test_a_remote_agents_progress_is_printed_on_one_line_and_never_obeyed() -> None:
    said = run_pb2.StepProgress(step_id="s1", message="working:\n\x1b[2Jcleared?")
    assert render.progress_line(said) == "s1: working: \\x1b[2Jcleared?"
