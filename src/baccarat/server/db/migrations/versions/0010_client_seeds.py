"""Client seeds from the client, rotation at the next shoe, seat seeds (docs/fairness.md).

- ``fairness_states.client_seed_source``: who set the client seed now in use, ``client``
  (the player, after the commitment was shown) or ``server`` (the server's placeholder,
  made at registration and at every rotation). Existing states become ``server``: their
  commitment was made with the client seed already known.
- ``shoes.client_seed_source`` and ``rounds.client_seed_source``: the same, for the shoe and
  for the round (NULL: recorded before, and the export says nothing).
- ``fairness_seeds.retired_us``: when a seed stopped giving out nonces (the rotation); it
  is revealed then, or, with a cut shoe still dealt from it, when the last such shoe ends.
  ``fairness_seeds.seat_id``: a player-banked seat's own seed (both participants').
- ``banked_seats.seed_id``, ``seed_nonce``, ``client_seeds``: the seat's seed, its next
  nonce, and both participants' client seeds (JSON), from the pair's forming to its end.
- ``banked_rounds.banker_seed_source``: who set the banker's client seed of the round.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("fairness_states", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("client_seed_source", sa.Text(), nullable=False, server_default="server")
        )
    with op.batch_alter_table("shoes", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client_seed_source", sa.Text(), nullable=True))
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client_seed_source", sa.Text(), nullable=True))
    with op.batch_alter_table("fairness_seeds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("retired_us", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("seat_id", sa.Text(), nullable=True))
    op.execute("UPDATE fairness_seeds SET retired_us = revealed_us")
    with op.batch_alter_table("banked_seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("seed_id", Id, nullable=True))
        batch_op.add_column(sa.Column("seed_nonce", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("client_seeds", sa.Text(), nullable=True))
    with op.batch_alter_table("banked_rounds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("banker_seed_source", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("banked_rounds", schema=None) as batch_op:
        batch_op.drop_column("banker_seed_source")
    with op.batch_alter_table("banked_seats", schema=None) as batch_op:
        batch_op.drop_column("client_seeds")
        batch_op.drop_column("seed_nonce")
        batch_op.drop_column("seed_id")
    with op.batch_alter_table("fairness_seeds", schema=None) as batch_op:
        batch_op.drop_column("seat_id")
        batch_op.drop_column("retired_us")
    for table in ("rounds", "shoes", "fairness_states"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("client_seed_source")
