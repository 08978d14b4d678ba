"""What a failed model call means, in the registry's words: which reason, whether trying again can
help, and a message that names the model and its endpoint (never a key) and says what to do.

litellm reports a refused connection, an unknown host and a server error alike (an
`InternalServerError` saying "Connection error."); the cause is further down the exception
chain (openai's APIConnectionError, then the socket's ConnectionRefusedError or gaierror), so
the chain is read, not the top exception's type. The message is what a person reads in the
run's error and in each retry event: "model openai/local at http://127.0.0.1:8080/v1 refused
the connection".
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from agentrt.config import LLMModel

# What each failure kind is called in the registry (agentrt/core/reasons.py), whether another
# attempt may succeed, and what the person running agentrt can do about it.
_UNREACHABLE_HINT = (
    "is the model server running? (`agentrt model serve` starts the local one) "
    "Check api_base in AGENTRT_LLM_MODELS"
)
_KINDS: dict[str, tuple[str, bool, str]] = {
    "refused": ("LLM_UNREACHABLE", True, _UNREACHABLE_HINT),
    "dns": ("LLM_UNREACHABLE", True, "check the host name in api_base (AGENTRT_LLM_MODELS)"),
    "connection": ("LLM_UNREACHABLE", True, _UNREACHABLE_HINT),
    "timeout": (
        "LLM_TIMEOUT",
        True,
        "a model on a slow machine may need a longer AGENTRT_LLM_TIMEOUT_S, or a smaller model",
    ),
    "auth": ("LLM_AUTH_FAILED", False, "check api_key in AGENTRT_LLM_MODELS"),
    "not_found": ("LLM_MODEL_NOT_FOUND", False, "check the model's name in AGENTRT_LLM_MODELS"),
    "rate_limited": ("LLM_UNAVAILABLE", True, "the provider limits how often it may be called"),
    "server": ("LLM_UNAVAILABLE", True, "the model's server reported an error of its own"),
    "bad_request": (
        "LLM_BAD_REQUEST",
        False,
        "the request was too long for the model, or a setting is wrong",
    ),
}
_WHAT = {
    "refused": "refused the connection",
    "dns": "could not be found (the host name does not resolve)",
    "connection": "could not be reached",
    "auth": "refused the credentials",
    "not_found": "does not serve this model",
    "rate_limited": "is rate-limiting the calls",
    "server": "answered with a server error",
    "bad_request": "refused the request as invalid",
}


@dataclass(frozen=True)
class ModelFailure:
    kind: str
    reason: str  # a registry reason
    retryable: bool
    message: str  # safe to show: names the model and endpoint, never a key

    def __str__(self) -> str:
        return self.message


def endpoint(model: LLMModel) -> str:
    """Where the model is called, for people: api_base without credentials, query or fragment;
    a hosted provider's name when there is no api_base."""
    if model.api_base:
        parts = urlsplit(model.api_base)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", "")) or "(api_base)"
    provider = model.model.split("/", 1)[0] if "/" in model.model else model.model
    return f"{provider}'s API"


def named(model: LLMModel) -> str:
    return f"model {model.model} at {endpoint(model)}"


def timed_out(model: LLMModel, seconds: float) -> ModelFailure:
    return _failure("timeout", model, f"did not answer within {seconds:.1f} s")


def classify(exc: BaseException, models: list[LLMModel]) -> ModelFailure:
    """The failure `exc` (raised by litellm's Router for a call) means, naming the model it names
    (a fallback's failure is reported for that fallback), else the primary."""
    model = _which(exc, models)
    status = _status(exc)
    chain = _chain(exc)
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return _failure("refused", model)
    if any(isinstance(e, socket.gaierror) for e in chain):
        return _failure("dns", model)
    if any(isinstance(e, TimeoutError) or "Timeout" in type(e).__name__ for e in chain):
        return _failure("timeout", model, "did not answer in time")
    if any(type(e).__name__ in ("APIConnectionError", "ConnectError", "ClientConnectorError") for e in chain):
        return _failure("connection", model, f"could not be reached ({_short(chain[-1])})")
    if status is not None:
        return for_status(model, status, _short(exc))
    return _failure("server", model, f"failed: {type(exc).__name__}: {_short(exc)}")


def for_status(model: LLMModel, status: int, text: str) -> ModelFailure:
    """What an HTTP error status from the model's endpoint means; `text` is its body (clipped)."""
    said = text.strip().splitlines()[0][:200] if text.strip() else ""
    if status in (401, 403):
        return _failure("auth", model, f"refused the credentials (HTTP {status})")
    if status == 404:
        return _failure("not_found", model, f"does not serve this model (HTTP {status})")
    if status == 429:
        return _failure("rate_limited", model, "is rate-limiting the calls (HTTP 429)")
    if status in {400, 422}:
        return _failure("bad_request", model, f"refused the request (HTTP {status}: {said})")
    if status >= 500:
        return _failure("server", model, f"answered with a server error (HTTP {status}: {said})")
    return _failure("server", model, f"answered HTTP {status}: {said}")


def _failure(kind: str, model: LLMModel, what: str | None = None) -> ModelFailure:
    reason, retryable, hint = _KINDS[kind]
    return ModelFailure(kind, reason, retryable, f"{named(model)} {what or _WHAT[kind]}: {hint}")


def _which(exc: BaseException, models: list[LLMModel]) -> LLMModel:
    name = str(getattr(exc, "model", "") or "")
    for model in models:
        if name and (name == model.model or model.model.endswith("/" + name)):
            return model
    return models[0]


def _status(exc: BaseException) -> int | None:
    for e in _chain(exc):
        status = getattr(e, "status_code", None)
        if isinstance(status, int):
            # litellm calls a failed connection a 500: the chain's cause decides that case
            return status
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(out) < 16 and current not in out:
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _short(exc: BaseException) -> str:
    """The first line of an exception's text, bounded (a provider's text may be long; keys in it
    are redacted where the message leaves the planner, agentrt/core/text.py)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]
