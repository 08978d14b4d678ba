"""Tool versions follow SemVer 2.0.0: its precedence (numeric identifiers as numbers) and its
rules for what a version may be."""

from __future__ import annotations

import pytest

from agentrt.core.errors import InvalidArgument
from tools_svc.validation import is_version, version_key


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("1.0.0-beta.9", "1.0.0-beta.10"),
        ("1.0.0-alpha.2", "1.0.0-alpha.10"),
        ("1.0.0-rc.1", "1.0.0"),
        ("1.0.0-alpha", "1.0.0-alpha.1"),
        ("1.0.0-1", "1.0.0-alpha"),  # numeric identifiers sort before alphanumeric ones
        ("1.9.0", "1.10.0"),
    ],
)
def test_precedence(older: str, newer: str) -> None:
    assert version_key(older) < version_key(newer)


def test_the_specifications_own_example_is_in_order() -> None:
    ordered = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
    ]
    assert sorted(reversed(ordered), key=version_key) == ordered


def test_build_metadata_does_not_order_versions() -> None:
    assert version_key("1.0.0+build.1") == version_key("1.0.0+build.2") == version_key("1.0.0")


@pytest.mark.parametrize(
    "version",
    [
        "1.0.0-01",  # a numeric identifier with a leading zero
        "1.0.0-a..b",  # an empty identifier
        "1.0.0-beta.",
        "1.0.0-",
        "1.0.0+a..b",
        "1.0.0+",
        "1.0.0-beta+",
        "1.0.0\n",
        "1",  # what the built-in tools carry: never a provider's version
        "1.0",
        "v1.0.0",
        "01.0.0",
        "9" * 5000 + ".0.0",  # more digits than Python turns into an int
    ],
)
def test_versions_the_specification_forbids_are_refused(version: str) -> None:
    assert not is_version(version)
    with pytest.raises(InvalidArgument, match=r"is not a semantic version like 1\.2\.0") as info:
        version_key(version)
    assert info.value.reason == "INVALID_VERSION"


def test_long_numeric_pre_release_identifiers_compare_as_numbers() -> None:
    assert version_key("1.0.0-" + "9" * 5000) < version_key("1.0.0-1" + "0" * 5000)
