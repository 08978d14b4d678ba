"""Deleted todos are kept for a while, marked, so that a delete can be undone (restore).

Todos deleted before were removed outright: they stay gone.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("todos") as batch:
        batch.add_column(sa.Column("deleted_at", sa.Float, nullable=True))


def downgrade() -> None:
    # The marked ones were deleted: going back, they are.
    op.execute("DELETE FROM todos WHERE deleted_at IS NOT NULL")
    with op.batch_alter_table("todos") as batch:
        batch.drop_column("deleted_at")
