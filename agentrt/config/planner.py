"""The planner's settings: the planner chain and the LLM behind it."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, Field, SecretStr, model_validator

from agentrt.config.common import CommonSettings


class LLMModel(BaseModel):
    """One model for the LLM planner, in litellm's naming ("openai/gpt-4o-mini",
    "anthropic/claude-3-5-haiku-latest", "ollama/llama3.1", "openai/<name>" + api_base for any
    OpenAI-compatible server). The first model is primary; the others are litellm fallbacks."""

    model_config = {"extra": "forbid"}

    model: str
    api_base: str | None = None
    api_key: SecretStr | None = None
    # How to ask for structured output: a JSON schema (constrained decoding where supported), or
    # JSON mode; "auto" asks litellm whether the model supports response schemas.
    response_format: Literal["auto", "json_schema", "json_object"] = "auto"
    # How the agent loop asks for tool calls: the provider's function calling ("tools", the
    # tools' JSON Schemas as function parameters), or one JSON answer constrained by a schema
    # ("json", for local servers without function calling); "auto" asks litellm.
    tool_calling: Literal["auto", "tools", "json"] = "auto"


class PlannerSettings(CommonSettings):
    """What the planner is configured with (and the common settings); AGENTRT_<FIELD_NAME>."""

    # Prometheus /metrics; 0 turns it off.
    planner_metrics_port: int = Field(9093, ge=0, le=65535)

    # Planner chain, tried in order until one produces a valid plan, e.g. '["llm", "rules"]'.
    planner_chain: list[Literal["llm", "rules"]] = Field(default_factory=lambda: ["rules"])
    # The models of the LLM planner and of the agent loop's decisions.
    llm_models: list[LLMModel] = Field(default_factory=list)
    llm_timeout_s: float = Field(20.0, gt=0)
    llm_repair_rounds: int = Field(2, ge=0, le=5)
    llm_temperature: float = Field(0.0, ge=0, le=2)
    llm_max_tokens: int = Field(1024, ge=64)
    # Identical prompt + identical tool catalog -> the cached plan. 0 disables the cache (use 0
    # when planning should stay non-deterministic).
    plan_cache_size: int = Field(0, ge=0)

    # What the model sees of tool outputs in the agent loop: each one trimmed to this many
    # characters, and all of them together to agent_transcript_chars (the oldest shrink first);
    # the model is told.
    agent_observation_chars: int = Field(4000, ge=200)
    agent_transcript_chars: int = Field(24_000, ge=1000)
    # What the model reads of a thread's earlier turns (the LLM planner's plans and the agent's
    # decisions), in tokens of the primary model (planner_svc/history.py): the newest turns whole,
    # the oldest left out first. 0 sends the model no history at all.
    llm_history_tokens: int = Field(2000, ge=0)

    @model_validator(mode="after")
    def _llm_chain_needs_models(self) -> Self:
        if "llm" in self.planner_chain and not self.llm_models:
            raise ValueError(
                'planner_chain includes "llm" but no llm_models are configured (AGENTRT_LLM_MODELS)'
            )
        return self
