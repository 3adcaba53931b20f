"""``baccarat admin check``: recompute the ledger and find anything that does not add up.

Checked: every transaction has two entries or more and sums to zero, entries stay in their
transaction's mode, every cached balance equals the sum of its account's entries (the
house's and the cashier's are derived, never cached), no player balance is negative, every
round has exactly its stake-and-payout transaction (and every such transaction its round),
every void its reversal, the rounds' own arithmetic (``balance_after = balance_before -
stake - fee + win``, the fee a multiplier table's, 0 elsewhere), and the money reserved for
withdrawals equals the pending requests.
Each table kind checks its own rounds (``TableKind.audit``: player-banked rounds and their
voids, shared tables' rounds), and says what it holds in escrow (its ``held``), which
the escrow's balance must equal; the operators' wallets check their rounds.
"""

from __future__ import annotations

import json

from baccarat.server.db.uow import UnitOfWork, sql_list
from baccarat.server.kinds import KINDS
from baccarat.server.ledger import DERIVED_KINDS, ELSEWHERE_KIND
from baccarat.server.play.check import Report, check_escrow, report_orphans
from baccarat.server.wallets.operator import check as operators


def check(uow: UnitOfWork) -> Report:
    report = Report()
    _count(uow, report)
    _transactions(uow, report)
    _balances(uow, report)
    _rounds(uow, report)
    _voids(uow, report)
    _withdrawals(uow, report)
    audited = [(kind.holds, kind.audit) for kind in KINDS.values() if kind.audit is not None]
    for _, audit in audited:
        audit.check(uow, report)
    check_escrow(uow, report, ((holds, audit.held(uow)) for holds, audit in audited))
    operators.check(uow, report)
    _totals(uow, report)
    return report


def _count(uow: UnitOfWork, report: Report) -> None:
    for table in ("players", "accounts", "ledger_transactions", "ledger_entries", "rounds"):
        report.counts[table] = int(uow.scalar(f"SELECT COUNT(*) FROM {table}"))


def _transactions(uow: UnitOfWork, report: Report) -> None:
    rows = uow.all(
        "SELECT t.id, t.kind, COUNT(e.id), COALESCE(SUM(e.amount), 0) "
        "FROM ledger_transactions t LEFT JOIN ledger_entries e ON e.transaction_id = t.id "
        f"WHERE t.kind <> '{ELSEWHERE_KIND}' "
        "GROUP BY t.id, t.kind HAVING COUNT(e.id) < 2 OR COALESCE(SUM(e.amount), 0) <> 0"
    )
    for tx_id, kind, entries, total in rows:
        report.add(
            f"transaction {tx_id} ({kind}) does not balance: {entries} entries sum to {total}"
        )
    rows = uow.all(
        "SELECT e.id, t.id FROM ledger_entries e "
        "JOIN ledger_transactions t ON t.id = e.transaction_id "
        "JOIN accounts a ON a.id = e.account_id WHERE a.mode <> t.mode"
    )
    for entry_id, tx_id in rows:
        report.add(f"entry {entry_id} of transaction {tx_id} is in another mode's account")
    rows = uow.all(
        "SELECT e.transaction_id FROM ledger_entries e JOIN accounts a ON a.id = e.account_id "
        "GROUP BY e.transaction_id HAVING COUNT(DISTINCT a.currency) > 1"
    )
    for (tx_id,) in rows:
        report.add(f"transaction {tx_id} moves money between accounts of different currencies")
    total = int(uow.scalar("SELECT COALESCE(SUM(amount), 0) FROM ledger_entries"))
    if total != 0:
        report.add(f"the ledger as a whole sums to {total}, not 0")


def _balances(uow: UnitOfWork, report: Report) -> None:
    # The house's, the cashier's (and the escrow's) balances are derived, never cached: their
    # column stays 0.
    derived = sql_list(DERIVED_KINDS)
    rows = uow.all(
        "SELECT a.id, a.kind, a.mode, a.player_id, a.balance, "
        f"CASE WHEN a.kind IN ({derived}) THEN 0 ELSE COALESCE(SUM(e.amount), 0) END "
        "FROM accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id "
        "GROUP BY a.id, a.kind, a.mode, a.player_id, a.balance "
        "HAVING a.balance <> "
        f"CASE WHEN a.kind IN ({derived}) THEN 0 ELSE COALESCE(SUM(e.amount), 0) END"
    )
    for account_id, kind, mode, player_id, cached, derived in rows:
        owner = f"player {player_id}" if player_id is not None else "the casino"
        report.add(
            f"account {account_id} ({kind} {mode} of {owner}): cached balance {cached} "
            f"but its entries sum to {derived}"
        )
    rows = uow.all(
        "SELECT id, kind, balance FROM accounts WHERE kind IN ('player', 'withdrawals') "
        "AND balance < 0"
    )
    for account_id, kind, balance in rows:
        report.add(f"account {account_id} ({kind}) is negative: {balance}")


