"""The remote A2A task each call started, by the call's idempotency key.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "a2a_tasks",
        sa.Column("idempotency_key", sa.String, primary_key=True),
        sa.Column("agent", sa.String, nullable=False),
        sa.Column("task_id", sa.String, nullable=False),
        sa.Column("owner", sa.String, nullable=False),
        sa.Column("run_id", sa.String, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("a2a_tasks_by_run", "a2a_tasks", ["owner", "run_id"])


def downgrade() -> None:
    op.drop_index("a2a_tasks_by_run", table_name="a2a_tasks")
    op.drop_table("a2a_tasks")
