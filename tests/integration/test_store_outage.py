"""PostgreSQL goes away under a running executor, then comes back: calls fail UNAVAILABLE (which
clients retry) instead of INTERNAL, and the interrupted run resumes and finishes, once.

The executor reaches PostgreSQL through a TCP proxy the test can cut. Skipped without PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
import pytest
import structlog.testing
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from tests import pg
from tests.harness import Harness, R, step, step_history


class Proxy:
    """Forwards a local port to PostgreSQL until cut: then every connection is dropped and new
    ones are refused, as when the database host goes down."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        assert self._server is not None
        self._server.close()
        for writer in list(self._writers):
            writer.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self._target)
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError, OSError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers -= {writer, up_writer}


@pytest.fixture
async def behind_proxy(settings: Settings, pg_schema: str) -> AsyncIterator[tuple[Harness, Proxy]]:
    url = pg.TEST_URL.rsplit("@", 1)
    host, port = url[1].split("/")[0].split(":")
    proxy = Proxy(host, int(port))
    await proxy.start()
    proxied = f"{url[0]}@127.0.0.1:{proxy.port}/{url[1].split('/', 1)[1]}"
    harness = Harness(
        settings.replace(
            database_url=SecretStr(proxied),
            database_schema=pg_schema,
            run_lease_ttl_s=1.0,
            retry_base_delay_s=0.01,
        )
    )
    await harness.start()
    try:
        yield harness, proxy
    finally:
        await harness.close()
        with contextlib.suppress(Exception):
            await proxy.cut()


async def test_database_outage_is_unavailable_and_the_run_resumes_after_it(
    behind_proxy: tuple[Harness, Proxy],
) -> None:
    harness, proxy = behind_proxy
    run = await harness.create(step("s1", "gate", label="a"), step("s2", "echo", ("s1",), value=1))
    assert await harness.gate.next_started() == "a"

    # Logs are captured from the cut on: the driver may meet the outage before the step ends (on
    # a loaded machine the attempt's start may still be committing when the cut comes: that save
    # fails and the driver stops there) or after it (the step's result cannot be saved).
    with structlog.testing.capture_logs() as logs:
        await proxy.cut()
        # A loaded machine may take longer than a call's deadline to learn that the database is
        # gone (DEADLINE_EXCEEDED); what is checked is that the outage, once seen, is reported as
        # UNAVAILABLE/STORE_UNAVAILABLE, never INTERNAL.
        details = None
        for _ in range(6):
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await harness.runs.GetRun(R.GetRunRequest(run_id=run.run_id), timeout=10)
            details = ErrorDetails.from_rpc_error(info.value)
            if details.code != grpc.StatusCode.DEADLINE_EXCEEDED:
                break
        assert details is not None
        assert (details.code, details.reason, details.retryable) == (
            grpc.StatusCode.UNAVAILABLE,
            "STORE_UNAVAILABLE",
            True,
        )
        harness.gate.release("a")  # the step finishes, and its result cannot be saved
        await asyncio.sleep(1.5)  # past the lease TTL: nobody renewed it
        for _ in range(300):  # and however long a loaded machine takes to get there
            if any(entry["event"] == "run.store_unavailable" for entry in logs):
                break
            await asyncio.sleep(0.1)
    # The driver saw an outage, not a bug: it stopped, leaving the run to be resumed.
    logged = [entry["event"] for entry in logs]
    assert "run.store_unavailable" in logged
    assert "run.crashed" not in logged
    # An outage is logged in one line by the background rounds, not with a traceback each round.
    rounds = [e for e in logs if e["event"] in ("lease.keeper_failed", "catalog.refresh_failed")]
    assert rounds and all(e["log_level"] == "warning" and "exc_info" not in e for e in rounds)

    await proxy.start()  # the database is back, on the same address
    done, events = await harness.finish(run.run_id)
    assert done.status == R.RUN_STATUS_SUCCEEDED, done.error.message
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert step_history(events, "s1").count("SUCCEEDED") == 1
    assert step_history(events, "s2") == ["RUNNING", "SUCCEEDED"]
    # When tools_svc could not record the gate's first result (its database was down as well),
    # the resumed step ran the gate again: an effect outside the database is repeated when its
    # record cannot be written (todo_store writes effect and record in one transaction). On a
    # loaded machine the record may land before the cut reaches tools_svc's connection, and then
    # the gate runs once. Never more than twice, and the step succeeded once either way.
    assert harness.gate.completed in (["a"], ["a", "a"])
