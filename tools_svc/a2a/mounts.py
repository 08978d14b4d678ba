"""The mounted A2A agents, from configuration (AGENTRT_A2A_AGENTS) and from MountA2aAgent, as
the catalog sees them: their tools, and reconciling the agents held with the mounts. One agent
(its card, its calls) is agents.py's."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import structlog

from agentrt.config import ToolsSettings
from agentrt.core.backoff import Backoff
from agentrt.core.errors import AgentrtError, NotFound, Unavailable
from agentrt.core.text import clip
from agentrt.server.db import Database
from agentrt.v1 import tool_pb2, tool_service_pb2
from tools_svc import mounting
from tools_svc.a2a.agents import A2aAgent, A2aTool, Mount
from tools_svc.a2a.tasks import RemoteTasks
from tools_svc.mcp.names import server_of
from tools_svc.validation import EndpointPolicy

log = structlog.get_logger("tools_svc.a2a")


class A2aAgents:
    """The mounted agents, from configuration and from MountA2aAgent, as the catalog sees them.

    Runtime mounts live in the tools database (table a2a_mounts), so they survive restarts and
    every replica sees them; each replica reads each agent's card itself. `refresh()` reconciles
    the agents held with the mounts: it runs with the catalog's refresh."""

    def __init__(
        self, db: Database, settings: ToolsSettings, on_change: Callable[[], None], channel: str
    ) -> None:
        self._db = db
        self._settings = settings
        self._on_change = on_change
        self._channel = channel
        self._tasks = RemoteTasks(db)
        self._policy = EndpointPolicy(settings.provider_allowed_hosts)
        self._configured = {c.name: Mount.of(c) for c in settings.a2a_agents}
        self._agents: dict[str, A2aAgent] = {}
        self._keepers: dict[str, asyncio.Task[None]] = {}
        self._reconciling = asyncio.Lock()  # a mount's refresh and the catalog's may overlap

    async def cancel_run(self, principal: str, run_id: str) -> int:
        """Cancel the remote tasks the run's calls started: how many were cancelled. One that
        cannot be (its agent unmounted or unreachable, the task over already) is logged and
        skipped; the run is cancelled here whatever happens there."""
        cancelled = 0
        for task in await self._tasks.of_run(principal, run_id):
            agent = self._agents.get(task.agent)
            try:
                if agent is None:
                    raise LookupError(f"agent '{task.agent}' is no longer mounted")
                await agent.cancel(task.task_id, principal)
                cancelled += 1
                log.info("a2a.cancelled", agent=task.agent, task=task.task_id, run_id=run_id)
            except Exception as exc:  # each task on its own: the run is cancelled here regardless
                log.warning(
                    "a2a.cancel_failed", agent=task.agent, task=task.task_id, error=clip(repr(exc), 300)
                )
        return cancelled

    # -- the catalog's view ----------------------------------------------------------------

    def tools(self) -> list[tool_pb2.Tool]:
        return [t.spec for name in sorted(self._agents) for t in self._agents[name].tools.values()]

    def owns(self, name: str) -> bool:
        return server_of(name) in self._agents

    def resolve(self, name: str) -> A2aTool | None:
        agent = self._agents.get(server_of(name) or "")
        if agent is None:
            return None
        tool = agent.tools.get(name)
        if tool is None and not agent.tools:
            raise Unavailable(
                f"tool '{name}' belongs to A2A agent '{agent.name}', whose card has not been read"
                + (f" ({agent.last_error})" if agent.last_error else ""),
                reason="A2A_AGENT_UNAVAILABLE",
                metadata={"tool": name, "a2a_agent": agent.name},
            )
        return tool

    def agents(self) -> list[tool_service_pb2.A2aAgentInfo]:
        return [self._agents[name].describe() for name in sorted(self._agents)]

    # -- reconciling -----------------------------------------------------------------------

    async def refresh(self) -> None:
        async with self._reconciling:
            await self._reconcile()

    async def _reconcile(self) -> None:
        wanted = dict(self._configured)
        for name, url, credentials in await mounting.stored(self._db, mounting.A2A):
            if name not in wanted:  # configuration wins; MountA2aAgent refuses such names anyway
                wanted[name] = Mount(name, "runtime", url, credentials)
        changed = False
        for name in list(self._agents):
            if self._agents[name].mount != wanted.get(name):
                await self._stop(name)
                log.info("a2a.unmounted", agent=name)
                changed = True
        for name, mount in wanted.items():
            if name not in self._agents:
                agent = self._agents[name] = A2aAgent(mount, self._settings, self._tasks, self._policy)
                self._keepers[name] = asyncio.create_task(self._keep(agent), name=f"a2a:{name}")
                log.info("a2a.mounted", agent=name, origin=mount.origin, url=mounting.shown(mount.url))
                changed = True
        if changed:
            self._on_change()

    async def _stop(self, name: str) -> None:
        self._agents.pop(name).stopped = True
        keeper = self._keepers.pop(name)
        keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeper

    async def close(self) -> None:
        async with self._reconciling:
            for name in list(self._agents):
                await self._stop(name)

    async def _keep(self, agent: A2aAgent) -> None:
        """Read the agent's card, again every a2a_card_refresh_s; after a failure, sooner
        (doubling from a second up to a minute). Its last good skills stay meanwhile."""
        backoff = Backoff(1.0, 60.0)
        while True:
            try:
                await agent.read_card()
                self._on_change()
                log.info("a2a.card_read", agent=agent.name, tools=sorted(agent.tools))
                backoff.reset()
                await asyncio.sleep(self._settings.a2a_card_refresh_s)
            except Exception as exc:  # any failure: said, and tried again later, never the end of the keeper
                agent.last_error = exc.message if isinstance(exc, AgentrtError) else clip(repr(exc), 300)
                log.warning("a2a.card_failed", agent=agent.name, error=agent.last_error)
                await asyncio.sleep(backoff.next_delay())

    # -- runtime mounts --------------------------------------------------------------------

    async def mount(self, request: mounting.Request, replace: bool) -> tool_service_pb2.A2aAgentInfo:
        await mounting.store(
            self._db,
            mounting.A2A,
            settings=self._settings,
            policy=self._policy,
            channel=self._channel,
            mount=request,
            replace=replace,
        )
        await self.refresh()
        name = request.name
        agent = self._agents.get(name)
        if agent is None:  # unmounted again meanwhile (another call, another replica)
            raise NotFound(f"A2A agent '{name}' was unmounted meanwhile", reason="A2A_AGENT_NOT_FOUND")
        return agent.describe()

    async def unmount(self, name: str) -> None:
        await mounting.remove(self._db, mounting.A2A, self._settings, self._channel, name)
        await self.refresh()
