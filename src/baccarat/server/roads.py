"""A table's scoreboards ("roads") and statistics, for one player and mode.

Every player has their own shoes (each dealt from their own seeds), so the roads are the
player's: at a cut-shoe table, the rounds of the player's current shoe there (the last one
cut, until the next cut); at a fresh-shuffle table, the player's last ``RECENT`` rounds
there. Voided rounds are left out (their result stands, but a void is a malfunction: its
plays do not count). The cost is one index-backed query (``ix_rounds_table``) with a LIMIT:
no more rows than a shoe can deal, or ``RECENT``.
"""

from __future__ import annotations

from typing import Any

from baccarat.core import Card, Outcome, is_natural
from baccarat.core.roads import RoadResult, compute_roads, road_stats
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.history import SHOWN
from baccarat.server.ledger import check_mode
from baccarat.server.tables import Table

RECENT = 100
MIN_CARDS_PER_ROUND = 4

# The player's newest rounds at a table: ``ix_rounds_table`` (player, table, mode, seq).
# (A round on an operator's wallet whose bet was not applied is not the player's: SHOWN.)
RECENT_ROUNDS = (
    "SELECT seed_id, nonce, winner, player_cards, banker_cards, void_reason FROM rounds r "
    f"WHERE player_id = :p AND table_id = :t AND mode = :m AND {SHOWN} "
    "ORDER BY seq DESC LIMIT :limit"
)
CURRENT_SHOE = (
    "SELECT seed_id, nonce FROM shoes WHERE player_id = :p AND table_id = :t AND mode = :m"
)


def road_result(winner: str, player_cards: str, banker_cards: str) -> RoadResult:
    """A recorded round as the roads see it: winner, pairs (first two cards of a rank)."""
    player, banker = Card.parse_many(player_cards), Card.parse_many(banker_cards)
    scores = [sum(c.value for c in hand[:2]) % 10 for hand in (player, banker)]
    return RoadResult(
        Outcome(winner),
        player_pair=player[0].rank is player[1].rank,
        banker_pair=banker[0].rank is banker[1].rank,
        natural=any(is_natural(score) for score in scores),
    )


def round_limit(table: Table) -> int:
    """How many rounds the roads look back: a whole shoe at most, or ``RECENT``."""
    if table.is_cut_shoe:
        return table.rules.cards_per_shoe // MIN_CARDS_PER_ROUND + 1
    return RECENT


def results(uow: UnitOfWork, player_id: int, table: Table, mode: str) -> list[RoadResult]:
    """The results the roads show, oldest first."""
    check_mode(mode)
    key = {"p": player_id, "t": table.id, "m": mode}
    shoe = None
    if table.is_cut_shoe:
        row = uow.one(CURRENT_SHOE, key)
        if row is None:
            return []
        shoe = (int(row[0]), int(row[1]))
    rows = uow.all(RECENT_ROUNDS, key | {"limit": round_limit(table)})
    chosen = []
    for seed_id, nonce, winner, player_cards, banker_cards, void_reason in rows:
        if shoe is not None and (int(seed_id), int(nonce)) != shoe:
            break  # newest first: the rounds before the current shoe's first
        if void_reason is None:
            chosen.append(road_result(winner, player_cards, banker_cards))
    chosen.reverse()
    return chosen


def table_roads(uow: UnitOfWork, player_id: int, table: Table, mode: str) -> dict[str, Any]:
    """The answer of ``GET /api/tables/{id}/roads``: roads with grid positions, the ask,
    and the statistics of the same rounds."""
    return roads_json(table, mode, results(uow, player_id, table, mode))


def roads_json(table: Table, mode: str, shown: list[RoadResult]) -> dict[str, Any]:
    """The roads of these results (oldest first) as ``GET /api/tables/{id}/roads`` answers."""
    roads = compute_roads(shown)
    summary = roads.to_json()
    return {
        "table_id": table.id,
        "mode": mode,
        "scope": "shoe" if table.is_cut_shoe else "recent",
        "limit": round_limit(table),
        "roads": roads.layout_json(),
        "columns": {"big_road": summary["big_road"], "ties": summary["ties"]},
        "ask": summary["ask"],
        "stats": road_stats(shown).to_json(),
    }
