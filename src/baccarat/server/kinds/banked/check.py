"""``baccarat admin check`` for player-banked tables: their money adds up too.

Checked: each banked round's settlement transaction moves exactly its figures (the player
gets what the bets returned, the casino the fee, the banker the reserve back plus the stakes
less both, out of escrow); every such transaction has its round; the banker's recorded
balances follow from them; the escrow of each mode (whose balance is derived from its
entries, like the house's) holds exactly what the seats have in play (bets placed,
reserves); every banked round names a round of its player; and each void of a banked
round reverses the banker's and the casino's side as well as the player's.
"""

from __future__ import annotations

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.play.check import Report, report_orphans

_SIDES = (
    "COALESCE(SUM(CASE WHEN a.kind = 'player' AND a.player_id = b.player_id "
    "THEN e.amount ELSE 0 END), 0), "
    "COALESCE(SUM(CASE WHEN a.kind = 'player' AND a.player_id = b.banker_id "
    "THEN e.amount ELSE 0 END), 0), "
    "COALESCE(SUM(CASE WHEN a.kind = 'house' THEN e.amount ELSE 0 END), 0), "
    "COALESCE(SUM(CASE WHEN a.kind = 'escrow' THEN e.amount ELSE 0 END), 0), "
    "COUNT(e.id)"
)


def check(uow: UnitOfWork, report: Report) -> None:
    """The banked rounds and their voids (the escrow they hold: ``held``)."""
    report.counts["banked_rounds"] = int(uow.scalar("SELECT COUNT(*) FROM banked_rounds"))
    _rounds(uow, report)
    _voids(uow, report)


def _rounds(uow: UnitOfWork, report: Report) -> None:
    rows = uow.all(
        "SELECT r.id, r.stake, r.win, b.fee, b.reserve, b.banker_before, b.banker_after, "
        f"t.kind, t.mode, r.mode, {_SIDES} "
        "FROM banked_rounds b JOIN rounds r ON r.id = b.round_id "
        "LEFT JOIN ledger_transactions t ON t.id = r.transaction_id "
        "LEFT JOIN ledger_entries e ON e.transaction_id = t.id "
        "LEFT JOIN accounts a ON a.id = e.account_id "
        "GROUP BY r.seq, r.id, r.stake, r.win, b.fee, b.reserve, b.banker_before, "
        "b.banker_after, t.kind, t.mode, r.mode"
    )
    for (round_id, stake, win, fee, reserve, before, after, kind, tx_mode, mode, to_player,
         to_banker, to_house, to_escrow, entries) in rows:  # fmt: skip
        if kind != "banked_round":
            report.add(f"banked round {round_id} has no banked_round transaction (found {kind})")
            continue
        if tx_mode != mode:
            report.add(f"banked round {round_id} is {mode} but its transaction is {tx_mode}")
        expected = (win, reserve + stake - win - fee, fee, -(reserve + stake))
        found = (to_player, to_banker, to_house, to_escrow)
        if found != expected or not entries:
            report.add(
                f"banked round {round_id}: expected player/banker/house/escrow {expected}, "
                f"its transaction moves {found}"
            )
        if after != before + stake - win - fee:
            report.add(
                f"banked round {round_id}: banker {before} + {stake} - {win} - {fee} is not {after}"
            )
    # PostgreSQL keeps no foreign keys on banked_rounds (migration 0019): its rows must
    # name a round of the same player.
    for round_id, player_id, found in uow.all(
        "SELECT b.round_id, b.player_id, r.player_id FROM banked_rounds b "
        "LEFT JOIN rounds r ON r.id = b.round_id "
        "WHERE r.id IS NULL OR r.player_id <> b.player_id"
    ):
        if found is None:
            report.add(f"banked round {round_id} (player {player_id}) has no round")
        else:
            report.add(f"banked round {round_id} is player {player_id}'s, "
                       f"its round player {found}'s")  # fmt: skip
    report_orphans(uow, report, "banked_round", "banked_rounds",
                   "settled a banked round but no banked round records it")  # fmt: skip


def _voids(uow: UnitOfWork, report: Report) -> None:
    rows = uow.all(
        f"SELECT r.id, r.stake, r.win, b.fee, {_SIDES} "
        "FROM banked_rounds b JOIN rounds r ON r.id = b.round_id "
        "JOIN ledger_transactions t ON t.id = r.void_transaction_id "
        "LEFT JOIN ledger_entries e ON e.transaction_id = t.id "
        "LEFT JOIN accounts a ON a.id = e.account_id "
        "GROUP BY r.seq, r.id, r.stake, r.win, b.fee"
    )
    for round_id, stake, win, fee, to_player, to_banker, to_house, to_escrow, _ in rows:
        expected = (stake - win, win + fee - stake, -fee, 0)
        found = (to_player, to_banker, to_house, to_escrow)
        if found != expected:
            report.add(
                f"void of banked round {round_id}: expected player/banker/house/escrow "
                f"{expected}, it moved {found}"
            )


def held(uow: UnitOfWork) -> dict[str, int]:
    """What the escrow holds for the seats, by mode: bets placed and bankers' reserves."""
    rows = uow.all(
        "SELECT mode, SUM(stake + reserve) FROM banked_seats WHERE mode IS NOT NULL GROUP BY mode"
    )
    return {str(mode): int(total or 0) for mode, total in rows}
