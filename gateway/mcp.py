"""agentrt as an MCP server: the gateway serves MCP over Streamable HTTP at /mcp.

An MCP client (Claude Desktop, an IDE, another agent) gets tools to run a prompt and wait for its
answer (with a progress notification per finished step or decided turn), and to get, list, cancel,
approve and reject runs. Every tool is a call through the Edge, like a REST or gRPC call: the
same API keys (`Authorization: Bearer <key>`), rate limits, deadlines and errors.

Loaded on the first request to /mcp (mcp_route.py), which checks API keys first.
Stateless HTTP: each request stands alone, so any gateway replica can serve any request and no
session outlives a connection. The SDK (`mcp`) does the protocol; this module is only the tools.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from google.protobuf import json_format
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from pydantic import Field
from starlette.requests import Request
from starlette.types import ASGIApp

import agentrt
from agentrt.config import GatewaySettings
from agentrt.core.errors import AgentrtError
from agentrt.core.runstate import TERMINAL
from agentrt.core.text import clip
from agentrt.core.values import dict_to_struct, value_to_py
from agentrt.v1 import agent_pb2, run_pb2
from gateway.edge import Caller, Edge
from gateway.httpedge import http_caller
from gateway.mcp_route import PATH

R = run_pb2
MAX_PROMPT_WAIT_S = 600.0
MAX_LIST = 100
_MODES = {"auto": agent_pb2.RUN_MODE_AUTO, "plan": agent_pb2.RUN_MODE_PLAN, "agent": agent_pb2.RUN_MODE_AGENT}
_POLICIES = {
    "default": R.APPROVAL_POLICY_UNSPECIFIED,
    "never": R.APPROVAL_POLICY_NEVER,
    "destructive": R.APPROVAL_POLICY_DESTRUCTIVE,
    "writes": R.APPROVAL_POLICY_WRITES,
    "always": R.APPROVAL_POLICY_ALWAYS,
}
_MULTITASK = {
    "reject": R.MULTITASK_STRATEGY_REJECT,
    "enqueue": R.MULTITASK_STRATEGY_ENQUEUE,
    "interrupt": R.MULTITASK_STRATEGY_INTERRUPT,
}
READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
RunId = Annotated[
    str, Field(min_length=1, max_length=128, description="The run's id, as run_prompt returned it")
]
StepId = Annotated[
    str, Field(min_length=1, max_length=128, description="The step's id, for example t1-1 or s1")
]


def status_name(status: int) -> str:
    return R.RunStatus.Name(status).removeprefix("RUN_STATUS_").lower()  # type: ignore[arg-type]


def summary(run: R.Run) -> dict[str, Any]:
    """What an MCP client needs of a run: outcome first, then the steps and pending approvals."""
    out: dict[str, Any] = {
        "run_id": run.run_id,
        "status": status_name(run.status),
        "mode": agent_pb2.RunMode.Name(run.mode).removeprefix("RUN_MODE_").lower(),
        "prompt": clip(run.prompt, 500),
    }
    if run.thread_id:
        out["thread_id"] = run.thread_id
        out["thread_turn"] = run.thread_turn
    if run.answer:
        out["answer"] = run.answer
    if run.HasField("result"):
        out["result"] = value_to_py(run.result)
    if run.HasField("error") and run.error.message:
        out["error"] = {"code": run.error.code, "reason": run.error.reason, "message": run.error.message}
    steps = []
    for step in run.steps:
        item: dict[str, Any] = {
            "step_id": step.step_id,
            "tool": step.tool,
            "status": R.StepStatus.Name(step.status).removeprefix("STEP_STATUS_").lower(),  # type: ignore[arg-type]
            "arguments": json_format.MessageToDict(step.arguments),
        }
        if step.HasField("error") and step.error.message:
            item["error"] = step.error.message
        if step.status == R.STEP_STATUS_AWAITING_APPROVAL:
            item["approval_reason"] = step.approval.reason
        steps.append(item)
    out["steps"] = steps
    waiting = [s["step_id"] for s in steps if s["status"] == "awaiting_approval"]
    if waiting:
        out["awaiting_approval"] = waiting
        out["next"] = "approve_step or reject_step for each step in awaiting_approval"
    return out


class McpEdge:
    """The MCP tools, each a call through the Edge for the HTTP request's caller."""

    def __init__(self, edge: Edge, settings: GatewaySettings) -> None:
        self._edge = edge
        self._settings = settings
        self.server: MCPServer[Any] = MCPServer(
            "agentrt",
            version=agentrt.__version__,
            log_level="WARNING",
            instructions=(
                "agentrt runs tasks written in plain language with tools, durably. run_prompt starts a "
                "run and waits for its answer; runs that need a person's approval stop as 'waiting' "
                "until approve_step or reject_step."
            ),
        )
        self._add_tools()

    def asgi(self) -> ASGIApp:
        """The SDK's Streamable HTTP transport (mcp_route.py checks API keys before it)."""
        secure = self._settings.host in ("127.0.0.1", "localhost", "::1")
        self.server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            max_request_body_size=self._settings.max_request_bytes,
            # Loopback: refuse requests whose Host or Origin is not loopback (a web page
            # reaching the gateway through DNS rebinding). Elsewhere, API keys guard the door.
            transport_security=(
                TransportSecuritySettings(
                    enable_dns_rebinding_protection=True,
                    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
                    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
                )
                if secure
                else TransportSecuritySettings(enable_dns_rebinding_protection=False)
            ),
        )
        return StreamableHTTPASGIApp(self.server.session_manager)

    async def hold(self, ready: asyncio.Event) -> None:
        """Run the SDK's request manager until cancelled (the gateway stops)."""
        async with self.server.session_manager.run():
            ready.set()
            await asyncio.Event().wait()

    # -- tools -----------------------------------------------------------------------------

    def _add_tools(self) -> None:
        self.server.add_tool(
            self.run_prompt,
            name="run_prompt",
            title="Run a prompt",
            annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=True),
        )
        self.server.add_tool(self.get_run, name="get_run", title="Get a run", annotations=READS)
        self.server.add_tool(self.list_runs, name="list_runs", title="List runs", annotations=READS)
        self.server.add_tool(
            self.cancel_run,
            name="cancel_run",
            title="Cancel a run",
            annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
        )
        self.server.add_tool(
            self.approve_step,
            name="approve_step",
            title="Approve a step",
            annotations=ToolAnnotations(destructive_hint=True, open_world_hint=True),
        )
        self.server.add_tool(
            self.reject_step,
            name="reject_step",
            title="Reject a step",
            annotations=ToolAnnotations(destructive_hint=False, idempotent_hint=True, open_world_hint=False),
        )

    async def run_prompt(
        self,
        *,
        prompt: Annotated[
            str, Field(min_length=1, max_length=8000, description="The task, in plain language")
        ],
        ctx: Context,
        mode: Literal["auto", "plan", "agent"] = "auto",
        wait_seconds: Annotated[
            float, Field(ge=0, le=MAX_PROMPT_WAIT_S, description="How long to wait for the run to end")
        ] = 120.0,
        approval_policy: Literal["default", "never", "destructive", "writes", "always"] = "default",
        idempotency_key: Annotated[str, Field(max_length=256)] = "",
        thread_id: Annotated[
            str,
            Field(
                max_length=64,
                description="A thread (conversation) to add this run to as its next turn, as "
                "CreateThread made it (`agentrt threads create`, POST /v1/threads); the run sees "
                "the thread's earlier turns. Empty: a run on its own",
            ),
        ] = "",
        multitask: Annotated[
            Literal["reject", "enqueue", "interrupt"],
            Field(
                description="With thread_id, if the thread's previous turn has not finished: reject "
                "(error THREAD_BUSY), enqueue (run after it; returned as 'queued') or interrupt "
                "(cancel it)"
            ),
        ] = "reject",
    ) -> dict[str, Any]:
        """Run a task with agentrt's tools and wait for the outcome: the answer, the result, and
        the run id. Sends a progress notification as each step finishes. A run still going after
        wait_seconds, or waiting for a person's approval, is returned as it stands: follow it
        with get_run, approve_step or reject_step. With thread_id the run is that thread's next
        turn (thread_turn in the outcome)."""
        caller = _caller(ctx)
        # It follows the run it creates: past the stream caps, refused before the run exists.
        try:
            self._edge.streams.check(self._edge.authenticate(caller, "run_prompt"), "run_prompt")
        except AgentrtError as err:
            raise ToolError(f"{err.code.name} ({err.reason}): {err.message}") from None
        request = R.CreateRunRequest(
            prompt=prompt,
            mode=_MODES[mode],
            approval_policy=_POLICIES[approval_policy],
            idempotency_key=idempotency_key,
            thread_id=thread_id,
            multitask_strategy=_MULTITASK[multitask] if thread_id else R.MULTITASK_STRATEGY_UNSPECIFIED,
        )
        created = await self._call("CreateRun", caller, request)
        run_id = created.run.run_id
        await ctx.report_progress(0, None, f"run {run_id} created")
        try:
            async with asyncio.timeout(wait_seconds):
                await self._follow(run_id, caller, ctx)
        except TimeoutError:
            pass
        run = (await self._call("GetRun", caller, R.GetRunRequest(run_id=run_id))).run
        out = summary(run)
        if run.status not in TERMINAL and run.status != R.RUN_STATUS_WAITING:
            out["next"] = f"the run is still {out['status']} after {wait_seconds:g}s: follow it with get_run"
        return out

    async def _follow(self, run_id: str, caller: Caller, ctx: Context) -> None:
        """Until the run ends or waits for a person: a progress notification per finished step
        or decided turn (total known once a plan exists)."""
        done, total = 0, None
        watch = R.WatchRunRequest(run_id=run_id)
        try:
            async for response in self._edge.watch(watch, caller):
                event = response.event
                kind = event.WhichOneof("kind")
                if kind == "plan_created":
                    total = float(len(event.plan_created.plan.steps)) or None
                elif kind == "planner_retry":  # the model did not answer: the client hears why
                    retry = event.planner_retry
                    await ctx.report_progress(
                        done,
                        total,
                        f"{retry.error.message}; retry {retry.attempt + 1} of {retry.max_attempts}",
                    )
                elif kind == "turn_decided":
                    turn = event.turn_decided.turn
                    calls = ", ".join(c.tool for c in turn.calls) or "answer"
                    await ctx.report_progress(done, total, f"turn {turn.index}: {calls}")
                elif kind == "step_updated":
                    step = event.step_updated.step
                    if step.status in (R.STEP_STATUS_SUCCEEDED, R.STEP_STATUS_FAILED, R.STEP_STATUS_SKIPPED):
                        done += 1
                        state = R.StepStatus.Name(step.status).removeprefix("STEP_STATUS_").lower()  # type: ignore[arg-type]
                        await ctx.report_progress(done, total, f"step {step.step_id} ({step.tool}) {state}")
                    elif step.status == R.STEP_STATUS_AWAITING_APPROVAL:
                        await ctx.report_progress(
                            done, total, f"step {step.step_id} ({step.tool}) awaits approval"
                        )
                elif kind == "status_changed" and (
                    event.status_changed.status in TERMINAL
                    or event.status_changed.status == R.RUN_STATUS_WAITING
                ):
                    return
        except AgentrtError as err:
            raise ToolError(err.message) from None

    async def get_run(self, *, run_id: RunId, ctx: Context) -> dict[str, Any]:
        """A run's status, answer, result, error and steps."""
        return summary((await self._call("GetRun", _caller(ctx), R.GetRunRequest(run_id=run_id))).run)

    async def list_runs(
        self,
        *,
        ctx: Context,
        status: Literal["any", "pending", "running", "waiting", "succeeded", "failed", "cancelled"] = "any",
        limit: Annotated[int, Field(ge=1, le=MAX_LIST)] = 20,
    ) -> dict[str, Any]:
        """The most recent runs, newest first, optionally only those in one status."""
        request = R.ListRunsRequest(page_size=limit)
        if status != "any":
            request.status = R.RunStatus.Value(f"RUN_STATUS_{status.upper()}")  # type: ignore[assignment]
        response = await self._call("ListRuns", _caller(ctx), request)
        runs = [
            {
                "run_id": run.run_id,
                "status": status_name(run.status),
                "prompt": clip(run.prompt, 200),
                **({"answer": clip(run.answer, 500)} if run.answer else {}),
            }
            for run in response.runs
        ]
        return {"runs": runs}

    async def cancel_run(self, *, run_id: RunId, ctx: Context) -> dict[str, Any]:
        """Cancel a run that has not ended (its running tool calls are cancelled)."""
        return summary((await self._call("CancelRun", _caller(ctx), R.CancelRunRequest(run_id=run_id))).run)

    async def approve_step(
        self,
        *,
        run_id: RunId,
        step_id: StepId,
        ctx: Context,
        arguments: Annotated[
            dict[str, Any] | None, Field(description="Edited arguments to run the step with instead")
        ] = None,
    ) -> dict[str, Any]:
        """Approve a step that awaits a person's approval; the run goes on."""
        request = R.ApproveStepRequest(run_id=run_id, step_id=step_id)
        if arguments is not None:
            request.arguments.CopyFrom(dict_to_struct(arguments))
        return summary((await self._call("ApproveStep", _caller(ctx), request)).run)

    async def reject_step(
        self,
        *,
        run_id: RunId,
        step_id: StepId,
        ctx: Context,
        reason: Annotated[str, Field(max_length=2000)] = "",
    ) -> dict[str, Any]:
        """Reject a step that awaits approval: an agent run is told why, a plan run fails."""
        request = R.RejectStepRequest(run_id=run_id, step_id=step_id, reason=reason)
        return summary((await self._call("RejectStep", _caller(ctx), request)).run)

    async def _call(self, rpc: str, caller: Caller, request: Any) -> Any:
        try:
            return await self._edge.call(rpc, caller, request)
        except AgentrtError as err:
            # The client's model reads this: the same message REST and gRPC callers get, and for a
            # busy thread the argument that says what to do instead (the message names the proto's).
            hint = (
                " (here: run_prompt's multitask 'enqueue' or 'interrupt')"
                if err.reason == "THREAD_BUSY"
                else ""
            )
            raise ToolError(f"{err.code.name} ({err.reason}): {err.message}{hint}") from None


def _caller(ctx: Context) -> Caller:
    request = ctx.request_context.request
    if not isinstance(request, Request):
        raise ToolError("agentrt's MCP tools are served over HTTP only")
    return http_caller(request, "mcp")
