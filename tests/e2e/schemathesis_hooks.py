"""Loaded by the schemathesis process of test_schemathesis.py (SCHEMATHESIS_HOOKS): Hypothesis
builds each regex character class's strategy once instead of at every use.

Where that run's time went (py-spy on both processes, 20 examples per operation, 145 s): 94% of
schemathesis' CPU in Hypothesis' from_regex, building the strategy of the printable characters'
class (`[^...]` of the 459 ranges and 242 characters str.isprintable refuses, 969,354 code
points: agentrt/core/fieldrules.py). Hypothesis walks a range one code point at a time, ~3 s a
build, and schemathesis built it 31 times (a strategy per field, phase and mode). The server
was all but idle (2 s of CPU in the whole run). A class's strategy depends only on the class,
the regex flags and the alphabet, so it is built once and reused; what is generated is
unchanged (the same 1,175 requests, in the same order, with and without this hook).

It patches a private function of Hypothesis: should a Hypothesis release change it, this fails
loudly at import rather than leave the test seven times slower.
"""

from __future__ import annotations

import atexit
import functools
import inspect
import re._constants as sre  # what Hypothesis reads regexes with
import sys
from typing import Any

from hypothesis.strategies._internal import lazy, regex

_EXPECTED = ["codes", "context", "is_unicode", "alphabet"]
if list(inspect.signature(regex._strategy).parameters) != _EXPECTED:
    raise ImportError(
        "tests/e2e/schemathesis_hooks.py: hypothesis.strategies._internal.regex._strategy is no "
        f"longer _strategy({', '.join(_EXPECTED)}); update or drop this hook"
    )

_build = regex._strategy
_classes: dict[Any, Any] = {}
_reused = [0]


@functools.wraps(_build)
def _strategy(codes: Any, context: Any, is_unicode: bool, *, alphabet: Any) -> Any:
    # (IN, [(NEGATE, None), (RANGE, (a, b)), ...]): a character class, the costly node.
    if isinstance(codes, tuple) and codes[0] == sre.IN and is_unicode and alphabet is not None:
        intervals = getattr(lazy.unwrap_strategies(alphabet), "intervals", None)
        if intervals is not None:
            key = (tuple(codes[1]), int(context.flags), intervals.intervals)
            if key in _classes:
                _reused[0] += 1
            else:
                _classes[key] = _build(codes, context, is_unicode, alphabet=alphabet)
            return _classes[key]
    return _build(codes, context, is_unicode, alphabet=alphabet)


regex._strategy = _strategy  # its own recursion looks the name up here too


@atexit.register
def _report() -> None:
    # The test looks for this line: the hook was loaded, and it saved work.
    print(f"regex classes: {len(_classes)} built, {_reused[0]} reused", file=sys.stderr)
