"""The executor's tables, described once for SQLite and PostgreSQL (Alembic migrates them)."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("run_id", sa.String, primary_key=True),
    # The principal that created the run: only it (and approvers, admins) may see it. Idempotency
    # keys are scoped by it: one principal's key never returns another's run.
    sa.Column("owner", sa.String, nullable=False, server_default="local"),
    sa.Column("idempotency_key", sa.String),
    sa.Column("status", sa.Integer, nullable=False),
    sa.Column("create_time_us", sa.BigInteger, nullable=False),
    sa.Column("last_seq", sa.Integer, nullable=False),
    # The whole Run message: the columns above are what queries filter and sort on.
    sa.Column("data", sa.LargeBinary, nullable=False),
    # The replica driving the run, and the fencing token: every claim increments lease_epoch and
    # every write names the epoch it holds, so a replica that lost the lease cannot write.
    sa.Column("lease_owner", sa.String),
    sa.Column("lease_epoch", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("lease_expires", sa.Float),  # database clock, seconds since the epoch
    sa.Column("end_time_us", sa.BigInteger),  # set when the run finishes; retention prunes by it
    # Listing is newest first: both backends walk these ascending indexes backwards.
    sa.Index("runs_by_time", "create_time_us", "run_id"),
    sa.Index("runs_by_status", "status", "create_time_us", "run_id"),
    sa.Index("runs_by_end", "end_time_us"),
    sa.Index("runs_by_owner", "owner", "create_time_us", "run_id"),
    sa.Index("runs_by_owner_status", "owner", "status", "create_time_us", "run_id"),
    sa.Index("runs_by_owner_key", "owner", "idempotency_key", unique=True),
)

run_events = sa.Table(
    "run_events",
    metadata,
    sa.Column("run_id", sa.String, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sqlite_with_rowid=False,
)
