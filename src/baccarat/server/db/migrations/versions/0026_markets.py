"""The market an operator's launch names (docs/jurisdictions.md): kept with the launch and
with the session it opens, whose jurisdiction profile it chooses (NULL: the deployment's).

Revision ID: 0026
Revises: 0025
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ("operator_launches", "operator_sessions"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("market", sa.Text, nullable=True))


def downgrade() -> None:
    for table in ("operator_launches", "operator_sessions"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("market")
