"""agentrt as an A2A agent: the gateway's card, /a2a (JSON-RPC) and A2AService (gRPC) driven by
the A2A SDK's own client (each binding, streaming and not), against the real services."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import httpx
import pytest
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.helpers import get_message_text
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskState,
    a2a_pb2,
    a2a_pb2_grpc,
)
from a2a.utils.errors import (
    A2AError,
    ContentTypeNotSupportedError,
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
)
from google.protobuf import json_format
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.core.errors import ErrorDetails
from gateway import a2a_grpc
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack
from tests.keys import key_for

ALICE, BOB = key_for("alice"), key_for("bob")
S = TaskState


@pytest.fixture
async def keyed(settings: Settings) -> AsyncIterator[Stack]:
    built = await start_stack(
        settings.replace(
            api_keys={"alice": SecretStr(ALICE), "bob": SecretStr(BOB)},
            internal_token=INTERNAL_TOKEN,
            approval_exempt_rules=False,
            approval_policy="destructive",
        )
    )
    yield built
    await built.close()


@pytest.fixture(params=["JSONRPC", "GRPC"])
def binding(request: pytest.FixtureRequest) -> str:
    """Each binding the card offers, in turn: the SDK's client picks it from the card."""
    return str(request.param)


class _Bearer:
    """The API key on every gRPC call, as the HTTP client sends it in a header."""

    def __init__(self, key: str) -> None:
        self._metadata = (("authorization", f"Bearer {key}"),)

    async def _call(self, continuation: Any, details: grpc.aio.ClientCallDetails, request: Any) -> Any:
        metadata = (*(details.metadata or ()), *self._metadata)
        return await continuation(details._replace(metadata=metadata), request)  # type: ignore[attr-defined]


# One class per kind: grpc.aio files an interceptor under the first kind it is an instance of.
class _BearerUnary(_Bearer, grpc.aio.UnaryUnaryClientInterceptor):
    intercept_unary_unary = _Bearer._call


class _BearerStream(_Bearer, grpc.aio.UnaryStreamClientInterceptor):
    intercept_unary_stream = _Bearer._call


class Connection:
    """What a client holds open: its HTTP client (the card is read over HTTP) and gRPC channels."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.http = httpx.AsyncClient(
            headers={"authorization": f"Bearer {key}"},
            timeout=httpx.Timeout(60, connect=5),
            follow_redirects=False,
        )
        self.channels: list[grpc.aio.Channel] = []

    def channel(self, address: str) -> grpc.aio.Channel:
        made = grpc.aio.insecure_channel(
            address, interceptors=[_BearerUnary(self.key), _BearerStream(self.key)]
        )
        self.channels.append(made)
        return made

    async def aclose(self) -> None:
        await self.http.aclose()
        for channel in self.channels:
            await channel.close()


async def connect(
    stack: Stack, key: str, binding: str = "JSONRPC", *, streaming: bool = True
) -> tuple[Client, Connection]:
    connection = Connection(key)
    config = ClientConfig(
        httpx_client=connection.http,
        streaming=streaming,
        supported_protocol_bindings=[binding],
        grpc_channel_factory=connection.channel,
    )
    client = await ClientFactory(config).create_from_url(stack.http)
    assert (binding == "GRPC") == bool(connection.channels)  # the client took the binding asked for
    return client, connection


def said(text: str, *, task_id: str = "", context_id: str = "", message_id: str = "") -> SendMessageRequest:
    return SendMessageRequest(
        message=Message(
            role=Role.ROLE_USER,
            message_id=message_id or uuid.uuid4().hex,
            parts=[Part(text=text)],
            task_id=task_id,
            context_id=context_id,
        )
    )


async def events(client: Client, request: SendMessageRequest) -> list[StreamResponse]:
    return [e async for e in client.send_message(request)]


def last_state(found: list[StreamResponse]) -> int:
    states = [
        e.task.status.state if e.HasField("task") else e.status_update.status.state
        for e in found
        if e.HasField("task") or e.HasField("status_update")
    ]
    return states[-1]


def answer(task: Task) -> str:
    return get_message_text(Message(parts=next(a for a in task.artifacts if a.name == "answer").parts))


async def test_the_card_says_where_and_how_to_call(keyed: Stack) -> None:
    async with httpx.AsyncClient() as http:
        card = (await http.get(f"{keyed.http}/.well-known/agent-card.json")).json()
        assert card["name"] == "agentrt"
        assert card["supportedInterfaces"] == [
            {"url": f"{keyed.http}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {
                "url": f"127.0.0.1:{keyed.port('gateway')}",
                "protocolBinding": "GRPC",
                "protocolVersion": "1.0",
            },
        ]
        assert card["capabilities"]["streaming"] is True
        assert card["securitySchemes"]["apiKey"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"
        skills = {s["id"] for s in card["skills"]}
        assert {"task", "tool:calculator", "tool:todo_store"} <= skills
        # Without a key the endpoint answers nothing but 401, before the SDK reads the body.
        probe = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}
        refused = await http.post(f"{keyed.http}/a2a", json=probe, headers={"A2A-Version": "1.0"})
        assert refused.status_code == 401
        wrong = await http.post(
            f"{keyed.http}/a2a", json=probe, headers={"A2A-Version": "1.0", "authorization": "Bearer nope"}
        )
        assert wrong.status_code == 401
    # Over gRPC the same: refused before the SDK sees the call.
    async with grpc.aio.insecure_channel(f"127.0.0.1:{keyed.port('gateway')}") as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        for metadata in ((), (("authorization", "Bearer nope"),)):
            with pytest.raises(grpc.aio.AioRpcError) as unauthenticated:
                await stub.GetTask(a2a_pb2.GetTaskRequest(id="x"), metadata=metadata)
            assert unauthenticated.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # With a key, bytes that are not the method's request are bad input, not a crash.
        garbage = channel.unary_unary(f"/{a2a_grpc.SERVICE_NAME}/SendMessage")
        with pytest.raises(grpc.aio.AioRpcError) as malformed:
            await garbage(b"\xff\xff\xff", metadata=(("authorization", f"Bearer {ALICE}"),))
        assert malformed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert ErrorDetails.from_rpc_error(malformed.value).reason == "MALFORMED_REQUEST"


def test_the_grpc_binding_registers_every_method_of_the_sdks_service() -> None:
    """gateway/a2a_grpc.py lists the methods without importing the SDK; they are the SDK's."""
    service = a2a_pb2.DESCRIPTOR.services_by_name["A2AService"]
    assert service.full_name == a2a_grpc.SERVICE_NAME
    assert {m.name: m.server_streaming for m in service.methods} == a2a_grpc.METHODS
    assert not any(m.client_streaming for m in service.methods)


