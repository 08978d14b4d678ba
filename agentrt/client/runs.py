"""Synchronous Python client for agentrt's RunService (the gateway, or an executor directly).

    with Client("127.0.0.1:50051") as client:
        run = client.create_run("calculate (10 + 5) * 2")
        for event in client.watch(run.run_id):
            print(event)

`watch` survives dropped connections: it reconnects with after_seq set to the last event it
yielded, so no event is lost or repeated (transient events, an agent's text as it is written,
are live only: a reconnect does not replay them). `result_value(run)` and `to_dict(message)` turn what
comes back into plain Python values (7, not 7.0), as REST and grpcurl show them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from types import TracebackType
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from agentrt.core.backoff import Backoff
from agentrt.core.channels import sync_channel
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct, normalize, value_to_py
from agentrt.v1 import agent_pb2, run_pb2, run_pb2_grpc

__all__ = ["Client", "ClientError", "result_value", "to_dict"]


def result_value(run: run_pb2.Run) -> Any:
    """The run's result as Python values (dicts, lists, ints, floats, strings), None if it has none."""
    return value_to_py(run.result) if run.HasField("result") else None


def to_dict(message: Message) -> dict[str, Any]:
    """Any agentrt message (a Run, a RunEvent, ...) as its proto3 JSON in Python values."""
    return normalize(json_format.MessageToDict(message))


class ClientError(Exception):
    """A failed RunService call, with the server's code, reason and field violations."""

    def __init__(self, details: ErrorDetails) -> None:
        super().__init__(f"{details.code.name}: {details.message}")
        self.details = details

    @property
    def code(self) -> grpc.StatusCode:
        return self.details.code


class _Watch:
    """One watch in progress: the stream it reads now, and whether cancel_watches ended it."""

    def __init__(self) -> None:
        self.stream: Any = None
        self.cancelled = False


