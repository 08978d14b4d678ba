"""The body bound's scan (gateway/httpedge.json_shape): it reads a body as a parser would, and it
is one pass whatever the bytes (the bodies below made an earlier pattern rescan from every quote:
14 s and 20 s for 64 KiB). Its cost is bounded by the event-loop lag the fuzz pass asserts; here,
what it reads."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.httpedge import MAX_NUMBER_DIGITS, json_shape

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=st.sampled_from('ab"\\[]{}é\u0000')),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=20,
)


def depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_the_scan_reads_the_depth_a_parser_reads(value: object) -> None:
    raw = json.dumps(value, ensure_ascii=False).encode()
    assert json_shape(raw).depth == depth(value)


@pytest.mark.parametrize(
    "body",
    [b'["' + b'\\"' * 32_767, b'"\\' * 32_768, b'\\"' * 32_768, b'"' * 65_536, (b"9" * 400 + b",") * 163],
)
def test_bodies_that_made_a_scan_rescan_are_read_once(body: bytes) -> None:
    shape = json_shape(body)  # within the fuzz pass's loop bound, these took seconds before
    assert shape.depth <= 1 and not shape.long_number


def test_a_number_past_the_bound_is_seen_outside_strings_only() -> None:
    assert json_shape(b"[" + b"9" * (MAX_NUMBER_DIGITS + 1) + b"]").long_number
    assert not json_shape(b'["' + b"9" * 5000 + b'"]').long_number
    assert not json_shape(b"[" + b"9" * MAX_NUMBER_DIGITS + b"]").long_number
