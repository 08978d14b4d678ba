"""Every failure reason agentrt gives, in one registry (Google's AIP-193: ErrorInfo.reason).

A reason is what a program reads (`ErrorInfo.reason` in an RPC error, `RunError.reason` in a
failed run or step); the message is for people. Each reason has one gRPC status code, whether
retrying the same request can succeed, whose move it is (`caller`: change the request;
`service`: agentrt or its database, retry or call the operator; `tool`: a tool, provider, MCP
server or model the run depends on), and one sentence saying what it means. Services raise with
these names only (tests/unit/test_reasons.py fails on a reason that is not here, or raised with
another code), and the README's table of errors is printed from this module
(`python -m agentrt.core.reasons`).

Reasons that come from outside (a provider's own ErrorInfo) pass through unregistered: they are
that tool's vocabulary, reported as it sent them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Fault = Literal["caller", "service", "tool"]


@dataclass(frozen=True)
class Reason:
    name: str
    code: str  # a grpc.StatusCode name
    retryable: bool
    fault: Fault
    meaning: str


def _r(name: str, code: str, fault: Fault, meaning: str, *, retryable: bool = False) -> Reason:
    return Reason(name, code, retryable, fault, meaning)


# One line per reason, as a table reads (not as the formatter would wrap it).
# ruff: noqa: E501
# fmt: off
_ALL = [
    # -- generic: the default reason of each error class, when nothing more precise applies --
    _r("INVALID_ARGUMENT", "INVALID_ARGUMENT", "caller", "The request is invalid; the message and field violations say how."),
    _r("NOT_FOUND", "NOT_FOUND", "caller", "What the request names does not exist."),
    _r("ALREADY_EXISTS", "ALREADY_EXISTS", "caller", "What the request would create exists already."),
    _r("FAILED_PRECONDITION", "FAILED_PRECONDITION", "caller", "The request does not fit the current state."),
    _r("PERMISSION_DENIED", "PERMISSION_DENIED", "caller", "The caller may see this but not do this."),
    _r("UNAUTHENTICATED", "UNAUTHENTICATED", "caller", "The caller's credential is missing or wrong."),
    _r("RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED", "caller", "A limit was reached.", retryable=True),
    _r("UNAVAILABLE", "UNAVAILABLE", "service", "A service is unavailable for now.", retryable=True),
    _r("INTERNAL", "INTERNAL", "service", "A bug in agentrt: the logs have the stack trace."),
    # -- requests at the edge --
    _r("MALFORMED_REQUEST", "INVALID_ARGUMENT", "caller", "The request bytes are not the method's protobuf message."),
    _r("INVALID_JSON", "INVALID_ARGUMENT", "caller", "A body (REST, A2A, /mcp) is not UTF-8 JSON of the request, or has a number of over 400 digits."),
    _r("REQUEST_TOO_LARGE", "INVALID_ARGUMENT", "caller", "A request body (REST, A2A, /mcp) is larger than AGENTRT_MAX_REQUEST_BYTES."),
    _r("UNSUPPORTED_MEDIA_TYPE", "INVALID_ARGUMENT", "caller", "A REST body is not application/json."),
    _r("JSON_TOO_DEEP", "INVALID_ARGUMENT", "caller", "A JSON body (REST, A2A, /mcp) nests deeper than AGENTRT_MAX_JSON_DEPTH."),
    _r("HEADERS_TOO_LARGE", "INVALID_ARGUMENT", "caller", "An HTTP request's line and headers exceed AGENTRT_MAX_HEADER_BYTES (431)."),
    _r("TOO_MANY_STREAMS", "RESOURCE_EXHAUSTED", "caller", "The principal (or the gateway) holds as many open streams as allowed; close one.", retryable=True),
    # -- keys, principals and the internal credential --
    _r("MISSING_API_KEY", "UNAUTHENTICATED", "caller", "API keys are configured and the call sent none."),
    _r("INVALID_API_KEY", "UNAUTHENTICATED", "caller", "The call sent a key that is not configured."),
    _r("AUTH_THROTTLED", "RESOURCE_EXHAUSTED", "caller", "This key is wrong, after too many wrong keys from this client address or starting like it; wait.", retryable=True),
    _r("RATE_LIMITED", "RESOURCE_EXHAUSTED", "caller", "This key's calls exceed its rate limit; wait.", retryable=True),
    _r("NOT_RUN_OWNER", "PERMISSION_DENIED", "caller", "The run is another principal's: the caller may see it, not do this."),
    _r("INTERNAL_CREDENTIAL_REQUIRED", "UNAUTHENTICATED", "caller", "An internal service was called without the internal credential."),
    _r("INTERNAL_CREDENTIAL_NOT_CONFIGURED", "FAILED_PRECONDITION", "service", "A call named a principal, but this service has no internal credential."),
    # -- runs --
    _r("RUN_NOT_FOUND", "NOT_FOUND", "caller", "No run with this id exists for the caller."),
    _r("STEP_NOT_FOUND", "NOT_FOUND", "caller", "The run has no step with this id."),
    _r("IDEMPOTENCY_KEY_REUSED", "ALREADY_EXISTS", "caller", "The idempotency key was used for a different request."),
    _r("RUN_FINISHED", "FAILED_PRECONDITION", "caller", "The run has finished; it can no longer be cancelled."),
    _r("RUN_NOT_RETRYABLE", "FAILED_PRECONDITION", "caller", "Only failed or cancelled runs can be retried."),
    _r("RUN_NOT_WAITING", "FAILED_PRECONDITION", "caller", "The run is not waiting for an approval."),
    _r("RUN_CHANGED", "FAILED_PRECONDITION", "caller", "Another request changed the run first."),
    _r("STEP_NOT_AWAITING_APPROVAL", "FAILED_PRECONDITION", "caller", "The step is not waiting for an approval (or was decided otherwise)."),
    _r("RUN_CANCELLED", "CANCELLED", "caller", "The run was cancelled by CancelRun."),
    _r("RUN_DEADLINE_EXCEEDED", "DEADLINE_EXCEEDED", "caller", "The run did not finish within its timeout."),
    _r("RUN_TOO_LARGE", "RESOURCE_EXHAUSTED", "caller", "The stored run would exceed AGENTRT_MAX_RUN_BYTES."),
    _r("MAX_STEPS_EXCEEDED", "RESOURCE_EXHAUSTED", "caller", "The plan needs more steps than the run's max_steps."),
    _r("REJECTED", "FAILED_PRECONDITION", "caller", "A person rejected the step's call."),
    _r("APPROVAL_TIMEOUT", "DEADLINE_EXCEEDED", "caller", "Nobody approved or rejected the call before its approval deadline."),
    # -- threads --
    _r("THREAD_NOT_FOUND", "NOT_FOUND", "caller", "No thread with this id exists for the caller."),
    _r("THREAD_BUSY", "FAILED_PRECONDITION", "caller", "The thread's previous turn has not finished; enqueue or interrupt, or wait."),
    _r("THREAD_FULL", "RESOURCE_EXHAUSTED", "caller", "The thread has AGENTRT_THREAD_MAX_TURNS turns; start a new one."),
    _r("SERVICE_UNREACHABLE", "UNAVAILABLE", "service", "Nothing answered the gateway at the executor's or tools_svc's address; the message names it and what to check.", retryable=True),
    _r("STORE_UNAVAILABLE", "UNAVAILABLE", "service", "The database cannot be reached; retry shortly.", retryable=True),
    # -- planning --
    _r("UNPLANNABLE", "INVALID_ARGUMENT", "caller", "No planner understood the prompt; the message says what was understood."),
    _r("PLANNING_FAILED", "FAILED_PRECONDITION", "service", "The planner could not make a plan."),
    _r("INVALID_PLAN", "INVALID_ARGUMENT", "tool", "A planner's plan is not a valid DAG of known tools."),
    _r("INVALID_ARGUMENTS", "INVALID_ARGUMENT", "tool", "A plan's step arguments do not match the tool's input schema."),
    _r("INVALID_REFERENCE", "INVALID_ARGUMENT", "tool", "A step's reference to an earlier output does not resolve."),
    _r("LLM_UNAVAILABLE", "UNAVAILABLE", "tool", "The model's server answered with an error of its own, or is rate-limiting.", retryable=True),
    _r("LLM_UNREACHABLE", "UNAVAILABLE", "tool", "Nothing answered at the model's endpoint (connection refused, unknown host); the message names it.", retryable=True),
    _r("LLM_TIMEOUT", "UNAVAILABLE", "tool", "The model did not answer within AGENTRT_LLM_TIMEOUT_S.", retryable=True),
    _r("LLM_AUTH_FAILED", "FAILED_PRECONDITION", "tool", "The model's provider refused the configured credentials (api_key)."),
    _r("LLM_MODEL_NOT_FOUND", "FAILED_PRECONDITION", "tool", "The model's endpoint does not serve the configured model name."),
    _r("LLM_BAD_REQUEST", "FAILED_PRECONDITION", "tool", "The model's provider refused the request (too long for the model, or a wrong setting)."),
    # -- the agent loop --
    _r("AGENT_UNAVAILABLE", "FAILED_PRECONDITION", "service", "Agent mode needs an LLM, and none is configured."),
    _r("INVALID_DECISION", "INVALID_ARGUMENT", "tool", "The model's decision stayed invalid after the repair rounds."),
    _r("DECISION_FAILED", "INTERNAL", "tool", "The planner failed to decide the agent's next turn."),
    _r("NO_DECISION", "INTERNAL", "service", "The planner ended the decision stream without a decision."),
    _r("REFUSED", "FAILED_PRECONDITION", "tool", "The model declined the task."),
    _r("BUDGET_EXCEEDED", "RESOURCE_EXHAUSTED", "caller", "The run spent one of its budgets (turns, tool calls, tokens, cost)."),
    # -- tool calls --
    # A tool's own failures are INVALID_ARGUMENT (ToolError): the call ran and the tool said no.
    _r("TOOL_ERROR", "INVALID_ARGUMENT", "tool", "The tool reported a failure of its own."),
    _r("TOOL_NOT_FOUND", "NOT_FOUND", "caller", "No tool of this name is in the catalog."),
    _r("TOOL_TIMEOUT", "DEADLINE_EXCEEDED", "tool", "The tool did not answer within the step's deadline.", retryable=True),
    _r("STEP_DEADLINE_EXCEEDED", "DEADLINE_EXCEEDED", "tool", "A step's attempts did not finish within their deadline.", retryable=True),
    _r("INVALID_TOOL_ARGUMENTS", "INVALID_ARGUMENT", "caller", "The arguments do not match the tool's input schema."),
    _r("INVALID_TOOL_OUTPUT", "INTERNAL", "tool", "The tool's output does not match its output schema."),
    _r("TOOL_OUTPUT_TOO_LARGE", "INVALID_ARGUMENT", "tool", "The tool returned more than AGENTRT_MAX_TOOL_OUTPUT_BYTES."),
    _r("PROVIDER_UNREACHABLE", "UNAVAILABLE", "tool", "The tool's provider could not be reached.", retryable=True),
    _r("PROVIDER_LEASE_LAPSED", "UNAVAILABLE", "tool", "The tool's provider stopped renewing its registration.", retryable=True),
    _r("MCP_SERVER_UNAVAILABLE", "UNAVAILABLE", "tool", "The tool's MCP server is not connected.", retryable=True),
    _r("A2A_AGENT_UNAVAILABLE", "UNAVAILABLE", "tool", "The tool's A2A agent could not be reached, or its card not read.", retryable=True),
    _r("A2A_AGENT_TIMEOUT", "UNAVAILABLE", "tool", "The tool's A2A agent did not end its task before the deadline.", retryable=True),
    _r("A2A_AGENT_FAILED", "INVALID_ARGUMENT", "tool", "The tool's A2A agent failed, rejected or cancelled the task."),
    _r("A2A_TASK_NOT_DONE", "INVALID_ARGUMENT", "tool", "The tool's A2A agent stopped with the task waiting for input."),
    _r("NO_PRINCIPAL_CREDENTIAL", "PERMISSION_DENIED", "caller", "The tool's MCP server or A2A agent takes a credential per principal and has none for the caller; nothing was sent."),
    _r("MCP_SESSIONS_EXHAUSTED", "UNAVAILABLE", "service", "The tool's MCP server holds as many principals' sessions as allowed, each busy.", retryable=True),
    _r("TODO_NOT_FOUND", "INVALID_ARGUMENT", "caller", "No todo of the caller's matches."),
    _r("AMBIGUOUS_TODO", "INVALID_ARGUMENT", "caller", "Several of the caller's todos match; the message lists them."),
    _r("INVALID_TODO_TEXT", "INVALID_ARGUMENT", "caller", "A todo's text contains a NUL character."),
    _r("TODO_CHANGED", "INVALID_ARGUMENT", "caller", "An undo's todo changed since the change it reverses; nothing was changed."),
    # -- tool registration, MCP and A2A mounts --
    _r("REGISTRATION_CLOSED", "UNAUTHENTICATED", "caller", "API keys are configured and no registration token is set."),
    _r("INVALID_REGISTRATION_TOKEN", "UNAUTHENTICATED", "caller", "The registration token is missing or wrong."),
    _r("INVALID_TOOL_NAME", "INVALID_ARGUMENT", "caller", "A tool name must match ^[a-z][a-z0-9_]{0,63}$."),
    _r("INVALID_VERSION", "INVALID_ARGUMENT", "caller", "A tool version must be a semantic version (SemVer 2.0.0)."),
    _r("INVALID_SCHEMA", "INVALID_ARGUMENT", "caller", "A tool schema is not a valid, bounded JSON Schema."),
    _r("SPEC_TOO_LARGE", "INVALID_ARGUMENT", "caller", "A tool spec is larger than its limit."),
    _r("INVALID_ENDPOINT", "INVALID_ARGUMENT", "caller", "A provider endpoint is not host:port."),
    _r("ENDPOINT_NOT_ALLOWED", "PERMISSION_DENIED", "caller", "A provider endpoint is outside AGENTRT_PROVIDER_ALLOWED_HOSTS."),
    _r("TOOL_NAME_TAKEN", "ALREADY_EXISTS", "caller", "The name belongs to a built-in tool, an MCP server's tool or another provider."),
    _r("TOOL_VERSION_TAKEN", "ALREADY_EXISTS", "caller", "Another provider holds this tool version."),
    _r("TOOL_SPEC_CHANGED", "FAILED_PRECONDITION", "caller", "A registered version's spec cannot change: publish a new version."),
    _r("LEASE_NOT_FOUND", "NOT_FOUND", "caller", "No registration has this lease id."),
    _r("INVALID_MCP_SERVER_NAME", "INVALID_ARGUMENT", "caller", "An MCP server name must match the tool name rules."),
    _r("INVALID_MCP_URL", "INVALID_ARGUMENT", "caller", "An MCP server URL must be http(s) on an allowed host."),
    _r("MCP_SERVER_NAME_TAKEN", "ALREADY_EXISTS", "caller", "An MCP server (or an A2A agent) of this name is mounted already."),
    _r("MCP_SERVER_NOT_FOUND", "NOT_FOUND", "caller", "No MCP server of this name is mounted."),
    _r("MCP_SERVER_CONFIGURED", "INVALID_ARGUMENT", "caller", "The MCP server is mounted by configuration, not at runtime."),
    _r("INVALID_A2A_AGENT_NAME", "INVALID_ARGUMENT", "caller", "An A2A agent name must match the tool name rules."),
    _r("INVALID_A2A_URL", "INVALID_ARGUMENT", "caller", "An A2A agent URL must be http(s) on an allowed host."),
    _r("A2A_AGENT_NAME_TAKEN", "ALREADY_EXISTS", "caller", "An A2A agent (or an MCP server) of this name is mounted already."),
    _r("A2A_AGENT_NOT_FOUND", "NOT_FOUND", "caller", "No A2A agent of this name is mounted."),
    _r("A2A_AGENT_CONFIGURED", "INVALID_ARGUMENT", "caller", "The A2A agent is mounted by configuration, not at runtime."),
]
# fmt: on

REASONS: dict[str, Reason] = {reason.name: reason for reason in _ALL}
assert len(REASONS) == len(_ALL), "a reason is registered twice"


def markdown_table() -> str:
    """The README's table of reasons."""
    lines = ["| reason | code | retry | whose move | meaning |", "|---|---|---|---|---|"]
    for r in sorted(_ALL, key=lambda r: r.name):
        lines.append(
            f"| `{r.name}` | `{r.code}` | {'yes' if r.retryable else 'no'} | {r.fault} | {r.meaning} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
