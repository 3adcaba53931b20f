"""Favourite bets (docs/jurisdictions.md): a player's named bet layouts, up to five per
table kind, kept with the account.

Revision ID: 0027
Revises: 0026
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "favourite_bets",
        sa.Column("player_id", _ID, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("bets", sa.Text, nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "kind", "name"),
    )


def downgrade() -> None:
    op.drop_table("favourite_bets")
