"""Initial schema: players, sessions, the ledger, fairness seeds, shoes, rounds, cashier.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ledger_transactions",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("reference", sa.Text(), nullable=True),
        sa.Column("memo", sa.Text(), nullable=True),
        sa.CheckConstraint("mode IN ('fun', 'real')", name=op.f("ck_ledger_transactions_mode")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_transactions")),
    )
    op.create_table(
        "login_throttle",
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("blocked_until_us", sa.BigInteger(), nullable=False),
        sa.Column("updated_us", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_login_throttle")),
    )
    op.create_table(
        "players",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("nickname", sa.Text(), nullable=False),
        sa.Column("nickname_key", sa.Text(), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("nickname_key", name=op.f("uq_players_nickname_key")),
    )
    op.create_table(
        "accounts",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("player_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.CheckConstraint(
            "(kind = 'player') = (player_id IS NOT NULL)", name=op.f("ck_accounts_owner")
        ),
        sa.CheckConstraint(
            "kind IN ('house', 'cashier') OR balance >= 0", name=op.f("ck_accounts_non_negative")
        ),
        sa.CheckConstraint(
            "kind IN ('player', 'house', 'cashier', 'withdrawals')", name=op.f("ck_accounts_kind")
        ),
        sa.CheckConstraint("mode IN ('fun', 'real')", name=op.f("ck_accounts_mode")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_accounts_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
    )
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.create_index("ix_accounts_player", ["player_id", "mode", "kind"], unique=True)
        batch_op.create_index(
            "ix_accounts_system",
            ["mode", "kind"],
            unique=True,
            sqlite_where=sa.text("player_id IS NULL"),
            postgresql_where=sa.text("player_id IS NULL"),
        )

    op.create_table(
        "cashier_requests",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column(
            "player_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("decided_us", sa.BigInteger(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column(
            "reserve_transaction_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.Column(
            "decision_transaction_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.CheckConstraint(
            "kind IN ('deposit', 'withdrawal')", name=op.f("ck_cashier_requests_kind")
        ),
        sa.CheckConstraint("mode IN ('fun', 'real')", name=op.f("ck_cashier_requests_mode")),
        sa.CheckConstraint(
            "status IN ('pending', 'approved', 'rejected')", name=op.f("ck_cashier_requests_status")
        ),
        sa.CheckConstraint("amount > 0", name=op.f("ck_cashier_requests_amount")),
        sa.ForeignKeyConstraint(
            ["decision_transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_cashier_requests_decision_transaction_id_ledger_transactions"),
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_cashier_requests_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["reserve_transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_cashier_requests_reserve_transaction_id_ledger_transactions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cashier_requests")),
    )
    with op.batch_alter_table("cashier_requests", schema=None) as batch_op:
        batch_op.create_index("ix_cashier_requests_player", ["player_id", "id"], unique=False)
        batch_op.create_index("ix_cashier_requests_status", ["status", "kind"], unique=False)

    op.create_table(
        "fairness_seeds",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column(
            "player_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("server_seed", sa.Text(), nullable=False),
        sa.Column("commitment", sa.Text(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("revealed_us", sa.BigInteger(), nullable=True),
        sa.CheckConstraint("mode IN ('fun', 'real')", name=op.f("ck_fairness_seeds_mode")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_fairness_seeds_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fairness_seeds")),
    )
    with op.batch_alter_table("fairness_seeds", schema=None) as batch_op:
        batch_op.create_index("ix_fairness_seeds_player", ["player_id", "mode"], unique=False)

    op.create_table(
        "idempotency_keys",
        sa.Column(
            "player_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("request_hash", sa.Text(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_idempotency_keys_player_id_players")
        ),
        sa.PrimaryKeyConstraint("player_id", "key", name=op.f("pk_idempotency_keys")),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column(
            "player_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("expires_us", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_sessions_player_id_players")
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_sessions")),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sessions_player_id"), ["player_id"], unique=False)

    op.create_table(
        "fairness_states",
        sa.Column(
            "player_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("seed_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("server_seed", sa.Text(), nullable=False),
        sa.Column("commitment", sa.Text(), nullable=False),
        sa.Column("client_seed", sa.Text(), nullable=False),
        sa.Column("next_nonce", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("mode IN ('fun', 'real')", name=op.f("ck_fairness_states_mode")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_fairness_states_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["seed_id"],
            ["fairness_seeds.id"],
            name=op.f("fk_fairness_states_seed_id_fairness_seeds"),
        ),
        sa.PrimaryKeyConstraint("player_id", "mode", name=op.f("pk_fairness_states")),
    )
    op.create_table(
        "ledger_entries",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column(
            "transaction_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column(
            "account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_ledger_entries_nonzero")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_ledger_entries_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_ledger_entries_transaction_id_ledger_transactions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_entries")),
    )
    with op.batch_alter_table("ledger_entries", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_ledger_entries_account_id"), ["account_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_ledger_entries_transaction_id"), ["transaction_id"], unique=False
        )

    op.create_table(
        "rounds",
        sa.Column(
            "seq",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column(
            "player_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("seed_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
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
        sa.Column(
            "transaction_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("void_reason", sa.Text(), nullable=True),
        sa.Column("voided_us", sa.BigInteger(), nullable=True),
        sa.Column(
            "void_transaction_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.CheckConstraint("mode IN ('fun', 'real')", name=op.f("ck_rounds_mode")),
        sa.CheckConstraint("stake > 0 AND win >= 0", name=op.f("ck_rounds_amounts")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_rounds_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["seed_id"], ["fairness_seeds.id"], name=op.f("fk_rounds_seed_id_fairness_seeds")
        ),
        sa.ForeignKeyConstraint(
            ["transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_rounds_transaction_id_ledger_transactions"),
        ),
        sa.ForeignKeyConstraint(
            ["void_transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_rounds_void_transaction_id_ledger_transactions"),
        ),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_rounds")),
        sa.UniqueConstraint("id", name=op.f("uq_rounds_id")),
    )
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.create_index("ix_rounds_player", ["player_id", "mode", "seq"], unique=False)
        batch_op.create_index("ix_rounds_transaction", ["transaction_id"], unique=True)

    op.create_table(
        "shoes",
        sa.Column(
            "player_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("table_id", sa.Text(), nullable=False),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("seed_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("client_seed", sa.Text(), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("cut", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("cut_card", sa.Integer(), nullable=True),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.Column("finished", sa.Integer(), nullable=False),
        sa.Column("created_us", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("mode IN ('fun', 'real')", name=op.f("ck_shoes_mode")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_shoes_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["seed_id"], ["fairness_seeds.id"], name=op.f("fk_shoes_seed_id_fairness_seeds")
        ),
        sa.PrimaryKeyConstraint("player_id", "table_id", "mode", name=op.f("pk_shoes")),
    )
    _append_only_ledger()
    _system_accounts()


def downgrade() -> None:
    op.drop_table("shoes")
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.drop_index("ix_rounds_transaction")
        batch_op.drop_index("ix_rounds_player")

    op.drop_table("rounds")
    with op.batch_alter_table("ledger_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ledger_entries_transaction_id"))
        batch_op.drop_index(batch_op.f("ix_ledger_entries_account_id"))

    op.drop_table("ledger_entries")
    op.drop_table("fairness_states")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sessions_player_id"))

    op.drop_table("sessions")
    op.drop_table("idempotency_keys")
    with op.batch_alter_table("fairness_seeds", schema=None) as batch_op:
        batch_op.drop_index("ix_fairness_seeds_player")

    op.drop_table("fairness_seeds")
    with op.batch_alter_table("cashier_requests", schema=None) as batch_op:
        batch_op.drop_index("ix_cashier_requests_status")
        batch_op.drop_index("ix_cashier_requests_player")

    op.drop_table("cashier_requests")
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_accounts_system",
            sqlite_where=sa.text("player_id IS NULL"),
            postgresql_where=sa.text("player_id IS NULL"),
        )
        batch_op.drop_index("ix_accounts_player")

    op.drop_table("accounts")
    op.drop_table("players")
    op.drop_table("login_throttle")
    op.drop_table("ledger_transactions")

    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS ledger_append_only()")


LEDGER_TABLES = ("ledger_entries", "ledger_transactions")


def _append_only_ledger() -> None:
    """The ledger is append-only: the database itself refuses UPDATE and DELETE."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'the ledger is append-only'; END $$"
        )
        for table in LEDGER_TABLES:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION ledger_append_only()"
            )
        return
    for table in LEDGER_TABLES:
        for event in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
                "BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END"
            )


def _system_accounts() -> None:
    """The casino's own accounts in each mode: the house, the cashier, pending withdrawals."""
    for mode in ("fun", "real"):
        for kind in ("house", "cashier", "withdrawals"):
            op.execute(
                "INSERT INTO accounts (player_id, mode, kind, balance, version) "
                f"VALUES (NULL, '{mode}', '{kind}', 0, 0)"
            )
