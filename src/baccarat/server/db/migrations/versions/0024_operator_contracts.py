"""Operators' wallet contracts and what their calls said: each round on an operator's wallet
names the contract it is played in (``protocol``: the rounds before are API v1's, the only
one then), so that it is finished in it and read by it whatever the operators file says
later; each call keeps the operator's player it was for, its body as sent, the answer's
body as received and the operator's reason for a refusal (the calls before have their
player from their round, and no bodies); and the messages operators attach to their
answers (a reality check), with the player's choice (docs/operator-api.md).

Revision ID: 0024
Revises: 0023
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("operator_rounds") as batch:
        batch.add_column(sa.Column("protocol", sa.Text(), nullable=False, server_default="v1"))
    with op.batch_alter_table("operator_calls") as batch:
        batch.add_column(sa.Column("player", sa.Text(), nullable=True))
        batch.add_column(sa.Column("body", sa.Text(), nullable=True))
        batch.add_column(sa.Column("answer", sa.Text(), nullable=True))
        batch.add_column(sa.Column("reason", sa.Text(), nullable=True))
    op.execute(
        "UPDATE operator_calls SET player = (SELECT o.external_player FROM operator_rounds o "
        "WHERE o.round_id = operator_calls.round_id) WHERE round_id IS NOT NULL"
    )
    op.create_index("ix_operator_calls_sent", "operator_calls", ["sent_us"])
    op.create_index("ix_operator_calls_player", "operator_calls", ["player", "sent_us"])
    op.create_table(
        "operator_messages",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("operator_id", sa.Text, nullable=False),
        sa.Column("player_id", _ID, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("message_id", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("choices", sa.Text, nullable=False),
        sa.Column("history_url", sa.Text, nullable=True),
        sa.Column("call_id", _ID, nullable=True),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("chosen_us", sa.BigInteger, nullable=True),
        sa.Column("choice", sa.Text, nullable=True),
        sa.UniqueConstraint("operator_id", "player_id", "message_id",
                            name="uq_operator_messages_operator_id_player_id_message_id"),
        sa.Index("ix_operator_messages_player", "player_id", "chosen_us"),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("operator_messages")
    op.drop_index("ix_operator_calls_player", table_name="operator_calls")
    op.drop_index("ix_operator_calls_sent", table_name="operator_calls")
    with op.batch_alter_table("operator_calls") as batch:
        for column in ("reason", "answer", "body", "player"):
            batch.drop_column(column)
    with op.batch_alter_table("operator_rounds") as batch:
        batch.drop_column("protocol")
