"""Which database failures are outages (UNAVAILABLE, retried by callers) rather than bugs.

Server-side only: the check looks at SQLAlchemy's exceptions, and only if SQLAlchemy is loaded at
all, so services without a database (the gateway, the planner) never import it for this.
"""

from __future__ import annotations

import sys

from agentrt.core.errors import Unavailable


def outage_line(exc: BaseException) -> str:
    """An outage in the one line a log shows (a driver's message runs on with SQL and a link)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def store_outage(exc: BaseException) -> Unavailable | None:
    """The error to report when `exc` means the database could not be reached or failed (not a
    bug in a statement): UNAVAILABLE, which clients retry. None for anything else."""
    # Looked up lazily: services without a database never import SQLAlchemy.
    sa_exc = sys.modules.get("sqlalchemy.exc")
    outage = isinstance(exc, ConnectionError)  # asyncpg's refused or reset connections
    if sa_exc is not None:
        # Not DBAPIError as a whole: IntegrityError and ProgrammingError are bugs, not outages.
        outage = (
            outage
            or isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError)
            # A connection that died mid-statement ("connection was closed in the middle of
            # operation") comes as a plain DBAPIError that SQLAlchemy marks as a disconnect.
            or (isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated)
        )
    if not outage:
        return None
    return Unavailable("the database is unavailable; retry shortly", reason="STORE_UNAVAILABLE")
