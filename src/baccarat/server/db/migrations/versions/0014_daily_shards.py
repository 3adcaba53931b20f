"""The daily aggregates in shards: ``daily_stats`` gains ``shard`` in its key.

Every round adds itself to the day's rows of its table, mode and bets: on PostgreSQL,
with several writer connections, one row per key made every round of the table wait for
the previous writer's commit (its row lock is held until then). Each connection now adds
to a shard of its own (a few per key and day; SQLite writes shard 0 alone), and the
reports sum the shards (they already sum the rows of a period).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNTS = ("rounds", "stake", "returned", "stake_sq", "voided")


def _create(name: str, sharded: bool) -> None:
    key = ["day", "table_id", "mode", "bet"] + (["shard"] if sharded else [])
    op.create_table(
        name,
        sa.Column("day", sa.Integer, nullable=False),
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("mode", sa.Text, nullable=False),
        sa.Column("bet", sa.Text, nullable=False),
        *([sa.Column("shard", sa.Integer, nullable=False)] if sharded else []),
        *(sa.Column(count, sa.BigInteger, nullable=False) for count in _COUNTS),
        sa.PrimaryKeyConstraint(*key, name=op.f(f"pk_{name}")),
    )


def _replace(sharded: bool) -> None:
    """daily_stats rebuilt with (or without) shards, its rows copied (summed when merged)."""
    _create("daily_stats_new", sharded)
    counts = ", ".join(_COUNTS)
    if sharded:
        op.execute(f"INSERT INTO daily_stats_new (day, table_id, mode, bet, shard, {counts}) "
                   f"SELECT day, table_id, mode, bet, 0, {counts} FROM daily_stats")  # fmt: skip
    else:
        sums = ", ".join(f"SUM({count})" for count in _COUNTS)
        op.execute(f"INSERT INTO daily_stats_new (day, table_id, mode, bet, {counts}) "
                   f"SELECT day, table_id, mode, bet, {sums} FROM daily_stats "
                   "GROUP BY day, table_id, mode, bet")  # fmt: skip
    op.drop_table("daily_stats")
    op.rename_table("daily_stats_new", "daily_stats")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE daily_stats RENAME CONSTRAINT pk_daily_stats_new TO pk_daily_stats")


def upgrade() -> None:
    _replace(sharded=True)


def downgrade() -> None:
    _replace(sharded=False)