async def test_a_task_streams_and_a_follow_up_in_its_context_sees_it(keyed: Stack, binding: str) -> None:
    alice, http = await connect(keyed, ALICE, binding)
    try:
        first = await events(alice, said("add buy milk to my list"))
        task = first[0].task
        assert task.id and task.context_id
        assert task.status.state in (S.TASK_STATE_SUBMITTED, S.TASK_STATE_WORKING)
        kinds = [e.WhichOneof("payload") for e in first]
        assert kinds[0] == "task" and kinds[-1] == "status_update" and "artifact_update" in kinds
        assert last_state(first) == S.TASK_STATE_COMPLETED
        done = await alice.get_task(GetTaskRequest(id=task.id))
        assert done.status.state == S.TASK_STATE_COMPLETED and answer(done) == "Added 'buy milk' (#1)."
        assert get_message_text(done.history[0]) == "add buy milk to my list"

        # The same context is the same thread: "it" is the todo the first turn added.
        second = await events(alice, said("now mark it as done", context_id=task.context_id))
        follow = second[0].task
        assert follow.context_id == task.context_id and follow.id != task.id
        assert last_state(second) == S.TASK_STATE_COMPLETED
        got = await alice.get_task(GetTaskRequest(id=follow.id))
        assert answer(got) == "Reading 'it' as #1 'buy milk': Marked 'buy milk' as done."
        result = json_format.MessageToDict(next(a for a in got.artifacts if a.name == "result").parts[0].data)
        assert result["todo"] == {"id": 1, "text": "buy milk", "done": True}
    finally:
        await http.aclose()


