"""PostgreSQL for tests: the local server (or AGENTRT_TEST_DATABASE_URL), one fresh schema per
test, dropped afterwards. Without a reachable server the PostgreSQL tests skip, saying why
(or fail, where AGENTRT_TEST_REQUIRE_POSTGRES=1 says the server must be there, as in CI)."""

from __future__ import annotations

import os
import uuid

import asyncpg
import pytest

TEST_URL = os.environ.get("AGENTRT_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


async def available() -> str | None:
    """None if the test server answers, else why not."""
    try:
        conn = await asyncpg.connect(TEST_URL, timeout=3)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        return f"{type(exc).__name__}: {exc}"
    await conn.close()
    return None


async def new_schema() -> str:
    """A schema name of this test's own (the services create it); skips the test, or fails it
    where the server must be there, when PostgreSQL does not answer."""
    reason = await available()
    if reason is not None:
        message = f"PostgreSQL not reachable at {TEST_URL} ({reason})"
        if os.environ.get("AGENTRT_TEST_REQUIRE_POSTGRES") == "1":  # CI: it must be there
            pytest.fail(f"{message}, and AGENTRT_TEST_REQUIRE_POSTGRES=1")
        pytest.skip(f"{message}: PostgreSQL test skipped")
    return f"t_{uuid.uuid4().hex[:12]}"


async def drop_schema(schema: str) -> None:
    conn = await asyncpg.connect(TEST_URL)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()
