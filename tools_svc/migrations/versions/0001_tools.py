"""Todos, invocation records and provider leases.

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
    # Databases made before Alembic (SQLite, PRAGMA user_version 3) already hold these tables.
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "todos" not in existing:
        op.create_table(
            "todos",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("text", sa.Text, nullable=False),
            sa.Column("done", sa.Integer, nullable=False, server_default="0"),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("completed_at", sa.Float),
            sqlite_autoincrement=True,
        )
    if "tool_invocations" not in existing:
        op.create_table(
            "tool_invocations",
            sa.Column("idempotency_key", sa.String, primary_key=True),
            sa.Column("tool", sa.String, nullable=False),
            sa.Column("arguments_sha256", sa.String, nullable=False),
            sa.Column("output", sa.Text, nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
        )
    op.create_index("tool_invocations_by_age", "tool_invocations", ["created_at"])
    if "tool_leases" not in existing:
        op.create_table(
            "tool_leases",
            sa.Column("lease_id", sa.String, primary_key=True),
            sa.Column("name", sa.String, nullable=False),
            sa.Column("version", sa.String, nullable=False),
            sa.Column("endpoint", sa.String, nullable=False),
            sa.Column("spec", sa.LargeBinary, nullable=False),
            sa.Column("ttl_s", sa.Float, nullable=False),
            sa.Column("expires_at", sa.Float, nullable=False),
            sa.Column("registered_at", sa.Float, nullable=False),
            sa.UniqueConstraint("name", "version"),
        )


def downgrade() -> None:
    op.drop_table("tool_leases")
    op.drop_index("tool_invocations_by_age", "tool_invocations")
    op.drop_table("tool_invocations")
    op.drop_table("todos")