async def test_an_approval_is_answered_by_a_message_and_no_one_else_sees_the_task(
    keyed: Stack, binding: str
) -> None:
    alice, alice_http = await connect(keyed, ALICE, binding)
    bob, bob_http = await connect(keyed, BOB, binding)
    try:
        await events(alice, said("add buy eggs and call mom"))
        waiting = await events(alice, said("delete all my todos"))
        task = waiting[0].task
        assert last_state(waiting) == S.TASK_STATE_INPUT_REQUIRED
        held = await alice.get_task(GetTaskRequest(id=task.id))
        assert held.status.state == S.TASK_STATE_INPUT_REQUIRED
        assert "Answer yes" in get_message_text(held.status.message)
        assert "delete_all" in get_message_text(held.status.message)

        # Another principal: not found, whether it reads, cancels, answers or follows it.
        with pytest.raises(TaskNotFoundError):
            await bob.get_task(GetTaskRequest(id=task.id))
        with pytest.raises(TaskNotFoundError):
            await bob.cancel_task(CancelTaskRequest(id=task.id))
        with pytest.raises(TaskNotFoundError):
            await events(bob, said("yes", task_id=task.id))
        with pytest.raises(A2AError):
            await events(bob, said("what's 1+1", context_id=task.context_id))

        # An answer that is neither yes nor no is refused, saying what to answer; nothing ran.
        with pytest.raises(InvalidParamsError, match="Answer yes"):
            await events(alice, said("hmm, maybe", task_id=task.id))
        assert (await alice.get_task(GetTaskRequest(id=task.id))).status.state == S.TASK_STATE_INPUT_REQUIRED

        # A subscriber follows the task from where it stands to its end.
        async def follow() -> list[StreamResponse]:
            return [e async for e in alice.subscribe(SubscribeToTaskRequest(id=task.id))]

        subscribed = asyncio.create_task(follow())
        approved = await events(alice, said("yes", task_id=task.id, context_id=task.context_id))
        assert last_state(approved) == S.TASK_STATE_COMPLETED
        seen = await asyncio.wait_for(subscribed, 60)
        assert seen[0].task.id == task.id
        assert last_state(seen) in (S.TASK_STATE_INPUT_REQUIRED, S.TASK_STATE_COMPLETED)
        ended = await alice.get_task(GetTaskRequest(id=task.id))
        assert ended.status.state == S.TASK_STATE_COMPLETED and answer(ended).startswith("Deleted 2 todos")
        # A finished task takes no more messages: the context does.
        with pytest.raises(A2AError, match="same context"):
            await events(alice, said("yes", task_id=task.id))
    finally:
        await alice_http.aclose()
        await bob_http.aclose()


async def test_a_waiting_task_cancels_once_and_a_refused_prompt_is_rejected(
    keyed: Stack, binding: str
) -> None:
    alice, http = await connect(keyed, ALICE, binding, streaming=False)
    try:
        await events(alice, said("add water the plants"))
        (only,) = await events(alice, said("delete all my todos"))  # not streaming: the task as it settled
        assert only.task.status.state == S.TASK_STATE_INPUT_REQUIRED
        cancelled = await alice.cancel_task(CancelTaskRequest(id=only.task.id))
        assert cancelled.status.state == S.TASK_STATE_CANCELED
        with pytest.raises(TaskNotCancelableError):
            await alice.cancel_task(CancelTaskRequest(id=only.task.id))

        (refused,) = await events(alice, said("what's the weather in Oslo?"))
        assert refused.task.status.state == S.TASK_STATE_REJECTED  # the planner declined: nothing ran
        assert "UNPLANNABLE" in get_message_text(refused.task.status.message)

        with pytest.raises(TaskNotFoundError):
            await alice.get_task(GetTaskRequest(id="no-such-task"))
        with pytest.raises(InvalidParamsError, match="not found"):
            await events(alice, said("what's 1+1", context_id="f" * 32))
        data = SendMessageRequest(
            message=Message(
                role=Role.ROLE_USER, message_id="m-data", parts=[Part(url="https://example.com/x")]
            )
        )
        with pytest.raises(ContentTypeNotSupportedError):
            await events(alice, data)
    finally:
        await http.aclose()


async def test_the_same_message_sent_twice_is_one_task(keyed: Stack, binding: str) -> None:
    alice, http = await connect(keyed, ALICE, binding, streaming=False)
    try:
        request = said("add renew passport", message_id="retry-1")
        request.configuration.CopyFrom(SendMessageConfiguration(return_immediately=False))
        (first,) = await events(alice, request)
        (again,) = await events(alice, request)
        assert again.task.id == first.task.id
        listed = await alice.get_task(GetTaskRequest(id=first.task.id))
        assert answer(listed) == "Added 'renew passport' (#1)."
    finally:
        await http.aclose()


async def test_a_body_past_the_limit_is_refused_before_the_sdk_reads_it(keyed: Stack) -> None:
    big = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"pad": "x" * 100_000}}
    headers = {"authorization": f"Bearer {ALICE}", "A2A-Version": "1.0"}
    async with httpx.AsyncClient() as http:
        refused = await http.post(f"{keyed.http}/a2a", json=big, headers=headers)
        assert refused.status_code == 413
        error = refused.json()["error"]  # JSON-RPC's invalid request, the reason in its data
        assert (error["code"], error["data"][0]["reason"]) == (-32600, "REQUEST_TOO_LARGE")

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
            for _ in range(100):
                yield b" " * 1000

        streamed = await http.post(f"{keyed.http}/a2a", content=chunks(), headers=headers)
        assert streamed.status_code == 413
