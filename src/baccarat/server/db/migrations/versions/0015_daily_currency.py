"""The daily aggregates by currency: ``daily_stats`` gains ``currency`` (ISO 4217) in its
key, so that the reports never add amounts of different currencies together (a table plays
in every currency it has limits in, and an operator's rounds are in the session's). The
rows of before are in USD, the only currency there was.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KEY = ("day", "table_id", "mode", "bet")
_COUNTS = ("rounds", "stake", "returned", "stake_sq", "voided")


def _create(name: str, by_currency: bool) -> None:
    key = [*_KEY, "currency"] if by_currency else list(_KEY)
    op.create_table(
        name,
        sa.Column("day", sa.Integer, nullable=False),
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("mode", sa.Text, nullable=False),
        sa.Column("bet", sa.Text, nullable=False),
        *([sa.Column("currency", sa.Text, nullable=False)] if by_currency else []),
        *(sa.Column(count, sa.BigInteger, nullable=False) for count in _COUNTS),
        sa.PrimaryKeyConstraint(*key, name=f"pk_{name}"),
    )


def _replace(by_currency: bool, copy: str) -> None:
    _create("daily_stats_new", by_currency)
    op.execute(copy)
    op.drop_table("daily_stats")
    op.rename_table("daily_stats_new", "daily_stats")
    if op.get_bind().dialect.name == "postgresql":
        # Its key named for the table (and the name free for the next copy).
        op.execute("ALTER TABLE daily_stats RENAME CONSTRAINT pk_daily_stats_new TO pk_daily_stats")


def upgrade() -> None:
    columns = ", ".join((*_KEY, *_COUNTS))
    _replace(True, f"INSERT INTO daily_stats_new ({columns}, currency) "
                   f"SELECT {columns}, 'USD' FROM daily_stats")  # fmt: skip


def downgrade() -> None:
    keys, sums = ", ".join(_KEY), ", ".join(f"SUM({c})" for c in _COUNTS)
    _replace(False, f"INSERT INTO daily_stats_new ({keys}, {', '.join(_COUNTS)}) "
                    f"SELECT {keys}, {sums} FROM daily_stats GROUP BY {keys}")  # fmt: skip
