"""The REST/SSE bridge over real HTTP against the in-process stack."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import json_format
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.v1 import run_pb2
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack, watch_all
from tests.keys import key_for

R = run_pb2


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.http, timeout=20) as c:
        yield c


async def create(client: httpx.AsyncClient, prompt: str, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/runs", json={"prompt": prompt, **body})
    assert response.status_code == 200, response.text
    return response.json()["run"]


async def sse(client: httpx.AsyncClient, run_id: str, limit: int | None = None, **kwargs: Any) -> list[dict]:
    """Read SSE events (id, event, data); stop after `limit` events (dropping the connection)."""
    events: list[dict] = []
    async with client.stream("GET", f"/v1/runs/{run_id}/events", **kwargs) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        current: dict[str, Any] = {}
        async for line in response.aiter_lines():
            if line.startswith(":"):
                continue
            if not line:
                if current:
                    events.append(current)
                    current = {}
                    if limit is not None and len(events) >= limit:
                        break
                continue
            field, _, value = line.partition(": ")
            current[field] = json.loads(value) if field == "data" else value
    return events


async def finished(client: httpx.AsyncClient, run_id: str) -> dict[str, Any]:
    await sse(client, run_id)
    return (await client.get(f"/v1/runs/{run_id}")).json()["run"]


async def test_create_watch_and_get_round_trip(stack: Stack, client: httpx.AsyncClient) -> None:
    run = await create(client, "Add a todo to buy milk, then show me all my tasks")
    assert run["status"] == "RUN_STATUS_PENDING"
    events = await sse(client, run["runId"])
    assert [int(e["id"]) for e in events] == list(range(1, len(events) + 1))
    assert [e["event"] for e in events][:3] == ["status_changed", "status_changed", "plan_created"]
    assert all(int(e["data"]["seq"]) == int(e["id"]) for e in events)
    final = events[-1]["data"]["statusChanged"]
    assert final["status"] == "RUN_STATUS_SUCCEEDED"
    assert [t["text"] for t in final["result"]["todos"]] == ["buy milk"]

    got = (await client.get(f"/v1/runs/{run['runId']}")).json()["run"]
    assert got["status"] == "RUN_STATUS_SUCCEEDED"
    assert [s["stepId"] for s in got["steps"]] == ["s1", "s2"]
    # The REST body is json_format of the very Run the gRPC API returns.
    grpc_run = (await stack.gateway.GetRun(R.GetRunRequest(run_id=run["runId"]))).run
    assert got == json_format.MessageToDict(grpc_run)


async def test_sse_resumes_after_a_dropped_connection_with_exactly_the_missing_events(
    client: httpx.AsyncClient,
) -> None:
    run = await create(client, "calculate 2+3 then multiply the result by 4 then add a todo with the result")
    everything = await sse(client, run["runId"])
    assert len(everything) > 6
    for cut in (1, 3, len(everything) - 1):
        head = await sse(client, run["runId"], limit=cut)  # the connection is dropped here
        rest = await sse(client, run["runId"], headers={"Last-Event-ID": head[-1]["id"]})
        assert head + rest == everything
        by_query = await sse(client, run["runId"], params={"after_seq": cut})
        assert by_query == everything[cut:]
    # Last-Event-ID wins over the URL: an EventSource reconnects with its original URL.
    assert (
        await sse(client, run["runId"], params={"after_seq": 0}, headers={"Last-Event-ID": "2"})
        == everything[2:]
    )
    past_end = await client.get(f"/v1/runs/{run['runId']}/events", params={"after_seq": len(everything)})
    assert past_end.status_code == 204  # also tells an EventSource to stop reconnecting


async def test_live_sse_sees_a_run_as_it_happens(client: httpx.AsyncClient) -> None:
    run = await create(client, "divide 100 by 8")
    events = await sse(client, run["runId"])  # opened right after creation: replay + live tail
    assert events[-1]["data"]["statusChanged"]["result"]["value"] == 12.5


async def test_list_paginate_and_filter(client: httpx.AsyncClient) -> None:
    ids = [(await create(client, f"add {i} and {i}"))["runId"] for i in range(3)]
    failed = await create(client, "divide 1 by 0")
    for run_id in [*ids, failed["runId"]]:
        await sse(client, run_id)
    first = (await client.get("/v1/runs", params={"page_size": 2})).json()
    assert [r["runId"] for r in first["runs"]] == [failed["runId"], ids[2]]
    second = (
        await client.get("/v1/runs", params={"page_size": 2, "page_token": first["nextPageToken"]})
    ).json()
    assert [r["runId"] for r in second["runs"]] == [ids[1], ids[0]]
    assert "nextPageToken" not in second
    for status in ("failed", "RUN_STATUS_FAILED"):
        only = (await client.get("/v1/runs", params={"status": status})).json()
        assert [r["runId"] for r in only["runs"]] == [failed["runId"]]


async def test_cancel_and_retry(stack: Stack, client: httpx.AsyncClient) -> None:
    await stack.servers["planner"].stop(0)  # planning keeps retrying while the planner is down
    slow = await create(
        client, "add 1 and 1", retryPolicy={"maxAttempts": 100, "baseDelay": "0.2s", "maxDelay": "0.2s"}
    )
    cancelled = await client.post(f"/v1/runs/{slow['runId']}:cancel")
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["run"]["status"] == "RUN_STATUS_CANCELLED"
    again = await client.post(f"/v1/runs/{slow['runId']}:cancel")
    assert again.status_code == 409
    assert again.json()["error"]["status"] == "FAILED_PRECONDITION"

    failed = await create(client, "divide 1 by 0", timeout="1s")  # the planner is still down
    await sse(client, failed["runId"])
    retried = await client.post(f"/v1/runs/{failed['runId']}:retry")
    assert retried.status_code == 200, retried.text
    assert retried.json()["run"]["retryCount"] == 1
    assert (await client.post(f"/v1/runs/{failed['runId']}:explode")).status_code == 404


async def test_idempotency_key_header(client: httpx.AsyncClient) -> None:
    headers = {"Idempotency-Key": "order-42"}
    first = await client.post("/v1/runs", json={"prompt": "add 2 and 2"}, headers=headers)
    second = await client.post("/v1/runs", json={"prompt": "add 2 and 2"}, headers=headers)
    assert first.json()["run"]["runId"] == second.json()["run"]["runId"]
    assert first.json()["run"]["idempotencyKey"] == "order-42"
    conflict = await client.post("/v1/runs", json={"prompt": "add 3 and 3"}, headers=headers)
    assert conflict.status_code == 409
    mismatch = await client.post("/v1/runs", json={"prompt": "x", "idempotencyKey": "other"}, headers=headers)
    assert mismatch.status_code == 400


async def test_tools_health_and_docs(stack: Stack, client: httpx.AsyncClient) -> None:
    tools = (await client.get("/v1/tools")).json()
    assert [t["name"] for t in tools["tools"]] == ["calculator", "todo_store"]
    assert tools["catalogVersion"]
    health = await client.get("/healthz")
    assert health.status_code == 200
    assert health.json() == {
        "status": "SERVING",
        "services": {"gateway": "SERVING", "executor": "SERVING", "planner": "SERVING", "tools": "SERVING"},
    }
    assert (await client.get("/readyz")).status_code == 200
    assert (await client.get("/docs")).status_code == 200
    assert "SwaggerUIBundle" in (await client.get("/docs/assets/swagger-ui-bundle.js")).text[:100000]
    assert "<title>agentrt</title>" in (await client.get("/")).text

    await stack.servers["planner"].stop(0)
    degraded = await client.get("/healthz")
    assert degraded.status_code == 503
    assert degraded.json()["services"]["planner"] == "UNREACHABLE"
    assert (await client.get("/readyz")).status_code == 200  # runs can still be accepted


BAD_INPUTS = [
    ("POST", "/v1/runs", {"content": b"{not json"}, 400, "not valid JSON"),
    ("POST", "/v1/runs", {"content": b"[1, 2]"}, 400, "must be a JSON object"),
    ("POST", "/v1/runs", {"json": {"prompt": 5}}, 400, "Failed to parse prompt field"),
    ("POST", "/v1/runs", {"json": {"prompt": "x", "maxSteps": "many"}}, 400, "maxSteps"),
    ("POST", "/v1/runs", {"json": {"prompt": "x", "surprise": True}}, 400, 'has no field named "surprise"'),
    ("POST", "/v1/runs", {"json": {"prompt": ""}}, 400, "prompt must not be empty"),
    ("POST", "/v1/runs", {"json": {"prompt": "x" * 9000}}, 400, "prompt must be at most"),
    ("POST", "/v1/runs", {"json": {"prompt": "x", "maxSteps": -3}}, 400, "max_steps"),
    ("POST", "/v1/runs", {"json": {"prompt": "x", "timeout": "forever"}}, 400, "timeout"),
    (
        "POST",
        "/v1/runs",
        {"json": {"prompt": "x", "retryPolicy": {"maxAttempts": 1000}}},
        400,
        "max_attempts",
    ),
    (
        "POST",
        "/v1/runs",
        {"content": b"\xff\xfe", "headers": {"content-type": "application/json"}},
        400,
        "not UTF-8",
    ),
    (
        "POST",
        "/v1/runs",
        {"content": b"<run/>", "headers": {"content-type": "application/xml"}},
        415,
        "unsupported content type",
    ),
    (
        "POST",
        "/v1/runs",
        {"content": b'{"prompt": "x"}', "headers": {"content-type": "text/plain"}},
        415,
        "send application/json",
    ),
    (
        "POST",
        "/v1/runs",
        {"content": b'{"prompt": "x"}', "headers": {"content-type": "application/x-www-form-urlencoded"}},
        415,
        "send application/json",
    ),
    ("POST", "/v1/runs", {"content": b"{" + b" " * 70000 + b"}"}, 413, "larger than"),
    ("GET", "/v1/runs?page_size=ten", {}, 400, "page_size must be an integer"),
    ("GET", "/v1/runs?page_size=-1", {}, 400, "page_size must be between"),
    ("GET", "/v1/runs?status=done", {}, 400, "unknown status"),
    ("GET", "/v1/runs?page_token=%%%", {}, 400, "invalid page_token"),
    ("GET", "/v1/runs/nope", {}, 404, "run nope not found"),
    ("GET", "/v1/runs/nope/events", {}, 404, "not found"),
    ("GET", "/v1/runs/nope/events?after_seq=x", {}, 400, "after_seq must be an integer"),
    ("GET", "/v1/runs/nope/events", {"headers": {"Last-Event-ID": "abc"}}, 400, "Last-Event-ID"),
    ("DELETE", "/v1/runs", {}, 405, "Method Not Allowed"),
    ("GET", "/v2/everything", {}, 404, "Not Found"),
]


@pytest.mark.parametrize(("method", "path", "kwargs", "status", "text"), BAD_INPUTS)
async def test_bad_input_is_a_clear_4xx(
    client: httpx.AsyncClient, *, method: str, path: str, kwargs: dict, status: int, text: str
) -> None:
    response = await client.request(method, path, **kwargs)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == status
    assert text in error["message"]
    assert error["status"]
    # Every error has the documented shape, including the bridge's own (413, 415, 404, 405).
    info = error["details"][0]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert info["domain"] == "agentrt.dev" and info["reason"]


async def test_a_rejected_request_creates_nothing(client: httpx.AsyncClient) -> None:
    for method, path, kwargs, _, _ in BAD_INPUTS:
        if method == "POST":
            await client.request(method, path, **kwargs)
    assert (await client.get("/v1/runs")).json() == {}


async def test_api_keys_and_rate_limits_apply_to_rest_and_grpc(settings: Settings) -> None:
    guarded = await start_stack(
        settings.replace(
            api_keys={name: SecretStr(key_for(name)) for name in ("ci", "ops", "svc")},
            internal_token=INTERNAL_TOKEN,
            rate_limit_rps=1.0,
            rate_limit_burst=3,
        )
    )
    try:
        async with httpx.AsyncClient(base_url=guarded.http) as c:
            missing = await c.get("/v1/runs")
            assert missing.status_code == 401
            assert missing.headers["www-authenticate"] == "Bearer"
            assert missing.json()["error"]["details"][0]["reason"] == "MISSING_API_KEY"
            wrong = await c.get("/v1/runs", headers={"Authorization": "Bearer nope"})
            assert (wrong.status_code, wrong.json()["error"]["details"][0]["reason"]) == (
                401,
                "INVALID_API_KEY",
            )
            for path in ("/healthz", "/readyz", "/openapi.json", "/", "/docs"):
                assert (await c.get(path)).status_code == 200, path  # probes and docs stay open
            assert (await c.get("/openapi.json")).json()["security"] == [{"apiKey": []}]

            ci = {"Authorization": f"Bearer {key_for('ci')}"}
            ops = {"Authorization": f"Bearer {key_for('ops')}"}
            statuses = [(await c.get("/v1/runs", headers=ci)).status_code for _ in range(4)]
            assert statuses == [200, 200, 200, 429]
            limited = await c.get("/v1/runs", headers=ci)
            assert limited.status_code == 429
            assert int(limited.headers["retry-after"]) >= 1
            assert limited.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
            # Buckets are per key: another key is unaffected.
            assert (await c.get("/v1/runs", headers=ops)).status_code == 200
            # EventSource cannot send headers: the SSE route also takes ?access_token=.
            run = (await c.post("/v1/runs", json={"prompt": "add 1 and 1"}, headers=ops)).json()["run"]
            events = await sse(c, run["runId"], params={"access_token": key_for("ops")})
            assert events[-1]["data"]["statusChanged"]["status"] == "RUN_STATUS_SUCCEEDED"

        gateway = guarded.gateway
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await gateway.ListRuns(R.ListRunsRequest())
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # REST and gRPC share a key's bucket: a fresh key.
        svc = (("authorization", f"Bearer {key_for('svc')}"),)
        assert (
            list((await gateway.ListRuns(R.ListRunsRequest(), metadata=svc)).runs) == []
        )  # ops' run is not svc's
        for _ in range(5):
            try:
                await gateway.ListRuns(R.ListRunsRequest(), metadata=svc)
            except grpc.aio.AioRpcError as err:
                details = ErrorDetails.from_rpc_error(err)
                assert (details.code, details.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
                assert "retry in" in details.message
                break
        else:
            raise AssertionError("the gRPC side was never rate limited")
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await watch_all(gateway, run["runId"])
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        await guarded.close()


async def test_openapi_describes_every_field_of_the_messages(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    for message in (R.Run, R.StepState, R.RunEvent, R.CreateRunRequest, R.ListRunsResponse):
        descriptor = message.DESCRIPTOR
        assert set(schemas[descriptor.full_name]["properties"]) == {f.json_name for f in descriptor.fields}
    assert schemas["agentrt.v1.Run"]["properties"]["status"]["enum"][1] == "RUN_STATUS_PENDING"
    assert "Server-assigned identifier." in schemas["agentrt.v1.Run"]["properties"]["runId"]["description"]
    assert set(document["paths"]) >= {
        "/v1/runs",
        "/v1/runs/{run_id}",
        "/v1/runs/{run_id}:cancel",
        "/v1/runs/{run_id}/events",
    }
    assert "security" not in document  # auth is off in this stack


async def test_many_concurrent_sse_clients(client: httpx.AsyncClient) -> None:
    run = await create(client, "calculate 1+1 then add 2 to it then add 3 to it")
    streams = await asyncio.gather(*(sse(client, run["runId"]) for _ in range(20)))
    assert all(s == streams[0] for s in streams)
    assert streams[0][-1]["data"]["statusChanged"]["result"]["value"] == 7


async def test_requests_on_a_kept_alive_connection_do_not_stall(client: httpx.AsyncClient) -> None:
    """Nagle + delayed ACK made every request after the first on a connection take ~40 ms
    (first 3-4 ms). Compared with the first request, never with a wall-clock constant."""
    timings = []
    for _ in range(12):
        started = time.perf_counter()
        response = await client.get("/openapi.json")
        timings.append(time.perf_counter() - started)
        assert response.status_code == 200
    first, later = timings[0], sorted(timings[1:])[len(timings[1:]) // 2]
    assert later < 3 * first, f"first {first * 1e3:.1f} ms, then a median of {later * 1e3:.1f} ms"
