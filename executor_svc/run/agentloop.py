"""The agent loop of one run: decide, record, act, observe, until the model answers.

Each turn the planner's Decide gives the model's next move for the prompt, the tools and the
transcript so far. The decision is committed, with a PENDING step per tool call, before any call
runs: after a SIGKILL, a restart or a takeover the loop finds the decided turn in the run and
runs its unfinished calls (same idempotency keys, `run_id/t<turn>-<n>`) instead of asking the
model again. A tool call that fails for good is an observation for the next turn, not the run's
end. The run ends with the model's answer (SUCCEEDED), its refusal (REFUSED), or the first budget
it runs out of (BUDGET_EXCEEDED, naming it); the run deadline and CancelRun end it as in plan mode.

The model's text streams to live watchers as transient events (`_publish_text`), never stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

from agentrt.config import ExecutorSettings
from agentrt.core.runstate import TERMINAL, add_usage
from agentrt.v1 import agent_pb2, run_pb2
from executor_svc.hub import EventHub
from executor_svc.run import failures
from executor_svc.run import transitions as tr
from executor_svc.run.approvals import declared
from executor_svc.run.outcomes import Ended, Failed, RunOutcome, StepOutcome, Waiting
from executor_svc.run.planning import Planning, Progress

log = structlog.get_logger("executor_svc.run.agentloop")
S = run_pb2
_DONE = (S.STEP_STATUS_SUCCEEDED, S.STEP_STATUS_FAILED)


class AgentLoop:
    def __init__(
        self,
        *,
        planning: Planning,
        commit: Callable[..., Awaitable[None]],
        call_tool: Callable[[run_pb2.Run, run_pb2.StepState], Awaitable[StepOutcome]],
        hub: EventHub,
        settings: ExecutorSettings,
        progress: Progress | None = None,
    ) -> None:
        self._planning = planning
        self._progress = progress  # the model's retries and heartbeats, shown on the run
        self._commit = commit
        self._call_tool = call_tool
        self._hub = hub
        self._settings = settings

    async def run(self, run: run_pb2.Run) -> RunOutcome:
        """Drive `run` (mode AGENT, or AUTO on its way to it) until it ends (Ended: the answer,
        refusal or spent budget is recorded with its turn), fails, or waits for a person."""
        while True:
            if run.turns:
                calls = {c.step_id for c in run.turns[-1].calls}
                unfinished = [s for s in run.steps if s.step_id in calls and s.status not in _DONE]
                if unfinished and await self._run_calls(run, unfinished):
                    return Waiting()  # the model decides again once a person has decided
            if error := self._out_of_budget(run):
                return Failed(error)
            index = len(run.turns) + 1
            turn = await self._planning.decide(
                run, lambda text, i=index: self._publish_text(run, i, text), self._progress
            )
            if isinstance(turn, Failed):
                return turn
            if error := await self._record(run, turn):
                return Failed(error)
            if run.status in TERMINAL:
                return Ended()

    def _publish_text(self, run: run_pb2.Run, turn: int, text: str) -> None:
        """The model's text as it streams: a transient event for live watchers, never stored
        (the turn_decided event carries the whole text)."""
        event = run_pb2.RunEvent(
            run_id=run.run_id,
            seq=run.last_seq,
            time=tr.now(),
            transient=True,
            text_delta=run_pb2.TextDelta(turn=turn, text=text),
        )
        self._hub.publish_transient(run.run_id, event)

    async def _record(self, run: run_pb2.Run, turn: agent_pb2.Turn) -> run_pb2.RunError | None:
        """Commit the decision (and the run's end, if it ends the run) in one transaction; the
        error when the turn cannot be stored."""
        # Twice the turn: its calls' arguments are stored again in their steps.
        if run.ByteSize() + 2 * turn.ByteSize() > self._settings.max_run_bytes:
            add_usage(run.usage, turn.usage)
            return failures.turn_too_large(len(run.turns) + 1, self._settings.max_run_bytes)
        payloads = tr.turn_decided(run, turn)
        if turn.refusal:
            payloads += tr.end(run, S.RUN_STATUS_FAILED, failures.refused(turn.refusal))
        elif not turn.calls:
            payloads += tr.answered(run, turn.answer)
        elif error := self._calls_over_budget(run):
            # Spent already, but nothing more is done with it: the calls do not run.
            payloads += tr.end(run, S.RUN_STATUS_FAILED, error)
        await self._commit(run, *payloads)
        log.info(
            "agent.turn",
            turn=turn.index,
            calls=[c.tool for c in turn.calls],
            answered=bool(turn.answer),
            refused=bool(turn.refusal),
            tokens=turn.usage.prompt_tokens + turn.usage.completion_tokens,
        )
        return None

    async def _run_calls(self, run: run_pb2.Run, steps: list[run_pb2.StepState]) -> bool:
        """A turn's calls: in parallel (at most max_parallel_steps at once) when every one is
        read-only by its tool's annotations, else one after the other in the order the model gave
        them ("add X" then "list" must see X). A call that fails for good is recorded as a failed
        step and seen by the model next turn. True when a call waits for a person (the others
        ran)."""
        if len(steps) > 1 and not self._all_read_only(steps):
            held = False
            for step in steps:
                outcome = await self._call_tool(run, step)
                if isinstance(outcome, Failed):
                    log.info("agent.call_failed", step_id=step.step_id, reason=outcome.error.reason)
                elif isinstance(outcome, Waiting):
                    # The calls after it may depend on it (list after add): they wait too, and
                    # run in order once a person has decided.
                    held = True
                    break
            return held
        room = asyncio.Semaphore(self._settings.max_parallel_steps)

        held: list[str] = []

        async def one(step: run_pb2.StepState) -> None:
            async with room:
                outcome = await self._call_tool(run, step)
                if isinstance(outcome, Failed):
                    log.info("agent.call_failed", step_id=step.step_id, reason=outcome.error.reason)
                elif isinstance(outcome, Waiting):
                    held.append(step.step_id)

        tasks = [asyncio.create_task(one(step)) for step in steps]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return bool(held)

    def _all_read_only(self, steps: list[run_pb2.StepState]) -> bool:
        """Whether every call declares it only reads, as approvals read what it declares."""
        catalog = self._planning.catalog  # the held one; while it is not in sync: in order
        return catalog is not None and all(declared(s, catalog)[1].read_only for s in steps)

    def _out_of_budget(self, run: run_pb2.Run) -> run_pb2.RunError | None:
        """Before asking the model again: a budget already spent ends the run."""
        budgets = run.budgets
        turns, _, tokens, cost = tr.budget_use(run)
        if budgets.max_turns and turns >= budgets.max_turns:
            return failures.budget(
                "max_turns", f"{turns} turns taken without an answer", f"{budgets.max_turns}"
            )
        if budgets.max_tokens and tokens >= budgets.max_tokens:
            return failures.budget("max_tokens", f"{tokens} tokens spent", f"{budgets.max_tokens}")
        if budgets.max_cost_usd and cost >= budgets.max_cost_usd:
            return failures.budget("max_cost_usd", f"${cost:.4f} spent", f"${budgets.max_cost_usd:g}")
        return None

    def _calls_over_budget(self, run: run_pb2.Run) -> run_pb2.RunError | None:
        """After a decision with calls: past a budget, its calls are not made."""
        budgets = run.budgets
        _, calls, tokens, cost = tr.budget_use(run)
        if budgets.max_tool_calls and calls > budgets.max_tool_calls:
            return failures.budget("max_tool_calls", f"{calls} tool calls", f"{budgets.max_tool_calls}")
        if budgets.max_tokens and tokens > budgets.max_tokens:
            return failures.budget("max_tokens", f"{tokens} tokens spent", f"{budgets.max_tokens}")
        if budgets.max_cost_usd and cost > budgets.max_cost_usd:
            return failures.budget("max_cost_usd", f"${cost:.4f} spent", f"${budgets.max_cost_usd:g}")
        return None
