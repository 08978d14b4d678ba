"""The `agentrt` command line: run the system, serve one service, submit and inspect runs."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import signal
import sys
import threading
from typing import Any, TextIO

import grpc

from agentrt.cli import local_model, render, threads
from agentrt.cli.chat import chat
from agentrt.cli.modelhealth import model_lines
from agentrt.cli.mounts import add_commands as add_mount_commands
from agentrt.cli.options import as_json, to_json, with_connection, with_debug, with_output, with_target
from agentrt.cli.problems import unreachable
from agentrt.cli.supervisor import up
from agentrt.cli.tools import tools_command
from agentrt.client import Client, ClientError
from agentrt.config import load_settings
from agentrt.config.keystrength import new_key
from agentrt.core.health import probe
from agentrt.core.runstate import is_terminal_event, status_name, step_status_name
from agentrt.core.values import value_to_py
from agentrt.v1 import agent_pb2, run_pb2

SERVICES = {
    "gateway": "gateway.server",
    "executor": "executor_svc.server",
    "planner": "planner_svc.server",
    "tools": "tools_svc.server",
}


def _approval_commands(sub: Any) -> None:
    approve = with_target(sub.add_parser("approve", help="let a step that awaits approval run"))
    approve.add_argument("run_id")
    approve.add_argument("step_id")
    approve.add_argument("--arguments", help="run it with these arguments instead (a JSON object)")
    reject = with_target(sub.add_parser("reject", help="stop a step that awaits approval from running"))
    reject.add_argument("run_id")
    reject.add_argument("step_id")
    reject.add_argument("--reason", default="", help="why (the agent's model reads it)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentrt", description="agentrt: a runtime for AI agents.")
    sub = parser.add_subparsers(dest="command", required=True)

    start = sub.add_parser("up", help="start the four services (in one process) and wait for Ctrl-C")
    start.add_argument(
        "--split",
        action="store_true",
        help="one process per service, as a cluster runs them (the default: all four in this process)",
    )
    start.add_argument(
        "--approval-policy",
        choices=["never", "destructive", "writes", "always"],
        help="which calls a model chose wait for a person (AGENTRT_APPROVAL_POLICY; default: writes). "
        "Calls the rule planner made from the user's own words run without asking.",
    )
    sub.add_parser("model", help="fetch or serve the local model for the LLM planner (agentrt model -h)")
    serve = sub.add_parser("serve", help="run one service in the foreground")
    serve.add_argument("service", choices=sorted(SERVICES))

    run = with_target(sub.add_parser("run", help="create a run and stream its steps; exit 0 only on success"))
    run.add_argument("prompt")
    run.add_argument("--max-steps", type=int, default=0)
    run.add_argument("--idempotency-key", default="")
    run.add_argument("--detach", action="store_true", help="print the run id and return without watching")
    run.add_argument("--thread", default="", metavar="THREAD_ID", help="send it as this thread's next turn")
    run.add_argument("--multitask", choices=threads.MULTITASK, help=threads.MULTITASK_HELP)
    run.add_argument(
        "--mode",
        choices=("auto", "plan", "agent"),
        help="plan up front, run the agent loop, or auto (rules if they understand, else the agent); "
        "default: the server's ($AGENTRT_DEFAULT_MODE)",
    )
    for budget, kind in (
        ("max-turns", int),
        ("max-tool-calls", int),
        ("max-tokens", int),
        ("max-cost-usd", float),
    ):
        run.add_argument(f"--{budget}", type=kind, default=0, help="agent budget (0: the server's default)")

    watch = with_target(sub.add_parser("watch", help="stream a run's events until it finishes"))
    watch.add_argument("run_id")
    watch.add_argument("--after-seq", type=int, default=0)
    get = with_target(sub.add_parser("get", help="show a run"))
    get.add_argument("run_id")
    cancel = with_target(sub.add_parser("cancel", help="cancel an unfinished run"))
    cancel.add_argument("run_id")
    retry = with_target(
        sub.add_parser("retry", help="re-run a failed or cancelled run from where it stopped")
    )
    retry.add_argument("run_id")
    retry.add_argument("--detach", action="store_true", help="return without watching")
    _approval_commands(sub)
    talk = with_connection(
        sub.add_parser(
            "chat",
            help="a conversation: each line is the next turn of a thread (new, or --thread to go on)",
        )
    )
    talk.add_argument("--thread", metavar="THREAD_ID", help="go on with this thread (default: start one)")
    talk.add_argument("--multitask", choices=threads.MULTITASK, default="reject", help=threads.MULTITASK_HELP)
    threads.add_commands(sub, with_target)
    listing = with_target(sub.add_parser("list", help="list recent runs"))
    listing.add_argument("--limit", type=int, default=20)
    listing.add_argument(
        "--owner", default="", help="whose runs (approvers and admins): a key's name, or '*' for all"
    )

    keys = sub.add_parser("keys", help="API keys for AGENTRT_API_KEYS")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    keys_sub.add_parser("new", help="print a new random API key (256 bits; weaker keys are refused)")

    _operator_commands(sub)
    with_debug(parser)
    return parser


def _operator_commands(sub: Any) -> None:
    """The commands that talk to tools_svc or probe a service, not to RunService."""
    tools = sub.add_parser("tools", help="tool providers and the tool catalog")
    tools_sub = tools.add_subparsers(dest="tools_command", required=True)
    tools_serve = tools_sub.add_parser(
        "serve", help="serve @tool functions as a provider and keep them registered"
    )
    tools_serve.add_argument(
        "object", help="module:object; a @tool function, a list of them, or a ToolProvider"
    )
    tools_serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    tools_serve.add_argument("--port", type=int, default=0, help="port to listen on (0 picks a free one)")
    tools_serve.add_argument("--advertise-host", help="host tools_svc should call back (default: --host)")
    tools_serve.add_argument("--ttl", type=float, default=15.0, help="lease TTL in seconds")
    mount_parsers = add_mount_commands(tools_sub)
    for p in (tools_serve, tools_sub.add_parser("list", help="print the tool catalog"), *mount_parsers):
        p.add_argument("--tools-addr", help="tools_svc address (default from AGENTRT_TOOLS_ADDR/_TOOLS_PORT)")
    with_output(tools_sub.choices["list"])

    health = sub.add_parser(
        "health",
        help="exit 0 if a service answers grpc.health.v1 SERVING, 1 if it answers otherwise, "
        "2 if nothing answers (for probes)",
    )
    health.add_argument("--target", help="address to check (default: the gateway, as for other commands)")
    health.add_argument("--service", default="", help="service name to check; empty checks the server")
    health.add_argument("--timeout", type=float, default=2.0)
    with_output(health)


# What a command returns when its reader went away (`agentrt list | head`): 128 + SIGPIPE, as a
# program killed by the closed pipe would, and no traceback.
CLOSED_PIPE = 141


def main(argv: list[str] | None = None) -> int:
    try:
        code = _main(sys.argv[1:] if argv is None else argv)
        sys.stdout.flush()  # here, where a closed pipe can still be caught, not at exit
        return code
    except BrokenPipeError:
        # Nothing more can be written, not even at exit's flush: point stdout at nothing.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return CLOSED_PIPE


def _main(argv: list[str]) -> int:
    if argv[:1] == ["model"]:  # its own small CLI (fetch, serve)
        return local_model.main(argv[1:])
    args = _parser().parse_args(argv)
    args.json = as_json(args)
    if args.debug:  # the services `up` starts inherit it
        os.environ["AGENTRT_DEBUG"] = "1"
    if args.command in ("serve", "up") and (missing := _missing_server_packages()):
        print(
            f"agentrt {args.command}: the services' dependencies are not installed "
            f"({', '.join(missing)}): pip install 'agentrt[server]' (and 'agentrt[llm]' for the LLM planner)",
            file=sys.stderr,
        )
        return 2
    if args.command == "keys":  # reads no settings: it makes the key they will hold
        print(new_key())
        return 0
    if args.command == "serve":
        importlib.import_module(SERVICES[args.service]).main()
        return 0
    if args.command == "up":
        if args.approval_policy:  # the services read it from the environment they inherit
            os.environ["AGENTRT_APPROVAL_POLICY"] = args.approval_policy
        return up(
            load_settings(), models=lambda settings: model_lines(settings, fresh=True)[0], split=args.split
        )
    if args.command == "tools":
        return tools_command(args)
    if args.command == "health":
        whole = args.target is None and not args.service  # the deployment: its models too
        if not args.target:
            args.target = load_settings().gateway_target
        with grpc.insecure_channel(args.target) as channel:
            status = probe(channel, args.service, args.timeout)
        # Reported, not judged (the exit status is the gateway's): the rules work without a model.
        models = model_lines(load_settings())[0] if whole and status == "SERVING" else []
        if args.json:
            print(json.dumps({"target": args.target, "status": status, "models": models}))
        elif status == "UNREACHABLE":
            print(f"UNREACHABLE: nothing answered at {args.target} within {args.timeout:g}s")
        else:
            print(status.replace("_", " "))
            for line in models:
                print(f"model: {line}")
        return {"SERVING": 0, "UNREACHABLE": 2}.get(status, 1)
    if not args.target:
        args.target = load_settings().gateway_target
    try:
        with Client(args.target, api_key=args.api_key) as client:
            return _client_command(client, args)
    except ClientError as err:
        if args.debug:
            raise
        line = unreachable(err.details, "the gateway", args.target, "--target or $AGENTRT_TARGET")
        print(f"agentrt: {line or err}", file=sys.stderr)
        for field, description in err.details.violations:
            print(f"  {field}: {description}", file=sys.stderr)
        if err.details.reason == "THREAD_BUSY":  # the server names the proto field; say the flag
            print("  (here: --multitask enqueue, or --multitask interrupt)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


# What `pip install agentrt` leaves out and every service needs (the `server` extra).
_SERVER_PACKAGES = ("sqlalchemy", "alembic", "starlette", "uvicorn", "jsonschema_rs")


def _missing_server_packages() -> list[str]:
    return [name for name in _SERVER_PACKAGES if importlib.util.find_spec(name) is None]


def _client_command(client: Client, args: argparse.Namespace) -> int:
    if args.command == "run":
        if args.multitask and not args.thread:
            print("agentrt run: --multitask applies to a thread's turns: give --thread too", file=sys.stderr)
            return 2
        budgets = agent_pb2.Budgets(
            max_turns=args.max_turns,
            max_tool_calls=args.max_tool_calls,
            max_tokens=args.max_tokens,
            max_cost_usd=args.max_cost_usd,
        )
        run = client.create_run(
            args.prompt,
            args.max_steps,
            args.idempotency_key,
            mode=args.mode or 0,
            budgets=budgets,
            thread_id=args.thread,
            multitask=args.multitask or 0,
        )
        if args.detach:  # exactly the id on stdout (or the run as JSON): id=$(agentrt run --detach ...)
            if not args.json:
                _print_run_header(run, False, sys.stderr)  # what was created, for a person
            print(to_json(run) if args.json else run.run_id, flush=True)
            return 0
        _print_run_header(run, args.json)
        return _following(client, run.run_id, 0, args.json, args.full)
    if args.command == "watch":
        return _following(client, args.run_id, args.after_seq, args.json, args.full)
    if args.command == "get":
        run = client.get_run(args.run_id)
        print(to_json(run) if args.json else _describe(run))
        return 0
    if args.command == "cancel":
        run = client.cancel_run(args.run_id)
        print(to_json(run) if args.json else render.run_summary(run))
        return 0
    if args.command == "retry":
        run = client.retry_run(args.run_id)
        if args.detach:
            print(to_json(run) if args.json else run.run_id, flush=True)
            return 0
        print(f"run {run.run_id} restarted (retry {run.retry_count})", flush=True)
        return _following(client, run.run_id, run.last_seq, args.json, args.full)
    if args.command in ("approve", "reject"):
        if args.command == "approve":
            arguments = None
            if args.arguments is not None:
                try:
                    arguments = json.loads(args.arguments)
                except json.JSONDecodeError as exc:
                    print(f"agentrt approve: --arguments is not JSON: {exc.msg}", file=sys.stderr)
                    return 2
                if not isinstance(arguments, dict):
                    print("agentrt approve: --arguments must be a JSON object", file=sys.stderr)
                    return 2
            run = client.approve_step(args.run_id, args.step_id, arguments)
        else:
            run = client.reject_step(args.run_id, args.step_id, args.reason)
        print(to_json(run) if args.json else render.run_summary(run))
        return 0
    if args.command == "list":
        response = client.list_runs(page_size=args.limit, owner=args.owner)
        for run in response.runs:
            print(to_json(run) if args.json else render.run_summary(run))
        return 0
    if args.command == "chat":
        return chat(client, args.thread, args.multitask, load_settings().max_prompt_chars)
    if args.command == "threads":
        return threads.threads_command(client, args, to_json)
    raise AssertionError(args.command)


def _print_run_header(run: run_pb2.Run, as_json: bool, to: TextIO | None = None) -> None:
    to = to or sys.stdout  # looked up now: tests and callers may have replaced it
    if as_json:
        print(to_json(run), file=to, flush=True)
    else:
        print(f"run {run.run_id} created: {run.prompt}{_thread_note(run)}", file=to, flush=True)


def _thread_note(run: run_pb2.Run) -> str:
    if not run.thread_id:
        return ""
    queued = ", queued behind the turn before it" if run.status == run_pb2.RUN_STATUS_QUEUED else ""
    return f" (thread {run.thread_id}, turn {run.thread_turn}{queued})"


def _following(client: Client, run_id: str, after_seq: int, as_json: bool, full: bool) -> int:
    """_watch, and on Ctrl-C a word that only the watching stopped: the run goes on. Ctrl-C
    cancels the watch rather than raising inside the blocked gRPC call, which can leave the
    channel unable to close (the command would hang on its way out)."""
    interrupted = threading.Event()

    def stop_watching(signum: int, frame: object) -> None:
        interrupted.set()
        client.cancel_watches()

    in_main = threading.current_thread() is threading.main_thread()  # only it gets signals
    previous = signal.signal(signal.SIGINT, stop_watching) if in_main else None
    try:
        code = _watch(client, run_id, after_seq, as_json, full, stopped=interrupted)
    except KeyboardInterrupt:
        interrupted.set()
    finally:
        if in_main:
            signal.signal(signal.SIGINT, previous)
    if interrupted.is_set():
        print(
            f"\nstopped watching; run {run_id} goes on. Follow it again with: agentrt watch {run_id}"
            f" (or stop it: agentrt cancel {run_id})",
            file=sys.stderr,
            flush=True,
        )
        return 130
    return code


def _watch(
    client: Client,
    run_id: str,
    after_seq: int,
    as_json: bool,
    full: bool = False,
    *,
    stopped: threading.Event | None = None,
) -> int:
    final = run_pb2.RUN_STATUS_UNSPECIFIED
    seen = False
    writing = False  # in the middle of the model's streamed text
    for event in client.watch(run_id, after_seq):
        seen = True
        if as_json:
            print(to_json(event), flush=True)
        elif event.HasField("heartbeat"):
            if not writing:  # words are coming: they say enough
                print(f"      {render.heartbeat_line(event.heartbeat)}", flush=True)
        elif event.HasField("step_progress"):  # another agent's work on a step, as it goes
            if writing:  # ends the line of the model's words
                print(flush=True)
                writing = False
            print(f"      {render.progress_line(event.step_progress)}", flush=True)
        elif event.transient:
            # The model's words as they come, on one indented line; the stored turn follows.
            print(
                ("" if writing else "      ") + event.text_delta.text.replace("\n", " "), end="", flush=True
            )
            writing = True
        else:
            if writing:
                print(flush=True)
                writing = False
            for line in render.event_lines(event, None if full else render.line_width()):
                print(line, flush=True)
        if is_terminal_event(event):
            final = event.status_changed.status
    if not seen and not (stopped is not None and stopped.is_set()):  # ended at once: finished before
        run = client.get_run(run_id)
        final = run.status
        print(
            f"run {run_id} finished ({status_name(run.status)}) at event {run.last_seq}; "
            f"there is nothing after event {after_seq} (use --after-seq 0 to see all its events)",
            file=sys.stderr,
        )
    return 0 if final == run_pb2.RUN_STATUS_SUCCEEDED else 1


def _describe(run: run_pb2.Run) -> str:
    lines = [render.run_summary(run), f"  mode: {render.mode_name(run.mode)}"]
    if run.thread_id:
        lines.append(f"  thread: {run.thread_id} turn {run.thread_turn}")
    for turn in run.turns:
        lines.append("  " + render.turn_line(turn, render.line_width()))
    for step in run.steps:
        lines.append(f"  {step.step_id} {step.tool} {step_status_name(step.status)} attempts={step.attempts}")
    if run.answer:
        lines.append(f"  answer: {run.answer}")
    if run.HasField("result"):
        lines.append(f"  result: {render.compact(value_to_py(run.result), None)}")
    if run.usage.llm_calls:
        lines.append(f"  usage: {render.usage_text(run.usage)}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
