"""The rule planner is a pipeline (issue 58): planner_svc/rules.py runs the stages in order
(normalise, read the alternatives, cover, bind, check), each stage a module of
planner_svc/stages with values in and out, and no stage plans again: only the orchestrator's own
functions call the functions that plan a text."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLANNER = ROOT / "planner_svc"
# The orchestrator's functions that plan a text (a reading through every stage).
PLANNING = {"plan", "_planned", "_read", "_plan_correction"}


def _calls(tree: ast.AST) -> dict[str, set[str]]:
    """For each top-level function, the names it calls."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, set()).update(
                c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
            )
    return found


def test_no_stage_imports_the_orchestrator() -> None:
    stages = [*(PLANNER / "stages").glob("*.py"), *(PLANNER / "grammar").rglob("*.py")]
    stages += [
        PLANNER / name
        for name in (
            "acts.py",
            "undo.py",
            "amends.py",
            "discourse.py",
            "followups.py",
            "result_refs.py",
            "counting.py",
            "put_right.py",
            "what_if.py",
            "put_back.py",
            "taken_back.py",
            "one_more.py",
            "act_words.py",
            "replies.py",
        )
    ]
    for path in stages:
        tree = ast.parse(path.read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert "planner_svc.rules" not in imported, path
        assert not ({"rules"} & names and "planner_svc" in imported), path


def test_only_the_orchestrator_plans_a_text() -> None:
    calls = _calls(ast.parse((PLANNER / "rules.py").read_text()))
    planners = {name for name, called in calls.items() if called & (PLANNING - {"plan"})}
    assert planners <= PLANNING, planners - PLANNING
    # ... and the reading of one text (_read) plans nothing again
    assert not calls["_read"] & PLANNING


def test_the_stages_and_the_grammar_are_small_modules() -> None:
    """One mechanism a module: the stages, and the grammar split by what it parses."""
    paths = [*(PLANNER / "stages").glob("*.py"), *(PLANNER / "grammar").rglob("*.py")]
    assert len(paths) > 25
    for path in paths:
        assert len(path.read_text().splitlines()) <= 460, path
