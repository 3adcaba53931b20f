"""Revealed seeds: the shoes cut under them and never dealt, so a verifier can tell an
honest unused nonce from a skipped one (docs/history-format.md, ``undealt_shoes``).

``shoes.start`` is where a shoe's first coup starts (after its burn): a shoe whose position
is still there when its seed is revealed dealt nothing. ``fairness_seeds.undealt_shoes``
(JSON) is recorded at rotation. Seeds revealed before keep NULL: their exports carry no
``nonces_used`` and a verifier says that it could not check them for gaps; shoes cut before
keep a NULL start, and a seed revealed with such a shoe still in play is recorded likewise.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("shoes", schema=None) as batch_op:
        batch_op.add_column(sa.Column("start", sa.Integer(), nullable=True))
    with op.batch_alter_table("fairness_seeds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("undealt_shoes", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("fairness_seeds", schema=None) as batch_op:
        batch_op.drop_column("undealt_shoes")
    with op.batch_alter_table("shoes", schema=None) as batch_op:
        batch_op.drop_column("start")
