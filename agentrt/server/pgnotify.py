"""PostgreSQL LISTEN on a dedicated connection, reconnecting for as long as the service runs.

NOTIFY is how one replica tells the others "run X has new events" or "runs are free to claim"
without anyone polling the tables. Notifications sent while the connection is down are lost, so
`on_connect` runs after every (re)connection: callers re-check whatever they might have missed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import asyncpg
import structlog

from agentrt.core.backoff import Backoff

log = structlog.get_logger("agentrt.server.pgnotify")


class Listener:
    def __init__(
        self,
        dsn: str,
        handlers: Mapping[str, Callable[[str], None]],
        on_connect: Callable[[], None] = lambda: None,
    ) -> None:
        self._dsn = dsn
        self._handlers = handlers
        self._on_connect = on_connect
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="pg-listener")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        backoff = Backoff(0.1, 5.0)
        while True:
            lost = asyncio.Event()
            conn: asyncpg.Connection | None = None
            try:
                conn = await asyncpg.connect(self._dsn)
                conn.add_termination_listener(lambda _c, lost=lost: lost.set())
                for channel, handler in self._handlers.items():
                    await conn.add_listener(channel, _dispatch(handler))
                backoff.reset()
                self._on_connect()
                await lost.wait()
                log.warning("pgnotify.connection_lost")
            except (OSError, asyncpg.PostgresError) as exc:
                log.warning("pgnotify.connect_failed", error=str(exc))
            finally:
                if conn is not None and not conn.is_closed():
                    await conn.close(timeout=1)
            await asyncio.sleep(backoff.next_delay())


def _dispatch(handler: Callable[[str], None]) -> Callable[..., None]:
    def on_notification(_conn: object, _pid: int, _channel: str, payload: str) -> None:
        try:
            handler(payload)
        except Exception:
            log.exception("pgnotify.handler_failed")

    return on_notification
