"""`agentrt chat`: a conversation on a thread. Each line typed (or piped in) is the thread's next
turn; its steps print one line each, then its answer, and a step that needs a person's approval
is asked about in place.

Lines from a pipe work the same without the prompts, so a chat can be scripted: an approval
question then takes the next line as its answer. Ctrl-C while a turn runs only stops watching it
(the turn goes on on the server) and the chat goes on; Ctrl-C, Ctrl-D, `exit` or `quit` at the
prompt ends it.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

from agentrt.cli import render
from agentrt.client import Client, ClientError
from agentrt.core.runstate import is_terminal_event, status_name, step_status_name
from agentrt.core.text import clip
from agentrt.core.values import struct_to_dict, value_to_py
from agentrt.v1 import run_pb2

R = run_pb2
EXIT_WORDS = frozenset({"exit", "quit"})
# A step's arguments on its line, cut to this: a glance at what it did (`agentrt get` has them whole).
ARGUMENTS_WIDTH = 60
# A piped message, repeated in its turn's header: enough to tell which one it was.
PROMPT_WIDTH = 200
# A piped line longer than the limit is read and dropped this much at a time, never held whole.
_DISCARD_CHUNK = 65536
_FINISHED_STEP = frozenset(
    {R.STEP_STATUS_SUCCEEDED, R.STEP_STATUS_FAILED, R.STEP_STATUS_SKIPPED, R.STEP_STATUS_CANCELLED}
)


class LineTooLong(Exception):
    def __init__(self, length: int) -> None:
        super().__init__(length)
        self.length = length


class NoAnswer(Exception):
    """The input ended while a step waited for approval."""


class Chat:
    def __init__(
        self,
        client: Client,
        *,
        multitask: str,
        max_chars: int,
        stdin: TextIO,
        out: TextIO,
        err: TextIO,
    ) -> None:
        self._client = client
        self._multitask = multitask
        self._max_chars = max_chars
        self._stdin, self._out, self._err = stdin, out, err
        # Prompts only for a person at a terminal: piped output stays the conversation itself.
        self._interactive = stdin.isatty()
        self._failed = False
        self._thread_id = ""

    def run(self, thread_id: str | None) -> int:
        """Talk until the input ends; 0 if every turn sent succeeded, else 1. A thread that does
        not exist (or is another principal's) raises ClientError before anything is read."""
        self._start(thread_id)
        try:
            while (text := self._next_message()) is not None:
                self._turn(text)
        except KeyboardInterrupt:  # Ctrl-C at the prompt: the same as Ctrl-D
            self._say("")
        self._say(f"resume with: agentrt chat --thread {self._thread_id}")
        return 1 if self._failed else 0

    def _start(self, thread_id: str | None) -> None:
        if thread_id is None:
            self._thread_id = self._client.create_thread().thread_id
            self._say(f"thread {self._thread_id} started")
        else:
            thread = self._client.get_thread(thread_id).thread  # the latest turns: the unfinished is there
            self._thread_id = thread.thread_id
            self._say(f"thread {thread.thread_id}: {thread.turn_count} turn(s) so far")
            active = [t for t in thread.turns if t.run_id == thread.active_run_id]
            for turn in active:
                self._say(
                    f"turn {turn.turn} is still {status_name(turn.status)} (run {turn.run_id}): "
                    f"agentrt watch {turn.run_id}"
                )
        if self._interactive:
            self._say("type a message; exit, quit, Ctrl-D or Ctrl-C leaves")

    # -- reading -------------------------------------------------------------------------------

    def _next_message(self) -> str | None:
        """The next non-empty line, or None when the input ends or says exit or quit."""
        while True:
            try:
                line = self._read("you> ")
            except LineTooLong as long:
                self._error_line(self._too_long(long.length))
                continue
            if line is None:
                return None
            text = line.strip()
            if text.lower() in EXIT_WORDS:
                return None
            if len(text) > self._max_chars:
                self._error_line(self._too_long(len(text)))
            elif text:
                return text

    def _too_long(self, length: int) -> str:
        more = "" if self._interactive else " or more"
        return (
            f"message too long ({length}{more} characters; at most {self._max_chars}, "
            "AGENTRT_MAX_PROMPT_CHARS): not sent"
        )

    def _read(self, prompt: str) -> str | None:
        """One line without its newline; None at the end of the input."""
        if self._interactive:
            try:
                return input(prompt)
            except EOFError:
                self._say("")
                return None
        # From a pipe: at most the limit and one more character, so a huge line never sits in
        # memory whole; the rest of a longer one is dropped.
        line = self._stdin.readline(self._max_chars + 2)
        if not line:
            return None
        if not line.endswith("\n") and len(line) > self._max_chars + 1:
            length = len(line)
            while (rest := self._stdin.readline(_DISCARD_CHUNK)) and (length := length + len(rest)):
                if rest.endswith("\n"):
                    break
            raise LineTooLong(length)
        return line.removesuffix("\n")

    # -- a turn --------------------------------------------------------------------------------

    def _turn(self, text: str) -> None:
        run: R.Run | None = None
        try:
            run = self._client.create_run(text, thread_id=self._thread_id, multitask=self._multitask)
            self._follow(run, text)
        except ClientError as err:
            self._failed = True
            self._error_line(_error_text(err))
        except NoAnswer:
            self._failed = True
        except KeyboardInterrupt:
            # Only watching stops: the run is the server's, and goes on there.
            self._failed = True
            self._say("")
            if run is None:
                self._say(
                    "interrupted while sending; "
                    f"agentrt threads get {self._thread_id} shows whether it arrived"
                )
            else:
                self._say(
                    f"stopped watching; turn {run.thread_turn} goes on (run {run.run_id}). "
                    f"Re-attach with: agentrt watch {run.run_id}"
                )

    def _follow(self, run: R.Run, text: str) -> None:
        header = f"turn {run.thread_turn} (run {run.run_id})"
        if not self._interactive:  # nobody saw the line typed: say which it was
            header += f": {clip(render.one_line(text), PROMPT_WIDTH)}"
        if run.status == R.RUN_STATUS_QUEUED:
            header += " (queued behind the turn before it)"
        self._say(header)
        # Closed however the loop ends (Ctrl-C at an approval question included): the stream is
        # cancelled at once.
        with contextlib.closing(self._client.watch(run.run_id)) as events:
            while (event := self._next_event(events)) is not None:
                kind = event.WhichOneof("kind")
                if kind == "step_updated":
                    self._step(run.run_id, event.step_updated.step)
                elif kind == "planner_retry":  # a model that does not answer: say so, each time
                    self._say(render.retry_line(event.planner_retry))
                elif kind == "heartbeat":
                    self._say(render.heartbeat_line(event.heartbeat))
                elif kind == "step_progress":  # another agent's work on a step, as it goes
                    self._say(render.progress_line(event.step_progress))
                elif is_terminal_event(event):
                    self._outcome(event.status_changed)

    def _next_event(self, events: Iterator[R.RunEvent]) -> R.RunEvent | None:
        """The next event, or None at the end. Ctrl-C meanwhile cancels the watch and is raised
        here, after the gRPC call returned: a KeyboardInterrupt raised inside a blocked gRPC call
        can leave its channel unable to close (the chat would hang on its way out)."""
        if threading.current_thread() is not threading.main_thread():  # only it gets signals
            return next(events, None)
        interrupted = False

        def stop_watching(signum: int, frame: object) -> None:
            nonlocal interrupted
            interrupted = True
            self._client.cancel_watches()

        previous = signal.signal(signal.SIGINT, stop_watching)
        try:
            event = next(events, None)
        finally:
            signal.signal(signal.SIGINT, previous)
        if interrupted:
            raise KeyboardInterrupt
        return event

    def _step(self, run_id: str, step: R.StepState) -> None:
        arguments = render.compact(struct_to_dict(step.arguments), ARGUMENTS_WIDTH)
        line = f"  {step.step_id} {step.tool} {arguments}"
        if step.status == R.STEP_STATUS_AWAITING_APPROVAL:
            self._say(f"{line}: awaits approval ({step.approval.reason})")
            self._decide(run_id, step)
        elif step.status in _FINISHED_STEP:
            line += f": {step_status_name(step.status)}"
            if step.status == R.STEP_STATUS_FAILED and step.error.message:
                line += f": {render.one_line(step.error.message)}"
            self._say(line)

    def _decide(self, run_id: str, step: R.StepState) -> None:
        question = "  approve? [y/N] "
        try:
            answer = self._read(question)
        except LineTooLong:
            answer = ""
        if answer is None:
            self._say(
                f"  no answer: {step.step_id} still waits. agentrt approve {run_id} {step.step_id}"
                f"  |  agentrt reject {run_id} {step.step_id}"
            )
            raise NoAnswer
        if not self._interactive:  # the answer came from the pipe: show it after the question
            self._say(question + answer.strip())
        try:
            if answer.strip().lower() in ("y", "yes"):
                self._client.approve_step(run_id, step.step_id)
            else:
                self._client.reject_step(run_id, step.step_id, "rejected in agentrt chat")
        except ClientError as err:  # e.g. it timed out meanwhile: the events say what happened
            self._error_line(_error_text(err))

    def _outcome(self, change: R.RunStatusChanged) -> None:
        if change.status == R.RUN_STATUS_SUCCEEDED:
            if change.answer:
                self._say(change.answer)
            elif change.HasField("result"):
                self._say(render.compact(value_to_py(change.result), None))
            else:
                self._say("done")
            return
        self._failed = True
        message = f": {render.one_line(change.error.message)}" if change.error.message else ""
        self._say(f"{status_name(change.status)}{message}")

    # -- output --------------------------------------------------------------------------------

    def _say(self, line: str) -> None:
        print(line, file=self._out, flush=True)

    def _error_line(self, text: str) -> None:
        self._out.flush()  # what came before it first, when both go to one terminal
        print(f"error: {text}", file=self._err, flush=True)


def _error_text(err: ClientError) -> str:
    text = str(err)
    if err.details.violations:
        text += " (" + "; ".join(f"{field}: {what}" for field, what in err.details.violations) + ")"
    if err.details.reason == "THREAD_BUSY":
        text += " [here: agentrt chat --multitask enqueue or --multitask interrupt]"
    return render.one_line(text)


def chat(client: Client, thread_id: str | None, multitask: str, max_chars: int) -> int:
    return Chat(
        client, multitask=multitask, max_chars=max_chars, stdin=sys.stdin, out=sys.stdout, err=sys.stderr
    ).run(thread_id)
