"""The run/step state machine: docs/DESIGN.md prints the table the code checks, and the table
covers every status a run or a step can have."""

from __future__ import annotations

from pathlib import Path

from agentrt.v1 import run_pb2
from executor_svc.run.machine import RUN_RULES, STEP_RULES, markdown

ROOT = Path(__file__).resolve().parents[2]


def test_the_design_document_prints_the_current_table() -> None:
    assert markdown() in (ROOT / "docs" / "DESIGN.md").read_text(), (
        "docs/DESIGN.md's state machine is stale: paste `python -m executor_svc.run.machine`"
    )


def test_every_status_is_reached_and_every_unfinished_one_can_end() -> None:
    for rules, enum, ends in (
        (RUN_RULES, run_pb2.RunStatus, {"failed", "cancelled", "succeeded"}),
        (STEP_RULES, run_pb2.StepStatus, {"failed", "closed", "succeeded"}),
    ):
        statuses = {v for v in enum.values() if v != 0}
        reached = set().union(*(r.targets for r in rules))
        assert reached == statuses, {enum.Name(s) for s in statuses - reached}
        ending = set().union(*(r.sources for r in rules if r.event in ends))
        finished = {v for v in statuses if v not in ending}
        # Only terminal statuses cannot end again.
        names = {enum.Name(s) for s in finished}
        assert names <= {
            "RUN_STATUS_SUCCEEDED",
            "RUN_STATUS_FAILED",
            "RUN_STATUS_CANCELLED",
            "STEP_STATUS_SUCCEEDED",
            "STEP_STATUS_FAILED",
            "STEP_STATUS_CANCELLED",
            "STEP_STATUS_SKIPPED",
        }, names
