"""Shared tables: a public randomness beacon's round in each shoe, and the table's log.

``shared_shoes`` gets the beacon chain and round named when the shoe was committed, and the
round's signature once it entered; ``shared_log`` is each shared table's append-only,
hash-chained log of its shoes' commitments, beacon rounds and reveals.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("shared_shoes") as batch:
        batch.add_column(sa.Column("beacon_chain", sa.Text(), nullable=True))
        batch.add_column(sa.Column("beacon_round", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("beacon_signature", sa.Text(), nullable=True))
    op.create_table(
        "shared_log",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("shoe_id", Id, nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("entry", sa.Text(), nullable=False),
        sa.Column("hash", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["shoe_id"], ["shared_shoes.id"],
                                name=op.f("fk_shared_log_shoe_id_shared_shoes")),
        sa.PrimaryKeyConstraint("table_id", "seq", name=op.f("pk_shared_log")),
    )  # fmt: skip
    op.create_index("ix_shared_log_shoe", "shared_log", ["shoe_id", "seq"])


def downgrade() -> None:
    op.drop_index("ix_shared_log_shoe", table_name="shared_log")
    op.drop_table("shared_log")
    with op.batch_alter_table("shared_shoes") as batch:
        batch.drop_column("beacon_signature")
        batch.drop_column("beacon_round")
        batch.drop_column("beacon_chain")
