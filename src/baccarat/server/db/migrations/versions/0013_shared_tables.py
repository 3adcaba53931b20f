"""Shared tables (SPEC §9): one shoe on a clock, every player betting on the same coup.

``shared_tables`` holds each shared table's clock (its shoe and coup in play, and until when
it is watched); ``shared_shoes`` each shoe the table dealt, committed (the hash of its seed)
before any bet and revealed when it ends; ``shared_coups`` each coup with its deadlines and,
once dealt, its cards; ``shared_bets`` every bettor's bets on a coup (their stake held in
escrow since placed) and the round that settled them. A shared round's shoe is the table's,
not the player's: ``rounds.seed_id`` becomes nullable (SQLite rebuilds the table for that).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _rounds(seed_nullable: bool) -> sa.Table:
    """The rounds table as revisions 0001, 0004 and 0010 made it (``seed_id`` as given)."""
    return sa.Table(
        "rounds", sa.MetaData(),
        sa.Column("seq", Id, autoincrement=True, nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("seed_id", Id, nullable=seed_nullable),
        sa.Column("commitment", sa.Text(), nullable=False),
        sa.Column("client_seed", sa.Text(), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("cut", sa.Integer(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("player_cards", sa.Text(), nullable=False),
        sa.Column("banker_cards", sa.Text(), nullable=False),
        sa.Column("winner", sa.Text(), nullable=False),
        sa.Column("bets", sa.Text(), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("win", sa.BigInteger(), nullable=False),
        sa.Column("balance_before", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("transaction_id", Id, nullable=False),
        sa.Column("void_reason", sa.Text(), nullable=True),
        sa.Column("voided_us", sa.BigInteger(), nullable=True),
        sa.Column("void_transaction_id", Id, nullable=True),
        sa.Column("client_seed_source", sa.Text(), nullable=True),
        sa.CheckConstraint("mode IN ('fun', 'real')", name="ck_rounds_mode"),
        sa.CheckConstraint("stake > 0 AND win >= 0", name="ck_rounds_amounts"),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"],
                                name="fk_rounds_player_id_players"),
        sa.ForeignKeyConstraint(["seed_id"], ["fairness_seeds.id"],
                                name="fk_rounds_seed_id_fairness_seeds"),
        sa.ForeignKeyConstraint(["transaction_id"], ["ledger_transactions.id"],
                                name="fk_rounds_transaction_id_ledger_transactions"),
        sa.ForeignKeyConstraint(["void_transaction_id"], ["ledger_transactions.id"],
                                name="fk_rounds_void_transaction_id_ledger_transactions"),
        sa.PrimaryKeyConstraint("seq", name="pk_rounds"),
        sa.UniqueConstraint("id", name="uq_rounds_id"),
        sa.Index("ix_rounds_player", "player_id", "mode", "seq"),
        sa.Index("ix_rounds_table", "player_id", "table_id", "mode", "seq"),
        sa.Index("ix_rounds_transaction", "transaction_id", unique=True),
    )  # fmt: skip


def _seed_nullable(nullable: bool) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("rounds", "seed_id", nullable=nullable)
        return
    with op.batch_alter_table(
        "rounds", copy_from=_rounds(not nullable), recreate="always"
    ) as batch:
        batch.alter_column("seed_id", existing_type=Id, nullable=nullable)


def upgrade() -> None:
    _seed_nullable(True)
    op.create_table(
        "shared_shoes",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("server_seed", sa.Text(), nullable=False),
        sa.Column("commitment", sa.Text(), nullable=False),
        sa.Column("client_seed", sa.Text(), nullable=False),
        sa.Column("cut", sa.Integer(), nullable=False),
        sa.Column("start", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.Column("coups", sa.Integer(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("finished_us", sa.BigInteger(), nullable=True),
        sa.Column("ending", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_shared_shoes")),
        sa.UniqueConstraint("commitment", name=op.f("uq_shared_shoes_commitment")),
        sa.CheckConstraint("ending IS NULL OR ending IN ('finished', 'cancelled')",
                           name=op.f("ck_shared_shoes_ending")),
    )  # fmt: skip
    op.create_index("ix_shared_shoes_table", "shared_shoes", ["table_id", "id"])
    op.create_table(
        "shared_coups",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("shoe_id", Id, nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("opens_us", sa.BigInteger(), nullable=False),
        sa.Column("closes_us", sa.BigInteger(), nullable=False),
        sa.Column("dealt_us", sa.BigInteger(), nullable=True),
        sa.Column("next_us", sa.BigInteger(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("player_cards", sa.Text(), nullable=True),
        sa.Column("banker_cards", sa.Text(), nullable=True),
        sa.Column("winner", sa.Text(), nullable=True),
        sa.Column("void_reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["shoe_id"], ["shared_shoes.id"],
                                name=op.f("fk_shared_coups_shoe_id_shared_shoes")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_shared_coups")),
    )  # fmt: skip
    op.create_index("ix_shared_coups_table", "shared_coups", ["table_id", "id"])
    op.create_index("ix_shared_coups_shoe", "shared_coups", ["shoe_id", "number"], unique=True)
    op.create_table(
        "shared_tables",
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("shoe_id", Id, nullable=True),
        sa.Column("coup_id", Id, nullable=True),
        sa.Column("watched_until_us", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["shoe_id"], ["shared_shoes.id"],
                                name=op.f("fk_shared_tables_shoe_id_shared_shoes")),
        sa.ForeignKeyConstraint(["coup_id"], ["shared_coups.id"],
                                name=op.f("fk_shared_tables_coup_id_shared_coups")),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_shared_tables")),
    )  # fmt: skip
    op.create_table(
        "shared_bets",
        sa.Column("coup_id", Id, nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("bets", sa.Text(), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("round_id", sa.Text(), nullable=True),
        sa.Column("updated_us", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("mode IN ('fun', 'real')", name=op.f("ck_shared_bets_mode")),
        sa.CheckConstraint("stake >= 0", name=op.f("ck_shared_bets_stake")),
        sa.ForeignKeyConstraint(["coup_id"], ["shared_coups.id"],
                                name=op.f("fk_shared_bets_coup_id_shared_coups")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"],
                                name=op.f("fk_shared_bets_player_id_players")),
        sa.PrimaryKeyConstraint("coup_id", "player_id", "mode", name=op.f("pk_shared_bets")),
    )  # fmt: skip
    op.create_index("ix_shared_bets_round", "shared_bets", ["round_id"], unique=True)
    op.create_index("ix_shared_bets_player", "shared_bets", ["player_id", "coup_id"])


def downgrade() -> None:
    op.drop_index("ix_shared_bets_player", table_name="shared_bets")
    op.drop_index("ix_shared_bets_round", table_name="shared_bets")
    op.drop_table("shared_bets")
    op.drop_table("shared_tables")
    op.drop_index("ix_shared_coups_shoe", table_name="shared_coups")
    op.drop_index("ix_shared_coups_table", table_name="shared_coups")
    op.drop_table("shared_coups")
    op.drop_index("ix_shared_shoes_table", table_name="shared_shoes")
    op.drop_table("shared_shoes")
    _seed_nullable(False)
