"""Server seeds at rest sealed (AES-256-GCM, ``baccarat.server.vault``): every seed not yet
revealed, in ``fairness_seeds`` and its copy in ``fairness_states``, is sealed with the
server's seed key (``BACCARAT_SEED_KEY``, else the data folder's), which the database never
holds. Revealed seeds are public and stay as they are. Downgrading opens them again.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import context, op

from baccarat.server.vault import NoVault, is_sealed

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SEEDS = "SELECT id, server_seed, commitment FROM fairness_seeds WHERE revealed_us IS NULL"
_STATES = "SELECT player_id, mode, server_seed, commitment FROM fairness_states"


def _change(sealed: bool, change: Callable[[str, str], str]) -> None:
    """Apply ``change(stored, commitment)`` to every unrevealed seed sealed (or not)."""
    connection = op.get_bind()
    for seed_id, stored, committed in connection.execute(sa.text(_SEEDS)).fetchall():
        if is_sealed(stored) != sealed:
            continue
        connection.execute(
            sa.text("UPDATE fairness_seeds SET server_seed = :s WHERE id = :id"),
            {"s": change(stored, committed), "id": seed_id},
        )
    for player_id, mode, stored, committed in connection.execute(sa.text(_STATES)).fetchall():
        if is_sealed(stored) != sealed:
            continue
        connection.execute(
            sa.text(
                "UPDATE fairness_states SET server_seed = :s WHERE player_id = :p AND mode = :m"
            ),
            {"s": change(stored, committed), "p": player_id, "m": mode},
        )


def _vault() -> object:
    return context.config.attributes.get("seed_vault") or NoVault()


def upgrade() -> None:
    vault = _vault()
    _change(False, lambda seed, committed: vault.seal(seed, committed))  # type: ignore[attr-defined]


def downgrade() -> None:
    vault = _vault()
    _change(True, lambda stored, committed: vault.open(stored, committed))  # type: ignore[attr-defined]
