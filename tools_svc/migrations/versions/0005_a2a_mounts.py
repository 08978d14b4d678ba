"""A2A agents mounted at runtime.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "a2a_mounts",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("headers", sa.Text, nullable=False),
        sa.Column("mounted_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("a2a_mounts")
