"""The newest edges under hostile input (issue 65): bodies too deep or too big for A2A, /mcp and
REST, absurd headers, and streams held open, each refused as a client error while the event loop
keeps serving everyone else (real gRPC and HTTP against the in-process stack)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
from prometheus_client import REGISTRY
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.server.watchdog import LoopWatchdog
from agentrt.v1 import run_pb2
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack
from tests.keys import key_for

R = run_pb2
KEYS = {name: key_for(name) for name in ("alice", "bob")}
# What the loop may be held for while hostile input is served: far above a loaded machine's
# scheduling noise, far below the 21 s one request once held it for.
STALL_BOUND_S = 1.0
MCP_ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def bearer(who: str) -> dict[str, str]:
    return {"authorization": f"Bearer {KEYS[who]}"}


def metadata(who: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {KEYS[who]}"),)


@pytest.fixture
async def watchdog() -> AsyncIterator[LoopWatchdog]:
    """The test's own loop (the stack's too: it runs in it), watched while the test runs."""
    dog = LoopWatchdog(warn_after_s=STALL_BOUND_S)
    dog.start()
    yield dog
    await dog.stop()
    assert dog.max_lag_s < STALL_BOUND_S, f"the event loop was held for {dog.max_lag_s:.2f} s"


@pytest.fixture
async def keyed(settings: Settings) -> AsyncIterator[Stack]:
    built = await start_stack(
        settings.replace(
            api_keys={name: SecretStr(key) for name, key in KEYS.items()},
            internal_token=INTERNAL_TOKEN,
            approval_exempt_rules=False,
            approval_policy="destructive",
            rate_limit_rps=1000.0,
            rate_limit_burst=1000,
            max_streams_per_principal=2,
            max_streams=3,
            mcp_stream_idle_s=0.5,
        )
    )
    yield built
    await built.close()


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def a2a_send(metadata_json: str) -> str:
    message = '{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"what is 1+1"}]}'
    return (
        '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":'
        + message
        + ',"metadata":'
        + metadata_json
        + "}}"
    )


# -- bodies and headers -----------------------------------------------------------------------


@pytest.mark.parametrize("depth", [600, 10_000])
async def test_a_deep_a2a_body_is_an_invalid_request_and_the_loop_keeps_serving(
    keyed: Stack, watchdog: LoopWatchdog, depth: int
) -> None:
    async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
        headers = {**bearer("alice"), "A2A-Version": "1.0", "content-type": "application/json"}
        refused, health = await asyncio.gather(
            http.post("/a2a", content=a2a_send(nested(depth)), headers=headers), http.get("/healthz")
        )
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert error["code"] == -32600  # the protocol's invalid request, never -32603
        assert error["data"][0]["reason"] == "JSON_TOO_DEEP"
        assert health.status_code == 200
        # Within the bound, the same request reaches the SDK and is answered by it.
        fine = await http.post("/a2a", content=a2a_send(nested(8)), headers=headers)
        assert fine.status_code == 200 and "result" in fine.json(), fine.text


@pytest.mark.parametrize("version", ["9" * 10_000, "9" * 4_400, "1.0; DROP", "\u0661.\u0660"])
async def test_an_absurd_a2a_version_is_a_client_error(keyed: Stack, version: str) -> None:
    body = {"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "x"}}
    async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
        sent = {**bearer("alice"), "A2A-Version": version.encode()}  # as a client sends it: bytes
        refused = await http.post("/a2a", json=body, headers=sent)
    assert refused.status_code in (400, 431), refused.text
    if refused.status_code == 400:
        assert refused.json()["error"]["code"] == -32600
        assert "A2A-Version" in refused.json()["error"]["message"]


async def test_an_absurd_a2a_version_over_grpc_is_invalid_argument(keyed: Stack) -> None:
    channel = keyed.channel("gateway")
    call = channel.unary_unary("/lf.a2a.v1.A2AService/GetTask")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call(b"", metadata=(*metadata("alice"), ("a2a-version", "9" * 5000)), timeout=20)
    details = ErrorDetails.from_rpc_error(info.value)
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "A2A-Version" in details.message


@pytest.mark.parametrize(
    ("path", "body", "jsonrpc"),
    [
        ("/mcp", '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":' + nested(200) + "}", True),
        ("/v1/runs", '{"prompt":"hi","metadata":' + nested(200) + "}", False),
        ("/a2a", '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":' + nested(40) + "}", True),
    ],
)
async def test_every_http_edge_refuses_a_too_deep_body_in_its_protocol(
    keyed: Stack, watchdog: LoopWatchdog, path: str, body: str, jsonrpc: bool
) -> None:
    headers = {**bearer("alice"), **MCP_ACCEPT, "A2A-Version": "1.0"}
    async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
        refused = await http.post(path, content=body, headers=headers)
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        if jsonrpc:
            assert (error["code"], error["data"][0]["reason"]) == (-32600, "JSON_TOO_DEEP")
        else:
            assert error["details"][0]["reason"] == "JSON_TOO_DEEP"
        assert "levels deep; at most 32" in error["message"]
        too_big = await http.post(path, content=b" " * 70_000, headers=headers)
        assert too_big.status_code == 413


async def test_an_unauthenticated_deep_body_is_refused_for_its_key_first(keyed: Stack) -> None:
    async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
        for path in ("/a2a", "/mcp", "/v1/runs"):
            refused = await http.post(path, content=nested(5000), headers=MCP_ACCEPT)
            assert refused.status_code == 401, (path, refused.text)


async def test_headers_past_the_bound_get_431_not_a_reset(keyed: Stack, watchdog: LoopWatchdog) -> None:
    headers = {f"x-h{i}": "a" * 4000 for i in range(100)}  # 400 KB
    async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
        refused = await http.get("/healthz", headers=headers)
        assert refused.status_code == 431
        assert refused.json()["error"]["details"][0]["reason"] == "HEADERS_TOO_LARGE"
        # Arrived whole (one read): bounded as well, once parsed.
        whole = await http.get("/healthz", headers={f"x-h{i}": "a" * 4000 for i in range(12)})
        assert whole.status_code == 431
        assert whole.headers["x-content-type-options"] == "nosniff"
        assert (await http.get("/healthz", headers={"x-h": "a" * 16_000})).status_code == 200


async def test_a_client_still_sending_headers_reads_the_431_whole(keyed: Stack) -> None:
    # Sent in one go, far past the bound: the answer must arrive before the socket closes
    # (closing with unread bytes would reset the connection and lose it).
    port = int(keyed.http.rsplit(":", 1)[1])
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(
        b"X-H%d: %s\r\n" % (i, b"a" * 4000) for i in range(100)
    )

    def exchange() -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
            sock.sendall(request)  # no blank line: the headers never end
            received = b""
            while chunk := sock.recv(65536):
                received += chunk
            return received

    answer = await asyncio.to_thread(exchange)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"] == 431


# -- streams ----------------------------------------------------------------------------------


async def waiting_run(stack: Stack, who: str) -> run_pb2.Run:
    """A run of `who` whose todo delete waits for approval: it stays open while watched."""
    gw = stack.gateway
    first = (
        await gw.CreateRun(
            R.CreateRunRequest(prompt="add a todo to water the plants"), metadata=metadata(who)
        )
    ).run
    async for _ in gw.WatchRun(R.WatchRunRequest(run_id=first.run_id), metadata=metadata(who), timeout=20):
        pass
    created = (
        await gw.CreateRun(
            R.CreateRunRequest(prompt="delete the water the plants todo"), metadata=metadata(who)
        )
    ).run
    watch = gw.WatchRun(R.WatchRunRequest(run_id=created.run_id), metadata=metadata(who), timeout=20)
    try:
        async for response in watch:
            if response.event.status_changed.status == R.RUN_STATUS_WAITING:
                return created
    finally:
        watch.cancel()  # its stream's place given back before the test counts them
    raise AssertionError("the run never waited")


class GrpcWatch:
    """A gRPC WatchRun held open in the background; `opened` once its first event came."""

    def __init__(self, stack: Stack, who: str, run_id: str) -> None:
        self.opened = asyncio.Event()
        self.call = stack.gateway.WatchRun(
            R.WatchRunRequest(run_id=run_id), metadata=metadata(who), timeout=60
        )
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for _ in self.call:
            self.opened.set()

    async def open(self) -> None:
        """Until the first event; a stream that ended first fails the test with its error."""
        first = asyncio.create_task(self.opened.wait())
        await asyncio.wait({first, self.task}, return_when=asyncio.FIRST_COMPLETED)
        if not self.opened.is_set():
            first.cancel()
            await self.task  # raises why
            raise AssertionError("the stream ended before its first event")

    async def close(self) -> None:
        self.call.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def refused_stream(stack: Stack, who: str, run_id: str) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for _ in stack.gateway.WatchRun(
            R.WatchRunRequest(run_id=run_id), metadata=metadata(who), timeout=20
        ):
            pass
    return ErrorDetails.from_rpc_error(info.value)


def streams_open() -> float:
    """Streams the gateway holds (agentrt_gateway_streams_open; tests of one worker run one at a
    time, so the change is this test's)."""
    return REGISTRY.get_sample_value("agentrt_gateway_streams_open") or 0.0


async def until(condition: Any) -> None:
    """Wait for `condition()`, tied to it (the gateway's count falls as its streams end)."""
    for _ in range(400):
        if condition():
            return
        await asyncio.sleep(0.025)
    raise AssertionError("never happened")


async def test_streams_are_capped_per_principal_and_in_all_on_every_protocol(keyed: Stack) -> None:
    opened = streams_open()
    alice_run = await waiting_run(keyed, "alice")
    bob_run = await waiting_run(keyed, "bob")
    held = [GrpcWatch(keyed, "alice", alice_run.run_id), GrpcWatch(keyed, "alice", alice_run.run_id)]
    await asyncio.gather(*(w.open() for w in held))
    try:
        # alice holds her two: a third is refused on gRPC, SSE and /mcp alike, saying which cap.
        refused = await refused_stream(keyed, "alice", alice_run.run_id)
        assert (refused.code, refused.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS")
        assert "AGENTRT_MAX_STREAMS_PER_PRINCIPAL" in refused.message
        async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
            sse = await http.get(f"/v1/runs/{alice_run.run_id}/events", headers=bearer("alice"))
            assert sse.status_code == 429 and sse.headers["retry-after"]
            assert sse.json()["error"]["details"][0]["reason"] == "TOO_MANY_STREAMS"
            mcp = await http.get("/mcp", headers={**bearer("alice"), "accept": "text/event-stream"})
            assert mcp.status_code == 429
        # bob is not alice: his first is served, and then the gateway's cap of three is reached.
        held.append(GrpcWatch(keyed, "bob", bob_run.run_id))
        await held[-1].open()
        refused = await refused_stream(keyed, "bob", bob_run.run_id)
        assert refused.reason == "TOO_MANY_STREAMS" and "AGENTRT_MAX_STREAMS)" in refused.message
        # A stream that ends gives its place back.
        await held.pop(0).close()
        await until(lambda: streams_open() == opened + 2)
        held.append(GrpcWatch(keyed, "alice", alice_run.run_id))
        await held[-1].open()
    finally:
        for watch in held:
            await watch.close()
    await until(lambda: streams_open() == opened)


async def test_a_refused_or_unread_stream_holds_no_place(keyed: Stack) -> None:
    opened = streams_open()
    run = await waiting_run(keyed, "alice")
    async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
        for _ in range(5):  # more than the cap, one after another: each gives its place back
            async with http.stream("GET", f"/v1/runs/{run.run_id}/events", headers=bearer("alice")) as sse:
                assert sse.status_code == 200
                async for line in sse.aiter_lines():
                    if line.startswith("data:"):
                        break
    await until(lambda: streams_open() == opened)


async def test_an_idle_mcp_stream_is_closed_and_its_place_given_back(keyed: Stack) -> None:
    opened = streams_open()
    async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
        for _ in range(4):  # past the cap of two: each closed once idle
            async with http.stream(
                "GET", "/mcp", headers={**bearer("alice"), "accept": "text/event-stream"}
            ) as s:
                assert s.status_code == 200
                assert [chunk async for chunk in s.aiter_bytes() if not chunk.startswith(b":")] == []
    await until(lambda: streams_open() == opened)


async def test_a_send_that_would_follow_its_run_past_the_cap_is_refused_before_the_run_exists(
    keyed: Stack,
) -> None:
    run = await waiting_run(keyed, "alice")
    held = [GrpcWatch(keyed, "alice", run.run_id), GrpcWatch(keyed, "alice", run.run_id)]
    await asyncio.gather(*(w.open() for w in held))
    listed = R.ListRunsRequest(page_size=100)
    before = len((await keyed.gateway.ListRuns(listed, metadata=metadata("alice"))).runs)
    try:
        async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
            headers = {**bearer("alice"), "A2A-Version": "1.0", "content-type": "application/json"}
            sent = await http.post("/a2a", content=a2a_send("{}"), headers=headers)
            error = sent.json()["error"]
            assert error["code"] == -32600 and "TOO_MANY_STREAMS" in error["message"], error  # not -32603
            call = {"name": "run_prompt", "arguments": {"prompt": "what is 2+2"}}
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
            tool = await http.post("/mcp", json=body, headers={**bearer("alice"), **MCP_ACCEPT})
            assert tool.status_code == 200 and "TOO_MANY_STREAMS" in tool.text, tool.text
    finally:
        for watch in held:
            await watch.close()
    after = len((await keyed.gateway.ListRuns(listed, metadata=metadata("alice"))).runs)
    assert after == before  # neither left a run behind


async def test_an_mcp_stream_asked_to_resume_gets_a_fresh_one(keyed: Stack) -> None:
    # Stateless /mcp keeps no events: the SDK, given Last-Event-ID without an event store,
    # returned without answering (HTTP 500). The fuzz pass found it.
    headers = {**bearer("alice"), "accept": "text/event-stream", "last-event-id": "1e3"}
    async with (
        httpx.AsyncClient(base_url=keyed.http, timeout=30) as http,
        http.stream("GET", "/mcp", headers=headers) as stream,
    ):
        assert stream.status_code == 200
        assert [chunk async for chunk in stream.aiter_bytes() if not chunk.startswith(b":")] == []
