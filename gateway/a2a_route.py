"""The A2A door over HTTP: the agent card at /.well-known/agent-card.json (public, as discovery
needs) and the JSON-RPC endpoint at /a2a, whose API key is checked, whose body is bounded in size
and depth, and whose A2A-Version header must read as a version, before the SDK reads a byte. The
SDK (gateway/a2a.py) is loaded on the first request: importing it takes most of a second that
every gateway start would otherwise pay whether or not an agent ever calls."""

from __future__ import annotations

import asyncio
import importlib
import re
import time
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route, Router
from starlette.types import Receive, Scope, Send

from agentrt.config import GatewaySettings
from agentrt.core.errors import AgentrtError
from agentrt.core.text import clip
from gateway.edge import Edge
from gateway.httpedge import BodyRefused, from_error, http_caller, json_body, jsonrpc_refusal, replayed

RPC_PATH = "/a2a"
CARD_PATH = "/.well-known/agent-card.json"
# The catalog the card lists is read again after this long (tools register and go at any time).
CARD_TTL_S = 30.0
VERSION_HEADER = "a2a-version"
# What an A2A-Version header may be: "1.0", "0.3", "1.0.2". The SDK parses it as a version
# number, and 10,000 digits made that parse an internal error (-32603).
_VERSION = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,4}){0,2}")


def version_problem(version: str) -> str | None:
    """Why an A2A-Version header (HTTP) or metadata value (gRPC) is refused, or None."""
    if _VERSION.fullmatch(version.strip()):
        return None
    return f"the A2A-Version header must be a version such as 1.0, got {clip(version, 40)!r}"


class A2aRoute:
    def __init__(self, edge: Edge, settings: GatewaySettings, grpc_port: int = 0) -> None:
        self._edge = edge
        self._settings = settings
        self._grpc_port = grpc_port  # where the gateway serves gRPC (A2AService too); 0: not said
        self._module: ModuleType | None = None
        self._rpc: Router | None = None
        self._loading = asyncio.Lock()
        self._catalog: tuple[float, Any] | None = None

    def routes(self) -> list[Route]:
        return [
            Route(CARD_PATH, self.card, methods=["GET"], name="a2a-card"),
            Route(RPC_PATH, self, methods=["POST"], name="a2a"),
        ]

    async def _load(self) -> ModuleType:
        async with self._loading:
            if self._module is None:
                module = await asyncio.to_thread(importlib.import_module, "gateway.a2a")
                self._rpc = Router(routes=module.rpc_routes(self._edge, self._settings))
                self._module = module
            return self._module

    async def card(self, request: Request) -> Response:
        """The agent card, its interfaces at this gateway's address (AGENTRT_PUBLIC_URL when set:
        behind a proxy the request's own address is not the one callers use): JSON-RPC at /a2a,
        and gRPC at AGENTRT_PUBLIC_GRPC_ADDRESS, else the same host at the gRPC port."""
        module = await self._load()
        base = (self._settings.public_url or str(request.base_url)).rstrip("/")
        grpc_address = self._settings.public_grpc_address
        if not grpc_address and self._grpc_port:
            host = urlsplit(base).hostname or "localhost"
            grpc_address = f"[{host}]:{self._grpc_port}" if ":" in host else f"{host}:{self._grpc_port}"
        return module.card_response(module.agent_card(base, await self._tools(), grpc_address))

    async def _tools(self) -> Any:
        now = time.monotonic()
        if self._catalog is None or now - self._catalog[0] > CARD_TTL_S:
            try:
                self._catalog = (now, await self._edge.catalog())
            except AgentrtError:
                # tools_svc not answering: the card still says how to call, with the task skill only
                return self._catalog[1] if self._catalog else None
        return self._catalog[1]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        caller = http_caller(request, "a2a")
        try:
            principal = self._edge.authenticate(caller, "a2a")
        except AgentrtError as err:
            await from_error(err)(scope, receive, send)
            return
        module = await self._load()
        scope.setdefault("state", {})[module.CALLER_STATE] = (caller, principal)
        # The body is read here, within its bounds of size and depth (httpedge.json_body), and
        # handed to the SDK whole: a larger or deeper one is refused as JSON-RPC's Invalid
        # Request before the SDK parses it (a body nested 600 deep once held the process for
        # 21 s in the SDK's logging of its failure; the SDK would turn a failed read into an
        # error without a word).
        try:
            version = request.headers.get(VERSION_HEADER)
            if version is not None and (problem := version_problem(version)):
                raise BodyRefused(400, "INVALID_ARGUMENT", problem)
            body = await json_body(request, self._settings.max_request_bytes, self._settings.max_json_depth)
        except ClientDisconnect:
            return
        except BodyRefused as refused:
            await jsonrpc_refusal(refused)(scope, receive, send)
            return
        assert self._rpc is not None
        await self._rpc(scope, replayed(body, receive), send)
