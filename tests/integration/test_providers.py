"""Dynamic tool registration over real gRPC: SDK providers, leases, conflicts, watch, routing."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.tools_sdk import CallContext, ToolDefinition, ToolProvider, tool
from agentrt.v1 import run_pb2, tool_pb2, tool_service_pb2
from examples.unit_converter import convert_units
from tests.conftest import Stack, start_stack, watch_all
from tools_svc import server as tools_server

T = tool_service_pb2


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.replace(registry_refresh_s=0.1, lease_ttl_min_s=0.1)


def greeter(name: str, version: str, calls: Counter[str] | None = None) -> ToolDefinition:
    @tool(name=name, version=version)
    def greet(who: str) -> dict[str, str]:
        """Greets someone.

        Args:
            who: Whom to greet.
        """
        if calls is not None:
            calls[version] += 1
        return {"greeting": f"hello {who}", "version": version}

    return greet


class Providers:
    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.running: list[ToolProvider] = []

    async def start(
        self, *tools: ToolDefinition, ttl_s: float = 5.0, token: str | None = None
    ) -> ToolProvider:
        provider = ToolProvider(
            tools, tools_addr=f"127.0.0.1:{self.stack.port('tools')}", ttl_s=ttl_s, token=token
        )
        await provider.start()
        self.running.append(provider)
        return provider

    async def close(self) -> None:
        for provider in self.running:
            await provider.stop(0)


@pytest.fixture
async def providers(stack: Stack) -> AsyncIterator[Providers]:
    p = Providers(stack)
    try:
        yield p
    finally:
        await p.close()


async def catalog(stack: Stack) -> dict[str, tool_pb2.Tool]:
    return {t.name: t for t in (await stack.tools.ListTools(T.ListToolsRequest())).tools}


async def invoke(stack: Stack, name: str, **arguments: Any) -> Any:
    response = await stack.tools.InvokeTool(
        T.InvokeToolRequest(tool=name, arguments=dict_to_struct(arguments))
    )
    return value_to_py(response.output)


def spec(name: str = "greet", version: str = "1.0.0", **schema: Any) -> tool_pb2.ToolSpec:
    input_schema = schema or {"type": "object", "properties": {"who": {"type": "string"}}}
    return tool_pb2.ToolSpec(
        name=name, version=version, description="d", input_schema=dict_to_struct(input_schema)
    )


def ttl(seconds: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(seconds * 1e9))
    return d


async def rpc_error(call: Any) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return ErrorDetails.from_rpc_error(info.value)


async def test_provider_tool_is_listed_and_a_run_uses_it(stack: Stack, providers: Providers) -> None:
    before = (await stack.tools.ListTools(T.ListToolsRequest())).catalog_version
    provider = await providers.start(convert_units)
    listed = await stack.tools.ListTools(T.ListToolsRequest())
    assert listed.catalog_version != before
    entry = {t.name: t for t in listed.tools}["convert_units"]
    assert entry.source == tool_pb2.TOOL_SOURCE_PROVIDER
    assert entry.version == "1.0.0"
    assert entry.health == tool_pb2.TOOL_HEALTH_HEALTHY
    assert entry.endpoint == provider.endpoint
    assert entry.idempotent is True
    assert entry.HasField("lease_expire_time")
    assert value_to_py(entry.input_schema.fields["properties"]).keys() == {"value", "from_unit", "to_unit"}

    created = (
        await stack.gateway.CreateRun(
            run_pb2.CreateRunRequest(
                prompt='use convert_units with {"value": 10, "from_unit": "km", "to_unit": "mi"}'
            )
        )
    ).run
    await watch_all(stack.gateway, created.run_id)
    run = (await stack.gateway.GetRun(run_pb2.GetRunRequest(run_id=created.run_id))).run
    assert run.status == run_pb2.RUN_STATUS_SUCCEEDED, run.error.message
    assert value_to_py(run.result) == {"value": 6.213712, "unit": "mi", "text": "10 km = 6.21371 mi"}


async def test_schema_violations_are_rejected_before_the_provider_is_called(
    stack: Stack, providers: Providers
) -> None:
    calls: Counter[str] = Counter()
    await providers.start(greeter("greet", "1.0.0", calls))
    for bad in ({}, {"who": 5}, {"who": "x", "extra": True}):
        details = await rpc_error(
            stack.tools.InvokeTool(T.InvokeToolRequest(tool="greet", arguments=dict_to_struct(bad)))
        )
        assert details.code == grpc.StatusCode.INVALID_ARGUMENT
        assert details.reason == "INVALID_TOOL_ARGUMENTS"
    assert calls == Counter()
    assert await invoke(stack, "greet", who="ada") == {"greeting": "hello ada", "version": "1.0.0"}
    assert calls == Counter({"1.0.0": 1})


@tool
def whoami(greeting: str, call: CallContext) -> dict[str, Any]:
    """Says who called, and from which run and step.

    Args:
        greeting: Anything.
    """
    return {
        "greeting": greeting,
        "principal": call.principal,
        "run_id": call.run_id,
        "step_id": call.step_id,
        "attempt": call.attempt,
        "idempotency_key": call.idempotency_key,
    }


async def test_a_provider_tool_is_given_the_call_context(stack: Stack, providers: Providers) -> None:
    await providers.start(whoami)
    listed = await catalog(stack)
    assert value_to_py(listed["whoami"].input_schema.fields["properties"]).keys() == {"greeting"}
    request = T.InvokeToolRequest(
        tool="whoami",
        arguments=dict_to_struct({"greeting": "hi"}),
        idempotency_key="run-7/s2",
        context=tool_pb2.CallContext(principal="alice", run_id="run-7", step_id="s2", attempt=3),
    )
    assert value_to_py((await stack.tools.InvokeTool(request)).output) == {
        "greeting": "hi",
        "principal": "alice",
        "run_id": "run-7",
        "step_id": "s2",
        "attempt": 3,
        "idempotency_key": "run-7/s2",  # the request's, when the context names none
    }
    # Without a context the call is `local`'s; and no argument can pose as the context.
    assert (await invoke(stack, "whoami", greeting="hi"))["principal"] == "local"
    details = await rpc_error(invoke(stack, "whoami", greeting="hi", call={"principal": "alice"}))
    assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_TOOL_ARGUMENTS")


async def test_outputs_are_checked_against_a_declared_output_schema(
    stack: Stack, providers: Providers
) -> None:
    provider = await providers.start(greeter("greet", "1.0.0"))
    wrong = spec(version="2.0.0")
    wrong.output_schema.CopyFrom(dict_to_struct({"type": "string"}))  # the provider returns an object
    await stack.tools.RegisterTool(T.RegisterToolRequest(spec=wrong, endpoint=provider.endpoint))
    details = await rpc_error(
        stack.tools.InvokeTool(T.InvokeToolRequest(tool="greet", arguments=dict_to_struct({"who": "x"})))
    )
    assert details.code == grpc.StatusCode.INTERNAL
    assert details.reason == "INVALID_TOOL_OUTPUT"
    assert "violates its output schema" in details.message


async def test_version_upgrade_routes_to_the_newest_version(stack: Stack, providers: Providers) -> None:
    calls: Counter[str] = Counter()
    old = await providers.start(greeter("greet", "1.0.0", calls))
    watch = stack.tools.WatchTools(T.WatchToolsRequest())
    assert (await watch.read()).change == T.TOOL_CHANGE_TYPE_SNAPSHOT
    new = await providers.start(greeter("greet", "1.1.0", calls))

    change = await asyncio.wait_for(watch.read(), 5)
    assert change.change == T.TOOL_CHANGE_TYPE_UPDATED
    assert (change.tools[0].version, change.tools[0].endpoint) == ("1.1.0", new.endpoint)
    entry = (await catalog(stack))["greet"]
    assert (entry.version, entry.endpoint) == ("1.1.0", new.endpoint)
    assert (await invoke(stack, "greet", who="x"))["version"] == "1.1.0"

    await old.stop(0)  # the old version leaves; the name stays on the new one
    providers.running.remove(old)
    assert (await catalog(stack))["greet"].version == "1.1.0"
    assert calls == Counter({"1.1.0": 1})
    watch.cancel()


async def test_name_conflicts_and_idempotent_reregistration(stack: Stack, providers: Providers) -> None:
    owner = await providers.start(greeter("greet", "1.0.0"))
    rival = await providers.start(greeter("other", "1.0.0"))

    same = await rpc_error(
        stack.tools.RegisterTool(T.RegisterToolRequest(spec=spec(), endpoint=rival.endpoint))
    )
    assert (same.code, same.reason) == (grpc.StatusCode.ALREADY_EXISTS, "TOOL_VERSION_TAKEN")
    assert owner.endpoint in same.message
    older = await rpc_error(
        stack.tools.RegisterTool(T.RegisterToolRequest(spec=spec(version="0.9.0"), endpoint=rival.endpoint))
    )
    assert (older.code, older.reason) == (grpc.StatusCode.ALREADY_EXISTS, "TOOL_NAME_TAKEN")
    builtin = await rpc_error(
        stack.tools.RegisterTool(T.RegisterToolRequest(spec=spec(name="calculator"), endpoint=rival.endpoint))
    )
    assert builtin.code == grpc.StatusCode.ALREADY_EXISTS and "built-in" in builtin.message

    # The owner registering the identical spec again gets the same lease back.
    identical = owner.tools["greet"].spec()
    again = await stack.tools.RegisterTool(T.RegisterToolRequest(spec=identical, endpoint=owner.endpoint))
    assert again.lease.lease_id == owner.leases["greet"]
    changed = owner.tools["greet"].spec()
    changed.description = "something else"
    drift = await rpc_error(
        stack.tools.RegisterTool(T.RegisterToolRequest(spec=changed, endpoint=owner.endpoint))
    )
    assert (drift.code, drift.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "TOOL_SPEC_CHANGED")


@pytest.mark.parametrize(
    ("request_", "code", "reason", "text"),
    [
        (
            T.RegisterToolRequest(spec=spec(name="Bad-Name"), endpoint="127.0.0.1:1"),
            "INVALID_ARGUMENT",
            "INVALID_TOOL_NAME",
            "is invalid",
        ),
        (
            T.RegisterToolRequest(spec=spec(version="1.0"), endpoint="127.0.0.1:1"),
            "INVALID_ARGUMENT",
            "INVALID_VERSION",
            "semantic version",
        ),
        (
            T.RegisterToolRequest(
                spec=spec(type="object", properties={"a": {"type": "strin"}}), endpoint="127.0.0.1:1"
            ),
            "INVALID_ARGUMENT",
            "INVALID_SCHEMA",
            'spec.input_schema is not an acceptable JSON Schema: "strin" is not valid',
        ),
        (
            T.RegisterToolRequest(spec=spec(type="array"), endpoint="127.0.0.1:1"),
            "INVALID_ARGUMENT",
            "INVALID_SCHEMA",
            "must describe an object",
        ),
        (
            T.RegisterToolRequest(spec=spec(), endpoint="localhost"),
            "INVALID_ARGUMENT",
            "INVALID_ENDPOINT",
            "host:port",
        ),
        (
            T.RegisterToolRequest(spec=spec(), endpoint="169.254.169.254:80"),
            "PERMISSION_DENIED",
            "ENDPOINT_NOT_ALLOWED",
            "not allowed",
        ),
        (
            T.RegisterToolRequest(endpoint="127.0.0.1:1"),
            "INVALID_ARGUMENT",
            "INVALID_ARGUMENT",
            "spec is required",
        ),
        (
            T.RegisterToolRequest(spec=spec(), endpoint="127.0.0.1:1", ttl=ttl(-1)),
            "INVALID_ARGUMENT",
            "INVALID_ARGUMENT",
            "ttl",
        ),
    ],
)
async def test_registrations_are_validated(
    stack: Stack, request_: Any, code: str, reason: str, text: str
) -> None:
    details = await rpc_error(stack.tools.RegisterTool(request_))
    assert (details.code.name, details.reason) == (code, reason)
    assert text in details.message
    assert set(await catalog(stack)) == {"calculator", "todo_store"}


async def test_registration_token_is_required_when_configured(settings: Settings) -> None:
    guarded = await start_stack(settings.replace(registration_token=SecretStr("s3cret")))
    providers = Providers(guarded)
    try:
        request = T.RegisterToolRequest(spec=spec(), endpoint="127.0.0.1:1")
        for metadata in ((), (("authorization", "Bearer wrong"),), (("authorization", "s3cret"),)):
            details = await rpc_error(guarded.tools.RegisterTool(request, metadata=metadata))
            assert (details.code, details.reason) == (
                grpc.StatusCode.UNAUTHENTICATED,
                "INVALID_REGISTRATION_TOKEN",
            )
        await providers.start(greeter("greet", "1.0.0"), token="s3cret")
        assert "greet" in await catalog(guarded)
        assert (await invoke(guarded, "greet", who="x"))["greeting"] == "hello x"  # invoking needs no token
    finally:
        await providers.close()
        await guarded.close()


async def test_a_lapsed_lease_leaves_the_catalog_and_watchers_see_add_and_remove(
    stack: Stack, providers: Providers
) -> None:
    provider = await providers.start(greeter("greet", "1.0.0"))
    watch = stack.tools.WatchTools(T.WatchToolsRequest())
    snapshot = await watch.read()
    assert snapshot.change == T.TOOL_CHANGE_TYPE_SNAPSHOT
    assert {t.name for t in snapshot.tools} == {"calculator", "todo_store", "greet"}

    short = spec(name="blip")
    lease = (
        await stack.tools.RegisterTool(
            T.RegisterToolRequest(spec=short, endpoint=provider.endpoint, ttl=ttl(0.3))
        )
    ).lease
    added = await asyncio.wait_for(watch.read(), 5)
    assert (added.change, added.tools[0].name) == (T.TOOL_CHANGE_TYPE_ADDED, "blip")
    removed = await asyncio.wait_for(watch.read(), 5)  # nobody renews it
    assert (removed.change, removed.tools[0].name) == (T.TOOL_CHANGE_TYPE_REMOVED, "blip")
    assert removed.catalog_version == snapshot.catalog_version
    assert "blip" not in await catalog(stack)

    lapsed = await rpc_error(
        stack.tools.InvokeTool(T.InvokeToolRequest(tool="blip", arguments=dict_to_struct({})))
    )
    assert (lapsed.code, lapsed.reason, lapsed.retryable) == (
        grpc.StatusCode.UNAVAILABLE,
        "PROVIDER_LEASE_LAPSED",
        True,
    )
    renewed = await stack.tools.RenewLeases(
        T.RenewLeasesRequest(lease_ids=[lease.lease_id, provider.leases["greet"]])
    )
    assert list(renewed.expired_lease_ids) == [lease.lease_id]
    assert [lease.tool for lease in renewed.leases] == ["greet"]
    watch.cancel()


async def test_an_unreachable_provider_is_unavailable_and_marked(stack: Stack, providers: Providers) -> None:
    provider = await providers.start(greeter("greet", "1.0.0"))
    # Simulate a crash: the process stops serving without deregistering (the lease is still live).
    assert provider._server is not None and provider._renewer is not None
    provider._renewer.cancel()
    await provider._server.stop(0)
    providers.running.remove(provider)
    details = await rpc_error(
        stack.tools.InvokeTool(T.InvokeToolRequest(tool="greet", arguments=dict_to_struct({"who": "x"})))
    )
    assert (details.code, details.reason, details.retryable) == (
        grpc.StatusCode.UNAVAILABLE,
        "PROVIDER_UNREACHABLE",
        True,
    )
    assert (await catalog(stack))["greet"].health == tool_pb2.TOOL_HEALTH_UNREACHABLE


async def test_leases_are_renewed_and_lost_leases_reregistered(stack: Stack, providers: Providers) -> None:
    # A TTL a loaded two-core machine renews in time (0.4 s lapsed once beside the other worker)
    provider = await providers.start(greeter("greet", "1.0.0"), ttl_s=1.0)
    await asyncio.sleep(3.0)  # three TTLs: only renewals keep it listed
    assert "greet" in await catalog(stack)
    first_lease = provider.leases["greet"]
    await stack.tools.DeregisterTool(T.DeregisterToolRequest(lease_id=first_lease))  # lost out of band
    assert "greet" not in await catalog(stack)
    for _ in range(50):
        await asyncio.sleep(0.05)
        if "greet" in await catalog(stack):
            break
    assert "greet" in await catalog(stack)
    assert provider.leases["greet"] != first_lease


async def test_fifty_tools_from_ten_providers(stack: Stack, providers: Providers) -> None:
    await asyncio.gather(
        *(providers.start(*(greeter(f"tool_{p}_{t}", f"1.{t}.0") for t in range(5))) for p in range(10))
    )
    listed = await catalog(stack)
    assert len(listed) == 52
    endpoints = {p.endpoint for p in providers.running}
    for p in range(10):
        for t in range(5):
            entry = listed[f"tool_{p}_{t}"]
            assert entry.version == f"1.{t}.0"
            assert entry.endpoint in endpoints
    outputs = await asyncio.gather(*(invoke(stack, f"tool_{p}_{p % 5}", who=str(p)) for p in range(10)))
    assert [o["greeting"] for o in outputs] == [f"hello {p}" for p in range(10)]
    snapshot = await stack.tools.WatchTools(T.WatchToolsRequest()).read()
    assert len(snapshot.tools) == 52


async def test_registrations_survive_a_tools_service_restart(settings: Settings) -> None:
    first = await start_stack(settings)
    provider = ToolProvider([greeter("greet", "1.0.0")], tools_addr=f"127.0.0.1:{first.port('tools')}")
    await provider.start()
    try:
        port = first.port("tools")
        await first.servers["tools"].stop(0)
        first.servers["tools"] = await tools_server.build_server(settings.tools, port)
        await first.servers["tools"].start()
        assert (await catalog(first))["greet"].endpoint == provider.endpoint
        assert (await invoke(first, "greet", who="again"))["greeting"] == "hello again"
    finally:
        await provider.stop(0)
        await first.close()
