"""End to end: `agentrt chat` as a process of its own, fed through a pipe, against the services
(in this test's process, on port 0: only the chat needs to be a process here, for a real pipe
and a real SIGINT). Ctrl-C while a turn is under way only stops watching it: the turn goes on
on the server and finishes, and the chat ends cleanly at the end of its input."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from agentrt.v1 import run_pb2
from tests.conftest import Stack, watch_all
from tests.e2e.procs import BIN

pytestmark = pytest.mark.e2e
R = run_pb2


class Lines:
    """A process's output, line by line, read without blocking the servers' event loop."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream
        self.seen: list[str] = []

    async def until(self, text: str) -> str:
        while not (found := next((line for line in self.seen if text in line), None)):
            line = await asyncio.wait_for(self._stream.readline(), 20)
            if not line:
                raise AssertionError(f"the output ended without {text!r}: {self.seen}")
            self.seen.append(line.decode().rstrip("\n"))
        return found

    async def rest(self) -> list[str]:
        self.seen += (await self._stream.read()).decode().splitlines()
        return self.seen


async def test_a_chat_process_survives_ctrl_c_during_a_turn_and_the_turn_goes_on(approving: Stack) -> None:
    chat = await asyncio.create_subprocess_exec(
        str(BIN / "agentrt"),
        *("chat", "--multitask", "enqueue", "--target", f"127.0.0.1:{approving.port('gateway')}"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=os.environ.copy(),
    )
    assert chat.stdin is not None and chat.stdout is not None and chat.stderr is not None
    out = Lines(chat.stdout)
    try:
        chat.stdin.write(b"add a todo to buy milk\n")
        await out.until("Added 'buy milk' (#1).")
        thread_id = out.seen[0].split()[1]

        # Another client sends turn 2, which waits for approval; the chat enqueues turn 3 behind it.
        request = R.CreateRunRequest(prompt="remove the buy milk todo", thread_id=thread_id)
        waiting = (await approving.gateway.CreateRun(request)).run
        chat.stdin.write(b"what is 2 + 2\n")
        header = await out.until("(queued behind the turn before it)")
        assert header.startswith("turn 3 (run ") and header.endswith(
            "): what is 2 + 2 (queued behind the turn before it)"
        )
        queued_run = header.split("(run ")[1].split(")")[0]

        chat.send_signal(signal.SIGINT)  # while it watches turn 3
        stopped = await out.until("stopped watching")
        assert stopped == (
            f"stopped watching; turn 3 goes on (run {queued_run}). Re-attach with: agentrt watch {queued_run}"
        )
        chat.stdin.close()  # the chat went back to reading: the end of its input ends it
        lines = await out.rest()
        assert await asyncio.wait_for(chat.wait(), 20) == 1  # one turn it sent did not finish in it
        assert lines[-1] == f"resume with: agentrt chat --thread {thread_id}"
        assert (await chat.stderr.read()) == b""
    finally:
        if chat.returncode is None:
            chat.kill()
            await chat.wait()

    # Nothing broke: turn 2 is approved and runs, then turn 3, which the chat stopped watching.
    await approving.gateway.ApproveStep(R.ApproveStepRequest(run_id=waiting.run_id, step_id="s1"))
    await watch_all(approving.gateway, queued_run)
    thread = (await approving.gateway.GetThread(R.GetThreadRequest(thread_id=thread_id))).thread
    assert [(t.turn, t.status, t.answer) for t in thread.turns] == [
        (1, R.RUN_STATUS_SUCCEEDED, "Added 'buy milk' (#1)."),
        (2, R.RUN_STATUS_SUCCEEDED, "Deleted 'buy milk'."),
        (3, R.RUN_STATUS_SUCCEEDED, "2 + 2 = 4"),
    ]


async def test_the_follow_ups_of_the_issue_in_a_piped_chat(stack: Stack) -> None:
    """ "add buy milk to my todo list", "mark it as done", "what is 12 times 4", "add that as a
    todo": through `agentrt chat` as a process, with no LLM."""
    chat = await asyncio.create_subprocess_exec(
        str(BIN / "agentrt"),
        *("chat", "--target", f"127.0.0.1:{stack.port('gateway')}"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"},
    )
    said = b"add buy milk to my todo list\nmark it as done\nwhat is 12 times 4\nadd that as a todo\n"
    out, err = await asyncio.wait_for(chat.communicate(said), 60)
    text = out.decode()
    assert chat.returncode == 0, text + err.decode()
    for answer in (
        "Added 'buy milk' (#1).",
        "Marked 'buy milk' as done.",
        "12 * 4 = 48",
        "Added '48' (#2).",
    ):
        assert answer in text, text
    assert "resume with: agentrt chat --thread" in text + err.decode()
