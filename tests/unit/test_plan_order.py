"""execution_order is displayed and schedules steps deterministically: dependencies first, and
otherwise plan order, one round of ready steps at a time. Checked against a plain statement of
that rule on many random plans."""

from __future__ import annotations

import random

import pytest

from agentrt.core.plans import InvalidPlan, execution_order
from agentrt.v1 import plan_pb2


def plan_of(steps: list[tuple[str, list[str]]]) -> plan_pb2.Plan:
    return plan_pb2.Plan(steps=[plan_pb2.PlanStep(id=i, tool="calculator", depends_on=d) for i, d in steps])


def rounds_in_plan_order(plan: plan_pb2.Plan) -> list[str]:
    """The rule itself: each round takes every step whose dependencies are all done, in plan order."""
    done: list[str] = []
    while len(done) < len(plan.steps):
        ready = [s.id for s in plan.steps if s.id not in done and set(s.depends_on) <= set(done)]
        assert ready, "a cycle"
        done += ready
    return done


def random_plan(rng: random.Random, size: int) -> plan_pb2.Plan:
    ids = [f"s{i}" for i in range(size)]
    rank = ids[:]
    rng.shuffle(rank)  # dependencies follow a hidden order, not the plan's: steps may name later ones
    steps = []
    for step_id in ids:
        earlier = rank[: rank.index(step_id)]
        steps.append((step_id, rng.sample(earlier, min(len(earlier), rng.randint(0, 3)))))
    return plan_of(steps)


def test_random_plans_run_in_rounds_of_plan_order() -> None:
    rng = random.Random(7)
    for _ in range(500):
        plan = random_plan(rng, rng.randint(1, 25))
        assert execution_order(plan) == rounds_in_plan_order(plan)


def test_a_round_keeps_plan_order_not_the_order_its_steps_became_ready() -> None:
    plan = plan_of([("a", []), ("b", []), ("c", ["b"]), ("d", ["a"])])
    assert execution_order(plan) == ["a", "b", "c", "d"]


def test_a_step_waits_for_a_dependency_listed_after_it() -> None:
    plan = plan_of([("c", ["b"]), ("a", []), ("b", ["a"]), ("d", [])])
    assert execution_order(plan) == ["a", "d", "b", "c"]


def test_a_cycle_is_named() -> None:
    plan = plan_of([("a", []), ("b", ["c"]), ("c", ["b"])])
    with pytest.raises(InvalidPlan, match="dependency cycle among steps b, c"):
        execution_order(plan)
