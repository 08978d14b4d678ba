"""Threads from the command line, over real gRPC against the four services on port 0:
`agentrt chat` (piped in: each line a turn, approvals answered by the next line), `agentrt run
--thread`, `agentrt threads create|list|get|delete`, a busy thread, another principal's thread."""

from __future__ import annotations

import asyncio
import io
import json
import sys
import threading
from typing import TextIO

import pytest

from agentrt import cli
from tests.conftest import TEAM_KEYS, Stack


class _ThisThread(io.TextIOBase):
    """sys.stdout or sys.stderr that keeps what one thread (the command's) writes apart: the
    servers on the test's event loop log to the same process's stdout meanwhile."""

    def __init__(self, other: TextIO) -> None:
        self._other = other
        self._local = threading.local()

    def capture(self) -> io.StringIO:
        self._local.buffer = io.StringIO()
        return self._local.buffer

    def write(self, text: str) -> int:
        buffer = getattr(self._local, "buffer", None)
        return (buffer or self._other).write(text)

    def flush(self) -> None:
        if getattr(self._local, "buffer", None) is None:
            self._other.flush()


async def agentrt(stack: Stack, *args: str, stdin: str = "") -> tuple[int, list[str], str]:
    """Run one command against the stack's gateway: (exit code, stdout lines, stderr). In a thread:
    the command blocks, and the servers it calls run on this test's event loop."""
    out, err = _ThisThread(sys.stdout), _ThisThread(sys.stderr)

    def call() -> tuple[int, str, str]:
        written, errors = out.capture(), err.capture()
        code = cli.main([*args, "--target", f"127.0.0.1:{stack.port('gateway')}"])
        return code, written.getvalue(), errors.getvalue()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdin", io.StringIO(stdin))
        patch.setattr("sys.stdout", out)
        patch.setattr("sys.stderr", err)
        code, written, errors = await asyncio.to_thread(call)
    return code, written.splitlines(), errors


def after(lines: list[str], prefix: str) -> str:
    """What follows `prefix` on the first line that starts with it."""
    return next(line for line in lines if line.startswith(prefix)).removeprefix(prefix)


def chat_thread(lines: list[str]) -> str:
    return after(lines, "thread ").split()[0]


async def test_a_piped_chat_is_one_thread_with_a_turn_per_line(stack: Stack) -> None:
    code, out, err = await agentrt(stack, "chat", stdin="add a todo to buy milk\n\n   \nwhat is 12 times 4\n")
    assert (code, err) == (0, "")
    thread_id = chat_thread(out)
    assert out[0] == f"thread {thread_id} started"
    first = out.index(next(line for line in out if line.startswith("turn 1 (run ")))
    assert out[first].endswith("): add a todo to buy milk")  # piped: the header says which line
    assert out[first + 1 : first + 3] == [
        '  s1 todo_store {"action": "add", "text": "buy milk"}: succeeded',
        "Added 'buy milk' (#1).",
    ]
    second = out.index(next(line for line in out if line.startswith("turn 2 (run ")))
    assert out[second].endswith("): what is 12 times 4")
    assert out[second + 2] == "12 * 4 = 48"
    assert out[-1] == f"resume with: agentrt chat --thread {thread_id}"
    assert not any("you>" in line or "approve?" in line for line in out)  # no prompts in a pipe

    code, out, _ = await agentrt(stack, "threads", "get", thread_id, "--json")
    thread = json.loads(out[-1])
    assert code == 0 and thread["turnCount"] == 2
    assert [(t["turn"], t["prompt"], t["answer"], t["status"]) for t in thread["turns"]] == [
        (1, "add a todo to buy milk", "Added 'buy milk' (#1).", "RUN_STATUS_SUCCEEDED"),
        (2, "what is 12 times 4", "12 * 4 = 48", "RUN_STATUS_SUCCEEDED"),
    ]
    second_run = thread["turns"][1]["runId"]
    code, out, _ = await agentrt(stack, "get", second_run)
    assert code == 0 and f"  thread: {thread_id} turn 2" in out

    # Going on with the thread: turn 3, with the turns so far said first.
    code, out, _ = await agentrt(stack, "chat", "--thread", thread_id, stdin="what is 2 + 2\nexit\n")
    assert code == 0 and out[0] == f"thread {thread_id}: 2 turn(s) so far"
    assert after(out, "turn 3 (run ").endswith("): what is 2 + 2") and "2 + 2 = 4" in out


