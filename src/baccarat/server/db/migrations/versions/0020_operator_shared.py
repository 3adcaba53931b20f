"""Operators at shared tables: a bettor's bets on a coup from an operator's session are a
round on the operator's wallet (docs/operator-api.md, "Shared tables").

``operator_rounds`` gets the coup it bets on (``coup_id``, NULL for a house round), the
operator's balance once its bet was applied (``balance``) and the state ``placed`` (the bet
applied, the coup not dealt yet); ``shared_bets`` gets the operator's round that holds the
bets' stake (``operator_round``, NULL for bets on the casino's own wallet).

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD = "state IN ('bet', 'win', 'settled', 'refused', 'rollback', 'rolled_back')"
NEW = "state IN ('bet', 'placed', 'win', 'settled', 'refused', 'rollback', 'rolled_back')"


def upgrade() -> None:
    with op.batch_alter_table("operator_rounds") as batch:
        batch.add_column(sa.Column("coup_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("balance", sa.BigInteger(), nullable=True))
        # 0011 named it "ck_operator_rounds_state" under the naming convention, which made
        # it ck_operator_rounds_ck_operator_rounds_state: the same name here finds it.
        batch.drop_constraint("ck_operator_rounds_state", type_="check")
        batch.create_check_constraint("state", NEW)
    op.create_index("ix_operator_rounds_coup", "operator_rounds", ["coup_id", "state"])
    with op.batch_alter_table("shared_bets") as batch:
        batch.add_column(sa.Column("operator_round", sa.Text(), nullable=True))
    op.create_index("ix_shared_bets_operator_round", "shared_bets", ["operator_round"])


def downgrade() -> None:
    op.drop_index("ix_shared_bets_operator_round", table_name="shared_bets")
    with op.batch_alter_table("shared_bets") as batch:
        batch.drop_column("operator_round")
    op.drop_index("ix_operator_rounds_coup", table_name="operator_rounds")
    with op.batch_alter_table("operator_rounds") as batch:
        batch.drop_constraint(op.f("ck_operator_rounds_state"), type_="check")
        batch.create_check_constraint("ck_operator_rounds_state", OLD)  # as 0011 named it
        batch.drop_column("balance")
        batch.drop_column("coup_id")
