"""The `calculator` tool: evaluates arithmetic by walking the AST, never eval/exec.

Numbers are exact: every literal is read from its text as a fraction, so `0.1 + 0.2` is 0.3
and integers stay integers; only a square root that is not exact, or a fractional power, gives
a floating-point result. Scientific notation (`1.5e3`) is a number like any other.

Accepted: numbers, + - * / // % ** (binary and unary), parentheses, and the functions
sqrt, root(x, n) (the nth root: root(27, 3) is 3), abs, round(x[, digits]), floor, ceil, min
and max.

`%` is modulo when a number follows it ("10 % 3" is 1) and percent when none does:
"20% of 150" and "150 * 20%" are 30. "150 + 10%" is refused as ambiguous (is it 150.1, or 165?):
write "150 + 10% of 150" or "150 * 1.1".

Inputs that could take a long time or a lot of memory are refused up front: long expressions,
deep nesting, huge exponents (in powers and in scientific notation), and results whose
numerator or denominator would be enormous.
"""

from __future__ import annotations

import ast
import math
import re
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from agentrt.core import toolrefs
from agentrt.core.arithmetic import FUNCTIONS, PERCENT_OF, PERCENT_SIGN
from agentrt.core.errors import ToolError

MAX_EXPRESSION_CHARS = 500
MAX_NODES = 200
MAX_RESULT_BITS = 4096  # numerators and denominators beyond ~1233 decimal digits are refused
MAX_EXPONENT = 10_000
MAX_LITERAL_EXPONENT = 400  # 1e400 is fine; 1e-999999 would build a 999,999-digit denominator
MAX_ROUND_DIGITS = 100
MAX_ROOT_DEGREE = 100

Number = Fraction | float
_MAX_DOUBLE = int(sys.float_info.max)
_PCT = "__percent__"  # what "N%" (no operand after it) becomes before parsing

