"""Threads: conversations whose runs (turns) see the earlier ones.

A run may be a turn of a thread (runs.thread_id, runs.thread_turn); at most one turn of a thread
is worked on at a time (runs_one_active_turn, a partial unique index both backends support).
Existing runs are one-shot: both columns stay NULL and nothing else changes.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# PENDING, PLANNING, RUNNING, WAITING (executor_svc/schema.py ACTIVE_TURN, as of this revision).
_ACTIVE_TURN = sa.text("thread_id IS NOT NULL AND status IN (1, 2, 3, 7)")


def upgrade() -> None:
    op.create_table(
        "threads",
        sa.Column("thread_id", sa.String, primary_key=True),
        sa.Column("owner", sa.String, nullable=False),
        sa.Column("metadata", sa.Text, nullable=False, server_default="{}"),
        sa.Column("create_time_us", sa.BigInteger, nullable=False),
        sa.Column("update_time_us", sa.BigInteger, nullable=False),
        sa.Column("turn_count", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_index("threads_by_owner", "threads", ["owner", "create_time_us", "thread_id"])
    op.create_index("threads_by_update", "threads", ["update_time_us"])
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("thread_id", sa.String))
        batch.add_column(sa.Column("thread_turn", sa.Integer))
    op.create_index("runs_by_thread", "runs", ["thread_id", "thread_turn"], unique=True)
    op.create_index(
        "runs_one_active_turn",
        "runs",
        ["thread_id"],
        unique=True,
        sqlite_where=_ACTIVE_TURN,
        postgresql_where=_ACTIVE_TURN,
    )


def downgrade() -> None:
    op.drop_index("runs_one_active_turn", "runs")
    op.drop_index("runs_by_thread", "runs")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("thread_turn")
        batch.drop_column("thread_id")
    op.drop_index("threads_by_update", "threads")
    op.drop_index("threads_by_owner", "threads")
    op.drop_table("threads")
