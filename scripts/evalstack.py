"""The stack `make eval` runs against (scripts/eval_requests.py, scripts/eval_followups.py): the
suite's in-process services on free ports, SQLite in a temporary directory, one API key per
case (`eval_key(n)` for principal "eval-n": each with a todo list of its own), approvals off
(they are their own matter: here, what is planned) and no rate limit worth the name."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from pydantic import SecretStr

from agentrt.config import Settings


def eval_key(n: int) -> str:
    """Case n's API key (principal "eval-n"): one the settings accept (they refuse weak keys)."""
    from tests.keys import key_for  # noqa: PLC0415  (the suite's keys, as its stack)

    return key_for(f"eval-{n}")


@asynccontextmanager
async def eval_stack(principals: int) -> AsyncIterator[object]:
    """A running stack whose gateway is `.gateway`, with keys eval_key(0) .. eval_key(principals - 1)."""
    from tests.conftest import start_stack  # noqa: PLC0415  (the suite's in-process stack)

    keys = {f"eval-{n}": SecretStr(eval_key(n)) for n in range(principals)}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            internal_token="eval-internal-token-0123456789abcdef",
            log_level="error",
            approval_policy="never",
            api_keys=keys,
            rate_limit_rps=10000.0,
            rate_limit_burst=10000,
        )
        stack = await start_stack(settings)
        try:
            yield stack
        finally:
            await stack.close()
