"""agentrt as an A2A agent (protocol 1.0): the request handler behind /a2a (JSON-RPC) and
A2AService (gRPC, a2a_grpc.py), and the agent card.

The SDK (`a2a-sdk`) does the protocol: JSON-RPC, SSE framing, the types and their JSON, the
errors' codes. This module only maps A2A onto runs, through the Edge like every other adapter
(the same API keys, rate limits, deadlines and errors; a2a_route.py checks the key first):

- a task is a run (task id = run id) and a context is a thread (context id = thread id): a
  message without a context starts a thread, a message with one is that thread's next turn,
  which sees the earlier turns ("now mark it as done").
- states: pending -> submitted; queued, planning, running -> working; waiting (a step awaits a
  person's approval) -> input-required; succeeded -> completed; failed -> failed, or rejected
  when the planner refused the prompt (nothing ran); cancelled -> canceled.
- a message on an input-required task answers the approval: yes approves every step awaiting
  it, no rejects them (the rest of the message is the reason); anything else is refused saying
  what to answer. A message on a finished task is refused (send it in the same context instead).
- the run's answer is the artifact `answer` (text), its result the artifact `result` (data).
- the message id is the run's idempotency key: a client that sends the same message again (a
  retry after a lost response) gets the same task, never a second run.

Another principal's task or context is not found, as everywhere (the executor decides).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncGenerator
from typing import Any

from a2a.helpers import new_text_message
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import RequestHandler
from a2a.server.request_handlers.grpc_handler import DefaultGrpcServerCallContextBuilder, GrpcHandler
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import DefaultServerCallContextBuilder
from a2a.server.routes.jsonrpc_routes import create_jsonrpc_routes
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    Artifact,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    HTTPAuthSecurityScheme,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    Part,
    Role,
    SecurityRequirement,
    SecurityScheme,
    SendMessageRequest,
    StringList,
    SubscribeToTaskRequest,
    Task,
    TaskArtifactUpdateEvent,
    TaskPushNotificationConfig,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    a2a_pb2,
)
from a2a.utils.errors import (
    A2AError,
    ContentTypeNotSupportedError,
    ExtendedAgentCardNotConfiguredError,
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from google.protobuf import json_format
from google.protobuf.message_factory import GetMessageClass
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute

import agentrt
from agentrt.config import GatewaySettings
from agentrt.core.errors import AgentrtError
from agentrt.core.principals import Principal
from agentrt.core.runstate import TERMINAL, status_name, step_status_name
from agentrt.core.text import clip
from agentrt.v1 import run_pb2, tool_service_pb2
from gateway.a2a_grpc import GRPC_CALLER
from gateway.edge import Caller, Edge

R = run_pb2
PROTOCOL_VERSION = "1.0"
RPC_PATH = "/a2a"
# How long a blocking SendMessage waits for the run to end or to need a person; after that the
# task is returned as it stands (working) and the client follows it with GetTask or a subscription.
MAX_BLOCKING_WAIT_S = 600.0
MAX_LISTED = 100
# The scope key a2a_route.py leaves the authenticated caller under (Starlette's request.state).
CALLER_STATE = "agentrt_a2a_caller"
# What every push-notification method answers (the card says push_notifications=False).
_NO_PUSH = "agentrt does not send push notifications: subscribe"

_STATES = {
    R.RUN_STATUS_PENDING: TaskState.TASK_STATE_SUBMITTED,
    R.RUN_STATUS_QUEUED: TaskState.TASK_STATE_WORKING,
    R.RUN_STATUS_PLANNING: TaskState.TASK_STATE_WORKING,
    R.RUN_STATUS_RUNNING: TaskState.TASK_STATE_WORKING,
    R.RUN_STATUS_WAITING: TaskState.TASK_STATE_INPUT_REQUIRED,
    R.RUN_STATUS_SUCCEEDED: TaskState.TASK_STATE_COMPLETED,
    R.RUN_STATUS_FAILED: TaskState.TASK_STATE_FAILED,
    R.RUN_STATUS_CANCELLED: TaskState.TASK_STATE_CANCELED,
}
# A prompt the planner refused: the agent declined the task, nothing ran (A2A's rejected).
_DECLINED = frozenset({"UNPLANNABLE"})
_YES = frozenset(
    ["yes", "y", "yep", "yeah", "ok", "okay", "approve", "approved", "go ahead", "do it", "confirm", "sure"]
)
_NO = frozenset(["no", "n", "nope", "reject", "rejected", "deny", "denied", "decline", "do not", "don't"])
_THREAD_ID = re.compile(r"^[0-9a-f]{32}$")


class CallerContextBuilder(DefaultServerCallContextBuilder):
    """The SDK's context (request headers included: its dispatcher reads A2A-Version there), with
    the caller a2a_route.py authenticated, so the handler never authenticates twice."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state["caller"] = getattr(request.state, CALLER_STATE)
        return context


