"""Players: a unique look-alike key for nicknames (``accounts.nickname_norm``).

Existing players get the key of their nickname, oldest first. A player whose nickname
already looked like an older player's ("alice" registered after "a1ice") keeps the
nickname and logs in as before, with no key (NULL, which a unique index allows more than
once); the older player's key is what refuses new look-alikes of both.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# A copy of accounts.nickname_norm as it was when this migration was written (a migration
# must not change when the code does).
_LOOKALIKES = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"), ("_", "-"))


def _norm(nickname: str) -> str:
    text = unicodedata.normalize("NFKC", nickname).casefold()
    for look, like in _LOOKALIKES:
        text = text.replace(look, like)
    return text


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("nickname_norm", sa.Text(), nullable=True))
    connection = op.get_bind()
    seen: set[str] = set()
    rows = connection.execute(sa.text("SELECT id, nickname FROM players ORDER BY id"))
    for player_id, nickname in rows.fetchall():
        norm = _norm(nickname)
        if norm in seen:
            continue
        seen.add(norm)
        connection.execute(
            sa.text("UPDATE players SET nickname_norm = :n WHERE id = :id"),
            {"n": norm, "id": player_id},
        )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.create_unique_constraint(op.f("uq_players_nickname_norm"), ["nickname_norm"])


def downgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("uq_players_nickname_norm"), type_="unique")
        batch_op.drop_column("nickname_norm")
