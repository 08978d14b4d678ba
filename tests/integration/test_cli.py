"""The `agentrt` command line and the Python client: health, finding the gateway, configuration
errors, watch, printed values."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from agentrt import cli
from agentrt.cli.main import CLOSED_PIPE
from agentrt.client import Client, result_value, to_dict
from agentrt.v1 import run_pb2
from tests import pg
from tests.conftest import Stack
from tests.e2e.procs import free_ports


async def health(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    # In a thread: the command blocks, and the servers it asks run on this test's event loop.
    code = await asyncio.to_thread(cli.main, ["health", *args, "--timeout", "2"])
    # The servers log to stdout in this process too: the command's answer is the last line.
    return code, capsys.readouterr().out.strip().splitlines()[-1]


async def test_health_tells_serving_unknown_and_unreachable_apart(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"127.0.0.1:{stack.port('tools')}"
    assert await health(capsys, "--target", target) == (0, "SERVING")
    assert await health(capsys, "--target", target, "--service", "no.such.Service") == (1, "SERVICE UNKNOWN")
    (port,) = free_ports(1)
    code, out = await health(capsys, "--target", f"127.0.0.1:{port}")
    assert code == 2
    assert out.startswith(f"UNREACHABLE: nothing answered at 127.0.0.1:{port}")


async def test_client_commands_find_the_gateway_from_the_settings(
    stack: Stack, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTRT_HOST", "0.0.0.0")  # a wildcard bind: clients use loopback
    monkeypatch.setenv("AGENTRT_GATEWAY_PORT", str(stack.port("gateway")))
    assert await asyncio.to_thread(cli.main, ["list"]) == 0
    assert await health(capsys, "--service", "agentrt.v1.RunService") == (0, "SERVING")
    (port,) = free_ports(1)
    monkeypatch.setenv("AGENTRT_TARGET", f"127.0.0.1:{port}")  # wins over host and port
    assert (await health(capsys))[0] == 2


def test_configuration_errors_are_one_line_per_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTRT_PLANNER_CHAIN", "[llm, rules]")
    with pytest.raises(SystemExit) as info:
        cli.main(["up"])
    example = '(for example \'["llm", "rules"]\')'
    assert (
        str(info.value)
        == f"agentrt: invalid configuration\n  AGENTRT_PLANNER_CHAIN: not valid JSON {example}"
    )
    monkeypatch.setenv("AGENTRT_GATEWAY_PORT", "99999")
    monkeypatch.setenv("AGENTRT_LOG_LEVEL", "loud")
    monkeypatch.delenv("AGENTRT_PLANNER_CHAIN")
    with pytest.raises(SystemExit) as info:
        cli.main(["list"])
    lines = str(info.value).splitlines()[1:]
    # The common settings first, then each section's.
    assert [line.split(":")[0].strip() for line in lines] == ["AGENTRT_LOG_LEVEL", "AGENTRT_GATEWAY_PORT"]
    assert "less than or equal to 65535 (for example 50051)" in lines[1]
    monkeypatch.delenv("AGENTRT_GATEWAY_PORT")
    monkeypatch.delenv("AGENTRT_LOG_LEVEL")
    monkeypatch.setenv("AGENTRT_PLANNER_CHAIN", '["llm", "rules"]')
    with pytest.raises(SystemExit, match="AGENTRT_LLM_MODELS: planner_chain includes"):
        cli.main(["up"])


async def test_watching_past_the_end_of_a_finished_run_says_why(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"127.0.0.1:{stack.port('gateway')}"
    assert await asyncio.to_thread(cli.main, ["run", "add 2 and 3", "--target", target]) == 0
    run_id = capsys.readouterr().out.split("run ", 1)[1].split()[0]
    code = await asyncio.to_thread(cli.main, ["watch", run_id, "--after-seq", "99", "--target", target])
    assert code == 0  # it succeeded; there was just nothing left to show
    assert "finished (succeeded) at event" in capsys.readouterr().err


async def test_numbers_print_as_json_does_and_the_final_result_is_whole(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"127.0.0.1:{stack.port('gateway')}"
    text = "pack " + "very " * 80 + "carefully"  # longer than any cut line
    assert await asyncio.to_thread(cli.main, ["run", f"add a todo to {text}", "--target", target]) == 0
    out = capsys.readouterr().out
    run_id = out.split("run ", 1)[1].split()[0]
    lines = out.splitlines()
    answered = next(i for i, line in enumerate(lines) if "run succeeded:" in line)
    # The answer in words first, then the structured result under it.
    assert lines[answered].endswith("run succeeded: Added '" + text[:79] + "…' (#1).")
    final = lines[answered + 1]
    assert final.strip().startswith("result {")
    assert text in final and '"id": 1,' in final  # whole, and 1 rather than 1.0
    assert await asyncio.to_thread(cli.main, ["get", run_id, "--json", "--target", target]) == 0
    got = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert got["result"]["todo"]["id"] == 1 and isinstance(got["result"]["todo"]["id"], int)
    assert await asyncio.to_thread(cli.main, ["get", run_id, "--target", target]) == 0
    described = capsys.readouterr().out
    assert '"id": 1,' in described and "  answer: Added 'pack very" in described


async def test_the_python_client_gives_python_values(stack: Stack) -> None:
    def use() -> tuple[object, dict]:
        with Client(f"127.0.0.1:{stack.port('gateway')}") as client:
            run = client.create_run("what is 41*7+13", idempotency_key="my-request-1")
            list(client.watch(run.run_id))
            done = client.get_run(run.run_id)
            return result_value(done), to_dict(done)

    value, as_dict = await asyncio.to_thread(use)
    assert value == {"expression": "41*7+13", "value": 300}
    assert isinstance(value["value"], int)  # type: ignore[index]
    assert as_dict["status"] == "RUN_STATUS_SUCCEEDED"
    assert as_dict["result"] == value


def _agentrt_process(stack: Stack, *args: str) -> subprocess.Popen[str]:
    """`python -m agentrt ARGS` as a process of its own, against the stack's gateway."""
    return subprocess.Popen(
        [sys.executable, "-m", "agentrt", *args, "--target", f"127.0.0.1:{stack.port('gateway')}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def test_detach_prints_exactly_the_id_and_a_closed_pipe_ends_quietly(stack: Stack) -> None:
    def detached() -> tuple[int, str, str]:
        process = _agentrt_process(stack, "run", "--detach", "what is 2 + 2")
        out, err = process.communicate(timeout=60)
        return process.returncode, out, err

    code, out, err = await asyncio.to_thread(detached)
    assert code == 0, err
    run_id = out.strip()
    assert out == f"{run_id}\n" and len(run_id) == 32  # id=$(agentrt run --detach ...) works
    assert f"run {run_id} created: what is 2 + 2" in err  # what was created, for a person

    def listed_into_a_closed_pipe() -> tuple[int, str]:
        process = _agentrt_process(stack, "list")
        assert process.stdout is not None
        process.stdout.close()  # `agentrt list | head -0`: the reader is gone before anything is written
        return process.wait(timeout=60), process.stderr.read() if process.stderr else ""

    code, err = await asyncio.to_thread(listed_into_a_closed_pipe)
    assert (code, err) == (CLOSED_PIPE, "")  # no BrokenPipeError traceback


async def test_ctrl_c_while_watching_says_the_run_goes_on_and_how_to_follow_it(approving: Stack) -> None:
    def interrupted() -> tuple[int, str, str]:
        # Deleting a todo waits for a person here: the watch would go on until someone answers.
        process = _agentrt_process(approving, "run", "delete todo 1")
        assert process.stdout is not None
        header = process.stdout.readline()
        for line in process.stdout:  # until the run says it waits
            if "waiting" in line or "awaiting" in line:
                break
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        return process.returncode, header, err

    code, header, err = await asyncio.to_thread(interrupted)
    run_id = header.split()[1]
    assert code == 130
    assert f"stopped watching; run {run_id} goes on. Follow it again with: agentrt watch {run_id}" in err
    assert "Traceback" not in err
    assert (await approving.gateway.GetRun(run_pb2.GetRunRequest(run_id=run_id))).run.status == (
        run_pb2.RUN_STATUS_WAITING  # still there, still waiting: only the watching stopped
    )


def _run_alone(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> tuple[int, str, str]:
    """`python -m agentrt ARGS` as a process of its own, with `env` over this one's."""
    process = subprocess.run(
        [sys.executable, "-m", "agentrt", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
    return process.returncode, process.stdout, process.stderr


def test_a_gateway_that_does_not_answer_is_one_line_saying_where_and_what_to_run() -> None:
    (port,) = free_ports(1)
    code, out, err = _run_alone("list", "--target", f"127.0.0.1:{port}")
    assert (code, out) == (2, "")
    assert err == (
        f"agentrt: nothing answers at 127.0.0.1:{port}, where the gateway should be (connection refused): "
        "start agentrt with `make up` (or `agentrt up`), "
        "or point --target or $AGENTRT_TARGET at a running one\n"
    )
    code, _, err = _run_alone("tools", "list", "--tools-addr", f"127.0.0.1:{port}")
    assert code == 2 and err.count("\n") == 1
    assert f"nothing answers at 127.0.0.1:{port}, where tools_svc should be" in err
    code, _, err = _run_alone("list", "--debug", "--target", f"127.0.0.1:{port}")
    assert (
        code == 1 and "Traceback" in err and "ClientError: UNAVAILABLE" in err
    )  # the whole story, asked for


@pytest.mark.parametrize("case", ["refused", "no such database", "unknown host", "not a URL", "port taken"])
def test_a_service_that_cannot_start_says_why_in_one_line(case: str, tmp_path: Path) -> None:
    free, port = free_ports(2)
    env = {"AGENTRT_DATA_DIR": str(tmp_path), "AGENTRT_EXECUTOR_PORT": str(port)}
    env |= {f"AGENTRT_{name}_METRICS_PORT": "0" for name in ("EXECUTOR", "PLANNER")}
    service, expected = "executor", "cannot use the database at "
    if case == "refused":
        env["AGENTRT_DATABASE_URL"] = f"postgresql://agentrt:hunter2@127.0.0.1:{free}/agentrt"
        expected += f"postgresql://agentrt:***@127.0.0.1:{free}/agentrt: connection refused; check AGENTRT_"
    elif case == "no such database":
        env["AGENTRT_DATABASE_URL"] = pg.TEST_URL.rsplit("/", 1)[0] + "/no_such_database"
        expected = 'database "no_such_database" does not exist; check AGENTRT_DATABASE_URL'
    elif case == "unknown host":
        env["AGENTRT_DATABASE_URL"] = "postgresql://agentrt@db.invalid/agentrt"
        expected += "postgresql://agentrt@db.invalid/agentrt: host name 'db.invalid' does not resolve"
    elif case == "not a URL":
        env["AGENTRT_DATABASE_URL"] = "::"
        expected = "AGENTRT_DATABASE_URL is not a database URL"
    else:
        service = "planner"
        holder = socket.socket()
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        env["AGENTRT_PLANNER_PORT"] = str(holder.getsockname()[1])
        expected = f"cannot listen on 127.0.0.1:{env['AGENTRT_PLANNER_PORT']}: address already in use"
    try:
        code, _, err = _run_alone("serve", service, env=env)
    finally:
        if case == "port taken":
            holder.close()
    if case == "no such database" and "connection refused" in err:
        pytest.skip(f"PostgreSQL not reachable at {pg.TEST_URL}")
    assert code == 1
    assert err.startswith(f"agentrt {service}: ") and expected in err, err
    assert err.count("\n") == 1 and "Traceback" not in err and "hunter2" not in err  # one line, no secret


async def test_every_command_that_prints_a_record_prints_json_on_request(stack: Stack) -> None:
    def json_lines(*args: str) -> list[dict[str, object]]:
        process = _agentrt_process(stack, *args, "--output", "json")
        out, err = process.communicate(timeout=60)
        assert process.returncode in (0, 1), err
        return [json.loads(line) for line in out.splitlines()]

    (created,) = await asyncio.to_thread(json_lines, "run", "--detach", "what is 6 * 7")
    run_id = created["runId"]
    events = await asyncio.to_thread(json_lines, "watch", run_id)
    assert events[-1]["statusChanged"]["status"] == "RUN_STATUS_SUCCEEDED"
    (got,) = await asyncio.to_thread(json_lines, "get", run_id)
    assert got["status"] == "RUN_STATUS_SUCCEEDED" and got["result"]["value"] == 42
    listed = await asyncio.to_thread(json_lines, "list")
    assert run_id in [run["runId"] for run in listed]  # a record per line
    (thread,) = await asyncio.to_thread(json_lines, "threads", "create")
    (deleted,) = await asyncio.to_thread(json_lines, "threads", "delete", thread["threadId"])
    assert deleted == {"threadId": thread["threadId"], "deleted": True}
    health = await asyncio.to_thread(json_lines, "health")
    assert health[0]["status"] == "SERVING"
