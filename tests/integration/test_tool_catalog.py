"""The executor plans with the catalog it holds from tools_svc's WatchTools stream
(executor_svc/toolcatalog.py), not a ListTools call per run, and a tool registered a moment ago
is still usable at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
from prometheus_client import REGISTRY

from agentrt.core.values import value_to_py
from agentrt.tools_sdk import ToolProvider
from agentrt.v1 import run_pb2, tool_service_pb2
from examples.unit_converter import convert_units
from executor_svc.toolcatalog import ToolCatalog
from tests.conftest import Stack, watch_all

CONVERT = 'use convert_units with {"value": 10, "from_unit": "km", "to_unit": "mi"}'


@pytest.fixture
async def provider(stack: Stack) -> AsyncIterator[Callable[[], ToolProvider]]:
    started: list[ToolProvider] = []

    def make() -> ToolProvider:
        started.append(ToolProvider([convert_units], tools_addr=f"127.0.0.1:{stack.port('tools')}"))
        return started[-1]

    yield make
    for p in started:
        await p.stop(0)


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    assert condition()


def names(catalog: tool_service_pb2.ListToolsResponse | None) -> list[str]:
    return [t.name for t in catalog.tools] if catalog is not None else []


def list_tools_calls() -> float:
    labels = {"method": "/agentrt.v1.ToolService/ListTools", "code": "OK"}
    return REGISTRY.get_sample_value("agentrt_rpc_duration_seconds_count", labels) or 0.0


async def run_to_end(stack: Stack, prompt: str) -> run_pb2.Run:
    created = (await stack.gateway.CreateRun(run_pb2.CreateRunRequest(prompt=prompt))).run
    await watch_all(stack.gateway, created.run_id)
    return (await stack.gateway.GetRun(run_pb2.GetRunRequest(run_id=created.run_id))).run


async def test_the_held_catalog_follows_registrations(
    stack: Stack, provider: Callable[[], ToolProvider]
) -> None:
    catalog = ToolCatalog(stack.tools, 5.0)
    following = asyncio.create_task(catalog.follow())
    try:
        await until(lambda: catalog.held() is not None)
        live = await catalog.live()
        assert names(catalog.held()) == names(live)
        assert catalog.held().catalog_version == live.catalog_version  # type: ignore[union-attr]
        started = provider()
        await started.start()
        await until(lambda: "convert_units" in names(catalog.held()))
        assert catalog.held().catalog_version == (await catalog.live()).catalog_version  # type: ignore[union-attr]
        await started.stop(0)
        await until(lambda: "convert_units" not in names(catalog.held()))
    finally:
        following.cancel()
        await asyncio.gather(following, return_exceptions=True)
    assert catalog.held() is None  # not following: nothing is held


async def test_runs_plan_without_asking_for_the_catalog(stack: Stack) -> None:
    # Once the executor holds the catalog (its stream is up within moments of starting), a run
    # makes no ListTools call.
    for _ in range(50):
        before = list_tools_calls()
        assert (await run_to_end(stack, "calculate 1+1")).status == run_pb2.RUN_STATUS_SUCCEEDED
        if list_tools_calls() == before:
            break
        await asyncio.sleep(0.05)
    before = list_tools_calls()
    for _ in range(3):
        assert (await run_to_end(stack, "calculate 2+2")).status == run_pb2.RUN_STATUS_SUCCEEDED
    assert list_tools_calls() == before


async def test_a_tool_the_held_catalog_has_not_seen_yet_is_usable(
    stack: Stack, provider: Callable[[], ToolProvider], monkeypatch: pytest.MonkeyPatch
) -> None:
    apply = ToolCatalog._apply

    def miss_additions(self: ToolCatalog, message: tool_service_pb2.WatchToolsResponse) -> None:
        if message.change != tool_service_pb2.TOOL_CHANGE_TYPE_ADDED:
            apply(self, message)

    # The executor's catalog stays in sync but never learns of the new tool: the plan made with
    # it fails, and the executor plans again with the live catalog.
    monkeypatch.setattr(ToolCatalog, "_apply", miss_additions)
    await provider().start()
    run = await run_to_end(stack, CONVERT)
    assert run.status == run_pb2.RUN_STATUS_SUCCEEDED, run.error.message
    assert value_to_py(run.result)["unit"] == "mi"


async def test_a_plan_that_fails_with_the_live_catalog_is_not_made_twice(stack: Stack) -> None:
    for _ in range(50):  # wait until the executor holds the catalog (as above)
        before = list_tools_calls()
        await run_to_end(stack, "calculate 1+1")
        if list_tools_calls() == before:
            break
        await asyncio.sleep(0.05)
    planned = (
        REGISTRY.get_sample_value(
            "agentrt_planner_duration_seconds_count", {"planner": "rules", "outcome": "failed"}
        )
        or 0.0
    )
    run = await run_to_end(stack, "book me a flight")
    assert run.status == run_pb2.RUN_STATUS_FAILED
    assert "book me a flight" in run.error.message
    # One look at the live catalog showed it was the one held: the plan was not made again.
    assert (
        REGISTRY.get_sample_value(
            "agentrt_planner_duration_seconds_count", {"planner": "rules", "outcome": "failed"}
        )
        == planned + 1
    )
