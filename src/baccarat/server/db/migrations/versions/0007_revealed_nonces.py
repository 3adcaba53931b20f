"""Revealed seeds: the nonces each gave out, recorded when it is revealed.

Listing a player's revealed seeds then reads only their seeds (it used to count each
seed's rounds among all rounds: revealed seeds x every round in the database). Seeds
revealed before get the figure computed here, once, from one grouped pass over the rounds.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("fairness_seeds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("nonces_used", sa.BigInteger(), nullable=True))
    connection = op.get_bind()
    used: dict[int, int] = dict(
        connection.execute(
            sa.text("SELECT seed_id, MAX(nonce) + 1 FROM rounds GROUP BY seed_id")
        ).fetchall()
    )
    revealed = connection.execute(
        sa.text("SELECT id FROM fairness_seeds WHERE revealed_us IS NOT NULL")
    ).fetchall()
    for (seed_id,) in revealed:
        connection.execute(
            sa.text("UPDATE fairness_seeds SET nonces_used = :n WHERE id = :id"),
            {"n": int(used.get(seed_id, 0)), "id": seed_id},
        )


def downgrade() -> None:
    with op.batch_alter_table("fairness_seeds", schema=None) as batch_op:
        batch_op.drop_column("nonces_used")
