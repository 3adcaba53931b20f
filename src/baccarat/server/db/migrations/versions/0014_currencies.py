"""Currencies on our own wallet: every account is in one currency (``accounts.currency``,
ISO 4217; the accounts made before are in USD), and the casino keeps its own accounts in
each currency a table has limits in (the system accounts are unique per mode, kind and
currency). Launch codes are purged once past their time (an index on their expiry, so that
a launch purges a bounded few without a scan).

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

SYSTEM = sa.text("player_id IS NULL")


def _system_index(*columns: str) -> None:
    op.create_index("ix_accounts_system", "accounts", list(columns), unique=True,
                    sqlite_where=SYSTEM, postgresql_where=SYSTEM)  # fmt: skip


def upgrade() -> None:
    op.add_column("accounts", sa.Column("currency", sa.Text, nullable=False, server_default="USD"))
    op.drop_index("ix_accounts_system", "accounts")
    _system_index("mode", "kind", "currency")
    op.create_index("ix_operator_launches_expires_us", "operator_launches", ["expires_us"])


def downgrade() -> None:
    op.drop_index("ix_operator_launches_expires_us", "operator_launches")
    op.execute("DELETE FROM accounts WHERE player_id IS NULL AND currency <> 'USD'")
    op.drop_index("ix_accounts_system", "accounts")
    _system_index("mode", "kind")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("currency")
