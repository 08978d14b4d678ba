import time

import pytest

from agentrt.client.errors import ToolError
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
        ("10.0 ** 400", "too large"),
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
