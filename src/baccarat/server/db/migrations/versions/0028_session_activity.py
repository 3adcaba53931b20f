"""A session's inactivity time-out (docs/jurisdictions.md, Ontario): the time-out of the
profile it began under (0: none) and the time of its player's last action.

Revision ID: 0028
Revises: 0027
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The sessions already open began under no time-out: 0, and their last action unknown.
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("idle_us", sa.BigInteger(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("acted_us", sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("acted_us")
        batch.drop_column("idle_us")