class GrpcCallerContextBuilder(DefaultGrpcServerCallContextBuilder):
    """The same for a call over gRPC, with the caller a2a_grpc.py authenticated."""

    def build(self, context: Any) -> ServerCallContext:
        built = super().build(context)
        built.state["caller"] = GRPC_CALLER.get()
        return built


def _who(context: ServerCallContext | None) -> tuple[Caller, Principal]:
    if context is None or "caller" not in context.state:
        raise InternalError("no caller: A2A is served through a2a_route.py only")
    caller, principal = context.state["caller"]
    return caller, principal


def _a2a_error(err: AgentrtError, task_id: str = "") -> A2AError:
    """An agentrt error as the A2A error a client can act on; its message as it came."""
    name = err.code.name
    text = f"{name} ({err.reason}): {err.message}" if err.reason else f"{name}: {err.message}"
    if task_id and name in ("NOT_FOUND", "INVALID_ARGUMENT"):
        return TaskNotFoundError(f"task {task_id!r} not found")  # an id that is not a run id: none
    if name in ("INVALID_ARGUMENT", "OUT_OF_RANGE", "FAILED_PRECONDITION", "NOT_FOUND", "ALREADY_EXISTS"):
        return InvalidParamsError(text)
    if name in ("RESOURCE_EXHAUSTED", "UNAUTHENTICATED", "PERMISSION_DENIED"):
        # The caller's move (a limit, a key): A2A has no error of its own for it, and an
        # internal error (-32603) would say the fault is ours. Its reason stays in the text.
        return InvalidRequestError(text)
    return InternalError(text)


def _text(message: Message) -> str:
    """The message's text parts, joined; any other part is refused (agentrt reads text)."""
    if not message.parts:
        raise InvalidParamsError("the message has no parts: send the task as a text part")
    texts = []
    for part in message.parts:
        if part.WhichOneof("content") != "text":
            raise ContentTypeNotSupportedError("agentrt reads text parts only: send the task as text")
        texts.append(part.text)
    return "\n".join(texts).strip()


def _agent_message(run: R.Run, text: str) -> Message:
    return new_text_message(text, context_id=run.thread_id or None, task_id=run.run_id, role=Role.ROLE_AGENT)


def _awaiting(run: R.Run) -> list[R.StepState]:
    return [s for s in run.steps if s.status == R.STEP_STATUS_AWAITING_APPROVAL]


def _waiting_text(run: R.Run) -> str:
    steps = "; ".join(
        f"step {s.step_id} ({s.tool} {json_format.MessageToJson(s.arguments, indent=None)})"
        + (f": {s.approval.reason}" if s.approval.reason else "")
        for s in _awaiting(run)
    )
    return f"Waiting for approval of {steps}. Answer yes to run it, or no to reject it."


