"""PostgreSQL: the player-banked round's foreign keys, which guard nothing its writes do not
already guarantee, are dropped (as migration 0016 dropped the house round's).

PostgreSQL checks each with a query and a row lock (FOR KEY SHARE): three per deal.
``banked_rounds.round_id`` names the round the same transaction has just inserted;
``player_id`` and ``banker_id`` the two players of the seat whose row the deal holds locked
(and ``banked_seats`` keeps its own keys to ``players``), in a table no row is ever deleted
from. ``baccarat admin check`` finds a banked round without its round, or with another
player than its round's (``banked.audit``). SQLite keeps its keys.

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (column, referenced table, its column) of the keys of ``banked_rounds`` dropped.
BANKED_KEYS = (("round_id", "rounds", "id"), ("player_id", "players", "id"),
               ("banker_id", "players", "id"))  # fmt: skip


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for column, target, _ in BANKED_KEYS:
            op.drop_constraint(f"fk_banked_rounds_{column}_{target}", "banked_rounds",
                               type_="foreignkey")  # fmt: skip


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for column, target, key in BANKED_KEYS:
            op.create_foreign_key(f"fk_banked_rounds_{column}_{target}", "banked_rounds",
                                  target, [column], [key])  # fmt: skip
