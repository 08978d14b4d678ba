import time

import pytest

from agentrt.core.errors import ToolError
from tools_svc import calculator


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("(10 + 5) * 2", 30),
        ("(41 * 7) + 13", 300),
        ("41*7+13", 300),
        ("100 / 8", 12.5),
        ("7 // 2", 3),
        ("-7 // 2", -4),
        ("7 % 3", 1),
        ("2 ** 10", 1024),
        ("-(3 - 5)", 2),
        ("+4", 4),
        ("2 ** -1", 0.5),
        ("1.5 * 4", 6.0),
        ("  3  ", 3),
    ],
)
def test_evaluates_arithmetic(expression: str, expected: float) -> None:
    assert calculator.evaluate(expression) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1 / 0", "division by zero"),
        ("5 // 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("x + 1", "name 'x'"),
        ("__import__('os').system('true')", "function call"),
        ("(1).real", "attribute access"),
        ("'a' * 3", "constant 'a'"),
        ("[1, 2]", "List"),
        ("1 if 1 else 2", "IfExp"),
        ("1 < 2", "Compare"),
        ("lambda: 1", "Lambda"),
        ("1 +", "not a valid arithmetic expression"),
        ("(-8) ** 0.5", "not a real number"),
        ("10.5 ** 400", "too large"),
    ],
)
def test_refuses_with_clear_message(expression: str, message: str) -> None:
    with pytest.raises(ToolError, match=message.replace("(", r"\(").replace(")", r"\)")):
        calculator.evaluate(expression)


@pytest.mark.parametrize(
    "expression", ["9 ** 9 ** 9", "2 ** 100000000", "10 ** 10 ** 10", "(10**1000) * (10**1000)"]
)
def test_huge_results_are_refused_quickly(expression: str) -> None:
    start = time.perf_counter()
    with pytest.raises(ToolError, match="too large"):
        calculator.evaluate(expression)
    assert time.perf_counter() - start < 0.5


def test_long_and_deep_inputs_are_refused() -> None:
    with pytest.raises(ToolError, match="too long"):
        calculator.evaluate("1+" * 300 + "1")
    # Deep but legal nesting evaluates; past the parser's limit it is a clear error, not a crash.
    assert calculator.evaluate("(" * 150 + "1" + ")" * 150) == 1
    assert calculator.evaluate("-" * 90 + "1") == 1
    with pytest.raises(ToolError, match="too many nested parentheses"):
        calculator.evaluate("(" * 240 + "1" + ")" * 240)
    with pytest.raises(ToolError, match="too many parts"):
        calculator.evaluate("+".join(["1"] * 240))


async def test_run_returns_value_and_exact_text_for_big_ints() -> None:
    assert await calculator.run({"expression": "2+3"}) == {"expression": "2+3", "value": 5}
    big = await calculator.run({"expression": "2 ** 64"})
    assert big["exact"] == str(2**64)
    assert big["value"] == float(2**64)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # Exact decimals: what was written, not the nearest doubles.
        ("0.1 + 0.2", 0.3),
        ("0.1 * 3", 0.3),
        ("1.1 - 1", 0.1),
        ("10 / 4", 2.5),
        ("2 ** 64", 2**64),  # integers stay exact
        # Scientific notation.
        ("1.5e3 * 2", 3000),
        ("2.5E-2 * 4", 0.1),
        ("1e400 / 1e399", 10),
        # Percent where no operand follows the sign; modulo where one does.
        ("20% of 150", 30),
        ("150 * 20%", 30),
        ("12.5% of 80", 10),
        ("20 % of 150", 30),
        ("(10 + 10)% of 150", 30),
        ("150 + 10% of 150", 165),
        ("10 % 3", 1),
        ("-7 % 3", 2),
        # Functions.
        ("sqrt(144)", 12),
        ("sqrt(0.25)", 0.5),
        ("abs(-3.5)", 3.5),
        ("round(2.5)", 3),
        ("round(-2.5)", -3),
        ("round(3.14159, 2)", 3.14),
        ("floor(-2.5)", -3),
        ("ceil(2.1)", 3),
        ("min(3, 1.5, 2)", 1.5),
        ("max(3, 1.5, 2)", 3),
        ("round(sqrt(2) ** 2, 6)", 2),
        ("(3 + 9 + 12) / 3", 8),
    ],
)
def test_everyday_arithmetic_is_exact(expression: str, expected: float) -> None:
    value = calculator.evaluate(expression)
    assert value == expected
    if isinstance(expected, int):
        assert isinstance(value, int), f"{expression} gave {value!r}, not an integer"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("150 + 10%", "ambiguous"),
        ("sqrt(-4)", "not a real number"),
        ("round(2.5, 1.5)", "whole number"),
        ("round(2.5, 1000)", "whole number from 0 to 100"),
        ("min()", "takes 1 to 50"),
        ("sqrt(1, 2)", "takes 1 argument"),
        ("log(10)", "function call 'log' is not supported"),
        ("1e-999999", "exponent beyond"),
        ("1e999999 * 0", "exponent beyond"),
        ("abs(x=1)", "function call"),
        ("%", "needs a number before it"),
    ],
)
def test_everyday_mistakes_are_clear_errors(expression: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        calculator.evaluate(expression)


def test_exact_fractions_stay_bounded() -> None:
    start = time.perf_counter()
    for expression in ["(1/3) ** 5000", "0.5 ** 5000 * 3", "(1 / 7) * 10 ** 1200", "2 ** -5000"]:
        try:
            calculator.evaluate(expression)
        except ToolError as err:
            assert "too large" in str(err)
    assert time.perf_counter() - start < 0.5
    assert calculator.evaluate("2 ** -5000") == 0.0  # too long to keep exact: the nearest double
