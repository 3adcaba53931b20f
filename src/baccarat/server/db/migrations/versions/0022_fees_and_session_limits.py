"""The casino's fees in the daily aggregates, and when a session limit took effect.

``daily_stats`` gains ``fees``: what the casino took as its fee on the rounds of a row (a
player-banked round's, on its row of whole rounds; 0 elsewhere). At a player-banked table
the stakes and returns are the players' between themselves: the casino's revenue there is
its fee, which the reports could not tell before. The fees of the rounds played before are
added from ``banked_rounds`` (voided rounds left out, as their fee went back).

``responsible_players`` gains ``session_limit_us``: when the session limit in force took
effect. A limit set while the session is already longer than it ends play at that moment,
never before it was set (docs/responsible-gaming.md, "Session limit").

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DAY_US = 86_400 * 1_000_000


def upgrade() -> None:
    with op.batch_alter_table("daily_stats") as batch:
        batch.add_column(sa.Column("fees", sa.BigInteger(), nullable=False, server_default="0"))
    # Player-banked tables play in USD alone; shard 0 (the reports sum the shards).
    op.execute(
        "INSERT INTO daily_stats (day, table_id, mode, bet, currency, shard, rounds, stake, "
        "returned, stake_sq, voided, fees) "
        f"SELECT r.created_us / {DAY_US}, r.table_id, r.mode, '*', 'USD', 0, 0, 0, 0, 0, 0, "
        "SUM(b.fee) FROM banked_rounds b JOIN rounds r ON r.id = b.round_id "
        f"WHERE r.voided_us IS NULL GROUP BY r.created_us / {DAY_US}, r.table_id, r.mode "
        "ON CONFLICT (day, table_id, mode, bet, currency, shard) DO UPDATE SET "
        "fees = daily_stats.fees + excluded.fees"
    )
    with op.batch_alter_table("responsible_players") as batch:
        batch.add_column(sa.Column("session_limit_us", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("responsible_players") as batch:
        batch.drop_column("session_limit_us")
    with op.batch_alter_table("daily_stats") as batch:
        batch.drop_column("fees")
