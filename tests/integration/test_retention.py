"""Retention: the executor prunes finished runs (and their events) beyond the configured limits."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from agentrt.v1 import run_pb2
from tests.conftest import Stack, watch_all


async def test_executor_prunes_finished_runs_beyond_the_newest_n(stack: Stack) -> None:
    runs = []
    for i in range(3):
        created = await stack.gateway.CreateRun(run_pb2.CreateRunRequest(prompt=f"calculate {i} + 1"))
        await watch_all(stack.gateway, created.run.run_id)
        runs.append(created.run.run_id)

    stack.settings = stack.settings.replace(retention_max_runs=1)
    await stack.restart_executor()  # prunes at start, then every retention_interval_s

    async def listed() -> list[str]:
        response = await stack.executor.ListRuns(run_pb2.ListRunsRequest())
        return [r.run_id for r in response.runs]

    for _ in range(100):
        if await listed() == runs[-1:]:
            break
        await asyncio.sleep(0.05)
    assert await listed() == runs[-1:]
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.executor.GetRun(run_pb2.GetRunRequest(run_id=runs[0]))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    assert len(await watch_all(stack.executor, runs[-1])) > 1  # the kept run keeps its events
