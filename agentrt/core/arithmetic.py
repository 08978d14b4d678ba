"""The calculator's grammar beyond Python's, in one place: tools_svc's calculator evaluates it and
the rule planner checks expressions against it before planning a calculator step."""

from __future__ import annotations

import re

# Functions the calculator evaluates (name -> fewest and most arguments).
FUNCTIONS: dict[str, tuple[int, int]] = {
    "sqrt": (1, 1),
    "root": (2, 2),
    "abs": (1, 1),
    "round": (1, 2),
    "floor": (1, 1),
    "ceil": (1, 1),
    "min": (1, 50),
    "max": (1, 50),
}
# "%" is percent when no operand follows it (the end, a closing parenthesis, an operator or a
# comma), and modulo otherwise: "150 * 20%" vs "10 % 3".
PERCENT_SIGN = re.compile(r"%(?=\s*(?:$|[)+\-*/,]))")
# "20% of 150": "of" after a percent sign means "times".
PERCENT_OF = re.compile(r"%\s*of\b", re.IGNORECASE)
