"""`agentrt threads create|list|get|delete`: the caller's conversations and their turns."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from agentrt.cli import render
from agentrt.client import Client
from agentrt.core.runstate import status_name
from agentrt.v1 import run_pb2

MULTITASK = ("reject", "enqueue", "interrupt")
MULTITASK_HELP = (
    "if the thread's previous turn has not finished: reject the message (THREAD_BUSY), enqueue it "
    "behind that turn, or interrupt (cancel) that turn; default: reject"
)


def add_commands(sub: Any, with_target: Callable[[argparse.ArgumentParser], argparse.ArgumentParser]) -> None:
    threads = sub.add_parser("threads", help="conversations: create, list, show and delete threads")
    threads_sub = threads.add_subparsers(dest="threads_command", required=True)
    create = with_target(
        threads_sub.add_parser("create", help="start a thread and print its id (t=$(agentrt threads create))")
    )
    create.add_argument(
        "--metadata",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a label of your own (repeatable)",
    )
    listing = with_target(threads_sub.add_parser("list", help="your threads, newest first"))
    listing.add_argument("--limit", type=int, default=20, help="threads per page")
    listing.add_argument("--page-token", default="", help="continue a listing (printed when there is more)")
    get = with_target(threads_sub.add_parser("get", help="show a thread and its latest turns"))
    get.add_argument("thread_id")
    get.add_argument(
        "--limit", type=int, default=0, help="turns to show, the latest (default: the server's, 50)"
    )
    get.add_argument("--page-token", default="", help="the turns before a page (printed when there are more)")
    delete = with_target(
        threads_sub.add_parser(
            "delete", help="delete a thread with its runs (an unfinished turn is cancelled)"
        )
    )
    delete.add_argument("thread_id")


def threads_command(client: Client, args: argparse.Namespace, to_json: Callable[[Any], str]) -> int:
    if args.threads_command == "create":
        metadata = {}
        for item in args.metadata:
            key, sep, value = item.partition("=")
            if not sep or not key:
                print(f"agentrt threads create: --metadata wants KEY=VALUE, not {item!r}", file=sys.stderr)
                return 2
            metadata[key] = value
        thread = client.create_thread(metadata)
        # The id alone, so that `t=$(agentrt threads create)` works.
        print(to_json(thread) if args.json else thread.thread_id)
        return 0
    if args.threads_command == "list":
        page = client.list_threads(page_size=args.limit, page_token=args.page_token)
        for thread in page.threads:
            print(to_json(thread) if args.json else thread_summary(thread))
        if page.next_page_token:  # on stderr: stdout stays one thread per line
            print(f"more: agentrt threads list --page-token {page.next_page_token}", file=sys.stderr)
        return 0
    if args.threads_command == "get":
        page = client.get_thread(args.thread_id, page_size=args.limit, page_token=args.page_token)
        thread = page.thread
        print(to_json(thread) if args.json else describe(thread, None if args.full else render.line_width()))
        if page.next_page_token:  # a long thread comes a page at a time, latest first
            print(
                f"earlier turns: agentrt threads get {thread.thread_id} --page-token {page.next_page_token}",
                file=sys.stderr,
            )
        return 0
    if args.threads_command == "delete":
        client.delete_thread(args.thread_id)
        print(
            json.dumps({"threadId": args.thread_id, "deleted": True})
            if args.json
            else f"thread {args.thread_id} deleted"
        )
        return 0
    raise AssertionError(args.threads_command)


def thread_summary(thread: run_pb2.Thread) -> str:
    """One line: id, turns, when it last changed, the unfinished turn, the labels."""
    turns = f"{thread.turn_count} turn{'s' if thread.turn_count != 1 else ''}"
    line = f"{thread.thread_id}  {turns:<9}  {thread.update_time.ToJsonString()}"
    if thread.active_run_id:
        line += f"  working on run {thread.active_run_id}"
    if thread.metadata:
        line += "  " + " ".join(f"{k}={v}" for k, v in sorted(thread.metadata.items()))
    return line


def describe(thread: run_pb2.Thread, limit: int | None) -> str:
    """The thread, then each turn: number, run id, status, prompt, and its answer or error."""
    lines = [thread_summary(thread) + f"  (owner {thread.owner})"]
    for turn in thread.turns:
        lines.append(
            f"  turn {turn.turn}  {turn.run_id}  {status_name(turn.status):<9}  {_clip(turn.prompt, limit)}"
        )
        if turn.answer:  # whole, as `agentrt run` prints it: it is what was asked for
            lines.append(f"      answer: {turn.answer}")
        elif turn.error.message:
            lines.append(f"      error: {_clip(turn.error.message, limit)}")
    return "\n".join(lines)


def _clip(text: str, limit: int | None) -> str:
    text = render.one_line(text)
    if limit is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"
