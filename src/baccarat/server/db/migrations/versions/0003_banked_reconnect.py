"""Player-banked seats: a reconnect deadline per role.

When a participant's last socket to the seat closes, the seat records until when they may
reconnect (``player_grace_us`` / ``banker_grace_us``); the deadline resolver makes them
leave once it has passed, like the decision deadlines.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ROLES = ("player", "banker")


def upgrade() -> None:
    with op.batch_alter_table("banked_seats", schema=None) as batch_op:
        for role in ROLES:
            batch_op.add_column(sa.Column(f"{role}_grace_us", sa.BigInteger(), nullable=True))
            batch_op.create_index(
                f"ix_banked_seats_{role}_grace", [f"{role}_grace_us"],
                sqlite_where=sa.text(f"{role}_grace_us IS NOT NULL"),
                postgresql_where=sa.text(f"{role}_grace_us IS NOT NULL"),
            )  # fmt: skip


def downgrade() -> None:
    with op.batch_alter_table("banked_seats", schema=None) as batch_op:
        for role in ROLES:
            batch_op.drop_index(f"ix_banked_seats_{role}_grace")
            batch_op.drop_column(f"{role}_grace_us")
