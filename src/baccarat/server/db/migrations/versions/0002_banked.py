"""Player-banked tables: seats, their rounds, loyalty points, presence; the escrow accounts.

The escrow account of each mode holds what a player-banked seat has in play: the player's
bets placed but not yet dealt, and the banker's exposure reserved while a round is open.
Adding it widens the accounts' kind check (SQLite rebuilds the table for that).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
MODES = "mode IN ('fun', 'real')"
OLD_KINDS = "kind IN ('player', 'house', 'cashier', 'withdrawals')"
NEW_KINDS = "kind IN ('player', 'house', 'cashier', 'withdrawals', 'escrow')"


def _accounts(kinds: str) -> sa.Table:
    """The accounts table as revision 0001 made it, with the given kind check."""
    meta = sa.MetaData()
    return sa.Table(
        "accounts",
        meta,
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("player_id", Id,
                  sa.ForeignKey("players.id", name="fk_accounts_player_id_players"), nullable=True),
        sa.Column("mode", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.CheckConstraint(MODES, name="ck_accounts_mode"),
        sa.CheckConstraint(kinds, name="ck_accounts_kind"),
        sa.CheckConstraint("(kind = 'player') = (player_id IS NOT NULL)", name="ck_accounts_owner"),
        sa.CheckConstraint("kind IN ('house', 'cashier') OR balance >= 0",
                           name="ck_accounts_non_negative"),
        sa.PrimaryKeyConstraint("id", name="pk_accounts"),
        sa.Index("ix_accounts_player", "player_id", "mode", "kind", unique=True),
        sa.Index("ix_accounts_system", "mode", "kind", unique=True,
                 sqlite_where=sa.text("player_id IS NULL"),
                 postgresql_where=sa.text("player_id IS NULL")),
    )  # fmt: skip


def _set_kinds(old: str, new: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint(op.f("ck_accounts_kind"), "accounts", type_="check")
        op.create_check_constraint(op.f("ck_accounts_kind"), "accounts", new)
        return
    # SQLite cannot alter a check: the table is rebuilt from its full definition (ids, rows
    # and indexes kept; the ledger's references to account ids stay valid).
    with op.batch_alter_table("accounts", copy_from=_accounts(old), recreate="always") as batch:
        batch.drop_constraint(op.f("ck_accounts_kind"), type_="check")
        batch.create_check_constraint(op.f("ck_accounts_kind"), sa.text(new))


def upgrade() -> None:
    _set_kinds(OLD_KINDS, NEW_KINDS)
    for mode in ("fun", "real"):
        op.execute(
            "INSERT INTO accounts (player_id, mode, kind, balance, version) "
            f"VALUES (NULL, '{mode}', 'escrow', 0, 0)"
        )
    op.create_table(
        "banked_seats",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("mode", sa.Text(), nullable=True),
        sa.Column("player_id", Id, nullable=True),
        sa.Column("banker_id", Id, nullable=True),
        sa.Column("phase", sa.Text(), nullable=False),
        sa.Column("deadline_us", sa.BigInteger(), nullable=True),
        sa.Column("auto_approve", sa.Integer(), nullable=False),
        sa.Column("banker_away", sa.Integer(), nullable=False),
        sa.Column("bets", sa.Text(), nullable=False),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("reserve", sa.BigInteger(), nullable=False),
        sa.Column("notice", sa.Text(), nullable=True),
        sa.Column("last_round_id", sa.Text(), nullable=True),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("updated_us", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("mode IS NULL OR mode IN ('fun', 'real')",
                           name=op.f("ck_banked_seats_mode")),
        sa.CheckConstraint("phase IN ('waiting', 'approval', 'betting')",
                           name=op.f("ck_banked_seats_phase")),
        sa.CheckConstraint("stake >= 0 AND reserve >= 0", name=op.f("ck_banked_seats_amounts")),
        sa.CheckConstraint("player_id IS NULL OR banker_id IS NULL OR player_id <> banker_id",
                           name=op.f("ck_banked_seats_two_players")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"],
                                name=op.f("fk_banked_seats_player_id_players")),
        sa.ForeignKeyConstraint(["banker_id"], ["players.id"],
                                name=op.f("fk_banked_seats_banker_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_banked_seats")),
    )  # fmt: skip
    with op.batch_alter_table("banked_seats", schema=None) as batch_op:
        batch_op.create_index("ix_banked_seats_table", ["table_id", "number"], unique=True)
        # One seat per player in each role.
        for role in ("player", "banker"):
            batch_op.create_index(
                f"ix_banked_seats_{role}", [f"{role}_id"], unique=True,
                sqlite_where=sa.text(f"{role}_id IS NOT NULL"),
                postgresql_where=sa.text(f"{role}_id IS NOT NULL"),
            )  # fmt: skip
        batch_op.create_index(
            "ix_banked_seats_deadline", ["deadline_us"],
            sqlite_where=sa.text("deadline_us IS NOT NULL"),
            postgresql_where=sa.text("deadline_us IS NOT NULL"),
        )  # fmt: skip

    op.create_table(
        "banked_rounds",
        sa.Column("round_id", sa.Text(), nullable=False),
        sa.Column("round_seq", Id, nullable=False),
        sa.Column("seat_id", sa.Text(), nullable=False),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("banker_id", Id, nullable=False),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("reserve", sa.BigInteger(), nullable=False),
        sa.Column("banker_before", sa.BigInteger(), nullable=False),
        sa.Column("banker_after", sa.BigInteger(), nullable=False),
        sa.Column("player_points", sa.BigInteger(), nullable=False),
        sa.Column("banker_points", sa.BigInteger(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.CheckConstraint(MODES, name=op.f("ck_banked_rounds_mode")),
        sa.CheckConstraint("fee >= 0 AND reserve >= 0 AND player_points >= 0 "
                           "AND banker_points >= 0", name=op.f("ck_banked_rounds_amounts")),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"],
                                name=op.f("fk_banked_rounds_round_id_rounds")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"],
                                name=op.f("fk_banked_rounds_player_id_players")),
        sa.ForeignKeyConstraint(["banker_id"], ["players.id"],
                                name=op.f("fk_banked_rounds_banker_id_players")),
        sa.PrimaryKeyConstraint("round_id", name=op.f("pk_banked_rounds")),
    )  # fmt: skip
    with op.batch_alter_table("banked_rounds", schema=None) as batch_op:
        batch_op.create_index("ix_banked_rounds_banker", ["banker_id", "mode", "round_seq"])

    op.create_table(
        "banked_points",
        sa.Column("player_id", Id, nullable=False),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("updated_us", sa.BigInteger(), nullable=False),
        sa.CheckConstraint(MODES, name=op.f("ck_banked_points_mode")),
        sa.CheckConstraint("points >= 0", name=op.f("ck_banked_points_non_negative")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"],
                                name=op.f("fk_banked_points_player_id_players")),
        sa.PrimaryKeyConstraint("player_id", "mode", name=op.f("pk_banked_points")),
    )  # fmt: skip

    op.create_table(
        "banked_presence",
        sa.Column("conn_id", sa.Text(), nullable=False),
        sa.Column("seat_id", sa.Text(), nullable=False),
        sa.Column("player_id", Id, nullable=False),
        sa.Column("worker", sa.Text(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("conn_id", name=op.f("pk_banked_presence")),
    )
    with op.batch_alter_table("banked_presence", schema=None) as batch_op:
        batch_op.create_index("ix_banked_presence_seat", ["seat_id", "player_id"])


def downgrade() -> None:
    op.drop_table("banked_presence")
    op.drop_table("banked_points")
    with op.batch_alter_table("banked_rounds", schema=None) as batch_op:
        batch_op.drop_index("ix_banked_rounds_banker")
    op.drop_table("banked_rounds")
    op.drop_table("banked_seats")
    op.execute("DELETE FROM accounts WHERE kind = 'escrow' AND player_id IS NULL AND balance = 0")
    _set_kinds(NEW_KINDS, OLD_KINDS)
