"""README.md's tested commands, run as a newcomer runs them (issue #33).

A fenced block of README.md is tested when the line right before its fence is an HTML comment:
`<!-- tested -->`, or with options, `<!-- tested: exit 1 -->` (every command of the block is to
exit 1: an example of a failure), `<!-- tested: no-output -->` (the output shown is not
compared), or both (`<!-- tested: exit 1, no-output -->`). Only ```console and ```sh blocks can
be marked. A command is a `$ ` line of a console block, or each line of a sh block that is not
blank or a `#` comment; a line ending in `\\` continues on the next one, and a here-document
(`python - <<'EOF'` ... `EOF`) belongs to the command that opens it. In a console block, the
lines after a command, up to the next `$ ` line, are its output as shown.

The test starts one system (`agentrt up` on free ports, a temporary data directory, metrics on
free ports too), then runs every command of every tested block, in README order, in one `bash`
session: started in the repository's root, without the virtual environment activated (the
README's own `. .venv/bin/activate` line must make `agentrt`, `grpcurl` and `python` work) and
with no AGENTRT_* variables but the ports and the data directory of the test's system. Before a
command runs, the README's default ports (50051, 8080, 50052-50054, 9091-9094) are replaced by
the test's; the same replacement is made in the output shown. A command ending in `&` runs in
the background, as a reader would start a tool provider; the session then waits (as the reader
would) until its output shows what the README shows for it, and everything still running is
stopped at the end.

Each command must exit 0 (or the block's status) and print no "Traceback". For a console block,
every line of output shown must be a line of the real output (in any order; blank lines and a
line that is only "…" or "..." are skipped), once both are masked where one run differs from
another for reasons no reader controls:
- run, thread and other 32-hex-digit ids become <id>, and the tool catalog's 16-hex-digit
  version (a digest that covers a provider's endpoint) <version>;
- dates and times (2026-11-26T16:38:55.776404199Z, 2026-11-26, 16:38:55) become <time>;
- durations and figures in seconds or milliseconds ("0.88s", "7.6 s", "12 ms") become <duration>;
- absolute file paths (/home/you/.local/share/agentrt) become <path>;
- the port of a host:port address becomes <port> (a tool provider listens on a port it picks);
- leading and trailing blanks are dropped;
- a line that is a JSON document or a Python literal (an SSE `data:` line's included) is compared
  with its keys sorted: the services write a tool's output (a protobuf Struct) in no set order.
Everything else (statuses, answers, todo numbers, counts, messages) must be as shown: the README's
outputs are what these commands print on a freshly started system, in this order.

`python -m tests.e2e.test_readme` runs the same session and prints each command with its real
output, for pasting into the README after a change.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.e2e.procs import BIN, PORTS, SERVICES, System, free_ports, start_system

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# The README's ports, as `agentrt up` uses them by default.
DEFAULT_PORTS = {"gateway": 50051, "http": 8080, "executor": 50052, "planner": 50053, "tools": 50054}
DEFAULT_METRICS_PORTS = {"gateway": 9091, "executor": 9092, "planner": 9093, "tools": 9094}
COMMAND_TIMEOUT_S = 90  # one command; the whole session takes a fraction of a minute

MARKER = re.compile(r"<!-- tested(?::\s*(?P<options>[^>]*?))?\s*-->")
FENCE = re.compile(r"^```(?P<lang>\S*)\s*$")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)(?P<word>[A-Za-z_][A-Za-z0-9_]*)\1")
BACKGROUND = re.compile(r"(?<![&|])&\s*(#.*)?$")

MASKS = (
    (re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])"), "<id>"),
    (re.compile(r"(?<![0-9a-f])[0-9a-f]{16}(?![0-9a-f])"), "<version>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?"), "<time>"),
    (re.compile(r"\b\d{2}:\d{2}:\d{2}(?:\.\d+)?\b"), "<time>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b"), "<duration>"),
    (re.compile(r"(?<=[\w\]]):\d{2,5}\b"), ":<port>"),
    (re.compile(r"(?<![\w.:/<>-])/(?:[\w.@+-]+/)+[\w.@+-]*"), "<path>"),
)


@dataclass
class Command:
    text: str  # what bash runs: continuation lines and here-documents included
    line: int  # where it starts in README.md
    shown: list[str] = field(default_factory=list)  # the output shown under it (console blocks)

    @property
    def background(self) -> bool:
        return "\n" not in self.text and bool(BACKGROUND.search(self.text))


@dataclass
class Block:
    line: int  # the fence's line in README.md
    lang: str
    exit: int
    check_output: bool
    commands: list[Command]


def marked_blocks(text: str) -> list[Block]:
    """The tested blocks of a Markdown text, in order; a marker on anything else is an error."""
    lines = text.splitlines()
    blocks = []
    n = 0
    while n < len(lines):
        marker = MARKER.fullmatch(lines[n].strip())
        n += 1
        if marker is None:
            continue
        fence = FENCE.match(lines[n]) if n < len(lines) else None
        if fence is None or fence["lang"] not in ("console", "sh"):
            raise ValueError(f"README.md:{n}: a tested marker must come right before a console or sh block")
        exit_status, check_output = 0, True
        for option in filter(None, (o.strip() for o in (marker["options"] or "").split(","))):
            if m := re.fullmatch(r"exit (\d+)", option):
                exit_status = int(m[1])
            elif option == "no-output":
                check_output = False
            else:
                raise ValueError(f"README.md:{n}: unknown option {option!r} of a tested block")
        end = next((k for k in range(n + 1, len(lines)) if lines[k].startswith("```")), None)
        if end is None:
            raise ValueError(f"README.md:{n + 1}: the block never ends")
        commands = parse_block(fence["lang"], lines[n + 1 : end], first_line=n + 2)
        if not commands:
            raise ValueError(f"README.md:{n + 1}: a tested block without commands")
        blocks.append(Block(n + 1, fence["lang"], exit_status, check_output, commands))
        n = end + 1
    return blocks


def parse_block(lang: str, body: list[str], first_line: int) -> list[Command]:
    commands: list[Command] = []
    n = 0
    while n < len(body):
        line = body[n]
        start = n
        if lang == "console":
            if not line.startswith("$ "):
                if not commands:
                    raise ValueError(f"README.md:{first_line + n}: output before the first command")
                commands[-1].shown.append(line)
                n += 1
                continue
            line = line[2:]
        elif not line.strip() or line.lstrip().startswith("#"):
            n += 1
            continue
        parts = [line]
        while parts[-1].endswith("\\") and n + 1 < len(body):
            n += 1
            parts.append(body[n])
        if heredoc := HEREDOC.search("\n".join(parts)):
            while n + 1 < len(body) and body[n].strip() != heredoc["word"]:
                n += 1
                parts.append(body[n])
        commands.append(Command("\n".join(parts), first_line + start))
        n += 1
    return commands


def mask(line: str) -> str:
    for pattern, replacement in MASKS:
        line = pattern.sub(replacement, line)
    return line.strip()


def canonical(line: str) -> str:
    """A line masked; a JSON document or a Python literal on it (an SSE `data:` line's included)
    with its keys sorted: the services write a tool's output (a protobuf Struct) in no set order."""
    text = mask(line)
    prefix = "data: " if text.startswith("data: ") else ""
    body = text.removeprefix(prefix)
    if body[:1] in ("{", "["):
        for parse in (json.loads, ast.literal_eval):
            try:
                return prefix + json.dumps(parse(body), sort_keys=True, ensure_ascii=False)
            except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
                continue
    return text


def with_ports(text: str, ports: dict[int, int]) -> str:
    """The README's default ports in `text` replaced by the test system's."""
    return re.sub(r"\b(\d{4,5})\b", lambda m: str(ports.get(int(m[1]), m[1])), text)


def missing_lines(shown: list[str], output: str) -> list[str]:
    """The lines shown that the real output does not have (masked)."""
    real = {canonical(line) for line in output.splitlines()}
    wanted = [line for line in shown if line.strip() and line.strip() not in ("…", "...")]
    return [line for line in wanted if canonical(line) not in real]


def session_env(ports: dict[str, int], metrics: dict[str, int], data_dir: Path) -> dict[str, str]:
    """A fresh shell's environment: the system's PATH without this virtual environment, no
    AGENTRT_* variables but the test system's ports and data directory."""
    venv_bins = {str(BIN), str(ROOT / ".venv" / "bin")}
    path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin").split(os.pathsep)
    return {
        "HOME": os.environ.get("HOME", "/root"),
        "PATH": os.pathsep.join(p for p in path if p and p not in venv_bins),
        "LANG": "C.UTF-8",
        "AGENTRT_DATA_DIR": str(data_dir),
        **{f"AGENTRT_{name.upper()}_PORT": str(port) for name, port in ports.items()},
        **{f"AGENTRT_{name.upper()}_METRICS_PORT": str(port) for name, port in metrics.items()},
    }


class Session:
    """One bash process that runs commands one at a time, each with its output in a file."""

    def __init__(self, env: dict[str, str], workdir: Path) -> None:
        self.dir = workdir
        self.count = 0
        self.bash = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            stdin=subprocess.PIPE,
            stdout=(workdir / "bash.out").open("wb"),
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env=env,
            start_new_session=True,  # one process group: what it starts is stopped with it
            text=True,
        )
        self._send("__rc=0\n")

    def _send(self, script: str) -> bool:
        assert self.bash.stdin is not None
        try:
            self.bash.stdin.write(script)
            self.bash.stdin.flush()
        except BrokenPipeError:  # the shell is gone
            return False
        return True

    def run(self, command: Command, wait_for: list[str]) -> tuple[int | None, Path]:
        """Run one command; its exit status (None if it did not finish in time) and output.
        A background command's status is 0 at once; then `wait_for` lines are awaited."""
        self.count += 1
        out, rc = self.dir / f"{self.count}.out", self.dir / f"{self.count}.rc"
        # `$?` is the previous command's status, as in an interactive shell; stdin is empty.
        script = (
            f"exec >{shlex.quote(str(out))} 2>&1\n(exit $__rc)\n{{\n{command.text}\n}} </dev/null\n"
            f"__rc=$?\nprintf '%s\\n' \"$__rc\" >{shlex.quote(str(rc))}\n"
        )
        if not self._send(script):
            return None, out
        deadline = time.monotonic() + COMMAND_TIMEOUT_S
        while not (rc.exists() and rc.read_text().endswith("\n")):
            if time.monotonic() > deadline or self.bash.poll() is not None:
                return None, out
            time.sleep(0.05)
        while command.background and missing_lines(wait_for, read(out)):
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        return int(rc.read_text()), out

    def close(self) -> None:
        """Stop the shell and whatever it left running (a provider in the background)."""
        group = self.bash.pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while alive(group) and time.monotonic() < deadline:
            self.bash.poll()
            time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
        self.bash.wait()
        with contextlib.suppress(BrokenPipeError):
            self.bash.stdin.close()  # type: ignore[union-attr]


def alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


@dataclass
class Result:
    block: Block
    command: Command  # as run: the test's ports in its text and in the output shown
    status: int | None
    path: Path  # its output so far (a background command's grows)
    ports: dict[int, int]  # the README's port -> the test's

    @property
    def output(self) -> str:
        return read(self.path)


def run_readme(base: Path) -> Iterator[Result]:
    """Start a system and run README.md's tested blocks against it, in order."""
    blocks = marked_blocks(README.read_text())
    numbers = free_ports(len(PORTS) + len(SERVICES))
    ports = dict(zip(PORTS, numbers[: len(PORTS)], strict=True))
    metrics = dict(zip(SERVICES, numbers[len(PORTS) :], strict=True))
    port_map = {DEFAULT_PORTS[name]: port for name, port in ports.items()}
    port_map |= {DEFAULT_METRICS_PORTS[name]: port for name, port in metrics.items()}
    data_dir = base / "data"
    system: System = start_system(
        data_dir,
        base / "up.log",
        ports=numbers[: len(PORTS)],
        **{f"AGENTRT_{name.upper()}_METRICS_PORT": str(port) for name, port in metrics.items()},
    )
    work = base / "session"
    work.mkdir()
    session = Session(session_env(ports, metrics, data_dir), work)
    try:
        for block in blocks:
            for command in block.commands:
                text = with_ports(command.text, port_map)
                shown = [with_ports(line, port_map) for line in command.shown]
                run = Command(text, command.line, shown)
                status, path = session.run(run, shown if block.check_output else [])
                yield Result(block, run, status, path, port_map)
                if status is None:
                    return
    finally:
        session.close()
        system.stop()


