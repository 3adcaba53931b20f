"""Multiplier baccarat (docs/multiplier.md): a round's multiplier cards and its fee.

``rounds`` gains ``lightning``: the round's multiplier cards as JSON (``[{"card": "Ah",
"multiplier": 5}, ...]``, drawn from the round's seeds, ``fairness.derive.lightning``; NULL
for a round without them) and ``fee``: the fee taken with the stakes (1/5 of each stake at
a multiplier table, never returned; 0 elsewhere), so that the round's arithmetic stays
``balance_after = balance_before - stake - fee + win``. ``shared_coups`` gains the coup's
multiplier cards, drawn when its betting window closes and shown to everyone before the
first card; ``shared_bets`` the fee held in escrow with the stakes.

Revision ID: 0025
Revises: 0024
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("lightning", sa.Text(), nullable=True))
        batch.add_column(sa.Column("fee", sa.BigInteger(), nullable=False, server_default="0"))
    with op.batch_alter_table("shared_coups") as batch:
        batch.add_column(sa.Column("lightning", sa.Text(), nullable=True))
    with op.batch_alter_table("shared_bets") as batch:
        batch.add_column(sa.Column("fee", sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("shared_bets") as batch:
        batch.drop_column("fee")
    with op.batch_alter_table("shared_coups") as batch:
        batch.drop_column("lightning")
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("fee")
        batch.drop_column("lightning")
