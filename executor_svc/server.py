"""executor_svc process: run store, engine and RunService."""

from __future__ import annotations

import socket
import time

import structlog

from agentrt.config import ExecutorSettings, require_internal_token
from agentrt.server import localcalls
from agentrt.server.db import PostgresDatabase, open_database
from agentrt.server.grpcserver import BuiltServer, new_server
from agentrt.server.internal import InternalAuth, credential_interceptors
from agentrt.server.periodic import run_every
from agentrt.server.service_main import run_service
from agentrt.v1 import planner_service_pb2_grpc, run_pb2, run_pb2_grpc, tool_service_pb2_grpc
from executor_svc import metrics
from executor_svc.engine import Engine
from executor_svc.groupcommit import RUN_CHANNEL
from executor_svc.hub import EventHub
from executor_svc.leases import CLAIM_CHANNEL
from executor_svc.service import RunServicer
from executor_svc.store import RunStore
from executor_svc.threads import ThreadStore
from executor_svc.toolcatalog import ToolCatalog

SERVICE_NAME = run_pb2.DESCRIPTOR.services_by_name["RunService"].full_name
MIGRATIONS = "executor_svc:migrations"
log = structlog.get_logger("executor_svc.server")


async def build_server(settings: ExecutorSettings, port: int | None = None) -> BuiltServer:
    require_internal_token(settings, "executor")
    store = RunStore(await open_database(settings, "executor", MIGRATIONS))
    hub = EventHub()
    # The engine owns planner and tool retries (and records each attempt): no channel retries.
    internal = credential_interceptors(settings.internal_secret())
    planner_channel = localcalls.channel(settings.planner_target, False, interceptors=internal)
    tools_channel = localcalls.channel(settings.tools_target, False, interceptors=internal)
    tools = tool_service_pb2_grpc.ToolServiceStub(tools_channel)
    catalog = ToolCatalog(tools, settings.planner_timeout_s)
    threads = ThreadStore(store.db, settings.thread_max_turns)
    engine = Engine(
        store,
        hub,
        planner_service_pb2_grpc.PlannerServiceStub(planner_channel),
        tools,
        settings,
        catalog=catalog,
        threads=threads,
    )
    built = new_server(
        settings.internal_host,
        settings.executor_port if port is None else port,
        [
            (
                run_pb2_grpc.add_RunServiceServicer_to_server,
                RunServicer(engine, store, hub, settings, threads),
                SERVICE_NAME,
            )
        ],
        internal=InternalAuth(settings.internal_secret()),
    )
    # Cleanups run in reverse: stop background work and driving runs, close channels, the store.
    built.cleanups += [store.close, tools_channel.close, planner_channel.close, engine.close]
    if isinstance(store.db, PostgresDatabase):

        def on_run_events(payload: str) -> None:
            run_id, _, writer = payload.partition(" ")
            engine.on_remote_write(run_id, writer)

        def on_connect() -> None:
            # Anything may have happened while we were not listening.
            hub.wake_all()
            engine.claim_soon()

        # Imported here: asyncpg costs ~14 MB of resident memory that SQLite never needs.
        from agentrt.server.pgnotify import Listener  # noqa: PLC0415

        listener = Listener(
            store.db.asyncpg_dsn(),
            {RUN_CHANNEL: on_run_events, CLAIM_CHANNEL: lambda _payload: engine.claim_soon()},
            on_connect,
        )
        listener.start()
        built.cleanups.append(listener.close)
    if settings.retention_days or settings.retention_max_runs or settings.thread_ttl_days:
        retention = run_every(
            settings.retention_interval_s,
            lambda: prune_once(store, settings, engine, threads),
            "retention.failed",
        )
        built.background(retention, "retention")
    built.background(catalog.follow(), "tool-catalog")
    await engine.start(settings.executor_id or f"{socket.gethostname()}:{built.port}")
    return built


async def prune_once(
    store: RunStore, settings: ExecutorSettings, engine: Engine, threads: ThreadStore
) -> None:
    """Retention: delete finished one-shot runs past their age or count limit, and threads idle
    past their time to live (with their runs)."""
    days = settings.retention_days
    before = int((time.time() - days * 86400) * 1e6) if days else None
    if before is not None or settings.retention_max_runs:
        deleted = await store.prune(before, settings.retention_max_runs)
        if deleted:
            metrics.RUNS_PRUNED.inc(deleted)
            log.info("retention.pruned", runs=deleted)
    if settings.thread_ttl_days:
        idle_before = int((time.time() - settings.thread_ttl_days * 86400) * 1e6)
        while idle := await threads.idle_since(idle_before, 100):
            for thread_id in idle:
                await engine.delete_thread(thread_id)
            log.info("retention.threads_pruned", threads=len(idle))


def main() -> None:
    run_service("executor", build_server, metrics.METRICS)
