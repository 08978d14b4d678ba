"""Tool versions over real gRPC: SemVer precedence picks the version served and who may take a
name; registrations of versions the specification forbids are refused, or left out if stored."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator

import grpc
import pytest

from agentrt.config import Settings
from agentrt.v1 import tool_service_pb2
from tests.conftest import Stack
from tests.integration.test_providers import Providers, catalog, greeter, invoke, rpc_error, spec

T = tool_service_pb2


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.replace(registry_refresh_s=0.1)


@pytest.fixture
async def providers(stack: Stack) -> AsyncIterator[Providers]:
    p = Providers(stack)
    try:
        yield p
    finally:
        await p.close()


async def test_the_newest_pre_release_is_served_by_numeric_precedence(
    stack: Stack, providers: Providers
) -> None:
    provider = await providers.start(greeter("greet", "1.0.0-beta.10"))
    # The same provider also registers the older pre-release: both are live, the newer is served.
    await stack.tools.RegisterTool(
        T.RegisterToolRequest(spec=spec(version="1.0.0-beta.9"), endpoint=provider.endpoint)
    )
    assert (await catalog(stack))["greet"].version == "1.0.0-beta.10"
    assert (await invoke(stack, "greet", who="x"))["version"] == "1.0.0-beta.10"


async def test_another_provider_takes_the_name_only_with_a_newer_pre_release(
    stack: Stack, providers: Providers
) -> None:
    await providers.start(greeter("greet", "1.0.0-beta.9"))
    newer = await providers.start(greeter("greet", "1.0.0-beta.10"))
    entry = (await catalog(stack))["greet"]
    assert (entry.version, entry.endpoint) == ("1.0.0-beta.10", newer.endpoint)

    late = await providers.start(greeter("other", "1.0.0"))
    older = await rpc_error(
        stack.tools.RegisterTool(
            T.RegisterToolRequest(spec=spec(version="1.0.0-beta.2"), endpoint=late.endpoint)
        )
    )
    assert (older.code, older.reason) == (grpc.StatusCode.ALREADY_EXISTS, "TOOL_NAME_TAKEN")


@pytest.mark.parametrize("version", ["1.0.0-01", "1.0.0-a..b", "1.0.0-beta.", "1.0.0+a..b"])
async def test_versions_the_specification_forbids_are_refused(stack: Stack, version: str) -> None:
    details = await rpc_error(
        stack.tools.RegisterTool(T.RegisterToolRequest(spec=spec(version=version), endpoint="127.0.0.1:1"))
    )
    assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_VERSION")
    assert f"version '{version}' is not a semantic version" in details.message


async def test_a_stored_registration_of_a_forbidden_version_is_not_served_and_holds_no_name(
    stack: Stack, providers: Providers
) -> None:
    # Registered before the rules followed the specification: its provider still renews it.
    with sqlite3.connect(stack.settings.data_dir / "tools.db") as db:
        now = time.time()
        db.execute(
            "INSERT INTO tool_leases VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                "legacy",
                "greet",
                "1.0.0-01",
                "127.0.0.1:1",
                spec(version="1.0.0-01").SerializeToString(),
                60,
                now + 60,
                now,
            ),
        )
    provider = await providers.start(greeter("greet", "0.1.0"))
    entry = (await catalog(stack))["greet"]
    assert (entry.version, entry.endpoint) == ("0.1.0", provider.endpoint)