async def test_thread_commands_and_run_with_a_thread(stack: Stack) -> None:
    code, out, _ = await agentrt(stack, "threads", "create", "--metadata", "topic=groceries")
    assert code == 0
    (thread_id,) = out  # the id alone: t=$(agentrt threads create)
    code, out, _ = await agentrt(stack, "run", "--thread", thread_id, "add a todo to buy eggs")
    assert code == 0
    assert out[0].endswith(f"created: add a todo to buy eggs (thread {thread_id}, turn 1)")
    assert any(line.endswith("run succeeded: Added 'buy eggs' (#1).") for line in out)
    code, out, _ = await agentrt(stack, "run", "--thread", thread_id, "what is 6 times 7")
    assert code == 0 and out[0].endswith(f"(thread {thread_id}, turn 2)")

    code, out, _ = await agentrt(stack, "threads", "get", thread_id)
    assert code == 0
    assert out[0].startswith(f"{thread_id}  2 turns") and "topic=groceries" in out[0]
    assert [line.split()[:2] + line.split()[3:4] for line in out if line.startswith("  turn ")] == [
        ["turn", "1", "succeeded"],
        ["turn", "2", "succeeded"],
    ]
    assert "      answer: Added 'buy eggs' (#1)." in out and "      answer: 6 * 7 = 42" in out

    # A long thread comes a page at a time, the latest turns first; the page says how to go back.
    code, out, err = await agentrt(stack, "threads", "get", thread_id, "--limit", "1")
    assert [line.split()[:2] for line in out if line.startswith("  turn ")] == [["turn", "2"]]
    token = err.strip().removeprefix(f"earlier turns: agentrt threads get {thread_id} --page-token ")
    code, out, err = await agentrt(stack, "threads", "get", thread_id, "--limit", "1", "--page-token", token)
    assert [line.split()[:2] for line in out if line.startswith("  turn ")] == [["turn", "1"]] and err == ""

    newer = (await agentrt(stack, "threads", "create"))[1][0]
    code, out, err = await agentrt(stack, "threads", "list", "--limit", "1")
    assert code == 0 and [line.split()[0] for line in out] == [newer]  # newest first
    token = err.strip().removeprefix("more: agentrt threads list --page-token ")
    code, out, err = await agentrt(stack, "threads", "list", "--limit", "1", "--page-token", token)
    assert [line.split()[0] for line in out] == [thread_id] and err == ""
    code, out, _ = await agentrt(stack, "threads", "list", "--json")
    assert [json.loads(line)["threadId"] for line in out] == [newer, thread_id]

    code, out, _ = await agentrt(stack, "threads", "delete", thread_id)
    assert (code, out) == (0, [f"thread {thread_id} deleted"])
    code, _, err = await agentrt(stack, "threads", "get", thread_id)
    assert code == 2 and f"NOT_FOUND: thread {thread_id} not found" in err
    code, _, err = await agentrt(stack, "run", "--multitask", "enqueue", "what is 1 + 1")
    assert code == 2 and "give --thread too" in err


async def test_a_step_that_needs_approval_is_asked_about_in_the_chat(approving: Stack) -> None:
    lines = [
        "add a todo to buy milk",
        "add a todo to call mom",
        "remove the buy milk todo",
        "y",  # the answer to "approve?"
        "remove the call mom todo",
        "no",
    ]
    code, out, err = await agentrt(approving, "chat", stdin="\n".join(lines) + "\n")
    assert code == 1, err  # a turn failed (its step was rejected)
    approved = out.index(next(line for line in out if line.endswith("): remove the buy milk todo")))
    assert out[approved + 1] == (
        '  s1 todo_store {"action": "delete", "text": "buy milk"}: awaits approval '
        "(todo_store delete is destructive (approval policy: destructive))"
    )
    assert out[approved + 2] == "  approve? [y/N] y"
    assert out[approved + 3 :][:2] == [
        '  s1 todo_store {"action": "delete", "text": "buy milk"}: succeeded',
        "Deleted 'buy milk'.",
    ]
    rejected = out.index(next(line for line in out if line.endswith("): remove the call mom todo")))
    assert out[rejected + 2] == "  approve? [y/N] no"
    assert out[rejected + 3].startswith('  s1 todo_store {"action": "delete", "text": "call mom"}: failed: ')
    assert "rejected in agentrt chat" in out[rejected + 3]
    assert out[rejected + 4].startswith("failed: ")
    code, out, _ = await agentrt(approving, "threads", "get", chat_thread(out), "--json")
    turns = json.loads(out[-1])["turns"]
    assert [t["status"] for t in turns] == ["RUN_STATUS_SUCCEEDED"] * 3 + ["RUN_STATUS_FAILED"]


