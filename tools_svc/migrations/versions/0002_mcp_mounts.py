"""MCP servers mounted at runtime.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mcp_mounts",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("headers", sa.Text, nullable=False),
        sa.Column("mounted_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("mcp_mounts")
