"""The `calculator` tool: evaluates arithmetic by walking the AST, never eval/exec.

Only numbers, + - * / // % ** (binary and unary) and parentheses are accepted. Inputs that
could take a long time or a lot of memory are refused up front: long expressions, deep
nesting, and powers or products whose result would be enormous.
"""

from __future__ import annotations

import ast
import math
import operator
import sys
from collections.abc import Callable
from typing import Any

from agentrt.client.errors import ToolError

MAX_EXPRESSION_CHARS = 500
MAX_NODES = 200
MAX_RESULT_BITS = 4096  # ints beyond ~1233 decimal digits are refused
MAX_EXPONENT = 10_000

Number = int | float
_MAX_DOUBLE = int(sys.float_info.max)

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_SYMBOL = {ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%"}

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "expression": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_EXPRESSION_CHARS,
            "description": "Arithmetic expression, e.g. '(10 + 5) * 2'. Operators: + - * / // % ** ( ).",
        }
    },
    "required": ["expression"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"expression": {"type": "string"}, "value": {"type": "number"}},
    "required": ["expression", "value"],
}
DESCRIPTION = (
    "Evaluate an arithmetic expression exactly (integers stay integers). "
    "Supports + - * / // % ** and parentheses; no names or functions."
)


def evaluate(expression: str) -> Number:
    """Evaluate `expression`; raises ToolError with a clear message on anything else."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"expression is too long ({len(expression)} > {MAX_EXPRESSION_CHARS} characters)")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ToolError(f"not a valid arithmetic expression: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise ToolError("expression is nested too deeply") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ToolError(f"expression has too many parts (more than {MAX_NODES})")
    try:
        return _eval(tree.body)
    except RecursionError:
        raise ToolError("expression is nested too deeply") from None


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        return _apply(node.op, left, right)
    raise ToolError(f"unsupported element in expression: {_describe(node)}")


def _apply(op: ast.operator, left: Number, right: Number) -> Number:
    kind = type(op)
    if kind in _SYMBOL and right == 0:
        raise ToolError(f"division by zero ({_SYMBOL[kind]} by 0)")
    if kind is ast.Pow:
        _check_power(left, right)
    if (
        kind is ast.Mult
        and isinstance(left, int)
        and isinstance(right, int)
        and left.bit_length() + right.bit_length() > MAX_RESULT_BITS
    ):
        raise ToolError("result is too large")
    try:
        result = _BINARY[kind](left, right)
    except OverflowError:
        raise ToolError("result is too large") from None
    except ZeroDivisionError:
        raise ToolError("division by zero (0 raised to a negative power)") from None
    if isinstance(result, complex):
        raise ToolError("result is not a real number (fractional power of a negative number)")
    if isinstance(result, float) and not math.isfinite(result):
        raise ToolError("result is too large")
    if isinstance(result, int) and result.bit_length() > MAX_RESULT_BITS:
        raise ToolError("result is too large")
    return result


def _check_power(base: Number, exponent: Number) -> None:
    # Decide before computing: 9**9**9 would otherwise run for minutes and eat memory.
    if abs(exponent) > MAX_EXPONENT and abs(base) not in (0, 1):
        raise ToolError(f"exponent is too large (|{exponent}| > {MAX_EXPONENT})")
    if (
        isinstance(base, int)
        and isinstance(exponent, int)
        and exponent > 0
        and (abs(base).bit_length() - 1) * exponent > MAX_RESULT_BITS
    ):
        raise ToolError("result is too large")


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"name '{node.id}' (only numbers and operators are allowed)"
    if isinstance(node, ast.Call):
        return "function call (only numbers and operators are allowed)"
    if isinstance(node, ast.Attribute):
        return "attribute access (only numbers and operators are allowed)"
    if isinstance(node, ast.Constant):
        return f"constant {node.value!r} (only numbers are allowed)"
    return f"{type(node).__name__} (only numbers and + - * / // % ** are allowed)"


async def run(arguments: dict[str, Any]) -> dict[str, Any]:
    expression = arguments["expression"]
    value = evaluate(expression)
    if isinstance(value, int) and abs(value) >= 2**53:
        # protobuf numbers are doubles; say so instead of silently rounding.
        if abs(value) > _MAX_DOUBLE:
            raise ToolError(
                f"result is too large to return as a number ({len(str(abs(value)))} digits; "
                "numbers are doubles, at most about 1.8e308)"
            )
        return {"expression": expression, "value": float(value), "exact": str(value)}
    return {"expression": expression, "value": value}
