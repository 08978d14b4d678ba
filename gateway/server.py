"""gateway process: RunService and A2A's A2AService over gRPC (:50051), and REST/SSE, the live run
page and MCP at /mcp and A2A at /a2a (:8080)."""

from __future__ import annotations

from starlette.routing import Route

from agentrt.config import GatewaySettings, require_internal_token
from agentrt.server import localcalls
from agentrt.server.grpcserver import BuiltServer, new_server
from agentrt.server.internal import credential_interceptors
from agentrt.server.service_main import run_service
from agentrt.v1 import run_pb2, run_pb2_grpc, tool_service_pb2_grpc
from gateway import a2a_grpc, streams
from gateway.a2a_route import A2aRoute
from gateway.auth import Auth
from gateway.edge import Edge
from gateway.executors import Executors
from gateway.fanout import WatchFanout
from gateway.http import HttpServer
from gateway.mcp_route import PATH as MCP_PATH
from gateway.mcp_route import McpRoute
from gateway.rest import RestApi
from gateway.service import GatewayRunServicer

SERVICE_NAME = run_pb2.DESCRIPTOR.services_by_name["RunService"].full_name


async def build_server(
    settings: GatewaySettings, port: int | None = None, http_port: int | None = None
) -> BuiltServer:
    require_internal_token(settings, "gateway")
    internal = credential_interceptors(settings.internal_secret())
    executors = Executors(settings.executor_target, internal)  # which replica each call goes to
    tools = localcalls.channel(settings.tools_target, interceptors=internal)
    planner = localcalls.channel(settings.planner_target, interceptors=internal)
    fanout = WatchFanout(executors)  # gRPC and SSE watchers of a run share one executor stream
    # The one door for gRPC and REST callers alike: auth, deadlines, errors (edge.py).
    edge = Edge(executors, tool_service_pb2_grpc.ToolServiceStub(tools), fanout, Auth(settings), settings)
    built = new_server(
        settings.host,
        settings.gateway_port if port is None else port,
        [
            (run_pb2_grpc.add_RunServiceServicer_to_server, GatewayRunServicer(edge), SERVICE_NAME),
            # A2A's gRPC binding (a2a_grpc.py); its JSON-RPC binding is at /a2a below.
            (a2a_grpc.add_to_server, a2a_grpc.A2aGrpc(edge, settings), a2a_grpc.SERVICE_NAME),
        ],
        max_receive_bytes=settings.max_request_bytes,
    )
    rest = RestApi(edge, {"executor": executors.channel, "planner": planner, "tools": tools}, settings)
    # agentrt as an MCP server at /mcp (Streamable HTTP), its tools calls through the same Edge.
    mcp = McpRoute(edge, settings)
    mcp_route = Route(MCP_PATH, mcp, methods=["GET", "POST", "DELETE"], name="mcp")
    # agentrt as an A2A agent: its card, and JSON-RPC at /a2a (a2a_route.py, a2a.py).
    a2a = A2aRoute(edge, settings, built.port)
    http = HttpServer(
        rest.app([mcp_route, *a2a.routes()]),
        settings.host,
        settings.http_port if http_port is None else http_port,
        settings.max_header_bytes,
    )
    built.http_port = http.port
    built.startups.append(http.start)
    # Cleanups run in reverse: stop HTTP first, then close the channels.
    built.cleanups += [executors.close, tools.close, planner.close, mcp.close, http.stop]
    return built


def main() -> None:
    run_service("gateway", build_server, streams.METRICS)
