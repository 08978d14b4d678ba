"""SDK for tool authors: turn typed Python functions into agentrt tools served by a provider.

    from typing import Literal
    from agentrt.tools_sdk import tool, ToolProvider

    @tool(version="1.0.0")
    def weather(city: str, units: Literal["c", "f"] = "c") -> Forecast:
        \"\"\"Current weather for a city.

        Args:
            city: City name, e.g. "Paris".
            units: Temperature units.
        \"\"\"

    asyncio.run(ToolProvider([weather], tools_addr="127.0.0.1:50054").serve_forever())

The input JSON Schema comes from the signature (pydantic: types, defaults, Literal -> enum,
models -> nested objects) and the docstring (summary -> description, "Args:" -> per-argument
descriptions); the output schema from the return annotation. `agentrt tools serve module:object`
does the serving from the command line. Raise `ToolError(message, retryable=...)` for failures
the caller should see as the tool's own.

A tool that keeps state for its users (a list, a quota, a cache) must keep it per user. It asks
whom a call is for by declaring a parameter of type `CallContext`:

    @tool
    def remember(note: str, call: CallContext) -> int:
        \"\"\"Keep a note; returns how many the caller has.\"\"\"
        NOTES.setdefault(call.principal, []).append(note)
        return len(NOTES[call.principal])

That parameter is filled in by the provider: it is not in the tool's input schema, and no
argument can set it. `principal` is the run owner's name (the API key's name at the gateway,
"local" without keys); `run_id`, `step_id`, `attempt` and `idempotency_key` say which call this
is (empty, and 0, for a call made outside a run).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
import signal
import socket
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import grpc
import pydantic
import structlog
from google.protobuf import duration_pb2

from agentrt.core.annotations import hints as annotation_hints
from agentrt.core.channels import aio_channel
from agentrt.core.errors import ErrorDetails, InvalidArgument, NotFound, ToolError
from agentrt.core.principals import LOCAL_NAME
from agentrt.core.values import dict_to_struct, py_to_value, struct_to_dict
from agentrt.server.grpcserver import BuiltServer, new_server
from agentrt.v1 import (
    tool_pb2,
    tool_provider_service_pb2,
    tool_provider_service_pb2_grpc,
    tool_service_pb2,
    tool_service_pb2_grpc,
)

__all__ = ["CallContext", "ToolDefinition", "ToolError", "ToolProvider", "tool"]

log = structlog.get_logger("agentrt.tools_sdk")


def _parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Google-style docstring -> (description, {argument: description})."""
    text = inspect.cleandoc(doc or "")
    match = re.search(r"^(?:Args|Arguments|Parameters):\s*$", text, re.M)
    if not match:
        return text, {}
    params: dict[str, str] = {}
    current: str | None = None
    indent: int | None = None
    for line in text[match.end() :].splitlines():
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if depth == 0:
            break  # the next section (Returns:, Raises:, ...)
        item = re.match(r"(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$", line.strip())
        if item and indent in (None, depth):
            indent, current = depth, item.group(1)
            params[current] = item.group(2).strip()
        elif current is not None:  # a continuation line, indented deeper
            params[current] = f"{params[current]} {line.strip()}".strip()
    return text[: match.start()].strip(), params


@dataclass(frozen=True)
class CallContext:
    """Whom a call is for and which call it is; a tool declaring a parameter of this type is
    given it (see the module docstring)."""

    principal: str = LOCAL_NAME
    run_id: str = ""
    step_id: str = ""
    attempt: int = 0
    idempotency_key: str = ""

    @classmethod
    def of(cls, request: tool_provider_service_pb2.InvokeRequest) -> CallContext:
        """The context tools_svc sent with `request` (a call without one is for `local`)."""
        context = request.context
        return cls(
            principal=context.principal or LOCAL_NAME,
            run_id=context.run_id,
            step_id=context.step_id,
            attempt=context.attempt,
            idempotency_key=context.idempotency_key or request.idempotency_key,
        )


