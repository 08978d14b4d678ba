"""Wrong API keys are throttled at every door of the gateway (REST, gRPC, /mcp, A2A over JSON-RPC
and gRPC), per client address and per key prefix; a right key is served however many wrong ones
came before it from its address (one NAT, one office): the guesser is slowed, not its neighbours."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import httpx
import pytest
from a2a.types import a2a_pb2, a2a_pb2_grpc
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.v1 import run_pb2
from gateway.auth import KEY_PREFIX_CHARS
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack
from tests.keys import key_for

KEY = key_for("alice")
BURST = 3
MCP_PROBE = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
A2A_PROBE = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "no-such-task"}}


@pytest.fixture
async def keyed(settings: Settings) -> AsyncIterator[Stack]:
    built = await start_stack(
        settings.replace(
            api_keys={"alice": SecretStr(KEY)},
            internal_token=INTERNAL_TOKEN,
            auth_failure_burst=BURST,
            auth_failure_rps=0.001,  # no refill within the test
            trusted_proxies=["127.0.0.1"],  # so REST calls can come "from" other addresses
        )
    )
    yield built
    await built.close()


def bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


async def codes_of_every_door(stack: Stack, http: httpx.AsyncClient, key: str) -> dict[str, str]:
    """What each door answers `key` with, from 127.0.0.1: the HTTP status or the gRPC code (OK,
    or the code of the error: a right key's call may fail for other reasons, never for auth)."""
    codes: dict[str, str] = {}
    codes["rest"] = str((await http.get("/v1/runs", headers=bearer(key))).status_code)
    mcp = await http.post("/mcp", json=MCP_PROBE, headers={**MCP_HEADERS, **bearer(key)})
    codes["mcp"] = str(mcp.status_code)
    a2a = await http.post("/a2a", json=A2A_PROBE, headers={"A2A-Version": "1.0", **bearer(key)})
    codes["a2a"] = str(a2a.status_code)
    metadata = tuple(bearer(key).items())
    try:
        await stack.gateway.ListRuns(run_pb2.ListRunsRequest(), metadata=metadata)
        codes["grpc"] = "OK"
    except grpc.aio.AioRpcError as err:
        codes["grpc"] = err.code().name
    async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port('gateway')}") as channel:
        try:
            await a2a_pb2_grpc.A2AServiceStub(channel).GetTask(
                a2a_pb2.GetTaskRequest(id="no-such-task"), metadata=metadata
            )
            codes["a2a-grpc"] = "OK"
        except grpc.aio.AioRpcError as err:
            codes["a2a-grpc"] = err.code().name
    return codes


REFUSED = {"401", "429", "UNAUTHENTICATED", "RESOURCE_EXHAUSTED"}


async def test_a_right_key_is_served_at_every_door_after_any_number_of_wrong_keys(keyed: Stack) -> None:
    async with httpx.AsyncClient(base_url=keyed.http, timeout=20) as http:
        served = await codes_of_every_door(keyed, http, KEY)
        assert not set(served.values()) & REFUSED, served
        # A guesser at the same address: far past its budget of wrong keys, on every door.
        throttled = [await codes_of_every_door(keyed, http, f"{n:06d}-guess") for n in range(4)]
        assert throttled[0] == {
            "rest": "401",
            "mcp": "401",
            "a2a": "401",
            "grpc": "RESOURCE_EXHAUSTED",  # the fourth wrong key from 127.0.0.1
            "a2a-grpc": "RESOURCE_EXHAUSTED",
        }
        assert all(set(codes.values()) == {"429", "RESOURCE_EXHAUSTED"} for codes in throttled[1:])
        refused = await http.get("/v1/runs", headers=bearer("another-guess"))
        assert refused.json()["error"]["details"][0]["reason"] == "AUTH_THROTTLED"
        assert int(refused.headers["retry-after"]) >= 1
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await keyed.gateway.ListRuns(run_pb2.ListRunsRequest(), metadata=(("authorization", "Bearer x"),))
        assert ErrorDetails.from_rpc_error(info.value).reason == "AUTH_THROTTLED"
        # The right key, from that very address, is answered as before the guesses, at every door.
        assert await codes_of_every_door(keyed, http, KEY) == served


async def test_wrong_keys_aimed_at_one_prefix_are_throttled_from_any_address(keyed: Stack) -> None:
    aiming = KEY[:KEY_PREFIX_CHARS]  # a distributed guesser that knows how alice's key starts

    async def get(key: str, address: str) -> httpx.Response:
        return await http.get("/v1/runs", headers={**bearer(key), "X-Forwarded-For": address})

    async with httpx.AsyncClient(base_url=keyed.http, timeout=20) as http:
        codes = [(await get(f"{aiming}guess-{n}", f"198.51.100.{n}")).status_code for n in range(6)]
        assert codes == [401] * BURST + [429] * (6 - BURST)  # a fresh address each time
        throttled = await get(f"{aiming}guess-x", "198.51.100.99")
        assert throttled.json()["error"]["details"][0]["reason"] == "AUTH_THROTTLED"
        # Another prefix from a fresh address has its own budgets; the key itself is served.
        assert (await get("another-guess", "198.51.100.98")).status_code == 401
        assert (await get(KEY, "198.51.100.5")).status_code == 200
