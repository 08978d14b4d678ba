"""The shape of the code: the project's modules import each other without a cycle (type-checking
imports included: a cycle there is still two modules that cannot be read apart)."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("agentrt", "executor_svc", "gateway", "planner_svc", "tools_svc")


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    modules = {
        module_of(p): p
        for package in PACKAGES
        for p in (ROOT / package).rglob("*.py")
        if "/v1/" not in p.as_posix()
    }
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from pkg import mod` depends on pkg.mod; `from mod import name`, on mod.
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.append(sub if sub in modules else node.module)
            edges.update(t for t in targets if t in modules and t != name)
    return graph


def test_the_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 100  # the walk saw the project
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as cycle:
        raise AssertionError(f"import cycle: {' -> '.join(cycle.args[1])}") from None


def test_the_services_and_the_core_never_import_the_client() -> None:
    """The client is what users install; what the services share lives in agentrt/core (and
    agentrt/server): dependencies point from the client to the core, never back."""
    graph = import_graph()
    shared = ("agentrt.core", "agentrt.server", "executor_svc", "gateway", "planner_svc", "tools_svc")
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.startswith(shared)
        for target in targets
        if target.startswith(("agentrt.client", "agentrt.cli", "agentrt.tools_sdk"))
    )
    assert wrong == []