def _is_call_context(annotation: Any) -> bool:
    """`CallContext`, also as `CallContext | None` or `Annotated[CallContext, ...]`: any of them
    must be injected, never described as an argument the caller could set."""
    if get_origin(annotation) is Annotated:
        return _is_call_context(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        kinds = [a for a in get_args(annotation) if a is not type(None)]
        return len(kinds) == 1 and _is_call_context(kinds[0])
    return annotation is CallContext


@dataclass(frozen=True)
class ToolDefinition:
    """A Python function published as a tool."""

    fn: Callable[..., Any]
    name: str
    version: str
    description: str
    idempotent: bool
    timeout_s: float | None
    arguments: type[pydantic.BaseModel]
    output: pydantic.TypeAdapter[Any] | None
    annotations: tool_pb2.ToolAnnotations = field(default_factory=tool_pb2.ToolAnnotations)
    action_annotations: dict[str, tool_pb2.ToolAnnotations] = field(default_factory=dict)
    # The parameter that is given the CallContext, if the function declares one.
    context_parameter: str | None = None
    references: tool_pb2.ToolReferences | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def input_schema(self) -> dict[str, Any]:
        return self.arguments.model_json_schema()

    def output_schema(self) -> dict[str, Any] | None:
        return self.output.json_schema() if self.output is not None else None

    def spec(self) -> tool_pb2.ToolSpec:
        spec = tool_pb2.ToolSpec(
            name=self.name,
            version=self.version,
            description=self.description,
            input_schema=dict_to_struct(self.input_schema()),
            idempotent=self.idempotent,
            annotations=self.annotations,
            action_annotations=self.action_annotations,
            references=self.references,
        )
        if (output_schema := self.output_schema()) is not None:
            spec.output_schema.CopyFrom(dict_to_struct(output_schema))
        if self.timeout_s:
            spec.default_timeout.FromNanoseconds(round(self.timeout_s * 1e9))
        return spec

    async def invoke(self, arguments: dict[str, Any], context: CallContext | None = None) -> Any:
        """Validate `arguments`, call the function (sync functions in a worker thread) with
        `context` (default: a call for `local`) if it asks for one, and return its result as
        JSON-compatible data."""
        try:
            parsed = self.arguments.model_validate(arguments)
        except pydantic.ValidationError as exc:
            violations = [(".".join(["arguments", *map(str, e["loc"])]), e["msg"]) for e in exc.errors()]
            raise InvalidArgument(
                f"invalid arguments for tool '{self.name}': " + "; ".join(f"{f}: {m}" for f, m in violations),
                reason="INVALID_TOOL_ARGUMENTS",
                violations=violations,
            ) from None
        kwargs = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        if self.context_parameter is not None:
            kwargs[self.context_parameter] = context if context is not None else CallContext()
        if inspect.iscoroutinefunction(self.fn):
            result = await self.fn(**kwargs)
        else:
            result = await asyncio.to_thread(self.fn, **kwargs)
        if self.output is not None:
            return self.output.dump_python(result, mode="json")
        return pydantic.TypeAdapter(Any).dump_python(result, mode="json")


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    version: str = "1.0.0",
    description: str | None = None,
    idempotent: bool = False,
    timeout_s: float | None = None,
    read_only: bool | None = None,
    destructive: bool | None = None,
    open_world: bool | None = None,
    title: str = "",
    actions: dict[str, dict[str, Any]] | None = None,
    references: tool_pb2.ToolReferences | None = None,
) -> Any:
    """Decorator: publish `fn` as a tool. Usable bare (`@tool`) or with options.

    `read_only`, `destructive`, `idempotent` and `open_world` are the tool's annotations (MCP's
    hints; unset: MCP's defaults, i.e. a call may destroy data and reach the open world), which
    decide what a person must approve. A tool with an `action` argument can annotate each action:
    `actions={"list": {"read_only": True}, "delete": {"destructive": True}}`.

    `references` says what its outputs mean to a conversation (agentrt.core.toolrefs.references:
    which values are things a person may call "it" or "the second one", which action undoes a
    call and which of its arguments takes the things as the call left them, to refuse an undo of
    what changed since; which value is a result), so the default agent can follow up on this
    tool's answers."""

    def wrap(function: Callable[..., Any]) -> ToolDefinition:
        doc_description, param_docs = _parse_docstring(function.__doc__)
        hints = get_type_hints(function, include_extras=True)
        fields: dict[str, Any] = {}
        context_parameter: str | None = None
        for param in inspect.signature(function).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError(
                    f"tool {function.__name__}: *args and **kwargs cannot be described as a schema"
                )
            annotation = hints.get(param.name, Any)
            if _is_call_context(annotation):
                if context_parameter is not None:
                    raise TypeError(f"tool {function.__name__}: more than one CallContext parameter")
                context_parameter = param.name  # given by the provider, not an argument
                continue
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[param.name] = (annotation, pydantic.Field(default, description=param_docs.get(param.name)))
        tool_name = name or function.__name__
        model = pydantic.create_model(  # type: ignore[call-overload]
            f"{tool_name}_arguments", __config__=pydantic.ConfigDict(extra="forbid"), **fields
        )
        returns = hints.get("return")
        output = None if returns in (None, Any, inspect.Signature.empty) else pydantic.TypeAdapter(returns)
        return ToolDefinition(
            fn=function,
            name=tool_name,
            version=version,
            description=description or doc_description or tool_name,
            idempotent=idempotent,
            timeout_s=timeout_s,
            arguments=model,
            output=output,
            annotations=annotation_hints(
                read_only=read_only,
                destructive=destructive,
                idempotent=idempotent or None,
                open_world=open_world,
                title=title,
            ),
            action_annotations={
                action: annotation_hints(**given) for action, given in (actions or {}).items()
            },
            context_parameter=context_parameter,
            references=references,
        )

    return wrap(fn) if fn is not None else wrap


