"""The daily aggregates in shards; on PostgreSQL, the hot tables' foreign keys that guard
nothing the writes do not already guarantee are dropped.

``daily_stats`` gains ``shard`` in its key.
Every round adds itself to the day's rows of its table, mode and bets: on PostgreSQL,
with several writer connections, one row per key made every round of the table wait for
the previous writer's commit (its row lock is held until then). Each connection now adds
to a shard of its own (a few per key and day; SQLite writes shard 0 alone), and the
reports sum the shards (they already sum the rows of a period).

PostgreSQL checks a foreign key with a query and a row lock (FOR KEY SHARE) per row
written: eleven per house round. These go (``HOT_KEYS``), because each value they check
comes from a row the same transaction has just written or locked, in a table no row is
ever deleted from (players, accounts, fairness seeds; the ledger is append-only):
``rounds.player_id`` (the round's posting updated the player's account, whose own key to
``players`` stays), ``rounds.transaction_id`` and ``ledger_entries.transaction_id`` (the
transaction inserted by the same statement or transaction), ``rounds.seed_id`` (read from
the player's ``fairness_states`` row, whose key to the seeds stays), ``ledger_entries.
account_id`` (the account the posting updated, or the casino's own), ``idempotency_keys.
player_id`` (the player the session authenticated). The other keys stay, and SQLite keeps
all of its (it checks them in-process, without round trips or row locks).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNTS = ("rounds", "stake", "returned", "stake_sq", "voided")
# (table, column, referenced table) of the keys dropped on PostgreSQL.
HOT_KEYS = (
    ("rounds", "player_id", "players"),
    ("rounds", "transaction_id", "ledger_transactions"),
    ("rounds", "seed_id", "fairness_seeds"),
    ("ledger_entries", "transaction_id", "ledger_transactions"),
    ("ledger_entries", "account_id", "accounts"),
    ("idempotency_keys", "player_id", "players"),
)


def _create(name: str, sharded: bool) -> None:
    key = ["day", "table_id", "mode", "bet", "currency"] + (["shard"] if sharded else [])
    op.create_table(
        name,
        sa.Column("day", sa.Integer, nullable=False),
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("mode", sa.Text, nullable=False),
        sa.Column("bet", sa.Text, nullable=False),
        sa.Column("currency", sa.Text, nullable=False),
        *([sa.Column("shard", sa.Integer, nullable=False)] if sharded else []),
        *(sa.Column(count, sa.BigInteger, nullable=False) for count in _COUNTS),
        sa.PrimaryKeyConstraint(*key, name=op.f(f"pk_{name}")),
    )


def _replace(sharded: bool) -> None:
    """daily_stats rebuilt with (or without) shards, its rows copied (summed when merged)."""
    _create("daily_stats_new", sharded)
    counts = ", ".join(_COUNTS)
    if sharded:
        op.execute(f"INSERT INTO daily_stats_new (day, table_id, mode, bet, currency, shard, "
                   f"{counts}) SELECT day, table_id, mode, bet, currency, 0, {counts} "
                   "FROM daily_stats")  # fmt: skip
    else:
        sums = ", ".join(f"SUM({count})" for count in _COUNTS)
        op.execute(f"INSERT INTO daily_stats_new (day, table_id, mode, bet, currency, {counts}) "
                   f"SELECT day, table_id, mode, bet, currency, {sums} FROM daily_stats "
                   "GROUP BY day, table_id, mode, bet, currency")  # fmt: skip
    op.drop_table("daily_stats")
    op.rename_table("daily_stats_new", "daily_stats")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE daily_stats RENAME CONSTRAINT pk_daily_stats_new TO pk_daily_stats")


def upgrade() -> None:
    _replace(sharded=True)
    if op.get_bind().dialect.name == "postgresql":
        for table, column, target in HOT_KEYS:
            op.drop_constraint(f"fk_{table}_{column}_{target}", table, type_="foreignkey")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, column, target in HOT_KEYS:
            op.create_foreign_key(f"fk_{table}_{column}_{target}", table, target, [column], ["id"])
    _replace(sharded=False)