# The rounds, each with the transaction (``t``) in a column of its own (``{column}``: its
# round's, or its void's), that transaction's entries (``e``) and their accounts (``a``).
_ROUND_ENTRIES = (
    "FROM rounds r LEFT JOIN ledger_transactions t ON t.id = r.{column} "
    "LEFT JOIN ledger_entries e ON e.transaction_id = t.id "
    "LEFT JOIN accounts a ON a.id = e.account_id "
)
# What those entries move to the round's player.
_TO_PLAYER = (
    "COALESCE(SUM(CASE WHEN a.kind = 'player' AND a.player_id = r.player_id "
    "THEN e.amount ELSE 0 END), 0)"
)


def _rounds(uow: UnitOfWork, report: Report) -> None:
    # Each round's transaction moves exactly (win - stake - fee) to the player's account of
    # the round's mode and the opposite to the house (player-banked rounds: banked.audit;
    # shared tables' rounds: shared.audit).
    rows = uow.all(
        f"SELECT r.id, r.stake + r.fee, r.win, t.kind, {_TO_PLAYER}, "
        "COALESCE(SUM(CASE WHEN a.kind = 'house' THEN e.amount ELSE 0 END), 0), "
        "COUNT(e.id), t.mode, r.mode "
        + _ROUND_ENTRIES.format(column="transaction_id")
        + "WHERE NOT EXISTS (SELECT 1 FROM banked_rounds b WHERE b.round_id = r.id) "
        f"AND (t.kind IS NULL OR t.kind <> '{ELSEWHERE_KIND}') "
        "AND NOT EXISTS (SELECT 1 FROM shared_bets sb WHERE sb.round_id = r.id) "
        "GROUP BY r.seq, r.id, r.stake, r.fee, r.win, t.kind, t.mode, r.mode"
    )
    for round_id, stake, win, kind, to_player, to_house, entries, tx_mode, mode in rows:
        if kind != "round":
            report.add(f"round {round_id} has no round transaction (found {kind})")
            continue
        if tx_mode != mode:
            report.add(f"round {round_id} is {mode} but its transaction is {tx_mode}")
        if to_player != win - stake or to_house != stake - win or not entries:
            report.add(
                f"round {round_id}: stake and fee {stake} and win {win} but its transaction "
                f"moves {to_player} to the player and {to_house} to the house"
            )
    report_orphans(uow, report, "round", "", "moved a round's money but no round records it")
    for round_id, stake, win, before, after, bets, fee in uow.all(
        "SELECT id, stake, win, balance_before, balance_after, bets, fee FROM rounds"
    ):
        placed = json.loads(bets)
        staked = sum(int(b["stake"]) for b in placed.values())
        returned = sum(int(b["returned"]) for b in placed.values())
        fees = sum(int(b.get("fee", 0)) for b in placed.values())
        if (staked, returned, fees) != (stake, win, fee):
            report.add(f"round {round_id}: its bets total {staked}/{returned}/{fees} (stake, "
                       f"return, fee), not {stake}/{win}/{fee}")  # fmt: skip
        if after != before - stake - fee + win:
            report.add(
                f"round {round_id}: balance {before} - {stake} - {fee} + {win} is not {after}"
            )


def _voids(uow: UnitOfWork, report: Report) -> None:
    rows = uow.all(
        f"SELECT r.id, r.stake + r.fee, r.win, r.void_reason, t.kind, {_TO_PLAYER} "
        + _ROUND_ENTRIES.format(column="void_transaction_id")
        + "WHERE r.void_reason IS NOT NULL OR r.void_transaction_id IS NOT NULL "
        "GROUP BY r.seq, r.id, r.stake, r.fee, r.win, r.void_reason, t.kind"
    )
    for round_id, stake, win, reason, kind, to_player in rows:
        if reason is None or kind != "void":
            report.add(f"round {round_id} is half voided (reason {reason!r}, transaction {kind})")
        elif to_player != stake - win:
            report.add(f"void of round {round_id} moved {to_player}, not {stake - win}")
    orphans = uow.all(
        "SELECT t.id FROM ledger_transactions t "
        "LEFT JOIN rounds r ON r.void_transaction_id = t.id "
        "WHERE t.kind = 'void' AND r.seq IS NULL"
    )
    for (tx_id,) in orphans:
        report.add(f"void transaction {tx_id} belongs to no round")


def _withdrawals(uow: UnitOfWork, report: Report) -> None:
    reserved = int(
        uow.scalar(
            "SELECT COALESCE(SUM(balance), 0) FROM accounts "
            "WHERE kind = 'withdrawals' AND mode = 'real'"
        )
    )
    pending = int(
        uow.scalar(
            "SELECT COALESCE(SUM(amount), 0) FROM cashier_requests "
            "WHERE kind = 'withdrawal' AND status = 'pending'"
        )
    )
    if reserved != pending:
        report.add(f"{reserved} is reserved for withdrawals but {pending} is pending")


def _totals(uow: UnitOfWork, report: Report) -> None:
    """Each mode's money by kind of account, from the entries (the ledger is the truth)."""
    for mode, kind, balance in uow.all(
        "SELECT a.mode, a.kind, COALESCE(SUM(e.amount), 0) FROM accounts a "
        "LEFT JOIN ledger_entries e ON e.account_id = a.id "
        "GROUP BY a.mode, a.kind ORDER BY a.mode, a.kind"
    ):
        report.totals.setdefault(mode, {})[kind] = int(balance)
