"""Alembic environment: runs on the connection that ``baccarat.server.db.migrate`` passes."""

from __future__ import annotations

from alembic import context

from baccarat.server.db.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through baccarat.server.db.migrate (or baccarat admin)")

context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
