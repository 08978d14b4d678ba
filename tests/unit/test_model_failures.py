"""What a failed model call means (planner_svc/modelfailures.py): the reason and whether to retry
come from the cause down the exception chain, and the message names the endpoint, never a key."""

from __future__ import annotations

import itertools
import socket

import pytest
from pydantic import SecretStr

from agentrt.config import LLMModel
from agentrt.core.reasons import REASONS
from planner_svc.modelfailures import classify, endpoint, for_status, timed_out

LOCAL = LLMModel(model="openai/local", api_base="http://127.0.0.1:8081/v1")


def chained(*errors: BaseException) -> BaseException:
    """errors[0] raised from errors[1] raised from ... (as litellm wraps openai wraps httpx)."""
    for outer, inner in itertools.pairwise(errors):
        outer.__cause__ = inner
    return errors[0]


class InternalServerError(Exception):  # litellm's name for a failed connection, with status 500
    status_code = 500


@pytest.mark.parametrize(
    ("cause", "reason", "words"),
    [
        (ConnectionRefusedError(111, "Connect call failed"), "LLM_UNREACHABLE", "refused the connection"),
        (socket.gaierror(-2, "Name or service not known"), "LLM_UNREACHABLE", "could not be found"),
        (TimeoutError(), "LLM_TIMEOUT", "did not answer in time"),
    ],
)
def test_the_cause_under_litellms_500_decides(cause: BaseException, reason: str, words: str) -> None:
    failure = classify(chained(InternalServerError("Connection error."), OSError("wrapped"), cause), [LOCAL])
    assert (failure.reason, failure.retryable) == (reason, True)
    assert (
        failure.message.startswith("model openai/local at http://127.0.0.1:8081/v1 ")
        and words in failure.message
    )
    assert REASONS[failure.reason].retryable


@pytest.mark.parametrize(
    ("status", "reason", "retryable"),
    [
        (401, "LLM_AUTH_FAILED", False),
        (403, "LLM_AUTH_FAILED", False),
        (404, "LLM_MODEL_NOT_FOUND", False),
        (400, "LLM_BAD_REQUEST", False),
        (429, "LLM_UNAVAILABLE", True),
        (503, "LLM_UNAVAILABLE", True),
    ],
)
def test_http_statuses(status: int, reason: str, retryable: bool) -> None:
    failure = for_status(LOCAL, status, "the provider's own words\nand more")
    assert (failure.reason, failure.retryable) == (reason, retryable)
    assert REASONS[reason].retryable == retryable
    assert "and more" not in failure.message  # its first line, at most


def test_the_endpoint_never_carries_credentials() -> None:
    secret = "sk-0123456789abcdef"
    model = LLMModel(
        model="openai/x",
        api_base=f"https://user:{secret}@llm.example:8443/v1?key={secret}#f",
        api_key=SecretStr(secret),
    )
    assert endpoint(model) == "https://llm.example:8443/v1"
    assert secret not in timed_out(model, 20).message
    assert endpoint(LLMModel(model="anthropic/claude-3-5-haiku-latest")) == "anthropic's API"


def test_a_fallbacks_failure_names_that_fallback() -> None:
    fallback = LLMModel(model="openai/backup", api_base="http://10.0.0.9:8000/v1")
    error = InternalServerError("boom")
    error.model = "backup"  # type: ignore[attr-defined]  # as litellm's exceptions carry it
    failure = classify(chained(error, ConnectionRefusedError()), [LOCAL, fallback])
    assert "openai/backup at http://10.0.0.9:8000/v1" in failure.message
