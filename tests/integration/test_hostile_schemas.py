"""Provider schemas are data: registration refuses what would fetch, read files, hang or burn CPU,
and what it accepts cannot stall tools_svc (real gRPC, real tools_svc)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest

from agentrt.core.errors import ErrorDetails
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.tools_sdk import ToolProvider, tool
from agentrt.v1 import run_pb2, tool_pb2, tool_service_pb2
from tests.conftest import Stack, watch_all

T = tool_service_pb2


def spec(name: str, input_schema: dict[str, Any], **fields: Any) -> tool_pb2.ToolSpec:
    return tool_pb2.ToolSpec(
        name=name, version="1.0.0", description="d", input_schema=dict_to_struct(input_schema), **fields
    )


async def register_error(stack: Stack, tool_spec: tool_pb2.ToolSpec, endpoint: str) -> ErrorDetails:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stack.tools.RegisterTool(T.RegisterToolRequest(spec=tool_spec, endpoint=endpoint), timeout=10)
    return ErrorDetails.from_rpc_error(info.value)


@pytest.fixture
def http_hits() -> Iterator[tuple[str, Counter[str]]]:
    """A local HTTP server serving a schema, counting every request it gets."""
    hits: Counter[str] = Counter()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits[self.path] += 1
            body = json.dumps({"type": "integer"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()


@pytest.fixture
def silent_socket() -> Iterator[tuple[int, list[socket.socket]]]:
    """A listening socket that accepts nothing and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    try:
        yield listener.getsockname()[1], []
    finally:
        listener.close()


async def test_refs_to_files_urls_and_silent_sockets_are_refused_at_registration(
    stack: Stack, tmp_path: Path, http_hits: tuple[str, Counter[str]], silent_socket: tuple[int, Any]
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text('"the-secret-content"')
    url, hits = http_hits
    port, _ = silent_socket
    endpoint = "127.0.0.1:1"  # never called: every registration below is refused
    for name, ref in [
        ("fileref", secret.as_uri()),
        ("httpref", f"{url}/schema.json"),
        ("hangref", f"http://127.0.0.1:{port}/schema.json"),
        ("relref", "other.json"),
    ]:
        details = await register_error(
            stack, spec(name, {"type": "object", "properties": {"x": {"$ref": ref}}}), endpoint
        )
        assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SCHEMA")
        assert "leaves the schema" in details.message
        assert "the-secret-content" not in details.message
    assert hits == Counter()  # nothing was fetched
    listed = {t.name for t in (await stack.tools.ListTools(T.ListToolsRequest())).tools}
    assert not listed & {"fileref", "httpref", "hangref", "relref"}


async def test_a_ref_to_a_missing_pointer_is_refused_at_registration(stack: Stack) -> None:
    details = await register_error(
        stack,
        spec("missing", {"type": "object", "properties": {"x": {"$ref": "#/$defs/nope"}}}),
        "127.0.0.1:1",
    )
    assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SCHEMA")
    assert "points to nothing" in details.message


async def test_oversized_and_exploding_schemas_are_refused(stack: Stack) -> None:
    big = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "description": "x" * 500} for i in range(1300)},
    }
    details = await register_error(stack, spec("big", big), "127.0.0.1:1")
    assert (details.code, details.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "SPEC_TOO_LARGE")

    defs = {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(24)}
    defs["d24"] = {"type": "string"}
    bomb = {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}
    assert "subschemas" in (await register_error(stack, spec("bomb", bomb), "127.0.0.1:1")).message


async def test_a_catastrophic_pattern_neither_blocks_tools_svc_nor_reaches_the_provider(stack: Stack) -> None:
    calls: Counter[str] = Counter()

    @tool(name="shape", version="1.0.0")
    def shape(word: str) -> dict[str, str]:
        """Echoes a word.

        Args:
            word: The word.
        """
        calls[word] += 1
        return {"word": word}

    provider = ToolProvider([shape], tools_addr=f"127.0.0.1:{stack.port('tools')}")
    await provider.start()
    try:
        hostile = spec(
            "shape", {"type": "object", "properties": {"word": {"type": "string", "pattern": "^(a+)+$"}}}
        )
        hostile.version = "2.0.0"
        await stack.tools.RegisterTool(T.RegisterToolRequest(spec=hostile, endpoint=provider.endpoint))

        async def invoke(tool_name: str, **arguments: Any) -> Any:
            request = T.InvokeToolRequest(tool=tool_name, arguments=dict_to_struct(arguments))
            return await stack.tools.InvokeTool(request, timeout=10)

        # Before the fix each of these took seconds of CPU on tools_svc's event loop, and the
        # calculator call queued behind them.
        results = await asyncio.gather(
            *(invoke("shape", word="a" * 27 + "!") for _ in range(5)),
            invoke("calculator", expression="1+1"),
            return_exceptions=True,
        )
        for refused in results[:5]:
            assert isinstance(refused, grpc.aio.AioRpcError)
            assert ErrorDetails.from_rpc_error(refused).reason == "INVALID_TOOL_ARGUMENTS"
        assert value_to_py(results[5].output)["value"] == 2  # type: ignore[union-attr]
        assert calls == Counter()
        assert value_to_py((await invoke("shape", word="aaa")).output) == {"word": "aaa"}

        lookaround = spec(
            "shape2", {"type": "object", "properties": {"w": {"type": "string", "pattern": "(?=a)b"}}}
        )
        details = await register_error(stack, lookaround, provider.endpoint)
        assert details.reason == "INVALID_SCHEMA"
        assert "linear-time regex engine" in details.message
    finally:
        await provider.stop(0)


async def test_a_run_using_a_tool_with_local_refs_works_end_to_end(stack: Stack) -> None:
    @tool(name="area", version="1.0.0")
    def area(rect: dict[str, float]) -> dict[str, float]:
        """Area of a rectangle.

        Args:
            rect: width and height.
        """
        return {"area": rect["w"] * rect["h"]}

    provider = ToolProvider([area], tools_addr=f"127.0.0.1:{stack.port('tools')}")
    await provider.start()
    try:
        schema = {
            "type": "object",
            "$defs": {
                "rect": {
                    "type": "object",
                    "properties": {"w": {"type": "number"}, "h": {"type": "number"}},
                    "required": ["w", "h"],
                }
            },
            "properties": {"rect": {"$ref": "#/$defs/rect"}},
            "required": ["rect"],
        }
        with_refs = spec("area", schema)
        with_refs.version = "2.0.0"
        await stack.tools.RegisterTool(T.RegisterToolRequest(spec=with_refs, endpoint=provider.endpoint))
        created = (
            await stack.gateway.CreateRun(
                run_pb2.CreateRunRequest(prompt='use area with {"rect": {"w": 3, "h": "4"}}')
            )
        ).run
        await watch_all(stack.gateway, created.run_id)
        run = (await stack.gateway.GetRun(run_pb2.GetRunRequest(run_id=created.run_id))).run
        assert run.status == run_pb2.RUN_STATUS_FAILED
        assert '"4" is not of type "number"' in run.error.message
    finally:
        await provider.stop(0)
