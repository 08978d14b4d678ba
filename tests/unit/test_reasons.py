"""One failure vocabulary: every reason the code raises is in agentrt.core.reasons, raised with
the code the registry gives it, and the README's table is the registry's."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grpc

from agentrt.core import errors
from agentrt.core.reasons import REASONS, markdown_table

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["agentrt", "executor_svc", "gateway", "planner_svc", "tools_svc"]
# Error classes and the code each raises (unless the call passes code=...).
CLASS_CODES = {
    name: cls.code.name
    for name, cls in vars(errors).items()
    if isinstance(cls, type) and issubclass(cls, errors.AgentrtError) and cls is not errors.Relayed
}


def _strings(node: ast.expr | None) -> list[str]:
    """The string constants an expression can evaluate to (x, or a if c else b)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value else []  # "" is "no reason" (a rejection's comment)
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    return []


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _code_of(call: ast.Call) -> str | None:
    """The status code a call raising a reason gives it, when the call says (None: unknown)."""
    for keyword in call.keywords:
        if keyword.arg == "code":
            if isinstance(keyword.value, ast.Attribute):  # grpc.StatusCode.X
                return keyword.value.attr
            if strings := _strings(keyword.value):  # RunError(code="X")
                return strings[0]
            return None
    return CLASS_CODES.get(_callee(call))


def raised_reasons() -> list[tuple[str, str | None, str]]:
    """(reason, code or None, where) for every reason literal in the services' code."""
    found = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "/v1/" in path.as_posix():
                continue
            tree = ast.parse(path.read_text())
            where = path.relative_to(ROOT).as_posix()
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    for keyword in node.keywords:
                        if keyword.arg == "reason":
                            for reason in _strings(keyword.value):
                                found.append((reason, _code_of(node), f"{where}:{node.lineno}"))
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if any(
                        (isinstance(t, ast.Name) and t.id == "reason")
                        or (isinstance(t, ast.Attribute) and t.attr == "reason")
                        for t in targets
                    ):
                        for reason in _strings(node.value):
                            found.append((reason, None, f"{where}:{node.lineno}"))
                elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    arguments = [*node.args.args, *node.args.kwonlyargs]
                    defaults = [None] * (len(node.args.args) - len(node.args.defaults))
                    defaults += [*node.args.defaults, *node.args.kw_defaults]
                    for argument, default in zip(arguments, defaults, strict=True):
                        if argument.arg == "reason":
                            for reason in _strings(default):
                                found.append((reason, None, f"{where}:{node.lineno}"))
    return found


def test_every_reason_the_code_raises_is_registered_with_its_code() -> None:
    found = raised_reasons()
    assert len(found) > 60  # the scan sees the code (a scan that finds nothing proves nothing)
    unknown = sorted({f"{reason} ({where})" for reason, _, where in found if reason not in REASONS})
    assert unknown == [], "reasons missing from agentrt/core/reasons.py"
    wrong = sorted(
        f"{reason}: raised as {code} at {where}, registered as {REASONS[reason].code}"
        for reason, code, where in found
        if code is not None and code != REASONS[reason].code
    )
    assert wrong == []


def test_the_registry_is_well_formed() -> None:
    for reason in REASONS.values():
        assert re.fullmatch(r"[A-Z][A-Z0-9_]+", reason.name)
        assert reason.code in grpc.StatusCode.__members__, reason
        assert reason.meaning.endswith(".") and len(reason.meaning) < 120, reason
    # Every error class's default reason is a registered one, with the class's code.
    for name, code in CLASS_CODES.items():
        default = getattr(errors, name).reason
        assert REASONS[default].code == code or name in ("AgentrtError", "ToolError"), name


def test_the_readme_table_is_the_registry() -> None:
    assert markdown_table() in (ROOT / "README.md").read_text(), (
        "README.md's table of reasons is stale: paste the output of `python -m agentrt.core.reasons`"
    )
