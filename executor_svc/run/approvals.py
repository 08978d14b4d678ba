"""Which calls wait for a person, and why (the reason the step records).

A call needs approval when its run's policy (the per-tool setting, else the run's own, else the
server's) covers what the call declares it does: the tool's annotations for its arguments
(agentrt.core.annotations.effects). Calls of rule plans are exempt when
`approval_exempt_rules`: the rule planner only turns the user's own words into calls; except the
ones it marks `confirm`, where those words sweep ("delete all my todos"). A call that was
approved, rejected or timed out is never asked about again."""

from __future__ import annotations

from agentrt.config import ExecutorSettings
from agentrt.core.annotations import Effects, action_of, effects
from agentrt.v1 import agent_pb2, run_pb2, tool_pb2, tool_service_pb2

POLICY_NAMES = {
    run_pb2.APPROVAL_POLICY_NEVER: "never",
    run_pb2.APPROVAL_POLICY_DESTRUCTIVE: "destructive",
    run_pb2.APPROVAL_POLICY_WRITES: "writes",
    run_pb2.APPROVAL_POLICY_ALWAYS: "always",
}


def policy_for(settings: ExecutorSettings, run: run_pb2.Run, step: run_pb2.StepState) -> str | None:
    """The approval policy that applies to `step`'s call, or None when it may run without
    looking at the tool (decided already, a rule plan's call, or the policy is "never")."""
    if step.approval.decision != run_pb2.APPROVAL_DECISION_UNSPECIFIED:
        return None  # decided (approved: it runs; the others never get here)
    if (
        settings.approval_exempt_rules
        and run.mode != agent_pb2.RUN_MODE_AGENT
        and run.plan.planner == "rules"
        and not _confirm(run, step)
    ):
        return None
    policy = (
        settings.approval_tool_policies.get(step.tool)
        or POLICY_NAMES.get(run.approval_policy)
        or settings.approval_policy
    )
    return None if policy == "never" else policy


def _confirm(run: run_pb2.Run, step: run_pb2.StepState) -> bool:
    """Whether the planner asked that `step`'s call be confirmed by a person (PlanStep.confirm)."""
    return any(p.confirm for p in run.plan.steps if p.id == step.step_id)


def declared(
    step: run_pb2.StepState, catalog: tool_service_pb2.ListToolsResponse
) -> tuple[tool_pb2.Tool, Effects]:
    """`step`'s tool and what its call declares it does. A tool missing from the catalog is
    treated as declaring nothing: MCP's defaults (destructive)."""
    tool = next((t for t in catalog.tools if t.name == step.tool), None) or tool_pb2.Tool(name=step.tool)
    return tool, effects(tool, step.arguments)


def reason_to_ask(
    policy: str, step: run_pb2.StepState, catalog: tool_service_pb2.ListToolsResponse
) -> str | None:
    """Why `step`'s call must wait for a person under `policy`, or None when it may run now."""
    tool, declared_effects = declared(step, catalog)
    needed = {
        "destructive": declared_effects.destructive,
        "writes": declared_effects.writes,
        "always": True,
    }[policy]
    if not needed:
        return None
    action = action_of(step.arguments)
    what = f"{step.tool} {action}" if action is not None and action in tool.action_annotations else step.tool
    return f"{what} is {declared_effects.describe()} (approval policy: {policy})"
