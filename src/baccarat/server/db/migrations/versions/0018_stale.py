"""PostgreSQL: ``baccarat_stale(what)``, which fails its statement with a serialization
failure (SQLSTATE 40001, tried again), for a statement that must fail inside the database
when a value a worker kept or read ahead is no longer so (``UnitOfWork.expect``). A check
in the worker would come after the statements pipelined behind it had run (the next unit's
savepoint among them); a failed statement stops them. SQLite needs none: it has no pipeline.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION baccarat_stale(what TEXT) RETURNS INTEGER LANGUAGE plpgsql "
            "AS $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'serialization_failure', "
            "MESSAGE = 'changed in the database meanwhile: ' || what; END $$"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS baccarat_stale(TEXT)")
