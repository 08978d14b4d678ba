"""One todo list per principal: todos have an owner and a number within the owner's list.

Todos made before owners existed belong to `local`, the one principal of a system without API
keys, and keep the ids people knew them by as their numbers. `local`'s counter starts where
the old ids stopped, after deleted ones too (the table's autoincrement, not max(id)), so no
number is ever given twice.

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

_todos = sa.table("todos", sa.column("id", sa.Integer), sa.column("number", sa.Integer))


def upgrade() -> None:
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    last = _last_id(bind)
    # Adding the columns is an ALTER on both backends; making `number` NOT NULL once it is filled
    # copies the table on SQLite: say again that the copy keeps AUTOINCREMENT (reflection does
    # not see it), or ids freed by deletes could be given to new rows.
    table_kwargs = {"sqlite_autoincrement": True} if sqlite else {}
    with op.batch_alter_table("todos", table_kwargs=table_kwargs) as batch:
        batch.add_column(sa.Column("owner", sa.String, nullable=False, server_default="local"))
        batch.add_column(sa.Column("number", sa.Integer))
    op.execute(_todos.update().values(number=_todos.c.id))
    with op.batch_alter_table("todos", table_kwargs=table_kwargs) as batch:
        batch.alter_column("number", existing_type=sa.Integer, nullable=False)
    op.create_index("todos_by_owner", "todos", ["owner", "number"], unique=True)
    owners = op.create_table(
        "todo_owners",
        sa.Column("owner", sa.String, primary_key=True),
        sa.Column("last_number", sa.Integer, nullable=False),
    )
    if last:
        op.bulk_insert(owners, [{"owner": "local", "last_number": last}])
        if sqlite:
            # The copied table's sequence starts at its max(id), or nowhere when it is empty:
            # set it back to where the old one was.
            bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = 'todos'"))
            bind.execute(
                sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES ('todos', :last)"), {"last": last}
            )


def _last_id(bind: sa.Connection) -> int:
    """The largest id the todos table ever gave: the autoincrement's last value (a deleted last
    todo's id is past max(id)), or max(id) where there is no sequence to ask."""
    largest = bind.execute(sa.select(sa.func.max(_todos.c.id))).scalar() or 0
    if bind.dialect.name == "sqlite":
        # sqlite_sequence exists once an AUTOINCREMENT table does, as todos always was.
        given = bind.execute(sa.text("SELECT seq FROM sqlite_sequence WHERE name = 'todos'")).scalar()
    else:
        # The table's own sequence, read by its name (schema-qualified and quoted by PostgreSQL).
        # Not a scan of pg_sequences with a regclass cast per row: that looked up every schema's
        # sequences, and failed when another schema was dropped meanwhile (parallel tests).
        sequence = bind.execute(sa.text("SELECT pg_get_serial_sequence('todos', 'id')")).scalar()
        given = (
            bind.execute(sa.text(f"SELECT CASE WHEN is_called THEN last_value END FROM {sequence}")).scalar()
            if sequence
            else None
        )
    return max(largest, given or 0)


def downgrade() -> None:
    # The older release has one list for everybody: other principals' todos would be shown to
    # all. They go; `local`'s stay, under their internal ids.
    op.execute(sa.text("DELETE FROM todos WHERE owner <> 'local'"))
    op.drop_table("todo_owners")
    op.drop_index("todos_by_owner", "todos")
    table_kwargs = {"sqlite_autoincrement": True} if op.get_bind().dialect.name == "sqlite" else {}
    with op.batch_alter_table("todos", table_kwargs=table_kwargs) as batch:
        batch.drop_column("number")
        batch.drop_column("owner")
