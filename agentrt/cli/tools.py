"""`agentrt tools serve|list`: run a tool provider, print the catalog."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc

from agentrt.cli.mounts import COMMANDS as MOUNT_COMMANDS
from agentrt.cli.mounts import mounts_command
from agentrt.cli.options import to_json
from agentrt.cli.problems import tools_problem
from agentrt.cli.supervisor import internal_metadata
from agentrt.config import load_settings
from agentrt.core.annotations import effects
from agentrt.core.channels import sync_channel
from agentrt.server.logs import configure_logging
from agentrt.tools_sdk import ToolDefinition, ToolProvider
from agentrt.v1 import tool_pb2, tool_service_pb2, tool_service_pb2_grpc


def load_tools(reference: str) -> list[ToolDefinition] | ToolProvider:
    """Resolve "module:object" (or just "module") to tool definitions or a configured provider."""
    module_name, _, attribute = reference.partition(":")
    sys.path.insert(0, str(Path.cwd()))
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise SystemExit(f"agentrt tools serve: cannot import {module_name!r}: {exc}") from None
    for part in filter(None, attribute.split(".")):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise SystemExit(f"agentrt tools serve: {module_name!r} has no attribute {attribute!r}") from None
    if isinstance(target, ToolProvider | ToolDefinition):
        return target if isinstance(target, ToolProvider) else [target]
    if isinstance(target, ModuleType):
        found = [v for v in vars(target).values() if isinstance(v, ToolDefinition)]
    elif isinstance(target, list | tuple):
        found = list(target)
    else:
        found = []
    if not found or not all(isinstance(t, ToolDefinition) for t in found):
        raise SystemExit(
            f"agentrt tools serve: {reference!r} is not a @tool function, a list of them, or a ToolProvider"
        )
    return found


def tools_command(args: argparse.Namespace) -> int:
    settings = load_settings()
    tools_addr = args.tools_addr or settings.tools_target
    if args.tools_command in MOUNT_COMMANDS:
        return mounts_command(args, settings, tools_addr)
    if args.tools_command == "serve":
        configure_logging(
            settings.log_level, settings.log_format, service="provider", library_levels=settings.log_levels
        )
        loaded = load_tools(args.object)
        token = (
            settings.tools.registration_token.get_secret_value()
            if settings.tools.registration_token
            else None
        )
        provider = (
            loaded
            if isinstance(loaded, ToolProvider)
            else ToolProvider(
                loaded,
                tools_addr=tools_addr,
                host=args.host,
                port=args.port,
                advertise_host=args.advertise_host,
                token=token,
                ttl_s=args.ttl,
            )
        )
        try:
            asyncio.run(provider.serve_forever())
        except grpc.aio.AioRpcError as err:
            if args.debug:
                raise
            print(
                f"agentrt tools serve: registration failed: {tools_problem(err, tools_addr)}", file=sys.stderr
            )
            return 2
        return 0
    with sync_channel(tools_addr) as channel:
        try:
            response = tool_service_pb2_grpc.ToolServiceStub(channel).ListTools(
                tool_service_pb2.ListToolsRequest(), metadata=internal_metadata(settings), timeout=10
            )
        except grpc.RpcError as err:
            if args.debug:
                raise
            print(f"agentrt tools list: {tools_problem(err, tools_addr)}", file=sys.stderr)
            return 2
    if args.json:
        for t in response.tools:
            print(to_json(t))
        return 0
    width = max([20, *(len(t.name) for t in response.tools)])
    print(f"{'NAME':<{width}} {'VERSION':<10} {'SOURCE':<9} {'HEALTH':<12} ENDPOINT / DESCRIPTION")
    for t in response.tools:
        source = tool_pb2.ToolSource.Name(t.source).removeprefix("TOOL_SOURCE_").lower()
        health = tool_pb2.ToolHealth.Name(t.health).removeprefix("TOOL_HEALTH_").lower()
        where = t.endpoint or t.description.split(". ")[0].split("\n")[0][:80]
        print(f"{t.name:<{width}} {t.version:<10} {source:<9} {health:<12} {where}")
        # What its calls do (the annotations), per action when it has them.
        if t.action_annotations:
            per_action = ", ".join(
                f"{action} {effects(t, {'action': action}).describe()}"
                for action in sorted(t.action_annotations)
            )
            print(f"{'':<{width}} effects: {per_action}")
        else:
            print(f"{'':<{width}} effects: {effects(t).describe()}")
    print(f"catalog version {response.catalog_version}")
    return 0
