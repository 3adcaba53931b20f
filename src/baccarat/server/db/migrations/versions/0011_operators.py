"""Operators: launch codes, operators' players and sessions, and the rounds on an
operator's wallet as a durable state machine with every call it made (docs/operator-api.md).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
STATES = "state IN ('bet', 'win', 'settled', 'refused', 'rollback', 'rolled_back')"


def upgrade() -> None:
    op.create_table(
        "operator_launches",
        sa.Column("code_hash", sa.Text, primary_key=True),
        sa.Column("operator_id", sa.Text, nullable=False),
        sa.Column("external_player", sa.Text, nullable=False),
        sa.Column("token", sa.Text, nullable=False),
        sa.Column("currency", sa.Text, nullable=False),
        sa.Column("language", sa.Text, nullable=False),
        sa.Column("table_id", sa.Text, nullable=True),
        sa.Column("lobby_url", sa.Text, nullable=True),
        sa.Column("demo", sa.Integer, nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("expires_us", sa.BigInteger, nullable=False),
        sa.Column("used_us", sa.BigInteger, nullable=True),
    )
    op.create_table(
        "operator_players",
        sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("operator_id", sa.Text, nullable=False),
        sa.Column("external_player", sa.Text, nullable=False),
        sa.Column("currency", sa.Text, nullable=False),
        sa.UniqueConstraint(
            "operator_id", "external_player", "currency",
            name="uq_operator_players_operator_id_external_player_currency",
        ),
    )  # fmt: skip
    op.create_table(
        "operator_sessions",
        sa.Column("token_hash", sa.Text, primary_key=True),
        sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("operator_id", sa.Text, nullable=False),
        sa.Column("token", sa.Text, nullable=False),
        sa.Column("currency", sa.Text, nullable=False),
        sa.Column("language", sa.Text, nullable=False),
        sa.Column("table_id", sa.Text, nullable=True),
        sa.Column("lobby_url", sa.Text, nullable=True),
        sa.Column("demo", sa.Integer, nullable=False),
        sa.Column("balance", sa.BigInteger, nullable=True),
        sa.Column("created_us", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "operator_rounds",
        sa.Column("round_id", sa.Text, primary_key=True),
        sa.Column("operator_id", sa.Text, nullable=False),
        sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("external_player", sa.Text, nullable=False),
        sa.Column("token", sa.Text, nullable=False),
        sa.Column("currency", sa.Text, nullable=False),
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("stake", sa.BigInteger, nullable=False),
        sa.Column("win", sa.BigInteger, nullable=False),
        sa.Column("bets", sa.Text, nullable=False),
        sa.Column("bet_status", sa.Text, nullable=True),
        sa.Column("win_status", sa.Text, nullable=True),
        sa.Column("rollback_status", sa.Text, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_us", sa.BigInteger, nullable=False),
        sa.Column("lease_us", sa.BigInteger, nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("finished_us", sa.BigInteger, nullable=True),
        sa.CheckConstraint(STATES, name="ck_operator_rounds_state"),
        sa.Index("ix_operator_rounds_due", "state", "next_us"),
        sa.Index("ix_operator_rounds_operator", "operator_id", "created_us"),
    )
    op.create_table(
        "operator_calls",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("round_id", sa.Text, nullable=True),
        sa.Column("operator_id", sa.Text, nullable=False),
        sa.Column("call", sa.Text, nullable=False),
        sa.Column("transaction_uuid", sa.Text, nullable=True),
        sa.Column("request_uuid", sa.Text, nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("sent_us", sa.BigInteger, nullable=False),
        sa.Column("answered_us", sa.BigInteger, nullable=True),
        sa.Column("http_status", sa.Integer, nullable=True),
        sa.Column("status", sa.Text, nullable=True),
        sa.Column("balance", sa.BigInteger, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Index("ix_operator_calls_round", "round_id", "id"),
    )


def downgrade() -> None:
    for name in ("operator_calls", "operator_rounds", "operator_sessions", "operator_players",
                 "operator_launches"):  # fmt: skip
        op.drop_table(name)