def _status(run: R.Run) -> TaskStatus:
    state = _STATES.get(run.status, TaskState.TASK_STATE_WORKING)
    if run.status == R.RUN_STATUS_FAILED and run.error.reason in _DECLINED:
        state = TaskState.TASK_STATE_REJECTED
    status = TaskStatus(state=state)
    if run.status == R.RUN_STATUS_WAITING:
        status.message.CopyFrom(_agent_message(run, _waiting_text(run)))
    elif run.status == R.RUN_STATUS_SUCCEEDED and run.answer:
        status.message.CopyFrom(_agent_message(run, run.answer))
    elif run.status in TERMINAL and run.error.message:
        status.message.CopyFrom(
            _agent_message(run, f"{run.error.reason or run.error.code}: {run.error.message}")
        )
    elif busy := [s for s in run.steps if s.status in (R.STEP_STATUS_RUNNING, R.STEP_STATUS_RETRYING)]:
        # What a caller waiting on the task sees of its progress: which steps are under way.
        doing = ", ".join(f"{s.tool} (step {s.step_id})" for s in busy[:3])
        status.message.CopyFrom(
            _agent_message(run, f"running {doing}" + (" and more" if len(busy) > 3 else ""))
        )
    status.timestamp.CopyFrom(run.update_time)
    return status


def _artifacts(run: R.Run) -> list[Artifact]:
    out = []
    if run.answer:
        out.append(Artifact(artifact_id="answer", name="answer", parts=[Part(text=run.answer)]))
    if run.HasField("result"):
        out.append(Artifact(artifact_id="result", name="result", parts=[Part(data=run.result)]))
    return out


def task_of(run: R.Run, history_length: int | None = None) -> Task:
    """A run as an A2A task: its status, its artifacts, and the prompt as the history."""
    task = Task(id=run.run_id, context_id=run.thread_id, status=_status(run), artifacts=_artifacts(run))
    if history_length != 0:
        prompt = new_text_message(
            run.prompt, context_id=run.thread_id or None, task_id=run.run_id, role=Role.ROLE_USER
        )
        prompt.message_id = f"{run.run_id}-prompt"
        task.history.append(prompt)
    return task


def _answer(text: str) -> bool | None:
    """Yes (True), no (False) or neither (None) to an approval, in the words people use."""
    words = " ".join(re.sub(r"[^\w\s']", " ", text.lower()).split())
    first = words.split(" ", 1)[0] if words else ""
    for said in (words, " ".join(words.split()[:2]), first):
        if said in _YES:
            return True
        if said in _NO:
            return False
    return None


