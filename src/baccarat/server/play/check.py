"""The report ``baccarat admin check`` writes to (``Report``): the problems found and the
counts, by every check (the ledger's in ``server.check``, each table kind's and each
wallet's own), and the escrow's balance, which every kind holds money in."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.ledger import MODES


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    totals: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, problem: str) -> None:
        if len(self.problems) < 1000:
            self.problems.append(problem)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "problems": self.problems,
            "counts": self.counts,
            "totals": self.totals,
        }


def check_escrow(
    uow: UnitOfWork, report: Report, held: Iterable[tuple[str, Mapping[str, int]]]
) -> None:
    """The escrow of each mode (its balance derived: the sum of its entries) holds exactly
    what the table kinds say they hold in it (``held``: by kind's description, by mode)."""
    balances: dict[str, int] = dict(
        uow.all(
            "SELECT a.mode, COALESCE(SUM(e.amount), 0) FROM accounts a "
            "LEFT JOIN ledger_entries e ON e.account_id = a.id "
            "WHERE a.kind = 'escrow' AND a.player_id IS NULL GROUP BY a.mode"
        )
    )
    parts = list(held)
    for mode in MODES:
        have = int(balances.get(mode, 0))
        due = {what: int(amounts.get(mode, 0) or 0) for what, amounts in parts}
        if have != sum(due.values()):
            said = " and ".join(f"{what} {amount}" for what, amount in due.items() if amount)
            report.add(f"the {mode} escrow holds {have} but {said or 'nothing is'} in play")


def report_orphans(uow: UnitOfWork, report: Report, kind: str, record: str, what: str) -> None:
    """Every transaction of ``kind`` that no row of ``record`` (a join from its round,
    ``r``, naming ``x.round_id``) records is a problem: ``what`` says what it did."""
    join = "" if not record else f"LEFT JOIN {record} x ON x.round_id = r.id "
    missing = "x.round_id" if record else "r.seq"
    rows = uow.all(
        "SELECT t.id FROM ledger_transactions t LEFT JOIN rounds r ON r.transaction_id = t.id "
        f"{join}WHERE t.kind = :k AND {missing} IS NULL",
        {"k": kind},
    )
    for (tx_id,) in rows:
        report.add(f"transaction {tx_id} {what}")
