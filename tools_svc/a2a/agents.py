"""Mounted A2A agents (from AGENTRT_A2A_AGENTS, and mounted at runtime with MountA2aAgent): each
remote agent's card is fetched (and fetched again now and then), and each of its skills is a
catalog tool "<agent>__<skill>" taking one argument, `message`. A call
sends that message to the agent and waits for its task to end; its answer is the tool's output.

Everything from an agent is hostile until bounded: the card's bytes and fetch time, the number
of skills, each description; every answer's bytes (http.py); a call's time (the step's deadline,
else a2a_call_timeout_s). No redirect is followed, and the agent is called only at an interface
on the origin the operator configured (a card cannot send calls elsewhere).

A call's message id is the invocation's idempotency key: the executor retrying a step (after a
restart, say) sends the same message id again, and an agent that keeps message ids (agentrt
does: it is the run's idempotency key) answers with the task the first send started rather than
starting another.

The SDK (`a2a-sdk`) is imported when a card is first read: a tools_svc with no agent mounted
does not pay for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import structlog

from agentrt.config import A2aAgentConfig, ToolsSettings
from agentrt.core.errors import AgentrtError, ToolError, Unavailable
from agentrt.core.text import clip
from agentrt.core.values import dict_to_struct
from agentrt.v1 import tool_pb2, tool_service_pb2
from tools_svc import callcontext, mounting
from tools_svc.a2a.http import bounded_client
from tools_svc.a2a.tasks import RemoteTask, RemoteTasks
from tools_svc.callcontext import CallContext
from tools_svc.delegation import Credentials
from tools_svc.entries import ToolEntry
from tools_svc.mcp.model import answer_limit
from tools_svc.mcp.names import SEPARATOR, catalog_name
from tools_svc.validation import MAX_DESCRIPTION_CHARS, EndpointPolicy, check_schema

log = structlog.get_logger("tools_svc.a2a")
CARD_PATH = "/.well-known/agent-card.json"
MAX_MESSAGE_CHARS = 8000
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_MESSAGE_CHARS,
            "description": "What to ask the agent, in plain language",
        }
    },
    "required": ["message"],
    "additionalProperties": False,
}
_ENDED = ("TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED")
# Where a wait for a task stops: it ended, or it waits for what only that agent's user can give.
_SETTLED = (*_ENDED, "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED")


@dataclass(frozen=True)
class A2aTool(ToolEntry):
    """A catalog entry for one skill of a mounted agent."""

    agent: A2aAgent
    skill: str


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.rpartition("@")[2].lower()


@dataclass(frozen=True)
class Mount:
    """What an agent is mounted as: from configuration, or stored by MountA2aAgent."""

    name: str
    origin: str  # "config" or "runtime"
    url: str
    credentials: Credentials

    @classmethod
    def of(cls, config: A2aAgentConfig) -> Mount:
        secret = config.caller_signing_secret
        credentials = Credentials.of(
            config.headers, config.principal_headers, secret.get_secret_value() if secret else ""
        )
        return cls(config.name, "config", config.url, credentials)


class A2aAgent:
    """One mounted agent: its card, its skills as tools, and calls to it."""

    def __init__(
        self, mount: Mount, settings: ToolsSettings, tasks: RemoteTasks, policy: EndpointPolicy | None = None
    ) -> None:
        self.mount = mount
        # A runtime mount's host is checked against the allow-list before every card read and
        # call, not only when it was mounted: its name may resolve elsewhere since, the list may
        # have narrowed, another replica may hold it. The configuration's mounts are the operator's.
        self._policy = policy if mount.origin == "runtime" else None
        self._host_port = mounting.check_url(mount.url, mounting.A2A) if self._policy else ""
        self.name = mount.name
        self._tasks = tasks
        self.url = mount.url.rstrip("/")
        self._credentials = mount.credentials
        self._credentials.register()  # never logged
        self._what = f"A2A agent '{self.name}'"
        self._settings = settings
        self.tools: dict[str, A2aTool] = {}
        self.last_error = ""
        self._card: Any = None  # the SDK's AgentCard, once read (its checked interfaces only)
        # Set when the agent is unmounted or its mount replaced: calls still waiting on it stop.
        self.stopped = False

    def describe(self) -> tool_service_pb2.A2aAgentInfo:
        state = (
            tool_service_pb2.A2A_AGENT_STATE_UNREACHABLE
            if self.last_error
            else tool_service_pb2.A2A_AGENT_STATE_READY
            if self._card is not None
            else tool_service_pb2.A2A_AGENT_STATE_READING
        )
        return tool_service_pb2.A2aAgentInfo(
            name=self.name,
            url=mounting.shown(self.mount.url),
            origin=self.mount.origin,
            state=state,
            last_error=self.last_error,
            tools=sorted(self.tools),
            card_info=clip(f"{self._card.name} {self._card.version}", 200) if self._card is not None else "",
            credential_principals=self._credentials.principals,
            signs_caller=bool(self._credentials.signing_secret),
        )

    # -- the card --------------------------------------------------------------------------

    async def read_card(self) -> None:
        """Fetch and check the card, then publish its skills as tools; an error says why not."""
        from a2a.client.card_resolver import parse_agent_card  # noqa: PLC0415 (see the module doc)

        await self._allowed()
        limit = self._settings.a2a_card_max_bytes
        # Read for nobody: with the shared headers (on a mount with credentials per principal,
        # only this read carries them), and no caller signed.
        headers = dict(self._credentials.shared)
        async with bounded_client(headers, limit, self._settings.a2a_card_timeout_s) as http:
            try:
                async with asyncio.timeout(self._settings.a2a_card_timeout_s):
                    response = await http.get(self.url + CARD_PATH)
            except (TimeoutError, Exception) as exc:
                raise Unavailable(
                    f"A2A agent '{self.name}': its card could not be read: "
                    + clip(str(exc) or type(exc).__name__, 300),
                    reason="A2A_AGENT_UNAVAILABLE",
                ) from None
        if response.status_code != 200:
            raise Unavailable(
                f"A2A agent '{self.name}': its card answered HTTP {response.status_code}"
                + (" (a redirect, which is not followed)" if 300 <= response.status_code < 400 else ""),
                reason="A2A_AGENT_UNAVAILABLE",
            )
        try:
            card = parse_agent_card(response.json())
        except Exception as exc:
            raise Unavailable(
                f"A2A agent '{self.name}': its card is not an agent card: {clip(str(exc), 300)}",
                reason="A2A_AGENT_UNAVAILABLE",
            ) from None
        interfaces = [
            i for i in card.supported_interfaces
            if i.protocol_binding == "JSONRPC" and _origin(i.url) == _origin(self.url)
        ]  # fmt: skip
        if not interfaces:
            raise Unavailable(
                f"A2A agent '{self.name}': its card offers no JSON-RPC interface at {self.url}'s origin",
                reason="A2A_AGENT_UNAVAILABLE",
            )
        # Calls go only where it was checked they may: the card the client is made from keeps
        # only those interfaces (the SDK would otherwise pick any the card lists).
        kept = [copy.deepcopy(i) for i in interfaces]  # copies: the originals go with the field
        del card.supported_interfaces[:]
        card.supported_interfaces.extend(kept)
        validator, schema = (
            check_schema(INPUT_SCHEMA, "input", require_object=True),
            dict_to_struct(INPUT_SCHEMA),
        )
        tools: dict[str, A2aTool] = {}
        for skill in list(card.skills)[: self._settings.a2a_max_skills]:
            name = catalog_name(self.name, skill.id or skill.name)
            spec = tool_pb2.Tool(
                name=name,
                description=clip(
                    f"{skill.name}: {skill.description}" if skill.description else skill.name,
                    MAX_DESCRIPTION_CHARS,
                ),
                input_schema=schema,
                version=clip(card.version, 64),
                source=tool_pb2.TOOL_SOURCE_A2A,
                a2a_agent=self.name,
                a2a_skill=clip(skill.id, 256),
                health=tool_pb2.TOOL_HEALTH_HEALTHY,
            )
            spec.annotations.open_world_hint = True  # another agent may do anything
            tools[name] = A2aTool(spec, validator, None, self, skill.id)
        self._card, self.tools, self.last_error = card, tools, ""

    async def _allowed(self) -> None:
        if self._policy is not None:
            await self._policy.check(self._host_port)

    # -- a call ----------------------------------------------------------------------------

    async def call(
        self, tool: A2aTool, arguments: dict[str, Any], deadline_s: float | None, caller: CallContext
    ) -> dict[str, Any]:
        """Send the message (or, for a call made again, find the task its first attempt
        started) and wait, at most until the deadline, for the task to end: its answer, or the
        agent's failure as this tool's error."""
        from a2a.helpers import get_message_text  # noqa: PLC0415 (see the module doc)
        from a2a.types import Message, Part, Role  # noqa: PLC0415

        # First: a principal this mount has no credential for is refused whatever the agent's
        # state, and nothing is sent (not even a lookup of an earlier attempt's task there).
        headers = self._credentials.headers_for(caller.principal, self._what)
        if self._card is None:
            raise Unavailable(
                f"A2A agent '{self.name}' has not been reached yet: {self.last_error}",
                reason="A2A_AGENT_UNAVAILABLE",
            )
        await self._allowed()
        wait = min(t for t in (deadline_s, self._settings.a2a_call_timeout_s) if t is not None)
        key = caller.idempotency_key
        async with self._client(wait, headers, caller.principal) as client:
            try:
                async with asyncio.timeout(wait):
                    known = await self._tasks.get(key, caller.principal) if key else None
                    if known is not None and known.agent == self.name:
                        log.info("a2a.reattached", agent=self.name, task=known.task_id)
                        task = await client.get_task(_get(known.task_id))
                    else:
                        message = Message(
                            role=Role.ROLE_USER,
                            message_id=key or uuid.uuid4().hex,
                            parts=[Part(text=arguments["message"])],
                        )
                        message.metadata.update({"skill": tool.skill})
                        first = await self._send(client, message)
                        if isinstance(first, Message):  # answered at once, with no task
                            return {
                                "answer": clip(
                                    get_message_text(first), self._settings.max_tool_output_bytes // 2
                                )
                            }
                        task = first
                        if key:  # before waiting: a call made again from here on waits on this task
                            await self._tasks.put(
                                key, RemoteTask(self.name, task.id), caller.principal, caller.run_id
                            )
                    task = await self._settled(client, task)
            except TimeoutError:
                raise Unavailable(
                    f"A2A agent '{self.name}' did not answer within {wait:g}s", reason="A2A_AGENT_TIMEOUT"
                ) from None
            except AgentrtError:
                raise
            except Exception as exc:
                raise Unavailable(
                    f"A2A agent '{self.name}': {clip(str(exc) or type(exc).__name__, 500)}",
                    reason="A2A_AGENT_UNAVAILABLE",
                ) from None
        return self._outcome(task)

    @contextlib.asynccontextmanager
    async def _client(self, wait: float, headers: dict[str, str], principal: str) -> AsyncIterator[Any]:
        """An SDK client for this agent's checked interfaces, over the bounded HTTP client, whose
        every request carries `headers` (and, with a signing secret, `principal` signed)."""
        from a2a.client import ClientConfig, ClientFactory  # noqa: PLC0415

        limit = answer_limit(self._settings.max_tool_output_bytes)
        sign = self._credentials.signer(principal)
        async with bounded_client(headers, limit, wait, sign) as http:
            yield ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(self._card)

    async def _send(self, client: Any, message: Any) -> Any:
        """Send the message asking for the task at once (not when it ends): the task's id is
        then recorded before the wait, which a restart may cut short."""
        from a2a.types import SendMessageConfiguration, SendMessageRequest  # noqa: PLC0415

        request = SendMessageRequest(
            message=message, configuration=SendMessageConfiguration(return_immediately=True)
        )
        async for event in client.send_message(request):
            if event.HasField("message"):
                return event.message
            if event.HasField("task"):
                return event.task
        raise ToolError(f"A2A agent '{self.name}' answered with no task", reason="A2A_AGENT_FAILED")

    async def _settled(self, client: Any, task: Any) -> Any:
        """The task once it ended or waits for input, asked for again and again (every 0.2 s,
        slowing to 2 s). An agent that cannot be reached for a while (restarting) is asked
        again; the caller's deadline bounds the whole wait."""
        from a2a.types import TaskState  # noqa: PLC0415

        delay, failing, said = 0.2, "", ""
        while TaskState.Name(task.status.state) not in _SETTLED:
            if self.stopped:  # unmounted, or mounted again with another URL or credential
                raise Unavailable(
                    f"A2A agent '{self.name}' was unmounted while its task {task.id} went on",
                    reason="A2A_AGENT_UNAVAILABLE",
                )
            if (now := _status_words(task)) != said:  # what the agent says of it, when that changes
                said = now
                callcontext.report(now)
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 2.0)
            try:
                task = await client.get_task(_get(task.id))
                failing = ""
            except Exception as exc:  # the agent restarting, a dropped connection: asked again
                if not failing:
                    failing = clip(str(exc) or type(exc).__name__, 300)
                    log.warning("a2a.poll_failed", agent=self.name, task=task.id, error=failing)
        return task

    async def cancel(self, task_id: str, principal: str) -> None:
        """Cancel a task one of our calls for `principal` started (its run was cancelled here),
        as that principal: the task is that principal's at the agent."""
        from a2a.types import CancelTaskRequest  # noqa: PLC0415

        headers = self._credentials.headers_for(principal, self._what)
        async with self._client(self._settings.a2a_card_timeout_s, headers, principal) as client:
            async with asyncio.timeout(self._settings.a2a_card_timeout_s):
                await client.cancel_task(CancelTaskRequest(id=task_id))

    def _outcome(self, task: Any) -> dict[str, Any]:
        """A settled task as the tool's output, or its failure as the tool's error."""
        from a2a.helpers import get_message_text  # noqa: PLC0415
        from a2a.types import Message, TaskState  # noqa: PLC0415

        state = TaskState.Name(task.status.state)
        said = _said(task)
        answer = (
            "\n".join(
                get_message_text(Message(parts=a.parts))
                for a in task.artifacts
                if any(p.HasField("text") for p in a.parts)
            )
            or said
        )
        out = {
            "task_id": task.id,
            "context_id": task.context_id,
            "state": state.removeprefix("TASK_STATE_").lower(),
            "answer": clip(answer, self._settings.max_tool_output_bytes // 2),
        }
        if state == "TASK_STATE_COMPLETED":
            return out
        if state not in _ENDED:
            raise ToolError(
                f"A2A agent '{self.name}' task {task.id} is {out['state']}"
                + (f": {clip(said, 500)}" if said else "")
                + " (a task that waits for input is answered at that agent)",
                reason="A2A_TASK_NOT_DONE",
            )
        raise ToolError(
            f"A2A agent '{self.name}' task {task.id} {out['state']}: {clip(said or answer, 1000)}",
            reason="A2A_AGENT_FAILED",
        )


def _said(task: Any) -> str:
    """What the agent's status message on the task says ("" if none)."""
    from a2a.helpers import get_message_text  # noqa: PLC0415

    return get_message_text(task.status.message) if task.status.HasField("message") else ""


def _status_words(task: Any) -> str:
    """The task's state, and what the agent's status message says: "working: searching flights"."""
    from a2a.types import TaskState  # noqa: PLC0415

    state = TaskState.Name(task.status.state).removeprefix("TASK_STATE_").lower()
    return f"{state}: {said}" if (said := _said(task)) else state


def _get(task_id: str) -> Any:
    from a2a.types import GetTaskRequest  # noqa: PLC0415

    return GetTaskRequest(id=task_id, history_length=0)  # the state and artifacts, not the talk


__all__ = ["SEPARATOR", "A2aAgent", "A2aTool"]
