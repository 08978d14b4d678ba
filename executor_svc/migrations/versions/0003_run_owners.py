"""Every run has an owner (the principal that created it); idempotency keys are per owner.

Runs made before owners existed belong to `local`, the one principal of a system without API
keys: the column's default, and the same name in each stored Run message (its `owner` field,
appended to the message's bytes, which protobuf reads as that field: nothing else changes).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Run.owner = "local" in protobuf's wire format: field 27, length-delimited (tag 27 << 3 | 2 as a
# varint: 0xDA 0x01), length 5, the bytes. Parsing a message with this appended sets the field.
_OWNER_LOCAL = b"\xda\x01\x05local"
_BATCH = 500
# SQLite names no constraint: the naming convention lets batch mode find the old unique one.
_NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def upgrade() -> None:
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    with op.batch_alter_table("runs", naming_convention=_NAMING if sqlite else None) as batch:
        batch.add_column(sa.Column("owner", sa.String, nullable=False, server_default="local"))
        batch.drop_constraint(
            "uq_runs_idempotency_key" if sqlite else "runs_idempotency_key_key", type_="unique"
        )
    op.create_index("runs_by_owner", "runs", ["owner", "create_time_us", "run_id"])
    op.create_index("runs_by_owner_status", "runs", ["owner", "status", "create_time_us", "run_id"])
    op.create_index("runs_by_owner_key", "runs", ["owner", "idempotency_key"], unique=True)
    runs = sa.table("runs", sa.column("run_id", sa.String), sa.column("data", sa.LargeBinary))
    last = ""
    while True:  # in batches, by key: a large store is never held in memory at once
        rows = bind.execute(
            sa.select(runs.c.run_id, runs.c.data)
            .where(runs.c.run_id > last)
            .order_by(runs.c.run_id)
            .limit(_BATCH)
        ).all()
        if not rows:
            break
        bind.execute(
            runs.update().where(runs.c.run_id == sa.bindparam("id")).values(data=sa.bindparam("blob")),
            [{"id": run_id, "blob": bytes(data) + _OWNER_LOCAL} for run_id, data in rows],
        )
        last = rows[-1][0]


def downgrade() -> None:
    op.drop_index("runs_by_owner_key", "runs")
    op.drop_index("runs_by_owner_status", "runs")
    op.drop_index("runs_by_owner", "runs")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("owner")
        batch.create_unique_constraint("runs_idempotency_key_key", ["idempotency_key"])
