"""The options commands share: where the gateway is, how to print, and --debug."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from google.protobuf import json_format

from agentrt.core.values import normalize

DEFAULT_TARGET = "127.0.0.1:50051"


def with_connection(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument(
        "--target",
        help="gateway address (default: $AGENTRT_TARGET, else $AGENTRT_HOST:$AGENTRT_GATEWAY_PORT, "
        f"else {DEFAULT_TARGET})",
    )
    p.add_argument(
        "--api-key",
        default=os.environ.get("AGENTRT_API_KEY"),
        help="API key, when the gateway requires one (default: $AGENTRT_API_KEY)",
    )
    return p


def with_output(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--output text|json (and --json, its short form). JSON is one document per line: a record
    per line for listings and streams, so `jq` and scripts read every command alike."""
    p.add_argument(
        "--output",
        "-o",
        choices=("text", "json"),
        default="text",
        help="text for people (default), or json: one proto3-JSON document per line, for scripts",
    )
    p.add_argument("--json", dest="output", action="store_const", const="json", help="same as --output json")
    return p


def with_target(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    with_connection(p)
    with_output(p)
    p.add_argument(
        "--full",
        action="store_true",
        help="print step arguments and outputs whole, not cut to the terminal",
    )
    return p


def with_debug(parser: argparse.ArgumentParser) -> None:
    """--debug on the command and on every subcommand (`agentrt --debug list` and `agentrt list
    --debug` alike): full tracebacks instead of the one-line problem."""
    parser.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS if parser.prog != "agentrt" else False,
        help="on a problem, print the whole traceback (services: AGENTRT_DEBUG=1)",
    )
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                with_debug(child)


def as_json(args: argparse.Namespace) -> bool:
    return getattr(args, "output", "text") == "json"


def to_json(message: Any) -> str:
    """A protobuf message as one line of proto3 JSON, numbers as REST, SSE and grpcurl print them
    (normalize: Struct numbers are doubles; 7, not 7.0)."""
    return json.dumps(normalize(json_format.MessageToDict(message)), ensure_ascii=False)
