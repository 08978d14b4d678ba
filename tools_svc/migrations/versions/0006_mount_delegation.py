"""Mounts' credentials per principal and caller signing secret (tools_svc/delegation.py).

Mounts stored before have neither: every principal's calls keep the one shared credential
they had.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES = ("mcp_mounts", "a2a_mounts")


def upgrade() -> None:
    for table in _TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("principal_headers", sa.Text, nullable=False, server_default="{}"))
            batch.add_column(sa.Column("caller_signing_secret", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    for table in _TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("caller_signing_secret")
            batch.drop_column("principal_headers")
