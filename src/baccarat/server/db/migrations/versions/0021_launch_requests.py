"""Launches remembered by their request: an operator's launch carries its ``request_uuid``
(and the hash of its body), unique per operator, so that a repeat of the same launch answers
the first answer and the same ``request_uuid`` with another body is refused
(docs/operator-api.md, "Launch"). The launches made before have none.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("operator_launches") as batch:
        batch.add_column(sa.Column("request_uuid", sa.Text(), nullable=True))
        batch.add_column(sa.Column("request_hash", sa.Text(), nullable=True))
    op.create_index("ix_operator_launches_request", "operator_launches",
                    ["operator_id", "request_uuid"], unique=True)  # fmt: skip


def downgrade() -> None:
    op.drop_index("ix_operator_launches_request", table_name="operator_launches")
    with op.batch_alter_table("operator_launches") as batch:
        batch.drop_column("request_hash")
        batch.drop_column("request_uuid")