def problems(result: Result) -> list[str]:
    where = f"README.md:{result.command.line}: $ {result.command.text}"
    found = []
    if result.status is None:
        found.append(f"{where}\n  did not finish within {COMMAND_TIMEOUT_S} s")
    elif result.status != result.block.exit:
        found.append(f"{where}\n  exited {result.status}, not {result.block.exit}")
    if "Traceback" in result.output:
        found.append(f"{where}\n  printed a traceback")
    if result.block.check_output and (missing := missing_lines(result.command.shown, result.output)):
        found.append(f"{where}\n  shows lines it did not print: " + "\n    ".join(["", *missing]))
    if found:
        found[-1] += "\n  real output:" + "\n    ".join(["", *result.output.splitlines()])
    return found


def test_readme_commands_work_as_written(tmp_path: Path) -> None:
    if not (ROOT / ".venv" / "bin" / "activate").exists():
        pytest.skip("no .venv in the repository: `make up` or `make test` makes it")
    results = list(run_readme(tmp_path))
    found = [problem for result in results for problem in problems(result)]
    assert not found, "README.md's tested commands do not work as written:\n\n" + "\n\n".join(found)
    assert len(results) >= 30, f"only {len(results)} tested commands in README.md: are the markers there?"


def test_blocks_are_parsed_as_documented() -> None:
    text = "\n".join(
        [
            "<!-- tested: exit 1, no-output -->",
            "```console",
            "$ echo one \\",
            "    two",
            "one two",
            "$ python - <<'EOF'",
            "print(1)",
            "EOF",
            "1",
            "```",
            "<!-- tested -->",
            "```sh",
            "# a comment",
            "true  # and a trailing one",
            "sleep 100 &",
            "```",
        ]
    )
    first, second = marked_blocks(text)
    assert (first.exit, first.check_output, second.exit, second.check_output) == (1, False, 0, True)
    assert [(c.text, c.shown) for c in first.commands] == [
        ("echo one \\\n    two", ["one two"]),
        ("python - <<'EOF'\nprint(1)\nEOF", ["1"]),
    ]
    assert [(c.text, c.background) for c in second.commands] == [
        ("true  # and a trailing one", False),
        ("sleep 100 &", True),
    ]
    assert mask("run 0123456789abcdef0123456789abcdef at 2026-11-26T16:38:55.77Z took 0.88s") == (
        "run <id> at <time> took <duration>"
    )
    assert mask('"127.0.0.1:35127" in /tmp/x/data, catalog 27176db72806c94c') == (
        '"127.0.0.1:<port>" in <path>, catalog <version>'
    )
    assert canonical('data: {"b": 1, "a": "x"}') == canonical('data: {"a": "x",  "b": 1}')
    assert canonical("{'value': 300, 'op': '+'}") == canonical("{'op': '+', 'value': 300}")
    assert (
        with_ports("localhost:50051, :8080/v1", {50051: 40001, 8080: 40002}) == "localhost:40001, :40002/v1"
    )


def transcript() -> Iterator[tuple[Result, str, str]]:
    """Each tested command's result, its text and its whole output with the README's ports."""
    with tempfile.TemporaryDirectory() as tmp:
        results = list(run_readme(Path(tmp)))
        for result in results:
            back = {port: default for default, port in result.ports.items()}
            yield result, with_ports(result.command.text, back), with_ports(result.output, back)


if __name__ == "__main__":
    for result, text, output in transcript():
        print(f"# README.md:{result.command.line} (exit {result.status})")
        print("$ " + text)
        print(output, end="" if output.endswith("\n") or not output else "\n")
        for problem in problems(result):
            print(problem, file=sys.stderr)
