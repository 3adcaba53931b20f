"""``baccarat admin check`` for shared tables: their money adds up too.

Checked: each shared round's transaction (``shared_round``) takes exactly its stake (and at
a multiplier table its fee) out of escrow and pays the player what the bets returned, the
house the difference; every such transaction has its round and its bets on a coup; every
settled bet's round is the bettor's, on the coup's cards (and multiplier cards), for its
stake and fee; and what the escrow holds for shared tables (``held``) is the bets placed
on coups not yet settled, with their fees. Bets on an operator's wallet
(``operator_round``) hold nothing in escrow and move nothing here: their rounds are checked
with the operators' (``operators.audit``), and here only for their coup's cards.
"""

from __future__ import annotations

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.play.check import Report, report_orphans


def held(uow: UnitOfWork) -> dict[str, int]:
    """What the escrow holds for shared coups, by mode: the stakes (and fees) not yet
    settled."""
    rows = uow.all(
        "SELECT mode, COALESCE(SUM(stake + fee), 0) FROM shared_bets WHERE round_id IS NULL "
        "AND operator_round IS NULL GROUP BY mode"
    )
    return {str(mode): int(total) for mode, total in rows}


def check(uow: UnitOfWork, report: Report) -> None:
    report.counts["shared_rounds"] = int(
        uow.scalar("SELECT COUNT(*) FROM shared_bets WHERE round_id IS NOT NULL")
    )
    rows = uow.all(
        "SELECT r.id, r.stake + r.fee, r.win, t.kind, t.mode, r.mode, "
        "COALESCE(SUM(CASE WHEN a.kind = 'player' AND a.player_id = r.player_id "
        "THEN e.amount ELSE 0 END), 0), "
        "COALESCE(SUM(CASE WHEN a.kind = 'house' THEN e.amount ELSE 0 END), 0), "
        "COALESCE(SUM(CASE WHEN a.kind = 'escrow' THEN e.amount ELSE 0 END), 0), COUNT(e.id) "
        "FROM shared_bets sb JOIN rounds r ON r.id = sb.round_id "
        "LEFT JOIN ledger_transactions t ON t.id = r.transaction_id "
        "LEFT JOIN ledger_entries e ON e.transaction_id = t.id "
        "LEFT JOIN accounts a ON a.id = e.account_id WHERE sb.operator_round IS NULL "
        "GROUP BY r.seq, r.id, r.stake, r.fee, r.win, t.kind, t.mode, r.mode"
    )
    for round_id, stake, win, kind, tx_mode, mode, to_player, to_house, to_escrow, n in rows:
        if kind != "shared_round":
            report.add(f"shared round {round_id} has no shared_round transaction (found {kind})")
            continue
        if tx_mode != mode:
            report.add(f"shared round {round_id} is {mode} but its transaction is {tx_mode}")
        expected = (win, stake - win, -stake)
        if (to_player, to_house, to_escrow) != expected or not n:
            report.add(
                f"shared round {round_id}: expected player/house/escrow {expected}, its "
                f"transaction moves {(to_player, to_house, to_escrow)}"
            )
    for (
        round_id,
        player,
        bettor,
        stake,
        staked,
        mode,
        bet_mode,
        pc,
        bc,
        cpc,
        cbc,
        lc,
        clc,
    ) in uow.all(
        "SELECT r.id, r.player_id, sb.player_id, r.stake + r.fee, sb.stake + sb.fee, r.mode, "
        "sb.mode, r.player_cards, r.banker_cards, c.player_cards, c.banker_cards, "
        "r.lightning, c.lightning FROM shared_bets sb "
        "JOIN rounds r ON r.id = sb.round_id JOIN shared_coups c ON c.id = sb.coup_id"
    ):
        if (player, stake, mode) != (bettor, staked, bet_mode):
            report.add(f"shared round {round_id} is not the round of the bets it settled")
        if (pc, bc, lc) != (cpc, cbc, clc):
            report.add(f"shared round {round_id} was not dealt the cards of its coup")
    report_orphans(uow, report, "shared_round", "shared_bets",
                   "settled a shared round but no bets on a coup record it")  # fmt: skip
