"""What every run's driver shares: one `Kernel`, made by the engine at start-up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agentrt.config import ExecutorSettings
from agentrt.v1 import tool_service_pb2_grpc
from executor_svc.hub import EventHub
from executor_svc.run.planning import Planning
from executor_svc.run.recorder import Recorder
from executor_svc.store import RunStore


@dataclass(frozen=True)
class Kernel:
    store: RunStore  # reads a run that is resumed rather than created here
    recorder: Recorder  # saves transitions (commit or pipeline) and publishes their events
    planning: Planning  # the planner (plans, the agent's decisions) and the held tool catalog
    tools: tool_service_pb2_grpc.ToolServiceStub  # the steps' calls
    hub: EventHub  # live watchers (the model's streamed text)
    settings: ExecutorSettings
    lose: Callable[[str], None]  # a run's lease went elsewhere: the engine forgets it here
    turn_ended: Callable[[], None]  # a thread's turn ended: look for its next (queued) turn now