class Client:
    def __init__(
        self,
        target: str = "127.0.0.1:50051",
        timeout: float = 10.0,
        channel: grpc.Channel | None = None,
        api_key: str | None = None,
    ):
        self._channel = channel or sync_channel(target)
        self._owns_channel = channel is None
        self._stub = run_pb2_grpc.RunServiceStub(self._channel)
        self._timeout = timeout
        # Sent with every call when the gateway requires API keys.
        self._metadata = (("authorization", f"Bearer {api_key}"),) if api_key else ()
        # The watches in progress, for cancel_watches. Reentrant: a signal handler may take it
        # while the main thread it interrupted holds it.
        self._watches: set[_Watch] = set()
        self._watches_lock = threading.RLock()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_channel:
            self._channel.close()

    def create_run(
        self,
        prompt: str,
        max_steps: int = 0,
        idempotency_key: str = "",
        *,
        mode: int | str = 0,
        budgets: agent_pb2.Budgets | None = None,
        approval_policy: int | str = 0,
        thread_id: str = "",
        multitask: int | str = 0,
    ) -> run_pb2.Run:
        """Start a run. `mode` is a RunMode or its short name ("auto", "plan", "agent"); unset
        uses the server's default. `budgets` bounds an agent run (unset fields: server defaults).
        `approval_policy` ("never", "destructive", "writes", "always") says which calls wait for
        a person; unset uses the server's. `thread_id` makes the run that thread's next turn;
        `multitask` ("reject", "enqueue", "interrupt") says what to do if its previous turn has
        not finished (unset rejects: THREAD_BUSY)."""
        if isinstance(mode, str):
            mode = agent_pb2.RunMode.Value(f"RUN_MODE_{mode.upper()}")
        if isinstance(approval_policy, str):
            approval_policy = run_pb2.ApprovalPolicy.Value(f"APPROVAL_POLICY_{approval_policy.upper()}")
        if isinstance(multitask, str):
            multitask = run_pb2.MultitaskStrategy.Value(f"MULTITASK_STRATEGY_{multitask.upper()}")
        request = run_pb2.CreateRunRequest(
            prompt=prompt,
            max_steps=max_steps,
            idempotency_key=idempotency_key,
            mode=mode,
            budgets=budgets,
            approval_policy=approval_policy,
            thread_id=thread_id,
            multitask_strategy=multitask,
        )
        return self._call(self._stub.CreateRun, request).run

    def get_run(self, run_id: str) -> run_pb2.Run:
        return self._call(self._stub.GetRun, run_pb2.GetRunRequest(run_id=run_id)).run

    def list_runs(
        self, page_size: int = 0, page_token: str = "", status: int = 0, owner: str = ""
    ) -> run_pb2.ListRunsResponse:
        """The caller's runs; an approver or admin may name another `owner`, or "*" for all."""
        request = run_pb2.ListRunsRequest(
            page_size=page_size, page_token=page_token, status=status, owner=owner
        )  # type: ignore[arg-type]
        return self._call(self._stub.ListRuns, request)

    def cancel_run(self, run_id: str) -> run_pb2.Run:
        return self._call(self._stub.CancelRun, run_pb2.CancelRunRequest(run_id=run_id)).run

    def retry_run(self, run_id: str) -> run_pb2.Run:
        return self._call(self._stub.RetryRun, run_pb2.RetryRunRequest(run_id=run_id)).run

    def approve_step(self, run_id: str, step_id: str, arguments: dict[str, Any] | None = None) -> run_pb2.Run:
        """Let a step awaiting approval run (with `arguments` instead of the proposed ones, if given)."""
        request = run_pb2.ApproveStepRequest(run_id=run_id, step_id=step_id)
        if arguments is not None:
            request.arguments.CopyFrom(dict_to_struct(arguments))
        return self._call(self._stub.ApproveStep, request).run

    def reject_step(self, run_id: str, step_id: str, reason: str = "") -> run_pb2.Run:
        """Stop a step awaiting approval from running, saying why."""
        request = run_pb2.RejectStepRequest(run_id=run_id, step_id=step_id, reason=reason)
        return self._call(self._stub.RejectStep, request).run

    def create_thread(self, metadata: dict[str, str] | None = None) -> run_pb2.Thread:
        """Start a conversation; send its turns with create_run(..., thread_id=...)."""
        request = run_pb2.CreateThreadRequest(metadata=metadata or {})
        return self._call(self._stub.CreateThread, request).thread

    def get_thread(
        self, thread_id: str, page_size: int = 0, page_token: str = ""
    ) -> run_pb2.GetThreadResponse:
        """A thread with its latest turns, oldest first (`page_size` of them, 0: the server's
        default); next_page_token, as `page_token`, gets the turns before those."""
        request = run_pb2.GetThreadRequest(thread_id=thread_id, page_size=page_size, page_token=page_token)
        return self._call(self._stub.GetThread, request)

    def list_threads(self, page_size: int = 0, page_token: str = "") -> run_pb2.ListThreadsResponse:
        """The caller's threads, newest first, without their turns."""
        request = run_pb2.ListThreadsRequest(page_size=page_size, page_token=page_token)
        return self._call(self._stub.ListThreads, request)

    def delete_thread(self, thread_id: str) -> None:
        """Delete a thread with its runs (an unfinished turn is cancelled first)."""
        self._call(self._stub.DeleteThread, run_pb2.DeleteThreadRequest(thread_id=thread_id))

    def watch(self, run_id: str, after_seq: int = 0, reconnects: int = 10) -> Iterator[run_pb2.RunEvent]:
        """Yield the run's events after `after_seq` until the terminal one, or until
        cancel_watches() ends the watch (then it just stops: the run itself goes on)."""
        cursor, backoff, watch = after_seq, Backoff(0.2, 2.0), _Watch()
        with self._watches_lock:
            self._watches.add(watch)
        try:
            while not watch.cancelled:
                request = run_pb2.WatchRunRequest(run_id=run_id, after_seq=cursor)
                watch.stream = stream = self._stub.WatchRun(request, metadata=self._metadata)
                if watch.cancelled:  # cancel_watches ran before the stream was there to cancel
                    stream.cancel()
                    return
                try:
                    for response in stream:
                        backoff.reset()
                        cursor = response.event.seq
                        yield response.event
                    return
                except grpc.RpcError as err:
                    if watch.cancelled:
                        return
                    details = ErrorDetails.from_rpc_error(err)
                    if details.code != grpc.StatusCode.UNAVAILABLE or backoff.failures >= reconnects:
                        raise ClientError(details) from None
                finally:
                    # A caller that stops early (break, close()) ends the stream now, not whenever
                    # the call object is collected: the server stops sending.
                    stream.cancel()
                time.sleep(backoff.next_delay())
        finally:
            with self._watches_lock:
                self._watches.discard(watch)

    def cancel_watches(self) -> None:
        """End every watch in progress on this client, from any thread or from a signal handler:
        each stops yielding, as if its run had ended (the runs go on). For a command line's Ctrl-C:
        a KeyboardInterrupt raised inside a blocked gRPC call can leave the channel unable to
        close, so a SIGINT handler calls this instead and the caller raises after the watch."""
        with self._watches_lock:
            watches = list(self._watches)
        for watch in watches:
            watch.cancelled = True
            if watch.stream is not None:
                watch.stream.cancel()

    def _call(self, method: grpc.UnaryUnaryMultiCallable, request: object) -> object:
        try:
            return method(request, timeout=self._timeout, metadata=self._metadata)
        except grpc.RpcError as err:
            raise ClientError(ErrorDetails.from_rpc_error(err)) from None
