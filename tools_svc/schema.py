"""tools_svc's tables, described once for SQLite and PostgreSQL (Alembic migrates them)."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

# One todo list per principal (`owner`). `number` is the id people see: each owner's todos are
# numbered 1, 2, 3 ... on their own (todo_owners counts them), and a number is never reused
# after a delete. `id` is the table's own key, never shown.
todos = sa.Table(
    "todos",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("done", sa.Integer, nullable=False, server_default="0"),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("completed_at", sa.Float),
    sa.Column("owner", sa.String, nullable=False, server_default="local"),
    sa.Column("number", sa.Integer, nullable=False),
    # When it was deleted: a deleted todo is kept for restore (undo) until its time passes
    # (tools_svc/todos/spec.RESTORABLE_S), and is no todo to anything else.
    sa.Column("deleted_at", sa.Float),
    # An owner's list, in order; and two adds can never give one owner the same number.
    sa.Index("todos_by_owner", "owner", "number", unique=True),
    sqlite_autoincrement=True,  # ids are never reused after a delete
)

# The last number given to each owner's todos, bumped in the transaction that adds one: a
# counter row rather than max(number) + 1, which would give a deleted last todo's number again
# and, on PostgreSQL, the same number to two adds running at once.
todo_owners = sa.Table(
    "todo_owners",
    metadata,
    sa.Column("owner", sa.String, primary_key=True),
    sa.Column("last_number", sa.Integer, nullable=False),
)

# Completed invocations by idempotency key: a retried step gets the recorded output back.
tool_invocations = sa.Table(
    "tool_invocations",
    metadata,
    sa.Column("idempotency_key", sa.String, primary_key=True),
    sa.Column("tool", sa.String, nullable=False),
    sa.Column("arguments_sha256", sa.String, nullable=False),
    sa.Column("output", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Index("tool_invocations_by_age", "created_at"),
)

# Provider registrations, shared by every tools_svc replica.
tool_leases = sa.Table(
    "tool_leases",
    metadata,
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

# MCP servers mounted at runtime (ToolService.MountMcpServer), shared by every replica: each
# replica holds its own session with each of them. `headers` is JSON (it may hold credentials);
# so is `principal_headers` (principal -> headers, tools_svc/delegation.py), and
# `caller_signing_secret` is one ("" for none).
mcp_mounts = sa.Table(
    "mcp_mounts",
    metadata,
    sa.Column("name", sa.String, primary_key=True),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("headers", sa.Text, nullable=False),
    sa.Column("mounted_at", sa.Float, nullable=False),
    sa.Column("principal_headers", sa.Text, nullable=False, server_default="{}"),
    sa.Column("caller_signing_secret", sa.Text, nullable=False, server_default=""),
)

# A2A agents mounted at runtime (ToolService.MountA2aAgent), shared by every replica like
# mcp_mounts; its names and mcp_mounts' are one namespace (tools_svc/mounting.py).
a2a_mounts = sa.Table(
    "a2a_mounts",
    metadata,
    sa.Column("name", sa.String, primary_key=True),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("headers", sa.Text, nullable=False),
    sa.Column("mounted_at", sa.Float, nullable=False),
    sa.Column("principal_headers", sa.Text, nullable=False, server_default="{}"),
    sa.Column("caller_signing_secret", sa.Text, nullable=False, server_default=""),
)

# The remote A2A task each call started, by the call's idempotency key: a call made again (the
# executor retried the step, or restarted mid-call) waits on that task rather than sending its
# message a second time; cancelling a run cancels the tasks its calls started (`run_id`).
a2a_tasks = sa.Table(
    "a2a_tasks",
    metadata,
    sa.Column("idempotency_key", sa.String, primary_key=True),
    sa.Column("agent", sa.String, nullable=False),
    sa.Column("task_id", sa.String, nullable=False),
    sa.Column("owner", sa.String, nullable=False),
    sa.Column("run_id", sa.String, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Index("a2a_tasks_by_run", "owner", "run_id"),
)
