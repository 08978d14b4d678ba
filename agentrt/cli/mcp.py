"""`agentrt tools servers|mount|unmount`: the MCP servers tools_svc mounts."""

from __future__ import annotations

import argparse
import json
import sys
import time

import grpc

from agentrt.cli.options import to_json, with_output
from agentrt.cli.problems import tools_problem
from agentrt.cli.supervisor import internal_metadata
from agentrt.config import Settings
from agentrt.core.channels import sync_channel
from agentrt.v1 import tool_service_pb2, tool_service_pb2_grpc

T = tool_service_pb2


def add_commands(tools_sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:  # type: ignore[type-arg]
    servers = tools_sub.add_parser("servers", help="list the mounted MCP servers and their sessions")
    mount = tools_sub.add_parser(
        "mount",
        help="mount an MCP server over Streamable HTTP; its tools join the catalog as NAME__TOOL "
        "(servers run as commands over stdio are mounted with AGENTRT_MCP_SERVERS)",
    )
    mount.add_argument("name", help="server name, the prefix of its tools' names (e.g. docs)")
    mount.add_argument("url", help="the server's MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    mount.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header to send with every request (repeatable)",
    )
    mount.add_argument("--replace", action="store_true", help="replace a mount of the same name")
    mount.add_argument("--wait", type=float, default=10.0, help="seconds to wait for the first connection")
    unmount = tools_sub.add_parser("unmount", help="unmount an MCP server mounted with `agentrt tools mount`")
    unmount.add_argument("name")
    for p in (servers, mount, unmount):
        with_output(p)
    return [servers, mount, unmount]


def mcp_command(args: argparse.Namespace, settings: Settings, tools_addr: str) -> int:
    registration = settings.tools.registration_token
    token = registration.get_secret_value() if registration else None
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with sync_channel(tools_addr) as channel:
        stub = tool_service_pb2_grpc.ToolServiceStub(channel)
        try:
            if args.tools_command == "servers":
                return _servers(stub, args.json, internal_metadata(settings))
            if args.tools_command == "unmount":
                stub.UnmountMcpServer(
                    T.UnmountMcpServerRequest(name=args.name), metadata=metadata, timeout=10
                )
                print(
                    json.dumps({"name": args.name, "unmounted": True})
                    if args.json
                    else f"unmounted {args.name}"
                )
                return 0
            return _mount(stub, args, metadata)
        except grpc.RpcError as err:
            if args.debug:
                raise
            print(f"agentrt tools {args.tools_command}: {tools_problem(err, tools_addr)}", file=sys.stderr)
            return 2


def _mount(stub: tool_service_pb2_grpc.ToolServiceStub, args: argparse.Namespace, metadata: tuple) -> int:  # type: ignore[type-arg]
    headers = {}
    for header in args.header:
        name, sep, value = header.partition(":")
        if not sep:
            print(f"agentrt tools mount: --header {header!r} must be 'NAME: VALUE'", file=sys.stderr)
            return 2
        headers[name.strip()] = value.strip()
    request = T.MountMcpServerRequest(name=args.name, url=args.url, headers=headers, replace=args.replace)
    server = stub.MountMcpServer(request, metadata=metadata, timeout=30).server
    deadline = time.monotonic() + args.wait
    while server.state != T.MCP_SERVER_STATE_CONNECTED and time.monotonic() < deadline:
        time.sleep(0.2)
        listed = stub.ListMcpServers(T.ListMcpServersRequest(), timeout=10).servers
        server = next((s for s in listed if s.name == args.name), server)
    print(to_json(server)) if args.json else _print_server(server)
    return 0 if server.state == T.MCP_SERVER_STATE_CONNECTED else 1


def _servers(stub: tool_service_pb2_grpc.ToolServiceStub, as_json: bool, metadata: tuple) -> int:  # type: ignore[type-arg]
    response = stub.ListMcpServers(T.ListMcpServersRequest(), metadata=metadata, timeout=10)
    if as_json:
        for server in response.servers:
            print(to_json(server))
        return 0
    if not response.servers:
        print("no MCP servers mounted (AGENTRT_MCP_SERVERS, or `agentrt tools mount NAME URL`)")
    for server in response.servers:
        _print_server(server)
    return 0


def _print_server(server: tool_service_pb2.McpServer) -> None:
    state = T.McpServerState.Name(server.state).removeprefix("MCP_SERVER_STATE_").lower()  # type: ignore[arg-type]
    print(f"{server.name}: {state} ({server.transport}, {server.origin}) {server.target}")
    if server.server_info or server.protocol_version:
        print(f"  server {server.server_info or '?'}, protocol {server.protocol_version or '?'}")
    if server.last_error:
        print(f"  last error: {server.last_error}")
    if server.tools:
        print(f"  tools: {', '.join(server.tools)}")
    for skipped in server.skipped_tools:
        print(f"  skipped: {skipped}")
