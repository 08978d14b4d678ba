"""Fixtures the process tests share."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from tests import pg


@pytest.fixture
def schema() -> Iterator[str]:
    """A fresh PostgreSQL schema (conftest's pg_schema, for these synchronous tests); skips
    without PostgreSQL."""
    name = asyncio.run(pg.new_schema())
    try:
        yield name
    finally:
        asyncio.run(pg.drop_schema(name))
