"""The executor's tables, described once for SQLite and PostgreSQL (Alembic migrates them)."""

from __future__ import annotations

import sqlalchemy as sa

from agentrt.v1 import run_pb2

metadata = sa.MetaData()
# The statuses of a thread's turn that is being worked on (not queued, not finished): a thread
# has at most one (runs_one_active_turn), whichever replica created or dequeued it.
ACTIVE_TURN = (
    run_pb2.RUN_STATUS_PENDING,
    run_pb2.RUN_STATUS_PLANNING,
    run_pb2.RUN_STATUS_RUNNING,
    run_pb2.RUN_STATUS_WAITING,
)
_ACTIVE_TURN_SQL = sa.text(f"thread_id IS NOT NULL AND status IN ({', '.join(map(str, ACTIVE_TURN))})")

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
    # A turn of a thread (threads.py): which, and its place in it (1, 2, ...).
    sa.Column("thread_id", sa.String),
    sa.Column("thread_turn", sa.Integer),
    # Listing is newest first: both backends walk these ascending indexes backwards.
    sa.Index("runs_by_time", "create_time_us", "run_id"),
    sa.Index("runs_by_status", "status", "create_time_us", "run_id"),
    sa.Index("runs_by_end", "end_time_us"),
    sa.Index("runs_by_owner", "owner", "create_time_us", "run_id"),
    sa.Index("runs_by_owner_status", "owner", "status", "create_time_us", "run_id"),
    sa.Index("runs_by_owner_key", "owner", "idempotency_key", unique=True),
    sa.Index("runs_by_thread", "thread_id", "thread_turn", unique=True),
    # The database's own guard that a thread never runs two turns at once (threads.py keeps it
    # so; this makes a slip an error instead of two turns racing).
    sa.Index(
        "runs_one_active_turn",
        "thread_id",
        unique=True,
        sqlite_where=_ACTIVE_TURN_SQL,
        postgresql_where=_ACTIVE_TURN_SQL,
    ),
)

threads = sa.Table(
    "threads",
    metadata,
    sa.Column("thread_id", sa.String, primary_key=True),
    sa.Column("owner", sa.String, nullable=False),
    sa.Column("metadata", sa.Text, nullable=False, server_default="{}"),  # JSON object of strings
    sa.Column("create_time_us", sa.BigInteger, nullable=False),
    # The last turn sent (the create time before any): retention deletes threads idle too long.
    sa.Column("update_time_us", sa.BigInteger, nullable=False),
    # Turns sent so far; CreateRun on the thread increments it first, which also serializes two
    # messages sent to one thread at once (the row is locked until that transaction ends).
    sa.Column("turn_count", sa.Integer, nullable=False, server_default="0"),
    sa.Index("threads_by_owner", "owner", "create_time_us", "thread_id"),
    sa.Index("threads_by_update", "update_time_us"),
)

run_events = sa.Table(
    "run_events",
    metadata,
    sa.Column("run_id", sa.String, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sqlite_with_rowid=False,
)
