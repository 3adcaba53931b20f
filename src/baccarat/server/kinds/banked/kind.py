"""The player-banked tables' kind (SPEC §7): one player banks against another at each
seat."""

from __future__ import annotations

from typing import ClassVar

from baccarat.server.currencies import HOME
from baccarat.server.kinds.banked import check as own_check
from baccarat.server.kinds.banked import terms as own_terms
from baccarat.server.play.kind import KindAudit, TableKind


class BankedKind(TableKind):
    """A player covers the bets of the player opposite; the casino takes a fee."""

    name = "banked"
    title = "player-banked"
    side_bets = False
    one_currency = f"a player-banked table plays in {HOME}, on the casino's own wallet"
    any_wallet = False
    several_at_once = False  # played from a seat, not from the table page
    own_rounds = (
        "player_banked_table",
        "table {table} is player-banked: take a seat (POST /api/seats)",
    )

    holds = "the seats"
    banker = "player"
    audit: ClassVar[KindAudit] = own_check
    runtime = "baccarat.server.kinds.banked.runtime:BankedDesk"
    api = "baccarat.server.kinds.banked.api"
    terms = staticmethod(own_terms.read)
