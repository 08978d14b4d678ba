"""A bounded, seeded hostile-input pass over every public edge: each REST route, A2A's JSON-RPC
(/a2a) and gRPC binding, /mcp, the page and the card, and every RunService method over gRPC.
Deep, wide, long and malformed bodies, absurd headers, unknown paths, verbs and methods.

What must hold for every case: no HTTP 5xx, no JSON-RPC -32603 (internal error), no gRPC
INTERNAL/UNKNOWN/DATA_LOSS, and the event loop never held past STALL_BOUND_S while the pass runs
(the stack serves in the test's own loop, watched). The seed is fixed, so a failure repeats: the
assertion names the case. Each case is generated from the seed alone, never from a rule's text.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import grpc
import httpx
import pytest
from pydantic import SecretStr

from agentrt.config import Settings
from agentrt.server.watchdog import LoopWatchdog
from agentrt.v1 import run_pb2
from gateway import a2a_grpc
from gateway.routes import ROUTES
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack
from tests.keys import key_for

SEED = 65
HTTP_CASES = 1500
GRPC_CASES = 400
STALL_BOUND_S = 1.0
KEY = key_for("fuzzer")
BAD_GRPC = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS}
RUN_METHODS = [m.name for m in run_pb2.DESCRIPTOR.services_by_name["RunService"].methods]
STREAMING = {m.name for m in run_pb2.DESCRIPTOR.services_by_name["RunService"].methods if m.server_streaming}
A2A_METHODS = list(a2a_grpc.METHODS)
MCP_METHODS = ["initialize", "tools/list", "tools/call", "ping", "resources/list", "prompts/get", "nope/nope"]
VERBS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND", "TRACE"]


@dataclass
class Case:
    what: str
    method: str
    path: str
    headers: dict[str, bytes]
    body: bytes | None


class Hostile:
    """Hostile values from one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def text(self) -> str:
        kind = self.r.randrange(7)
        if kind == 0:
            return ""
        if kind == 1:
            return "x" * self.r.choice([1_000, 10_000, 70_000])
        if kind == 2:
            return "".join(
                self.r.choice("\u0000\u202e\ud7ff\ufeff\U0001f600é\\\"'<>{}[]%") for _ in range(40)
            )
        if kind == 3:
            return "9" * self.r.choice([20, 400, 5_000])
        if kind == 4:
            return "what is 2+2 and add a todo to " + "".join(self.r.choices(string.ascii_letters, k=30))
        if kind == 5:
            return "../" * 50 + "etc/passwd"
        return "".join(self.r.choices(string.printable, k=self.r.randrange(1, 200)))

    def value(self, depth: int = 0) -> Any:
        kind = self.r.randrange(9 if depth < 4 else 5)
        if kind == 0:
            return self.text()
        if kind == 1:
            return self.r.choice([0, -1, 2**31, 2**63, -(2**64), 1e308, -0.0, 3.5])
        if kind == 2:
            return self.r.choice([None, True, False])
        if kind == 3:
            return 10 ** self.r.choice([30, 300, 3000])
        if kind == 4:
            return []
        if kind in (5, 6):
            return {self.text()[:50]: self.value(depth + 1) for _ in range(self.r.randrange(1, 5))}
        return [self.value(depth + 1) for _ in range(self.r.randrange(1, 5))]

    def json_body(self, shape: Callable[[], Any]) -> bytes:
        """A body for an endpoint: often well-formed around `shape`, often hostile."""
        kind = self.r.randrange(10)
        if kind == 0:  # deep
            depth = self.r.choice([33, 100, 600, 10_000])
            opener, closer = self.r.choice([("[", "]"), ('{"a":', "}")])
            return (opener * depth + "1" + closer * depth).encode()
        if kind == 1:  # wide: many keys, within or past the size bound
            n = self.r.choice([1_000, 5_000, 20_000])
            return json.dumps({f"k{i}": i for i in range(n)}).encode()
        if kind == 2 and self.r.random() < 0.4:  # what a scanner may backtrack on: quotes, escapes
            unit = self.r.choice([b'\\"', b'"\\', b'"', b"\\", b'["', b"9" * 400 + b","])
            return (b'["' if self.r.random() < 0.5 else b"") + unit * (60_000 // len(unit))
        if kind == 2:  # malformed
            return self.r.choice(
                [
                    b"{",
                    b'{"a":}',
                    b"\xff\xfe\x00",
                    b"[1,2,",
                    b"NaN",
                    b'{"a":1}{"b":2}',
                    b"\x00" * 100,
                    b'"\\ud800"',
                ]
            )
        if kind == 3:  # not an object
            return json.dumps(self.value()).encode()
        if kind == 4:  # a long number inside
            return b'{"prompt": "x", "maxSteps": ' + b"9" * self.r.choice([100, 4_400, 20_000]) + b"}"
        try:
            return json.dumps(shape()).encode()
        except (ValueError, OverflowError):  # an int past json's digit limit: send it raw
            return b'{"n": ' + b"1" * 5000 + b"}"

    def headers(self) -> dict[str, bytes]:
        headers: dict[str, bytes] = {}
        if self.r.random() < 0.8:
            headers["authorization"] = f"Bearer {KEY}".encode()
        elif self.r.random() < 0.5:
            headers["authorization"] = b"Bearer " + self.header_text()
        if self.r.random() < 0.8:
            headers["content-type"] = b"application/json"
        else:
            headers["content-type"] = self.r.choice(
                [b"text/plain", b"application/x-www-form-urlencoded", b"\xff"]
            )
        headers["accept"] = b"application/json, text/event-stream"
        if self.r.random() < 0.5:
            headers["a2a-version"] = self.r.choice(
                [b"1.0", b"0.3", b"99", b"9" * 6000, "\u0661.\u0660".encode(), b""]
            )
        if self.r.random() < 0.1:
            headers.update({f"x-pad-{i}": b"a" * 4000 for i in range(self.r.choice([3, 12]))})
        if self.r.random() < 0.1:
            headers["last-event-id"] = self.r.choice([b"-1", b"9" * 40, b"\xc2\xb2", b"1e3"])
        return headers

    def header_text(self) -> bytes:
        """Hostile text as a header value may carry it (no control characters, which a client
        refuses to send; obs-text bytes kept), never empty or ending in a space."""
        raw = self.text()[:300].encode("utf-8", "replace")
        kept = bytes(b for b in raw if b == 0x09 or 0x20 <= b != 0x7F).strip()
        return kept or b"x"

    def path_value(self) -> str:
        raw = self.r.choice(
            ["0" * 32, "x", "%00", "r" * 5000, "..%2F..", "%F0%9F%98%80", self.text()[:80] or "a"]
        )
        return quote(raw, safe="%")  # what a client can put in a URL; escapes kept as written


def rest_case(h: Hostile) -> Case:
    route = h.r.choice(ROUTES)
    path = route.path
    for name in route.path_params:
        path = path.replace("{" + name + "}", h.path_value())
    if h.r.random() < 0.3:
        path += "?" + h.r.choice(
            ["page_size=-1", "page_size=99999999999999999999", "status=bogus", "x=1&x=2"]
        )
    verb = route.verb.upper() if h.r.random() < 0.85 else h.r.choice(VERBS)
    body = h.json_body(lambda: {"prompt": h.text(), "metadata": h.value(), "maxSteps": h.value()})
    return Case(f"REST {verb} {route.path}", verb, path, h.headers(), body if verb != "GET" else None)


def a2a_case(h: Hostile) -> Case:
    method = h.r.choice([*A2A_METHODS, "message/send", "tasks/get", "Nope", ""])

    def shape() -> Any:
        message = {
            "messageId": h.text()[:64] or "m",
            "role": h.r.choice(["ROLE_USER", "ROLE_AGENT", 7]),
            "parts": [{"text": h.text()}],
        }
        params = h.r.choice([{"message": message, "metadata": h.value()}, {"id": h.text()}, h.value()])
        return {"jsonrpc": h.r.choice(["2.0", "1.0", 2]), "id": h.value(), "method": method, "params": params}

    return Case(f"A2A {method}", "POST", "/a2a", h.headers(), h.json_body(shape))


def mcp_case(h: Hostile) -> Case:
    method = h.r.choice(MCP_METHODS)

    def shape() -> Any:
        params: Any = h.value()
        if method == "tools/call":
            name = h.r.choice(["run_prompt", "get_run", "list_runs", "cancel_run", "approve_step", "nope"])
            params = {
                "name": name,
                "arguments": h.r.choice([{"prompt": h.text()}, {"run_id": h.text()}, h.value()]),
            }
        elif method == "initialize":
            params = {
                "protocolVersion": h.r.choice(["2025-06-18", h.text()]),
                "capabilities": h.value(),
                "clientInfo": {"name": "f", "version": "1"},
            }
        return {
            "jsonrpc": "2.0",
            "id": h.r.choice([1, "x", None, h.value()]),
            "method": method,
            "params": params,
        }

    verb = "POST" if h.r.random() < 0.85 else h.r.choice(["GET", "DELETE", "PUT"])
    return Case(
        f"MCP {verb} {method}", verb, "/mcp", h.headers(), h.json_body(shape) if verb != "GET" else None
    )


def other_case(h: Hostile) -> Case:
    path = h.r.choice(
        [
            "/",
            "/docs",
            "/openapi.json",
            "/.well-known/agent-card.json",
            "/healthz",
            "/readyz",
            "/static/app.js",
            "/static/../../etc/passwd",
            "/v2/x",
            "/" + h.path_value(),
        ]
    )
    verb = h.r.choice(VERBS)
    return Case(
        f"HTTP {verb} {path}",
        verb,
        path,
        h.headers(),
        h.json_body(h.value) if verb in ("POST", "PUT") else None,
    )


@pytest.fixture
async def keyed(settings: Settings) -> AsyncIterator[Stack]:
    built = await start_stack(
        settings.replace(
            api_keys={"fuzzer": SecretStr(KEY)},
            internal_token=INTERNAL_TOKEN,
            rate_limit_rps=100_000.0,
            rate_limit_burst=100_000,
            auth_failure_burst=100_000,
            mcp_stream_idle_s=0.2,
        )
    )
    yield built
    await built.close()


@pytest.fixture
async def watchdog() -> AsyncIterator[LoopWatchdog]:
    dog = LoopWatchdog(warn_after_s=STALL_BOUND_S)
    dog.start()
    yield dog
    await dog.stop()


async def test_every_http_edge_answers_hostile_input_as_a_client_error(
    keyed: Stack, watchdog: LoopWatchdog
) -> None:
    h = Hostile(SEED)
    makers = [rest_case] * 4 + [a2a_case] * 3 + [mcp_case] * 3 + [other_case]
    failures: list[str] = []
    seen: dict[int, int] = {}
    async with httpx.AsyncClient(base_url=keyed.http, timeout=30) as http:
        for n in range(HTTP_CASES):
            case = h.r.choice(makers)(h)
            try:
                response = await http.request(case.method, case.path, headers=case.headers, content=case.body)
                body = (
                    response.content[:4096]
                    if response.headers.get("content-type", "").startswith("text/event-stream")
                    else response.content
                )
            except httpx.HTTPError as exc:
                failures.append(f"#{n} {case.what}: {type(exc).__name__} {exc}")
                continue
            seen[response.status_code] = seen.get(response.status_code, 0) + 1
            if response.status_code >= 500:
                failures.append(f"#{n} {case.what}: HTTP {response.status_code} {body[:300]!r}")
            if b"-32603" in body:
                failures.append(f"#{n} {case.what}: JSON-RPC internal error {body[:300]!r}")
    print("HTTP statuses", sorted(seen.items()))
    assert not failures, "\n".join(failures)
    # The pass reached past the doors: answers of the SDKs and the API themselves, not only refusals.
    assert seen.get(200, 0) > 20 and seen.get(400, 0) > 20, seen
    assert watchdog.max_lag_s < STALL_BOUND_S, f"the event loop was held for {watchdog.max_lag_s:.2f} s"


async def test_every_grpc_method_answers_hostile_bytes_as_a_client_error(
    keyed: Stack, watchdog: LoopWatchdog
) -> None:
    h = Hostile(SEED + 1)
    channel = keyed.channel("gateway")
    methods = [("agentrt.v1.RunService", m, m in STREAMING) for m in RUN_METHODS]
    methods += [(a2a_grpc.SERVICE_NAME, m, s) for m, s in a2a_grpc.METHODS.items()]
    methods += [("agentrt.v1.RunService", "Nope", False), ("agentrt.v1.Nope", "Nope", False)]
    failures: list[str] = []
    codes: dict[str, int] = {}
    for n in range(GRPC_CASES):
        service, method, streams = h.r.choice(methods)
        kind = h.r.randrange(5)
        if kind == 0:
            raw = b""
        elif kind == 1:
            raw = h.r.randbytes(h.r.choice([1, 16, 1000, 60_000]))
        elif kind == 2:  # a field tag repeated, or a length running past the end
            raw = b"\x0a\xff\xff\xff\xff\x0f" + b"a" * 10
        elif kind == 3:  # nested groups / messages, far deeper than protobuf's limit
            raw = b"\x0a\x80\x01" * 2000
        else:
            raw = run_pb2.CreateRunRequest(prompt=h.text()[:8000]).SerializeToString()
        metadata: list[tuple[str, str]] = [("authorization", f"Bearer {KEY}")]
        if h.r.random() < 0.3:
            metadata.append(("a2a-version", h.r.choice(["1.0", "9" * 5000, "x"])))
        if h.r.random() < 0.1:
            metadata.append(("x-pad", "a" * 6000))
        path = f"/{service}/{method}"
        try:
            if streams:
                call = channel.unary_stream(path)(raw, metadata=metadata, timeout=10)
                async for _ in call:
                    break
                call.cancel()
            else:
                await channel.unary_unary(path)(raw, metadata=metadata, timeout=10)
            code = grpc.StatusCode.OK
        except grpc.aio.AioRpcError as err:
            code = err.code()
            if code in BAD_GRPC:
                failures.append(f"#{n} {path} ({kind}): {code.name} {err.details()!r:.300}")
        codes[code.name] = codes.get(code.name, 0) + 1
    print("gRPC codes", sorted(codes.items()))
    assert not failures, "\n".join(failures)
    assert codes.get("INVALID_ARGUMENT", 0) > 10, codes
    assert watchdog.max_lag_s < STALL_BOUND_S, f"the event loop was held for {watchdog.max_lag_s:.2f} s"
