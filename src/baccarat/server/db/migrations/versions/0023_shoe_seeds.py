"""The cut shoes' own seed: each player's state per mode holds a second server seed,
committed with the first (at registration and at every rotation, before the client seed is
set), from which every cut shoe takes its nonce (docs/fairness.md, "Rotation"). A rotation
then reveals the fresh-shuffle tables' seed at once, and the cut shoes' seed when the shoes
dealt from it end. The states made before have none (NULL): their cut shoes take the first
seed's nonces, as before, until the player's next rotation commits both.

Revision ID: 0023
Revises: 0022
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("fairness_states") as batch:
        batch.add_column(sa.Column("shoe_seed_id", _ID, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("fairness_states") as batch:
        batch.drop_column("shoe_seed_id")
