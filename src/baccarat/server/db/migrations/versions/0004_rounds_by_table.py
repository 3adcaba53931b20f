"""Rounds by player, table and mode: the index behind a table's roads.

``GET /api/tables/{id}/roads`` reads the player's newest rounds at one table with a LIMIT;
this index serves it without a scan of the player's other tables.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_rounds_table", "rounds", ["player_id", "table_id", "mode", "seq"])


def downgrade() -> None:
    op.drop_index("ix_rounds_table", table_name="rounds")
