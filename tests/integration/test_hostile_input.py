"""Hostile input from users and providers gets a clear 4xx, never 500/INTERNAL/UNKNOWN, a hang or
a leak (real gRPC and HTTP against the in-process stack; PostgreSQL where the bug was)."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import duration_pb2
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core.channels import aio_channel
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.tools_sdk import ToolProvider, tool
from agentrt.v1 import run_pb2, tool_pb2, tool_service_pb2
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack, watch_all
from tests.keys import key_for

R = run_pb2
T = tool_service_pb2


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.http, timeout=20) as c:
        yield c


async def grpc_error(call: Any) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return ErrorDetails.from_rpc_error(info.value)


async def run_to_end(stack: Stack, prompt: str, **request: Any) -> run_pb2.Run:
    created = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt=prompt, **request))).run
    await watch_all(stack.gateway, created.run_id)
    return (await stack.gateway.GetRun(R.GetRunRequest(run_id=created.run_id))).run


# -- tools ------------------------------------------------------------------------------------


@pytest.mark.parametrize("expression", ["2**2000", "2**4000 - 1", "-(2**3000)"])
async def test_huge_integer_results_are_a_tool_error(stack: Stack, expression: str) -> None:
    details = await grpc_error(
        stack.tools.InvokeTool(
            T.InvokeToolRequest(tool="calculator", arguments=dict_to_struct({"expression": expression}))
        )
    )
    assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "TOOL_ERROR")
    assert "too large" in details.message


async def test_a_long_todo_text_fails_its_run_clearly(stack: Stack) -> None:
    run = await run_to_end(stack, "add a todo to " + "x" * 4000)
    assert run.status == R.RUN_STATUS_FAILED
    assert run.error.reason == "INVALID_TOOL_ARGUMENTS"  # not "received metadata size exceeds soft limit"
    assert "is longer than 1000 characters" in run.error.message
    assert len(run.error.message) < 1500
    assert run.steps[0].attempts == 1


async def test_a_long_unplannable_prompt_fails_unplannable(stack: Stack) -> None:
    run = await run_to_end(stack, "book me a flight to " + "somewhere far away " * 400)
    assert run.status == R.RUN_STATUS_FAILED
    assert run.error.reason == "UNPLANNABLE"  # not "Stream removed" after three retries
    assert "no rule understands" in run.error.message


async def test_the_todo_list_pages_instead_of_growing_without_bound(stack: Stack) -> None:
    async def todo(**arguments: Any) -> Any:
        response = await stack.tools.InvokeTool(
            T.InvokeToolRequest(tool="todo_store", arguments=dict_to_struct(arguments))
        )
        return value_to_py(response.output)

    for n in range(130):
        await todo(action="add", text=f"item {n}")
    first = await todo(action="list")
    assert (first["count"], len(first["todos"]), first["truncated"], first["next_offset"]) == (
        130,
        100,
        True,
        100,
    )
    rest = await todo(action="list", offset=first["next_offset"])
    assert [t["text"] for t in rest["todos"]] == [f"item {n}" for n in range(100, 130)]
    assert "truncated" not in rest
    assert len((await todo(action="list", limit=5))["todos"]) == 5


@tool(name="blob", version="1.0.0")
def blob(size: int) -> dict[str, str]:
    """Returns `size` bytes.

    Args:
        size: How many.
    """
    return {"data": "x" * size}


async def blob_stack(settings: Settings, **limits: int) -> tuple[Stack, ToolProvider]:
    """A stack with these limits, and a provider of `blob` registered with it."""
    stack = await start_stack(settings.replace(**limits))
    provider = ToolProvider([blob], tools_addr=f"127.0.0.1:{stack.port('tools')}")
    await provider.start()
    return stack, provider


async def test_oversized_provider_output_is_a_clear_tool_error(settings: Settings) -> None:

    stack, provider = await blob_stack(settings, max_tool_output_bytes=10_000)
    try:
        for size in (20_000, 5_000_000):  # over the limit; over even gRPC's receive limit for it
            run = await run_to_end(stack, f'use blob with {{"size": {size}}}')
            assert run.status == R.RUN_STATUS_FAILED
            assert run.error.reason == "TOOL_OUTPUT_TOO_LARGE", run.error.message
            assert run.steps[0].attempts == 1
        assert (await run_to_end(stack, 'use blob with {"size": 100}')).status == R.RUN_STATUS_SUCCEEDED
    finally:
        await provider.stop(0)
        await stack.close()


async def test_a_run_never_grows_past_max_run_bytes_and_listing_stays_readable(settings: Settings) -> None:

    stack, provider = await blob_stack(settings, max_tool_output_bytes=200_000, max_run_bytes=250_000)
    try:
        step = 'use blob with {"size": 90000}'
        run = await run_to_end(stack, f"{step}, then {step}")
        assert run.status == R.RUN_STATUS_FAILED
        assert run.error.reason == "RUN_TOO_LARGE"
        assert [s.status for s in run.steps] == [R.STEP_STATUS_SUCCEEDED, R.STEP_STATUS_FAILED]
        assert run.ByteSize() < 250_000
        for _ in range(40):  # 40 runs of ~180 KB: ~7 MB, more than one message may carry
            assert (await run_to_end(stack, step)).status == R.RUN_STATUS_SUCCEEDED
        seen, token, pages = 0, "", 0
        while True:
            page = await stack.gateway.ListRuns(R.ListRunsRequest(page_size=500, page_token=token))
            assert page.ByteSize() <= 4 * 1024 * 1024
            seen, token, pages = seen + len(page.runs), page.next_page_token, pages + 1
            if not token:
                break
        assert seen == 41
        assert pages >= 2
    finally:
        await provider.stop(0)
        await stack.close()


# -- run requests -----------------------------------------------------------------------------


def duration(seconds: int, nanos: int) -> duration_pb2.Duration:
    return duration_pb2.Duration(seconds=seconds, nanos=nanos)


@pytest.mark.parametrize(
    ("request_fields", "field"),
    [
        ({"timeout": duration(5, -1)}, "timeout"),
        ({"timeout": duration(-5, 1)}, "timeout"),
        ({"timeout": duration(10**9, 0)}, "timeout"),
        ({"retry_policy": R.RetryPolicy(step_timeout=duration(2**63 - 1, 0))}, "retry_policy.step_timeout"),
        ({"retry_policy": R.RetryPolicy(base_delay=duration(1, -5))}, "retry_policy.base_delay"),
        ({"retry_policy": R.RetryPolicy(max_delay=duration(10**9, 0))}, "retry_policy.max_delay"),
        ({"idempotency_key": "a\x00b"}, "idempotency_key"),
        ({"prompt": "add 1 and 1\x00"}, "prompt"),
    ],
)
async def test_malformed_run_requests_are_invalid_argument(
    stack: Stack, request_fields: dict[str, Any], field: str
) -> None:
    request = R.CreateRunRequest(prompt=request_fields.pop("prompt", "add 1 and 1"), **request_fields)
    details = await grpc_error(stack.gateway.CreateRun(request))
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in details.violations] == [field]


@pytest.mark.parametrize("run_id", ["x" * 60_000, "abc\x00def", "\n"])
async def test_malformed_run_ids_are_invalid_argument(stack: Stack, run_id: str) -> None:
    for call in (
        stack.gateway.GetRun(R.GetRunRequest(run_id=run_id)),
        stack.gateway.CancelRun(R.CancelRunRequest(run_id=run_id)),
        stack.gateway.RetryRun(R.RetryRunRequest(run_id=run_id)),
    ):
        details = await grpc_error(call)
        assert details.code == grpc.StatusCode.INVALID_ARGUMENT
        assert len(details.message) < 300


def token(data: Any) -> str:
    raw = data.encode() if isinstance(data, str) else json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    "page_token",
    [
        token('{"t": 1e400, "id": "a", "s": 0}'),
        token('{"t": Infinity, "id": "a", "s": 0}'),
        token({"t": 1e26, "id": "a", "s": 0}),
        token({"t": 10**30, "id": "a", "s": 0}),
        token({"t": 1, "id": 5, "s": 0}),
        token({"t": 1, "id": "a\u0000", "s": 0}),
        token([1, 2]),
        "!!!",
    ],
)
async def test_forged_page_tokens_are_invalid_argument(stack: Stack, page_token: str) -> None:
    details = await grpc_error(stack.gateway.ListRuns(R.ListRunsRequest(page_token=page_token)))
    assert (details.code, details.message) == (grpc.StatusCode.INVALID_ARGUMENT, "invalid page_token")


async def test_garbage_protobuf_bytes_are_invalid_argument(stack: Stack) -> None:
    channel = aio_channel(f"127.0.0.1:{stack.port('gateway')}")
    try:
        for method in ("/agentrt.v1.RunService/CreateRun", "/agentrt.v1.RunService/WatchRun"):
            call = channel.unary_unary(method) if "Create" in method else channel.unary_stream(method)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                result = call(b"\xff\xff\xff\xff\x0f garbage", timeout=5)
                if "Watch" in method:
                    async for _ in result:  # type: ignore[union-attr]
                        pass
                else:
                    await result  # type: ignore[misc]
            details = ErrorDetails.from_rpc_error(info.value)
            assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    finally:
        await channel.close()


async def test_provider_endpoints_with_absurd_hosts_are_refused(stack: Stack) -> None:
    spec = tool_pb2.ToolSpec(
        name="far", version="1.0.0", input_schema=dict_to_struct({"type": "object", "properties": {}})
    )
    for endpoint in ("a" * 10_000 + ":80", ("x" * 70 + ".") * 3 + "com:80", "ho st:80", "é.com:80"):
        details = await grpc_error(
            stack.tools.RegisterTool(T.RegisterToolRequest(spec=spec, endpoint=endpoint))
        )
        assert details.code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.PERMISSION_DENIED)
        assert len(details.message) < 600


async def test_error_details_stay_bounded_in_every_field(stack: Stack) -> None:
    # A provider spec whose every part is as long as the request allows, echoed in the error.
    spec = tool_pb2.ToolSpec(
        name="n" * 5000, version="v" * 5000, input_schema=dict_to_struct({"type": "object"})
    )
    details = await grpc_error(
        stack.tools.RegisterTool(T.RegisterToolRequest(spec=spec, endpoint="é" * 5000))
    )
    assert details.code == grpc.StatusCode.INVALID_ARGUMENT
    assert len(details.message.encode()) <= 1000
    assert all(len(d.encode()) <= 160 for _, d in details.violations)


# -- REST -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("[" * 50_000 + "]" * 50_000, "levels deep; at most 32 are accepted"),
        ('{"prompt": "x", "maxSteps": ' + "9" * 5000 + "}", "a number of more than 400 digits"),
        ('{"prompt": "x", "maxSteps": 99999999999999999999}', "invalid request body"),
        ('{"prompt": {"a": ' * 2000 + "1" + "}" * 2000, "levels deep; at most 32 are accepted"),
    ],
)
async def test_rest_bodies_that_used_to_500_are_400(
    client: httpx.AsyncClient, body: str, fragment: str
) -> None:
    response = await client.post(
        "/v1/runs", content=body[:60_000], headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400, response.text
    assert fragment in response.json()["error"]["message"]


@pytest.mark.parametrize("last_event_id", ["²", "¹²", "1e3", "-1", str(2**63), "9" * 40])
async def test_bad_last_event_ids_are_400(
    stack: Stack, client: httpx.AsyncClient, last_event_id: str
) -> None:
    run = (await stack.gateway.CreateRun(R.CreateRunRequest(prompt="add 1 and 1"))).run
    headers = {"Last-Event-ID": last_event_id.encode()}  # as the client sent them: bytes
    response = await client.get(f"/v1/runs/{run.run_id}/events", headers=headers)
    assert response.status_code == 400, response.text


async def test_rest_run_ids_with_nul_or_huge_length_are_400(client: httpx.AsyncClient) -> None:
    assert (await client.get("/v1/runs/%00")).status_code == 400
    huge = await client.get("/v1/runs/" + "r" * 20_000)
    assert huge.status_code == 400, huge.text


# -- auth -------------------------------------------------------------------------------------


async def test_wrong_keys_are_throttled_per_address_and_tokens_stay_out_of_urls(settings: Settings) -> None:
    key = key_for("ci")
    guarded = await start_stack(
        settings.replace(
            api_keys={"ci": SecretStr(key)},
            internal_token=INTERNAL_TOKEN,
            auth_failure_rps=0.5,
            auth_failure_burst=5,
        )
    )
    try:
        async with httpx.AsyncClient(base_url=guarded.http, timeout=20) as c:
            ok = {"Authorization": f"Bearer {key}"}
            # The key in the URL counts only where EventSource needs it (the SSE route).
            assert (await c.get("/v1/runs", params={"access_token": key})).status_code == 401
            statuses = [  # each guess starting its own way: the address's budget is what runs out
                (await c.get("/v1/runs", headers={"Authorization": f"Bearer {n:06d}-guess"})).status_code
                for n in range(30)
            ]
            assert statuses[:5] == [401] * 5
            assert set(statuses[5:]) == {429}
            throttled = await c.get("/v1/runs", headers={"Authorization": "Bearer guess-x"})
            assert throttled.json()["error"]["details"][0]["reason"] == "AUTH_THROTTLED"
            assert int(throttled.headers["retry-after"]) >= 1
            # The right key from that address is served all the same: the guesser next to its
            # owner (one NAT, one office) locks nobody out.
            assert (await c.get("/v1/runs", headers=ok)).status_code == 200
        details = await grpc_error(
            guarded.gateway.ListRuns(R.ListRunsRequest(), metadata=(("authorization", "Bearer guess"),))
        )
        assert (details.code, details.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "AUTH_THROTTLED")
    finally:
        await guarded.close()


async def test_nul_bytes_are_refused_before_postgresql_sees_them(pg_settings: Settings) -> None:
    """PostgreSQL refuses NUL in text: each path answered INTERNAL before."""
    stack = await start_stack(pg_settings)
    try:
        details = await grpc_error(
            stack.gateway.CreateRun(R.CreateRunRequest(prompt="add 1 and 1", idempotency_key="k\x00"))
        )
        assert details.code == grpc.StatusCode.INVALID_ARGUMENT
        details = await grpc_error(stack.gateway.GetRun(R.GetRunRequest(run_id="\x00")))
        assert details.code == grpc.StatusCode.INVALID_ARGUMENT
        details = await grpc_error(
            stack.tools.InvokeTool(
                T.InvokeToolRequest(
                    tool="todo_store", arguments=dict_to_struct({"action": "add", "text": "a\x00b"})
                )
            )
        )
        assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_TODO_TEXT")
        async with httpx.AsyncClient(base_url=stack.http, timeout=20) as c:
            assert (await c.get("/v1/runs/%00")).status_code == 400
        run = await run_to_end(stack, "add 2 and 2")  # and the store is fine afterwards
        assert run.status == R.RUN_STATUS_SUCCEEDED
    finally:
        await stack.close()


@pytest.mark.parametrize(
    "arguments",
    [
        {"action": "list", "offset": 1e300},
        {"action": "list", "offset": 2**31},
        {"action": "complete", "id": 1e300},
        {"action": "delete", "id": 2**40},
    ],
)
async def test_todo_ids_and_offsets_beyond_the_database_integer_are_invalid_argument(
    stack: Stack, arguments: dict[str, Any]
) -> None:
    details = await grpc_error(
        stack.tools.InvokeTool(T.InvokeToolRequest(tool="todo_store", arguments=dict_to_struct(arguments)))
    )
    assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_TOOL_ARGUMENTS")
