"""Launch codes are purged once past their time (an index on their expiry, so that a
launch purges a bounded few without a scan).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_operator_launches_expires_us", "operator_launches", ["expires_us"])


def downgrade() -> None:
    op.drop_index("ix_operator_launches_expires_us", "operator_launches")
