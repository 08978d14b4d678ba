"""Runs and their events.

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Databases made before Alembic (SQLite, PRAGMA user_version 1) already hold these tables.
    if sa.inspect(op.get_bind()).has_table("runs"):
        return
    op.create_table(
        "runs",
        sa.Column("run_id", sa.String, primary_key=True),
        sa.Column("idempotency_key", sa.String, unique=True),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("create_time_us", sa.BigInteger, nullable=False),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
    op.create_index("runs_by_time", "runs", ["create_time_us", "run_id"])
    op.create_index("runs_by_status", "runs", ["status", "create_time_us", "run_id"])
    op.create_table(
        "run_events",
        sa.Column("run_id", sa.String, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("run_events")
    op.drop_table("runs")
