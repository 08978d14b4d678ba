"""Library log records (httpx, litellm, the MCP SDK...) go through the services' own processors:
JSON lines with the service, level, timestamp, logger and run context, redacted, levels set by
AGENTRT_LOG_LEVELS."""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import structlog
from opentelemetry.sdk.trace import TracerProvider

from agentrt.config import ConfigError, load_settings
from agentrt.core import text
from agentrt.core.text import REDACTED, register_secrets
from agentrt.server import logs
from agentrt.server.logs import configure_logging

SECRET = "sk-live-kept-0123456789"


class Stdout:
    """What the test wrote to stdout (pytest's capture, which configure_logging writes to)."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self._capsys = capsys
        self._text = ""

    def getvalue(self) -> str:
        self._text += self._capsys.readouterr().out
        return self._text


@pytest.fixture
def out(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Iterator[Stdout]:
    """Stdout; logging, secrets and structlog put back afterwards."""
    monkeypatch.setattr(text, "_secrets", [])
    monkeypatch.setattr(logs, "_installed", logs._Installed())
    root_level = logging.root.level
    yield Stdout(capsys)
    structlog.contextvars.clear_contextvars()
    structlog.reset_defaults()
    logging.captureWarnings(False)
    if logs._installed.handler is not None:
        logging.root.removeHandler(logs._installed.handler)
    for name in logs._installed.levels:
        logging.getLogger(name).setLevel(logging.NOTSET)
    logging.root.setLevel(root_level)


def lines(stream: Stdout) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_library_record_is_a_json_line_with_the_service_fields_and_no_secret(out: Stdout) -> None:
    register_secrets([SECRET])
    configure_logging("info", "json", service="planner")
    logging.getLogger("litellm").warning("upstream refused key %s (retrying)", SECRET)

    assert SECRET not in out.getvalue()
    (line,) = lines(out)
    assert line["event"] == f"upstream refused key {REDACTED} (retrying)"
    assert (line["service"], line["level"], line["logger"]) == ("planner", "warning", "litellm")
    assert datetime.fromisoformat(line["timestamp"]).utcoffset() is not None


def test_a_library_traceback_is_redacted_too(out: Stdout) -> None:
    register_secrets([SECRET])
    configure_logging("info", "json", service="tools")
    try:
        raise RuntimeError(f"401 from upstream for key {SECRET}")
    except RuntimeError:
        logging.getLogger("httpx").exception("request failed")

    assert SECRET not in out.getvalue()
    (line,) = lines(out)
    assert line["level"] == "error"
    (exception,) = line["exception"]
    assert exception["exc_type"] == "RuntimeError"
    assert exception["exc_value"] == f"401 from upstream for key {REDACTED}"


def test_nested_values_of_own_lines_are_redacted_without_changing_the_callers_data(out: Stdout) -> None:
    register_secrets([SECRET])
    configure_logging("info", "json", service="tools")
    headers = {"authorization": f"Bearer {SECRET}"}
    structlog.get_logger().info("called", headers=headers, args=[SECRET])

    assert SECRET not in out.getvalue()
    assert headers == {"authorization": f"Bearer {SECRET}"}


def test_run_context_reaches_library_lines_on_the_same_stream(out: Stdout) -> None:
    configure_logging("info", "json", service="tools")
    with structlog.contextvars.bound_contextvars(run_id="run-42", step_id="s1"):
        structlog.get_logger().info("step.started")
        logging.getLogger("mcp.client.streamable_http").warning("session lost")
    logging.getLogger("mcp.client.streamable_http").warning("outside any run")

    own, inside, outside = lines(out)
    assert own["event"] == "step.started" and own["run_id"] == "run-42"
    assert inside["event"] == "session lost"
    assert (inside["run_id"], inside["step_id"]) == ("run-42", "s1")
    assert inside["logger"] == "mcp.client.streamable_http"
    assert "run_id" not in outside


def test_trace_ids_reach_library_lines_written_inside_a_span(out: Stdout) -> None:
    configure_logging("info", "json", service="executor")
    tracer = TracerProvider().get_tracer("test")  # a provider of its own: the global one stays unset
    with tracer.start_as_current_span("step s1") as span:
        logging.getLogger("httpx").warning("slow answer")
    (line,) = lines(out)
    context = span.get_span_context()
    assert line["trace_id"] == format(context.trace_id, "032x")
    assert line["span_id"] == format(context.span_id, "016x")


def test_log_levels_setting_quietens_or_opens_a_library_by_name(
    out: Stdout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTRT_LOG_LEVELS", '{"httpx": "error", "mcp": "info"}')
    settings = load_settings()
    configure_logging("info", "json", service="tools", library_levels=settings.log_levels)

    logging.getLogger("httpx").warning("quietened")
    logging.getLogger("httpx._client").warning("quietened, as a child of httpx")
    logging.getLogger("httpx").error("still shown")
    logging.getLogger("mcp.client").info("opened up")
    logging.getLogger("litellm").info("below the default")
    logging.getLogger("litellm").warning("at the default")

    assert [line["event"] for line in lines(out)] == ["still shown", "opened up", "at the default"]


def test_without_log_levels_libraries_write_warnings_and_above(out: Stdout) -> None:
    configure_logging("debug", "json")
    logging.getLogger("httpx").info("HTTP Request: GET http://example")
    logging.getLogger("httpx").warning("shown")
    assert [line["event"] for line in lines(out)] == ["shown"]


def test_a_bad_log_level_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTRT_LOG_LEVELS", '{"httpx": "loud"}')
    with pytest.raises(ConfigError, match="AGENTRT_LOG_LEVELS"):
        load_settings()


def test_configuring_again_replaces_the_handler_and_the_levels(out: Stdout) -> None:
    configure_logging("info", "json", library_levels={"httpx": "error"})
    configure_logging("info", "json", service="gateway")
    # A library's own basicConfig (the MCP SDK's server calls it) changes nothing.
    logging.basicConfig(level=logging.INFO)
    logging.getLogger("uvicorn.error").info("not shown: libraries stay at WARNING")
    logging.getLogger("httpx").warning("shown once: the earlier error level is gone")

    (line,) = lines(out)
    assert (line["service"], line["event"]) == ("gateway", "shown once: the earlier error level is gone")


def test_python_warnings_become_log_lines(out: Stdout) -> None:
    configure_logging("info", "json", service="planner")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("a library is unhappy", RuntimeWarning, stacklevel=1)
    (line,) = lines(out)
    assert line["logger"] == "py.warnings" and "RuntimeWarning: a library is unhappy" in line["event"]


def test_console_format_renders_library_records_redacted(out: Stdout) -> None:
    register_secrets([SECRET])
    configure_logging("info", "console", service="planner")
    logging.getLogger("litellm").warning("bad key %s", SECRET)
    written = out.getvalue()
    assert SECRET not in written and REDACTED in written
    assert "litellm" in written and len(written.splitlines()) == 1


# -- bounds: what an attacker sent never reaches a log whole ------------------------------------


def _deep(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def _fail_holding(body: Any) -> None:
    # `body` is a local of the failing frame, as the A2A SDK's was when it logged its parse error.
    raise ValueError("Failed to parse: " + "x" * 100_000)


@pytest.mark.parametrize("use_library", [False, True])
def test_a_traceback_never_carries_frame_locals_and_every_line_is_bounded(
    out: Stdout, use_library: bool
) -> None:
    from agentrt.server.logbounds import MAX_LINE_CHARS  # noqa: PLC0415

    configure_logging("info", "json", service="gateway")
    body = {"params": {"metadata": _deep(600)}, "secret_in_a_local": SECRET}
    try:
        _fail_holding(body)
    except ValueError:
        if use_library:
            logging.getLogger("a2a.server").exception("Request Error: %s", "y" * 50_000)
        else:
            structlog.get_logger("x").exception("request.failed", body=body, blob="z" * 50_000)
    (line,) = out.getvalue().splitlines()
    assert len(line) <= MAX_LINE_CHARS
    record = json.loads(line)  # still one JSON line
    assert record["level"] == "error"
    frames = record["exception"][0]["frames"]
    assert frames and all(frame.get("locals") is None for frame in frames)
    assert "_fail_holding" in [frame["name"] for frame in frames]
    assert record["exception"][0]["exc_value"].endswith("characters in all]")
    assert '"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a"' not in line  # nested 600 deep: cut
    if not use_library:
        assert record["body"]["params"]["metadata"]["a"]["a"]["a"]["a"].startswith("<dict of 1 items")


def test_a_line_past_the_bound_says_it_was_cut_and_keeps_what_identifies_it(out: Stdout) -> None:
    from agentrt.server.logbounds import MAX_LINE_CHARS  # noqa: PLC0415

    configure_logging("info", "json", service="gateway")
    # Each value within its own bound, together far past the line's.
    structlog.get_logger("x").warning("many.values", **{f"v{i}": 'é"' * 2000 for i in range(40)})
    (line,) = out.getvalue().splitlines()
    assert len(line) <= MAX_LINE_CHARS
    record = json.loads(line)
    assert (record["event"], record["level"], record["service"]) == ("many.values", "warning", "gateway")
    assert record["log_line_cut"] > MAX_LINE_CHARS
    assert record["head"].startswith("{")


def test_a_secret_straddling_the_value_bound_is_redacted_whole(out: Stdout) -> None:
    from agentrt.server.logbounds import MAX_VALUE_CHARS  # noqa: PLC0415

    configure_logging("info", "json", service="gateway")
    register_secrets([SECRET])
    text_value = "x" * (MAX_VALUE_CHARS - 5) + SECRET + "y" * 100
    structlog.get_logger("x").info("echo", text=text_value, number=10**5000, items=list(range(10_000)))
    (record,) = lines(out)
    assert SECRET[:5] not in record["text"] and REDACTED[:5] in record["text"]
    assert record["number"] == "<int of 16610 bits>"
    assert len(record["items"]) == 65 and record["items"][-1] == "… 9936 more items"