class _ProviderServicer(tool_provider_service_pb2_grpc.ToolProviderServiceServicer):
    def __init__(self, tools: dict[str, ToolDefinition]) -> None:
        self._tools = tools

    async def Invoke(
        self, request: tool_provider_service_pb2.InvokeRequest, context: grpc.aio.ServicerContext
    ) -> tool_provider_service_pb2.InvokeResponse:
        definition = self._tools.get(request.tool)
        if definition is None:
            raise NotFound(f"this provider does not serve tool '{request.tool}'", reason="TOOL_NOT_FOUND")
        try:
            output = await definition.invoke(struct_to_dict(request.arguments), CallContext.of(request))
        except (ToolError, InvalidArgument):
            raise
        except Exception as exc:
            # The tool's own bug or failure: report it as the tool's error, not the runtime's.
            log.exception("tool.raised", tool=request.tool)
            raise ToolError(f"{request.tool} raised {type(exc).__name__}: {exc}") from None
        return tool_provider_service_pb2.InvokeResponse(output=py_to_value(output))


class ToolProvider:
    """Serves tools over ToolProviderService and keeps them registered with tools_svc."""

    def __init__(
        self,
        tools: Iterable[ToolDefinition],
        *,
        tools_addr: str = "127.0.0.1:50054",
        host: str = "127.0.0.1",
        port: int = 0,
        advertise_host: str | None = None,
        token: str | None = None,
        ttl_s: float = 15.0,
    ) -> None:
        self.tools = {t.name: t for t in tools}
        if not self.tools:
            raise ValueError("a provider needs at least one tool")
        self._tools_addr = tools_addr
        self._host = host
        self._port = port
        self._advertise_host = advertise_host or (
            host if host not in ("0.0.0.0", "::") else socket.gethostname()
        )
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self._ttl_s = ttl_s
        self._server: BuiltServer | None = None
        self._channel: grpc.aio.Channel | None = None
        self._leases: dict[str, str] = {}  # tool name -> lease id
        self._renewer: asyncio.Task[None] | None = None

    @property
    def endpoint(self) -> str:
        assert self._server is not None, "start() first"
        host = f"[{self._advertise_host}]" if ":" in self._advertise_host else self._advertise_host
        return f"{host}:{self._server.port}"

    @property
    def leases(self) -> dict[str, str]:
        return dict(self._leases)

    @property
    def _registry(self) -> tool_service_pb2_grpc.ToolServiceStub:
        assert self._channel is not None
        return tool_service_pb2_grpc.ToolServiceStub(self._channel)

    async def start(self) -> None:
        name = tool_provider_service_pb2.DESCRIPTOR.services_by_name["ToolProviderService"].full_name
        self._server = new_server(
            self._host,
            self._port,
            [
                (
                    tool_provider_service_pb2_grpc.add_ToolProviderServiceServicer_to_server,
                    _ProviderServicer(self.tools),
                    name,
                )
            ],
        )
        await self._server.start()
        self._channel = aio_channel(self._tools_addr)
        for definition in self.tools.values():
            await self._register(definition)
        self._renewer = asyncio.create_task(self._renew_forever(), name="lease-renewer")
        log.info("provider.started", endpoint=self.endpoint, tools=sorted(self.tools))

    async def _register(self, definition: ToolDefinition) -> None:
        ttl = duration_pb2.Duration()
        ttl.FromNanoseconds(round(self._ttl_s * 1e9))
        request = tool_service_pb2.RegisterToolRequest(
            spec=definition.spec(), endpoint=self.endpoint, ttl=ttl
        )
        response = await self._registry.RegisterTool(request, metadata=self._metadata, timeout=10)
        self._leases[definition.name] = response.lease.lease_id

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self._ttl_s / 3)  # two chances to renew before the lease lapses
            try:
                response = await self._registry.RenewLeases(
                    tool_service_pb2.RenewLeasesRequest(lease_ids=list(self._leases.values())),
                    metadata=self._metadata,
                    timeout=max(1.0, self._ttl_s / 3),
                )
                lapsed = set(response.expired_lease_ids)
                for name, lease_id in list(self._leases.items()):
                    if lease_id in lapsed:
                        log.warning("provider.lease_lapsed", tool=name)
                        await self._register(self.tools[name])
            except grpc.aio.AioRpcError as err:
                log.warning("provider.renew_failed", code=ErrorDetails.from_rpc_error(err).code.name)

    async def stop(self, grace: float = 1.0) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        for name, lease_id in list(self._leases.items()):
            try:
                await self._registry.DeregisterTool(
                    tool_service_pb2.DeregisterToolRequest(lease_id=lease_id),
                    metadata=self._metadata,
                    timeout=2,
                )
            except grpc.aio.AioRpcError as err:
                log.warning("provider.deregister_failed", tool=name, code=err.code().name)
            del self._leases[name]
        if self._channel is not None:
            await self._channel.close()
        if self._server is not None:
            await self._server.stop(grace)
        log.info("provider.stopped")

    async def serve_forever(self) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await self.start()
        try:
            await stop.wait()
        finally:
            await self.stop()
