"""`agentrt tools servers|mount|unmount`: the MCP servers tools_svc mounts; `agentrt tools
agents|mount-agent|unmount-agent`: the A2A agents it mounts. Both kinds are stored by tools_svc
(every replica holds them) and share one namespace of names, the prefix of their tools' names."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

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
    unmount = tools_sub.add_parser("unmount", help="unmount an MCP server mounted with `agentrt tools mount`")
    unmount.add_argument("name")
    agents = tools_sub.add_parser(
        "agents", help="list the mounted A2A agents and whether their cards were read"
    )
    mount_agent = tools_sub.add_parser(
        "mount-agent",
        help="mount an A2A agent; each skill on its agent card joins the catalog as NAME__SKILL",
    )
    mount_agent.add_argument("name", help="agent name, the prefix of its tools' names (e.g. helper)")
    mount_agent.add_argument(
        "url", help="the agent's base URL (its card is at URL/.well-known/agent-card.json)"
    )
    unmount_agent = tools_sub.add_parser(
        "unmount-agent", help="unmount an A2A agent mounted with `agentrt tools mount-agent`"
    )
    unmount_agent.add_argument("name")
    for p in (mount, mount_agent):
        p.add_argument(
            "--header",
            action="append",
            default=[],
            metavar="'NAME: VALUE'",
            help="an HTTP header to send with every request, e.g. its credential (repeatable); "
            "alone, one credential every principal's calls share",
        )
        p.add_argument(
            "--principal-header",
            action="append",
            nargs=2,
            default=[],
            metavar=("PRINCIPAL", "'NAME: VALUE'"),
            help="a header for one principal's calls only, e.g. that principal's own credential "
            "(repeatable); then a principal with none is refused, and --header serves only requests "
            "made for nobody",
        )
        p.add_argument(
            "--caller-signing-secret",
            default="",
            metavar="SECRET",
            help="sign, with this secret, whom each call is for (agentrt-caller-* headers)",
        )
        p.add_argument("--replace", action="store_true", help="replace a mount of the same name")
    mount.add_argument("--wait", type=float, default=10.0, help="seconds to wait for the first connection")
    mount_agent.add_argument(
        "--wait", type=float, default=10.0, help="seconds to wait for its card to be read"
    )
    parsers = [servers, mount, unmount, agents, mount_agent, unmount_agent]
    for p in parsers:
        with_output(p)
    return parsers


COMMANDS = ("servers", "mount", "unmount", "agents", "mount-agent", "unmount-agent")


def mounts_command(args: argparse.Namespace, settings: Settings, tools_addr: str) -> int:
    registration = settings.tools.registration_token
    token = registration.get_secret_value() if registration else None
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with sync_channel(tools_addr) as channel:
        stub = tool_service_pb2_grpc.ToolServiceStub(channel)
        try:
            if args.tools_command in ("agents", "mount-agent", "unmount-agent"):
                return _agents_command(stub, args, metadata, internal_metadata(settings))
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


def _credentials(args: argparse.Namespace) -> dict[str, object] | None:
    """--header, --principal-header and --caller-signing-secret as a mount request's fields;
    None (said on stderr) when a header is malformed."""
    headers: dict[str, str] = {}
    principal_headers: dict[str, T.PrincipalHeaders] = {}
    given = [("--header", None, h) for h in args.header]
    given += [("--principal-header", p, h) for p, h in args.principal_header]
    for option, principal, header in given:
        name, sep, value = header.partition(":")
        if not sep:
            print(
                f"agentrt tools {args.tools_command}: {option} {header!r} must be 'NAME: VALUE'",
                file=sys.stderr,
            )
            return None
        into = (
            headers
            if principal is None
            else principal_headers.setdefault(principal, T.PrincipalHeaders()).headers
        )
        into[name.strip()] = value.strip()
    return {
        "headers": headers,
        "principal_headers": principal_headers,
        "caller_signing_secret": args.caller_signing_secret,
    }


def _mount(stub: tool_service_pb2_grpc.ToolServiceStub, args: argparse.Namespace, metadata: tuple) -> int:  # type: ignore[type-arg]
    credentials = _credentials(args)
    if credentials is None:
        return 2
    request = T.MountMcpServerRequest(name=args.name, url=args.url, replace=args.replace, **credentials)  # type: ignore[arg-type]
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
    if said := _credentials_said(server.credential_principals, server.signs_caller):
        print(f"  credentials: {said}; {server.principal_sessions} principal session(s) here")
    if server.tools:
        print(f"  tools: {', '.join(server.tools)}")
    for skipped in server.skipped_tools:
        print(f"  skipped: {skipped}")


# -- A2A agents ------------------------------------------------------------------------------


def _agents_command(
    stub: tool_service_pb2_grpc.ToolServiceStub,
    args: argparse.Namespace,
    metadata: tuple,  # type: ignore[type-arg]
    internal: tuple,  # type: ignore[type-arg]
) -> int:
    if args.tools_command == "agents":
        listed = stub.ListA2aAgents(T.ListA2aAgentsRequest(), metadata=internal, timeout=10).agents
        if args.json:
            for agent in listed:
                print(to_json(agent))
            return 0
        if not listed:
            print("no A2A agents mounted (AGENTRT_A2A_AGENTS, or `agentrt tools mount-agent NAME URL`)")
        for agent in listed:
            _print_agent(agent)
        return 0
    if args.tools_command == "unmount-agent":
        stub.UnmountA2aAgent(T.UnmountA2aAgentRequest(name=args.name), metadata=metadata, timeout=10)
        print(json.dumps({"name": args.name, "unmounted": True}) if args.json else f"unmounted {args.name}")
        return 0
    credentials = _credentials(args)
    if credentials is None:
        return 2
    request = T.MountA2aAgentRequest(name=args.name, url=args.url, replace=args.replace, **credentials)  # type: ignore[arg-type]
    agent = stub.MountA2aAgent(request, metadata=metadata, timeout=30).agent
    deadline = time.monotonic() + args.wait
    # Its card is read in the background: wait for the first reading, good or bad.
    while agent.state == T.A2A_AGENT_STATE_READING and time.monotonic() < deadline:
        time.sleep(0.2)
        listed = stub.ListA2aAgents(T.ListA2aAgentsRequest(), metadata=internal, timeout=10).agents
        agent = next((a for a in listed if a.name == args.name), agent)
    print(to_json(agent)) if args.json else _print_agent(agent)
    return 0 if agent.state == T.A2A_AGENT_STATE_READY else 1


def _print_agent(agent: tool_service_pb2.A2aAgentInfo) -> None:
    state = T.A2aAgentState.Name(agent.state).removeprefix("A2A_AGENT_STATE_").lower()  # type: ignore[arg-type]
    print(f"{agent.name}: {state} ({agent.origin}) {agent.url}")
    if agent.card_info:
        print(f"  card: {agent.card_info}")
    if agent.last_error:
        print(f"  last error: {agent.last_error}")
    if said := _credentials_said(agent.credential_principals, agent.signs_caller):
        print(f"  credentials: {said}")
    if agent.tools:
        print(f"  tools: {', '.join(agent.tools)}")


def _credentials_said(principals: Sequence[str], signs: bool) -> str:
    """How a mount's calls act at the remote side, when it is not one shared credential alone
    ("" then: the README says what that means)."""
    said = [f"per principal ({', '.join(principals)})"] if principals else []
    return ", ".join(said + (["the caller signed"] if signs else []))
