"""The executor's settings: how runs are driven, retried, bounded, approved and kept."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, Field, model_validator

from agentrt.config.common import AgentBudgets, CommonSettings


class ToolPolicy(BaseModel):
    """Per-tool overrides of the step retry policy and timeout; unset fields use the defaults."""

    model_config = {"extra": "forbid"}

    max_attempts: int | None = Field(None, ge=1, le=100)
    base_delay_s: float | None = Field(None, ge=0)
    max_delay_s: float | None = Field(None, ge=0)
    timeout_s: float | None = Field(None, gt=0)


class ExecutorSettings(CommonSettings):
    """What the executor is configured with (and the common settings); AGENTRT_<FIELD_NAME>."""

    # Prometheus /metrics; 0 turns it off.
    executor_metrics_port: int = Field(9092, ge=0, le=65535)

    # Executor replicas. Each run is driven by the replica holding its lease; a replica renews
    # its leases every lease TTL / 3, and a run whose lease lapsed (its replica died) is claimed
    # by another replica. executor_id names this replica; empty means host:port, stable across
    # restarts in place, so a restarted replica takes its own runs back at once.
    executor_id: str = ""
    run_lease_ttl_s: float = Field(10.0, ge=0.5)
    # The most runs one replica drives at once; beyond it, runs wait for a replica with room.
    max_active_runs: int = Field(1000, ge=1)
    # Beyond the newest retention_max_runs finished runs, the older ones are deleted (0: no
    # limit), with those older than retention_days (a common setting).
    retention_max_runs: int = Field(0, ge=0)

    # Run limits.
    default_max_steps: int = Field(20, gt=0)
    step_timeout_s: float = Field(30.0, gt=0)
    run_timeout_s: float = Field(600.0, gt=0)
    planner_timeout_s: float = Field(30.0, gt=0)
    # A step whose output would make its run's stored record larger than max_run_bytes fails
    # (RUN_TOO_LARGE), so every run stays readable by any client (gRPC clients accept 4 MiB
    # messages by default).
    max_run_bytes: int = Field(2 * 1024 * 1024, ge=64 * 1024, le=3 * 1024 * 1024)
    # Independent plan steps of one run that may execute at the same time.
    max_parallel_steps: int = Field(4, ge=1, le=64)

    # Step retries (full-jitter exponential backoff). A run's own policy overrides a tool's
    # policy, which overrides these defaults, field by field.
    retry_max_attempts: int = Field(3, ge=1, le=100)
    retry_base_delay_s: float = Field(0.2, ge=0)
    retry_max_delay_s: float = Field(10.0, ge=0)
    # When the model does not answer (its endpoint refuses the connection, it times out, its
    # server errs: the planner's LLM_UNREACHABLE, LLM_TIMEOUT, LLM_UNAVAILABLE), a plan or agent
    # turn is asked again at most llm_retry_attempts times in all, and never once
    # llm_retry_budget_s have passed since the first failure: a dead model fails the run in
    # seconds, naming its endpoint, instead of being waited for until the run's deadline. Each
    # retry is a planner_retry event of the run. (The planner service itself restarting is
    # waited for until the deadline, as a restarting tools service is.)
    llm_retry_attempts: int = Field(4, ge=1, le=20)
    llm_retry_budget_s: float = Field(30.0, ge=0, le=3600)
    llm_retry_base_delay_s: float = Field(1.0, ge=0, le=60)
    # While the run waits for a plan or an agent turn, a transient heartbeat event after every
    # this many seconds in which nothing came (a slow model on a small machine takes minutes);
    # 0: none.
    heartbeat_s: float = Field(5.0, ge=0, le=300)
    # JSON, e.g. AGENTRT_TOOL_POLICIES='{"todo_store": {"max_attempts": 5, "timeout_s": 10}}'
    tool_policies: dict[str, ToolPolicy] = Field(default_factory=dict)

    # Threads (conversations): a thread takes at most thread_max_turns turns (then THREAD_FULL:
    # start a new one), and a thread nobody sent a message to for thread_ttl_days is deleted
    # with its runs (0: kept until DeleteThread).
    thread_max_turns: int = Field(500, ge=1, le=100_000)
    thread_ttl_days: float = Field(30.0, ge=0)
    # What a turn sends the planner of the earlier turns: the latest that fit this many bytes
    # (executor_svc/run/history.py); 0 sends none.
    thread_context_bytes: int = Field(64 * 1024, ge=0, le=1024 * 1024)

    # When a step fails for good, ask the planner for a revised plan, at most this often per run.
    replan_max: int = Field(0, ge=0, le=10)

    # How runs decide what to do when the request does not say: "auto" (a rule plan when the
    # rules understand the prompt, else the agent loop if an LLM is configured), "plan" (the
    # planner chain plans up front) or "agent" (the agent loop; needs the planner's llm_models).
    default_mode: Literal["auto", "plan", "agent"] = "auto"
    # Agent runs: the budgets a run gets when its request sets none (at most the common
    # agent_budget_limits), e.g. AGENTRT_AGENT_BUDGETS='{"max_turns": 8, "max_cost_usd": 0.1}'.
    agent_budgets: AgentBudgets = Field(default_factory=AgentBudgets)

    # Which tool calls wait for a person's approval, by what the call declares (the tool's
    # annotations): "never", "destructive", "writes" (anything not read-only) or "always". A run
    # may ask for its own policy; approval_tool_policies (per tool) overrides both. Calls of rule
    # plans are exempt when approval_exempt_rules: the rule planner only turns the user's own
    # words ("delete todo 2") into calls. So the default, "writes", means: a change a model chose
    # (the LLM planner's plan, an agent's call) waits for a person; reading never does, and what
    # the user's own words asked for runs, unless those words sweep ("delete all my todos": the
    # rule planner marks the step confirm, and it waits like any other). A call waits at most
    # approval_timeout_s (a run may ask for less or more, up to max_run_timeout_s), then fails
    # with APPROVAL_TIMEOUT.
    approval_policy: Literal["never", "destructive", "writes", "always"] = "writes"
    approval_tool_policies: dict[str, Literal["never", "destructive", "writes", "always"]] = Field(
        default_factory=dict
    )
    approval_exempt_rules: bool = True
    approval_timeout_s: float = Field(86400.0, gt=0)

    @model_validator(mode="after")
    def _budgets_within_limits(self) -> Self:
        for name, budget in self.agent_budgets.model_dump().items():
            if budget > getattr(self.agent_budget_limits, name):
                raise ValueError(f"agent_budgets.{name} is above agent_budget_limits.{name}")
        return self
