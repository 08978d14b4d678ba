"""Run leases for executor replicas, and the finish time retention prunes by.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("lease_owner", sa.String))
        batch.add_column(sa.Column("lease_epoch", sa.BigInteger, nullable=False, server_default="0"))
        batch.add_column(sa.Column("lease_expires", sa.Float))
        batch.add_column(sa.Column("end_time_us", sa.BigInteger))
    op.create_index("runs_by_end", "runs", ["end_time_us"])


def downgrade() -> None:
    op.drop_index("runs_by_end", "runs")
    with op.batch_alter_table("runs") as batch:
        for column in ("end_time_us", "lease_expires", "lease_epoch", "lease_owner"):
            batch.drop_column(column)
