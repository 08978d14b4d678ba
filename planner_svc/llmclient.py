"""One litellm Router for the planner's LLM work (plans and agent decisions): the primary model
with its fallbacks, explicit timeouts, `num_retries=0` (the planner owns its retry budget: the
repair rounds and the chain), usage and cost read off every response, streaming included.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

# Before litellm is imported anywhere: use the bundled model price map, never fetch one.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agentrt.config import LLMModel, PlannerSettings
from agentrt.core.text import register_secrets
from agentrt.v1 import plan_pb2
from planner_svc.modelfailures import ModelFailure, classify, for_status, timed_out


class LLMCallFailed(Exception):
    """The LLM did not answer (timeout, connection, provider error): `failure` says what that
    means (reason, retryable) and names the endpoint; the text is safe to show once passed
    through agentrt.core.text.outgoing (a provider's own text may quote a key)."""

    def __init__(self, failure: ModelFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


@dataclass
class Completion:
    """What one LLM call produced: its text, its tool calls (name, raw JSON arguments), usage."""

    content: str = ""
    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    usage: plan_pb2.Usage = field(default_factory=plan_pb2.Usage)


class LLMClient:
    def __init__(self, settings: PlannerSettings) -> None:
        # litellm takes seconds to import: only processes that use an LLM pay for it.
        try:
            from litellm import Router  # noqa: PLC0415
        except ImportError:
            raise RuntimeError(
                "the LLM planner and agent mode need litellm: pip install 'agentrt[llm]' "
                '(or take "llm" out of AGENTRT_PLANNER_CHAIN and AGENTRT_LLM_MODELS)'
            ) from None
        self._settings = settings
        self.models = settings.llm_models
        # Providers' error texts may quote a key: never pass one on (see agentrt/core/text.py).
        register_secrets(m.api_key.get_secret_value() for m in self.models if m.api_key is not None)
        model_list = [
            {"model_name": f"m{i}", "litellm_params": _litellm_params(m)} for i, m in enumerate(self.models)
        ]
        fallbacks = [{"m0": [f"m{i}" for i in range(1, len(self.models))]}] if len(self.models) > 1 else []
        self._router = Router(
            model_list=model_list, fallbacks=fallbacks, num_retries=0, timeout=settings.llm_timeout_s
        )

    @property
    def primary(self) -> LLMModel:
        return self.models[0]

    def response_format(self, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        """Structured output for the primary model: a JSON schema where supported, else JSON mode."""
        mode = self.primary.response_format
        if mode == "auto":
            mode = (
                "json_schema" if _supports("supports_response_schema", self.primary.model) else "json_object"
            )
        if mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
        return {"type": "json_object"}

    def constrained(self) -> bool:
        """Whether the primary model's output is held to the schema (so examples are not needed)."""
        return self.response_format("x", {})["type"] == "json_schema"

    def uses_tools(self) -> bool:
        """Whether agent decisions use the provider's function calling."""
        mode = self.primary.tool_calling
        if mode == "auto":
            return _supports("supports_function_calling", self.primary.model)
        return mode == "tools"

    async def ping(self, index: int, seconds: float) -> None:
        """Whether model `index` alone answers (no fallback may answer for it), or LLMCallFailed
        saying why not: what CheckModels asks. An OpenAI-compatible server (an "openai/..." model
        with api_base: llama.cpp, vLLM, the local model) is asked for its model list, which costs
        no tokens and uses up no answer; any other model, one completion of one token."""
        import litellm  # noqa: PLC0415 - see __init__

        model = self.models[index]
        if model.api_base and model.model.startswith("openai/"):
            await _list_models(model, seconds)
            return
        with _model_call([model], seconds):
            await litellm.acompletion(
                **_litellm_params(model),
                messages=[{"role": "user", "content": "Reply with OK."}],
                max_tokens=1,
                timeout=seconds,
                num_retries=0,
            )

    def count_tokens(self, messages: list[dict[str, Any]]) -> int:
        """The tokens `messages` take for the primary model (what the history budget counts)."""
        return count_tokens(self.primary.model, messages)

    async def complete(self, call: dict[str, Any], seconds: float) -> Completion:
        """One call, whole answer at once."""
        with _model_call(self.models, seconds):
            response = await self._router.acompletion(**call, timeout=seconds)
        return _completion_of(response)

    async def stream(
        self, call: dict[str, Any], seconds: float, on_text: Callable[[str], None]
    ) -> Completion:
        """One call streamed: `on_text` gets each piece of text as it arrives; the Completion
        is the whole answer (tool call arguments assembled from their pieces)."""
        import litellm  # noqa: PLC0415 - see __init__

        chunks: list[Any] = []
        with _model_call(self.models, seconds):
            async with asyncio.timeout(seconds):
                stream = await self._router.acompletion(
                    **call, stream=True, stream_options={"include_usage": True}, timeout=seconds
                )
                async for chunk in stream:
                    chunks.append(chunk)
                    if chunk.choices and (text := chunk.choices[0].delta.content):
                        on_text(text)
        if not chunks:
            raise LLMCallFailed(classify(RuntimeError("the model sent an empty stream"), self.models))
        built = litellm.stream_chunk_builder(chunks)
        out = _completion_of(built)
        if not out.usage.cost_usd:
            with contextlib.suppress(Exception):  # a model litellm has no price for (local ones): 0
                out.usage.cost_usd = float(litellm.completion_cost(completion_response=built) or 0.0)
        return out


@contextlib.contextmanager
def _model_call(models: list[LLMModel], seconds: float) -> Iterator[None]:
    """Around a call to `models` (the first is the one timed out): any failure as LLMCallFailed,
    saying what it means (modelfailures.py). The one place a model call's exception is read."""
    import litellm  # noqa: PLC0415 - see LLMClient.__init__

    try:
        yield
    except (TimeoutError, litellm.Timeout):
        raise LLMCallFailed(timed_out(models[0], seconds)) from None
    except Exception as exc:
        raise LLMCallFailed(classify(exc, models)) from None


# What a model list check reads of an error's body (only its first line is ever shown).
ERROR_BODY_BYTES = 4096


async def _list_models(model: LLMModel, seconds: float) -> None:
    """GET {api_base}/models with the model's key: reachable, and the key accepted. The list
    itself is never read; of an error, at most ERROR_BODY_BYTES."""
    import httpx  # noqa: PLC0415 - litellm's own dependency, loaded with it

    key = model.api_key.get_secret_value() if model.api_key else ""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = f"{(model.api_base or '').rstrip('/')}/models"
    body = b""
    try:
        async with (
            httpx.AsyncClient(timeout=seconds) as http,
            http.stream("GET", url, headers=headers) as response,
        ):
            status = response.status_code
            if status >= 400:
                async for piece in response.aiter_bytes():
                    body += piece
                    if len(body) >= ERROR_BODY_BYTES:
                        break
    except httpx.TimeoutException:
        raise LLMCallFailed(timed_out(model, seconds)) from None
    except httpx.HTTPError as exc:
        raise LLMCallFailed(classify(exc, [model])) from None
    if status >= 400:
        text = body[:ERROR_BODY_BYTES].decode(errors="replace")
        raise LLMCallFailed(for_status(model, status, text))


def _completion_of(response: Any) -> Completion:
    """A litellm response (whole, or rebuilt from a stream's chunks) as a Completion."""
    message = response.choices[0].message
    out = Completion(content=message.content or "")
    for call in getattr(message, "tool_calls", None) or []:
        out.tool_calls.append((call.function.name or "", call.function.arguments or ""))
    add_usage(out.usage, response)
    return out


def count_tokens(model: str, messages: list[dict[str, Any]]) -> int:
    """litellm's token_counter for `model`, offline. litellm counts most models with a tokenizer it
    bundles (tiktoken's cl100k_base; Anthropic's for a few bare Claude names), but for some model
    names (llama-2, llama-3, replicate/..., some Cohere ones) it downloads one from Hugging Face first:
    without a network that is ~23 s of retries, then tiktoken anyway. Those are counted with the
    bundled cl100k_base straight away (an approximation for them); should litellm fail at all, with
    approximate_tokens."""
    try:
        import litellm  # noqa: PLC0415 - see LLMClient.__init__

        kind = getattr(litellm.utils, "huggingface_tokenizer_kind", None)
        offline = kind is not None and kind(model) in (None, "anthropic")
        return int(litellm.token_counter(model=model if offline else "", messages=messages))
    except Exception:
        return approximate_tokens(messages)


def approximate_tokens(messages: list[dict[str, Any]]) -> int:
    """One token per 3 bytes of UTF-8 and 4 per message: cl100k_base measured 3.1-3.3 bytes a token
    on English, German, Chinese and JSON text (less on digits and hex ids)."""
    return sum(4 + math.ceil(len(str(m.get("content") or "").encode()) / 3) for m in messages)


def _supports(check: str, model: str) -> bool:
    import litellm  # noqa: PLC0415 - see LLMClient.__init__

    try:
        return bool(getattr(litellm, check)(model=model))
    except Exception:
        return False


def _litellm_params(model: LLMModel) -> dict[str, Any]:
    params: dict[str, Any] = {"model": model.model}
    if model.api_base:
        params["api_base"] = model.api_base
    if model.api_key:
        params["api_key"] = model.api_key.get_secret_value()
    elif model.api_base:
        params["api_key"] = "none"  # OpenAI-compatible local servers need some key
    return params


def add_usage(usage: plan_pb2.Usage, response: Any) -> None:
    usage.llm_calls += 1
    if getattr(response, "usage", None):
        usage.prompt_tokens += response.usage.prompt_tokens or 0
        usage.completion_tokens += response.usage.completion_tokens or 0
    cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
    usage.cost_usd += float(cost or 0.0)