_SYMBOL = {ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%"}
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_LITERAL_EXPONENT = re.compile(r"[eE]([+-]?\d+)")

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "expression": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_EXPRESSION_CHARS,
            "description": "Arithmetic expression, e.g. '(10 + 5) * 2', '20% of 150', 'sqrt(2) * 3'. "
            "Operators: + - * / // % ** ( ); functions: sqrt root(x, n) abs round floor ceil min max.",
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
# Its value is a result a later turn may refer to ("halve that"), and the expression what it is of.
REFERENCES = toolrefs.references(result="/value", result_of="/expression")
DESCRIPTION = (
    "Evaluate an arithmetic expression exactly (0.1 + 0.2 is 0.3; integers stay integers). "
    "Supports + - * / // % ** and parentheses, scientific notation (1.5e3), percent ('20% of 150', "
    "'150 * 20%'; % followed by a number is modulo), and sqrt, root(x, n) (nth root: root(27, 3) is 3), "
    "abs, round(x, digits), floor, ceil, min, max."
)


def _sqrt(x: Number) -> Number:
    if x < 0:
        raise ToolError("square root of a negative number is not a real number")
    if isinstance(x, Fraction):
        top, bottom = math.isqrt(x.numerator), math.isqrt(x.denominator)
        if top * top == x.numerator and bottom * bottom == x.denominator:
            return Fraction(top, bottom)  # exact: sqrt(144) is 12, sqrt(0.25) is 0.5
    return math.sqrt(x)


def _root(x: Number, degree: Number) -> Number:
    """The real nth root: exact when x is the nth power of a fraction (root(27, 3) is 3,
    root(0.0001, 4) is 0.1), else the nearest double. An odd root of a negative number is
    negative; an even one is refused."""
    if not _is_integer(degree) or not 1 <= degree <= MAX_ROOT_DEGREE:
        raise ToolError(f"a root's degree must be a whole number from 1 to {MAX_ROOT_DEGREE}")
    n = int(degree)
    if x < 0 and n % 2 == 0:
        raise ToolError(f"an even root ({n}) of a negative number is not a real number")
    sign = -1 if x < 0 else 1
    if isinstance(x, Fraction):
        top, bottom = _integer_root(abs(x.numerator), n), _integer_root(x.denominator, n)
        if top**n == abs(x.numerator) and bottom**n == x.denominator:
            return sign * Fraction(top, bottom)
    try:
        return sign * float(abs(x)) ** (1 / n)
    except OverflowError:
        raise ToolError("result is too large") from None


def _integer_root(a: int, n: int) -> int:
    """The largest r with r**n <= a (Newton's method on integers: exact for any size)."""
    if a < 2:
        return a
    x = 1 << -(-a.bit_length() // n)  # a power of two at least the root
    while True:
        y = ((n - 1) * x + a // x ** (n - 1)) // n
        if y >= x:
            return x
        x = y


def _round(x: Number, digits: Number = Fraction(0)) -> Number:
    if not _is_integer(digits) or not 0 <= digits <= MAX_ROUND_DIGITS:
        raise ToolError(f"round's digits must be a whole number from 0 to {MAX_ROUND_DIGITS}")
    scale = 10 ** int(digits)
    exact = Fraction(x) * scale
    # Half away from zero (round(2.5) is 3, round(-2.5) is -3), as people round, not banker's.
    rounded = math.floor(abs(exact) + Fraction(1, 2)) * (1 if exact >= 0 else -1)
    return Fraction(rounded, scale)


def _is_integer(x: Number) -> bool:
    return isinstance(x, Fraction) and x.denominator == 1


# How each of the grammar's functions (agentrt/core/arithmetic.py) is computed.
_IMPLEMENTATIONS: dict[str, Callable[..., Number]] = {
    "sqrt": _sqrt,
    "root": _root,
    "abs": abs,
    "round": _round,
    "floor": lambda x: Fraction(math.floor(x)),
    "ceil": lambda x: Fraction(math.ceil(x)),
    "min": min,
    "max": max,
}
assert set(_IMPLEMENTATIONS) == set(FUNCTIONS)
_FUNCTION_NAMES = ", ".join(FUNCTIONS)


def evaluate(expression: str) -> int | float:
    """Evaluate `expression`; raises ToolError with a clear message on anything else."""
    return _public(evaluate_exact(expression))


def evaluate_exact(expression: str) -> Number:
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"expression is too long ({len(expression)} > {MAX_EXPRESSION_CHARS} characters)")
    source = _percent_to_calls(expression.strip())
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise ToolError(f"not a valid arithmetic expression: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise ToolError("expression is nested too deeply") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ToolError(f"expression has too many parts (more than {MAX_NODES})")
    try:
        return _eval(tree.body, source)
    except RecursionError:
        raise ToolError("expression is nested too deeply") from None


def _percent_to_calls(text: str) -> str:
    """Percent signs with no operand after them become calls of the percent marker, which only
    _eval understands: "20% of 150" -> __percent__(20)*(150), "150 * 20%" -> 150 * __percent__(20).
    A number before the sign is all it takes; "(x)%" works too."""
    text = PERCENT_OF.sub("% *", text)
    out, last = [], 0
    for match in PERCENT_SIGN.finditer(text):
        start = _operand_start(text, match.start())
        if start is None:
            raise ToolError("'%' as percent needs a number before it, e.g. '20%'")
        out.append(text[last:start] + f"{_PCT}({text[start : match.start()]})")
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def _operand_start(text: str, end: int) -> int | None:
    """Where the number or parenthesized group ending at `end` starts."""
    i = end
    while i > 0 and text[i - 1] == " ":
        i -= 1
    if i > 0 and text[i - 1] == ")":
        depth = 0
        for j in range(i - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[j], 0)
            if depth == 0:
                return j
        return None
    j = i
    while j > 0 and (text[j - 1].isdigit() or text[j - 1] in "._" or text[j - 1] in "eE"):
        j -= 1
    return j if j < i and any(c.isdigit() for c in text[j:i]) else None


def _eval(node: ast.AST, source: str) -> Number:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return _literal(ast.get_source_segment(source, node) or repr(node.value))
    if isinstance(node, ast.UnaryOp) and type(node.op) in (ast.UAdd, ast.USub):
        operand = _eval(node.operand, source)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        if isinstance(node.op, ast.Add | ast.Sub) and (_is_percent(node.left) or _is_percent(node.right)):
            raise ToolError(
                "adding or subtracting a percentage is ambiguous: write '150 + 10% of 150' "
                "(165) or '150 + 0.1' instead of '150 + 10%'"
            )
        return _apply(node.op, _eval(node.left, source), _eval(node.right, source))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        return _call(node.func.id, [_eval(a, source) for a in node.args])
    raise ToolError(f"unsupported element in expression: {_describe(node)}")


def _is_percent(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == _PCT


def _literal(text: str) -> Fraction:
    """A number exactly as written: "0.1" is 1/10, not the double nearest to it."""
    if (m := _LITERAL_EXPONENT.search(text)) and abs(int(m.group(1))) > MAX_LITERAL_EXPONENT:
        limit = MAX_LITERAL_EXPONENT
        raise ToolError(f"number {text[:40]} is too large or too small (exponent beyond ±{limit})")
    try:
        return _checked(Fraction(text.replace("_", "")))
    except ValueError:
        raise ToolError(f"not a number: {text[:40]}") from None


def _call(name: str, args: list[Number]) -> Number:
    if name == _PCT:
        return _apply(ast.Div(), args[0], Fraction(100))
    if name not in FUNCTIONS:
        raise ToolError(f"function call '{name}' is not supported (functions: {_FUNCTION_NAMES})")
    fewest, most = FUNCTIONS[name]
    function = _IMPLEMENTATIONS[name]
    if not fewest <= len(args) <= most:
        wanted = str(fewest) if fewest == most else f"{fewest} to {most}"
        raise ToolError(f"{name} takes {wanted} argument(s), got {len(args)}")
    try:
        result = function(*args)
    except OverflowError:
        raise ToolError("result is too large") from None
    return _checked(result)


def _apply(op: ast.operator, left: Number, right: Number) -> Number:
    kind = type(op)
    if kind in _SYMBOL and right == 0:
        raise ToolError(f"division by zero ({_SYMBOL[kind]} by 0)")
    try:
        if kind is ast.Pow:
            result = _power(left, right)
        elif kind is ast.Add:
            result = left + right
        elif kind is ast.Sub:
            result = left - right
        elif kind is ast.Mult:
            if isinstance(left, Fraction) and isinstance(right, Fraction):
                _check_bits(left.numerator.bit_length() + right.numerator.bit_length())
                _check_bits(left.denominator.bit_length() + right.denominator.bit_length())
            result = left * right
        elif kind is ast.Div:
            result = left / right
        elif kind is ast.FloorDiv:
            result = left // right
        else:
            result = left % right
    except OverflowError:
        raise ToolError("result is too large") from None
    return _checked(result)


def _power(base: Number, exponent: Number) -> Number:
    # Decide before computing: 9**9**9 would otherwise run for minutes and eat memory.
    if abs(exponent) > MAX_EXPONENT and abs(base) not in (0, 1):
        raise ToolError(f"exponent is too large (|{_public(exponent)}| > {MAX_EXPONENT})")
    if _is_integer(exponent) and isinstance(base, Fraction):
        power = int(exponent)
        if base == 0 and power < 0:
            raise ToolError("division by zero (0 raised to a negative power)")
        biggest = max(base.numerator.bit_length(), base.denominator.bit_length())
        if (biggest - 1) * abs(power) <= MAX_RESULT_BITS:
            return base**power
        if base.denominator == 1 and power > 0:
            raise ToolError("result is too large")
        # Too long to keep exact (0.5 ** 5000, 2 ** -5000): the nearest double will do.
        return float(base) ** power
    if base < 0:
        raise ToolError("result is not a real number (fractional power of a negative number)")
    if base == 0 and exponent < 0:
        raise ToolError("division by zero (0 raised to a negative power)")
    return float(base) ** float(exponent)


def _check_bits(bits: int) -> None:
    if bits > MAX_RESULT_BITS:
        raise ToolError("result is too large")


def _checked(result: Number | int) -> Number:
    if isinstance(result, int):
        result = Fraction(result)
    if isinstance(result, complex):
        raise ToolError("result is not a real number (fractional power of a negative number)")
    if isinstance(result, float):
        if not math.isfinite(result):
            raise ToolError("result is too large")
        return result
    _check_bits(max(result.numerator.bit_length(), result.denominator.bit_length()))
    return result


def _public(value: Number) -> int | float:
    """An exact value as an int when it is whole, else the nearest double."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    try:
        result = float(value)
    except OverflowError:
        raise ToolError("result is too large") from None
    if not math.isfinite(result):
        raise ToolError("result is too large")
    return result


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"name '{node.id}' (only numbers, operators and {_FUNCTION_NAMES} are allowed)"
    if isinstance(node, ast.Call):
        return f"function call (only {_FUNCTION_NAMES}, called by name with plain arguments)"
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