async def test_a_busy_thread_refuses_a_message_unless_told_to_enqueue_or_interrupt(approving: Stack) -> None:
    thread_id = (await agentrt(approving, "threads", "create"))[1][0]
    assert (await agentrt(approving, "run", "--thread", thread_id, "add a todo to buy milk"))[0] == 0
    code, out, err = await agentrt(
        approving, "run", "--thread", thread_id, "--detach", "remove the buy milk todo"
    )
    (waiting,) = out  # --detach prints exactly the id; what was created goes to stderr
    assert code == 0 and f"run {waiting} created: remove the buy milk todo" in err
    # The turn waits for its approval (nobody answers it here): the thread is busy.
    code, _, err = await agentrt(approving, "run", "--thread", thread_id, "what is 2 + 2")
    assert code == 2
    assert f"FAILED_PRECONDITION: thread {thread_id} is still working on run {waiting}" in err
    assert "--multitask enqueue" in err

    code, out, err = await agentrt(approving, "chat", "--thread", thread_id, stdin="what is 2 + 2\n")
    assert code == 1
    assert f"turn 2 is still running (run {waiting}): agentrt watch {waiting}" in out or (
        f"turn 2 is still waiting (run {waiting}): agentrt watch {waiting}" in out
    )
    (error,) = err.splitlines()  # one line, and the chat went on to its end
    assert error.startswith(f"error: FAILED_PRECONDITION: thread {thread_id} is still working on run")
    assert error.endswith("[here: agentrt chat --multitask enqueue or --multitask interrupt]")
    assert out[-1] == f"resume with: agentrt chat --thread {thread_id}"

    code, out, err = await agentrt(
        approving, "run", "--thread", thread_id, "--multitask", "enqueue", "--detach", "what is 3 + 3"
    )
    assert code == 0 and f"(thread {thread_id}, turn 3, queued behind the turn before it)" in err
    code, out, _ = await agentrt(
        approving, "run", "--thread", thread_id, "--multitask", "interrupt", "what is 4 + 4"
    )
    assert code == 0 and any(line.endswith("run succeeded: 4 + 4 = 8") for line in out)
    code, out, _ = await agentrt(approving, "threads", "get", thread_id, "--json")
    statuses = [t["status"] for t in json.loads(out[-1])["turns"]]
    # Turn 1 done; 2 (waiting) and 3 (queued) cancelled by 4, which ran.
    assert [s.removeprefix("RUN_STATUS_") for s in statuses] == [
        "SUCCEEDED",
        "CANCELLED",
        "CANCELLED",
        "SUCCEEDED",
    ]


async def test_a_line_longer_than_a_prompt_may_be_is_refused_and_the_chat_goes_on(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTRT_MAX_PROMPT_CHARS", "40")
    code, out, err = await agentrt(stack, "chat", stdin="what is " + "1 + " * 5000 + "1\nwhat is 2 + 2\n")
    assert code == 0
    assert err.startswith("error: message too long (")
    assert "at most 40, AGENTRT_MAX_PROMPT_CHARS): not sent" in err
    assert "2 + 2 = 4" in out and not any(line.startswith("turn 2") for line in out)


async def test_another_principals_thread_does_not_exist_for_the_cli(team: Stack) -> None:
    alice, bob = ("--api-key", TEAM_KEYS["alice"]), ("--api-key", TEAM_KEYS["bob"])
    thread_id = (await agentrt(team, "threads", "create", *alice))[1][0]
    assert (await agentrt(team, "run", "--thread", thread_id, "what is 2 + 2", *alice))[0] == 0
    for command in (
        ("threads", "get", thread_id),
        ("threads", "delete", thread_id),
        ("run", "--thread", thread_id, "what is 3 + 3"),
        ("chat", "--thread", thread_id),
    ):
        code, out, err = await agentrt(team, *command, *bob, stdin="what is 3 + 3\n")
        assert code == 2, command
        assert f"agentrt: NOT_FOUND: thread {thread_id} not found" in err, command
        assert not any(line.startswith("turn") for line in out)
    assert (await agentrt(team, "threads", "list", *bob))[1] == []
    code, out, _ = await agentrt(team, "threads", "list", *alice)
    assert [line.split()[:3] for line in out] == [[thread_id, "1", "turn"]]