class A2aHandler(RequestHandler):
    """The A2A methods, each a call (or a few) through the Edge as the authenticated caller."""

    def __init__(self, edge: Edge, settings: GatewaySettings) -> None:
        self._edge = edge
        self._settings = settings

    async def _call(self, rpc: str, who: tuple[Caller, Principal], request: Any, task_id: str = "") -> Any:
        try:
            return await self._edge.call(rpc, who[0], request, who[1])
        except AgentrtError as err:
            raise _a2a_error(err, task_id) from None

    async def _run(self, who: tuple[Caller, Principal], run_id: str) -> R.Run:
        return (await self._call("GetRun", who, R.GetRunRequest(run_id=run_id), run_id)).run

    # --- sending ------------------------------------------------------------------------------

    async def _send(self, params: SendMessageRequest, who: tuple[Caller, Principal]) -> tuple[R.Run, bool]:
        """The run the message starts, or (on an input-required task) the one it answers; and
        whether it is new (its events are replayed from the start)."""
        message = params.message
        text = _text(message)
        if message.task_id:
            return await self._answer_approval(message.task_id, text, who), False
        if not text:
            raise InvalidParamsError("the message's text is empty: say what to do")
        thread_id, made = message.context_id, False
        if thread_id:
            if not _THREAD_ID.match(thread_id):
                raise InvalidParamsError(f"context {thread_id!r} not found: leave contextId out to start one")
            await self._call("GetThread", who, R.GetThreadRequest(thread_id=thread_id, page_size=1))
        else:
            created = await self._call("CreateThread", who, R.CreateThreadRequest(metadata={"source": "a2a"}))
            thread_id, made = created.thread.thread_id, True
        request = R.CreateRunRequest(
            prompt=text,
            thread_id=thread_id,
            idempotency_key=f"a2a:{message.message_id}" if message.message_id else "",
            # A2A's own answer to a busy context is to wait: the turn runs after the earlier one.
            multitask_strategy=R.MULTITASK_STRATEGY_ENQUEUE,
        )
        try:
            return (await self._edge.call("CreateRun", who[0], request, who[1])).run, True
        except AgentrtError as err:
            if made:  # the context this message would have started: not one anyone will use
                with contextlib.suppress(A2AError):
                    await self._call("DeleteThread", who, R.DeleteThreadRequest(thread_id=thread_id))
            if err.reason != "IDEMPOTENCY_KEY_REUSED" or "run_id" not in err.metadata:
                raise _a2a_error(err) from None
            first = err.metadata["run_id"]
        # The same message again (a retry after a lost response): the task it started, once.
        run = await self._run(who, first)
        if run.prompt != text or (message.context_id and run.thread_id != message.context_id):
            raise InvalidParamsError(
                f"message id {message.message_id!r} was already used for another message"
            )
        return run, True

    async def _answer_approval(self, task_id: str, text: str, who: tuple[Caller, Principal]) -> R.Run:
        run = await self._run(who, task_id)
        if run.status in TERMINAL:
            raise UnsupportedOperationError(
                f"task {task_id} has ended ({status_name(run.status)}): "
                "send a new message in the same context (contextId, no taskId) to go on"
            )
        waiting = _awaiting(run)
        if run.status != R.RUN_STATUS_WAITING or not waiting:
            raise InvalidRequestError(f"task {task_id} is not waiting for input; it is still working")
        decision = _answer(text)
        if decision is None:
            raise InvalidParamsError(f"{_waiting_text(run)} (got {clip(text, 80)!r})")
        for step in waiting:
            if decision:
                request: Any = R.ApproveStepRequest(run_id=task_id, step_id=step.step_id)
                run = (await self._call("ApproveStep", who, request, task_id)).run
            else:
                request = R.RejectStepRequest(run_id=task_id, step_id=step.step_id, reason=clip(text, 2000))
                run = (await self._call("RejectStep", who, request, task_id)).run
        return run

    async def on_message_send(self, params: SendMessageRequest, context: ServerCallContext) -> Task:
        who = _who(context)
        if not params.configuration.return_immediately:
            self._may_follow(who)
        run, _ = await self._send(params, who)
        if not params.configuration.return_immediately:
            run = await self._settled(run, who)
        return task_of(run, _history(params.configuration))

    def _may_follow(self, who: tuple[Caller, Principal]) -> None:
        """A send that follows its run takes a stream's slot: past the caps it is refused before
        the run exists (gateway/streams.py), not after."""
        try:
            self._edge.streams.check(who[1], "A2A task stream")
        except AgentrtError as err:
            raise _a2a_error(err) from None

    async def _settled(self, run: R.Run, who: tuple[Caller, Principal]) -> R.Run:
        """The run once it has ended or waits for a person (or as it stands after the wait)."""
        if run.status in TERMINAL or run.status == R.RUN_STATUS_WAITING:
            return run
        try:
            async with asyncio.timeout(MAX_BLOCKING_WAIT_S):
                async for _ in self._watch(run, who, after_seq=run.last_seq):
                    pass
        except TimeoutError:
            pass
        return await self._run(who, run.run_id)

    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent]:
        who = _who(context)
        self._may_follow(who)
        run, new = await self._send(params, who)
        yield task_of(run, _history(params.configuration))
        async for event in self._events(run, who, after_seq=0 if new else run.last_seq):
            yield event

    # --- following a run ----------------------------------------------------------------------

    async def _watch(
        self, run: R.Run, who: tuple[Caller, Principal], after_seq: int
    ) -> AsyncGenerator[R.RunEvent]:
        """The run's events after `after_seq`, until it ends or waits for a person."""
        if (run.status in TERMINAL or run.status == R.RUN_STATUS_WAITING) and after_seq >= run.last_seq:
            return  # nothing will come: it has ended, or waits for a person
        request = R.WatchRunRequest(run_id=run.run_id, after_seq=after_seq)
        try:
            async for response in self._edge.watch(request, who[0], who[1]):
                event = response.event
                if event.transient:
                    continue
                yield event
                if event.WhichOneof("kind") == "status_changed" and (
                    event.status_changed.status in TERMINAL
                    or event.status_changed.status == R.RUN_STATUS_WAITING
                ):
                    return
        except AgentrtError as err:
            raise _a2a_error(err, run.run_id) from None

    async def _events(
        self, run: R.Run, who: tuple[Caller, Principal], after_seq: int
    ) -> AsyncGenerator[TaskStatusUpdateEvent | TaskArtifactUpdateEvent]:
        """The run's progress as A2A events: a working status per finished step, then the
        artifacts and the final (or input-required) status."""
        task_id, context_id = run.run_id, run.thread_id
        told = _STATES.get(run.status)  # a state already told is not told again (planning, running)
        async for event in self._watch(run, who, after_seq):
            kind = event.WhichOneof("kind")
            if kind == "step_updated":
                step = event.step_updated.step
                if step.status in (R.STEP_STATUS_SUCCEEDED, R.STEP_STATUS_FAILED):
                    state = step_status_name(step.status)
                    note = new_text_message(
                        f"step {step.step_id} ({step.tool}) {state}",
                        context_id=context_id or None,
                        task_id=task_id,
                        role=Role.ROLE_AGENT,
                    )
                    yield TaskStatusUpdateEvent(
                        task_id=task_id,
                        context_id=context_id,
                        status=TaskStatus(state=TaskState.TASK_STATE_WORKING, message=note),
                    )
            elif kind == "status_changed":
                status = event.status_changed.status
                if status in TERMINAL or status == R.RUN_STATUS_WAITING:
                    ended = await self._run(who, task_id)
                    for artifact in _artifacts(ended):
                        yield TaskArtifactUpdateEvent(
                            task_id=task_id, context_id=context_id, artifact=artifact, last_chunk=True
                        )
                    yield TaskStatusUpdateEvent(task_id=task_id, context_id=context_id, status=_status(ended))
                    return
                if _STATES[status] != told:
                    told = _STATES[status]
                    yield TaskStatusUpdateEvent(
                        task_id=task_id, context_id=context_id, status=TaskStatus(state=told)
                    )

    # --- tasks --------------------------------------------------------------------------------

    async def on_get_task(self, params: GetTaskRequest, context: ServerCallContext) -> Task | None:
        length = params.history_length if params.HasField("history_length") else None
        return task_of(await self._run(_who(context), params.id), length)

    async def on_cancel_task(self, params: CancelTaskRequest, context: ServerCallContext) -> Task | None:
        who = _who(context)
        run = await self._run(who, params.id)
        if run.status in TERMINAL:
            raise TaskNotCancelableError(f"task {params.id} has ended: {status_name(run.status)}")
        return task_of(
            (await self._call("CancelRun", who, R.CancelRunRequest(run_id=params.id), params.id)).run
        )

    async def on_subscribe_to_task(
        self, params: SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent]:
        who = _who(context)
        run = await self._run(who, params.id)
        if run.status in TERMINAL:
            raise UnsupportedOperationError(f"task {params.id} has ended: get it with GetTask")
        yield task_of(run)
        async for event in self._events(run, who, after_seq=run.last_seq):
            yield event

    async def on_list_tasks(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        """The caller's latest runs, newest first (in one context, when asked: of that page)."""
        size = min(params.page_size or 50, MAX_LISTED)
        listed = await self._call("ListRuns", _who(context), R.ListRunsRequest(page_size=size))
        runs = [r for r in listed.runs if not params.context_id or r.thread_id == params.context_id]
        length = params.history_length if params.HasField("history_length") else None
        return ListTasksResponse(
            tasks=[task_of(r, length) for r in runs], page_size=size, total_size=len(runs)
        )

    # --- not offered --------------------------------------------------------------------------

    async def on_create_task_push_notification_config(
        self, params: TaskPushNotificationConfig, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError(_NO_PUSH)

    async def on_get_task_push_notification_config(
        self, params: GetTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError(_NO_PUSH)

    async def on_list_task_push_notification_configs(
        self, params: ListTaskPushNotificationConfigsRequest, context: ServerCallContext
    ) -> ListTaskPushNotificationConfigsResponse:
        raise PushNotificationNotSupportedError(_NO_PUSH)

    async def on_delete_task_push_notification_config(
        self, params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> None:
        raise PushNotificationNotSupportedError(_NO_PUSH)

    async def on_get_extended_agent_card(
        self, params: GetExtendedAgentCardRequest, context: ServerCallContext
    ) -> AgentCard:
        raise ExtendedAgentCardNotConfiguredError("agentrt has no extended card: the public one is all")


def _history(configuration: Any) -> int | None:
    return configuration.history_length if configuration.HasField("history_length") else None


# --- the card ---------------------------------------------------------------------------------

_TASK_SKILL = AgentSkill(
    id="task",
    name="Run a task",
    description=(
        "A task in plain language, planned and carried out with agentrt's tools (arithmetic, a todo "
        "list of your own, and whatever tools this deployment mounts), durably; a follow-up in the "
        "same context sees the earlier turns. A step that changes things in bulk waits for your "
        "approval (the task is input-required: answer yes or no)."
    ),
    tags=["tasks", "tools", "todos", "arithmetic"],
    examples=[
        "what's 15% of 80?",
        "add buy milk and call mom to my list",
        "now mark it as done",
        "delete all my todos",
    ],
    input_modes=["text/plain"],
    output_modes=["text/plain", "application/json"],
)


def agent_card(
    base_url: str, catalog: tool_service_pb2.ListToolsResponse | None = None, grpc_address: str = ""
) -> AgentCard:
    """agentrt's card: where it answers (JSON-RPC at /a2a; gRPC at `grpc_address`, host:port, when
    given), how callers authenticate (the gateway's API keys as bearer tokens), and its skills: the
    task skill, and one per tool of the catalog (what a task can use)."""
    skills = [_TASK_SKILL]
    for tool in (catalog.tools if catalog is not None else [])[:MAX_LISTED]:
        skills.append(
            AgentSkill(
                id=f"tool:{tool.name}",
                name=tool.name,
                description=clip(tool.description or tool.name, 500),
                tags=["tool"],
            )
        )
    return AgentCard(
        name="agentrt",
        description="A runtime for AI agents: tasks in plain language, carried out with tools, durably.",
        version=agentrt.__version__,
        provider=AgentProvider(organization="agentrt", url=base_url),
        supported_interfaces=[
            AgentInterface(
                url=f"{base_url}{RPC_PATH}", protocol_binding="JSONRPC", protocol_version=PROTOCOL_VERSION
            ),
            *(
                [AgentInterface(url=grpc_address, protocol_binding="GRPC", protocol_version=PROTOCOL_VERSION)]
                if grpc_address
                else []
            ),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=skills,
        security_schemes={
            "apiKey": SecurityScheme(
                http_auth_security_scheme=HTTPAuthSecurityScheme(
                    scheme="Bearer", description="An agentrt API key (AGENTRT_API_KEYS)"
                )
            )
        },
        security_requirements=[SecurityRequirement(schemes={"apiKey": StringList()})],
    )


def card_response(card: AgentCard) -> JSONResponse:
    return JSONResponse(agent_card_to_dict(card))


def rpc_routes(edge: Edge, settings: GatewaySettings) -> list[BaseRoute]:
    """The SDK's JSON-RPC route at /a2a, with this module's handler behind it."""
    handler = A2aHandler(edge, settings)
    return create_jsonrpc_routes(handler, rpc_url=RPC_PATH, context_builder=CallerContextBuilder())


def grpc_handler(edge: Edge, settings: GatewaySettings) -> tuple[GrpcHandler, dict[str, type[Any]]]:
    """The SDK's servicer of A2AService (gRPC), with this module's handler behind it, and each
    method's request type (a2a_grpc.py hands it the requests still as bytes)."""
    service = a2a_pb2.DESCRIPTOR.services_by_name["A2AService"]
    types = {method.name: GetMessageClass(method.input_type) for method in service.methods}
    return GrpcHandler(A2aHandler(edge, settings), context_builder=GrpcCallerContextBuilder()), types
