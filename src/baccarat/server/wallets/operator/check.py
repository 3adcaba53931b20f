"""``baccarat admin check`` for rounds on operators' wallets: every round's states add up.

Checked: each operator round has its row of ``rounds`` and a transaction with no entries
(its money is the operator's); a round whose bet was applied (answered ok: API v1's
``RS_OK``) has a win in flight or done and no rollback; a rolled-back round was never
settled; every finished round has the answer that finished it. The answers' statuses are
read by the round's contract (``protocols``: the one it was played in).
"""

from __future__ import annotations

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.ledger import ELSEWHERE_KIND
from baccarat.server.play.check import Report
from baccarat.server.wallets.operator import protocols


def check(uow: UnitOfWork, report: Report) -> None:
    report.counts["operator_rounds"] = int(uow.scalar("SELECT COUNT(*) FROM operator_rounds"))
    rows = uow.all(
        "SELECT o.round_id, o.state, o.bet_status, o.win_status, o.rollback_status, t.kind, "
        "(SELECT COUNT(*) FROM ledger_entries e WHERE e.transaction_id = t.id), o.coup_id, "
        "o.protocol "
        "FROM operator_rounds o LEFT JOIN rounds r ON r.id = o.round_id "
        "LEFT JOIN ledger_transactions t ON t.id = r.transaction_id"
    )
    for row in rows:
        round_id, state, bet_status, win_status, rollback_status, kind, entries, coup = row[:8]
        contract = protocols.contract(row[8])
        bet, win, rollback = (None if s is None else contract.outcome(s)
                              for s in (bet_status, win_status, rollback_status))  # fmt: skip
        # A shared coup's round is played at the deal: one that was not has no round.
        unplayed = coup is not None and state not in ("win", "settled")
        if unplayed and kind is not None:
            report.add(f"operator round {round_id} was played without its bet applied")
        elif not unplayed and (kind != ELSEWHERE_KIND or entries):
            report.add(f"operator round {round_id} has no round of its own (found {kind})")
        if state in ("win", "settled") and bet != "ok":
            report.add(f"operator round {round_id} pays a win on a bet answered {bet_status}")
        if state == "settled" and win != "ok":
            report.add(f"operator round {round_id} is settled without its win answered")
        if state in ("rollback", "rolled_back") and win_status is not None:
            report.add(f"operator round {round_id} is rolled back after its bet was applied")
        if state == "rolled_back" and rollback not in ("ok", "not_applied"):
            report.add(f"operator round {round_id} is rolled back without its answer")
        if state == "refused" and bet in (None, "ok"):
            report.add(f"operator round {round_id} is refused without a refusal")
