"""The balance chain: per mode, each round starts with the balance the one before ended
with; each break is a note with its amount (``check_balances``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..history import RoundRecord
from .report import Finding, Kind


def check_balances(records: Sequence[RoundRecord]) -> list[Finding]:
    """Per mode, in file order (the server's ``seq``): each round starts with the balance the
    one before ended with. Each break is a note with its amount: money moved between the
    two rounds that the export does not hold (deposit, withdrawal, top-up, or the void of an
    earlier round, which takes back what that round paid)."""
    notes = []
    last: dict[str | None, RoundRecord] = {}
    for record in records:
        before = last.get(record.mode)
        last[record.mode] = record
        if before is None or record.balance_before == before.balance_after:
            continue
        amount = record.balance_before - before.balance_after
        mode = f" ({record.mode})" if record.mode else ""
        notes.append(
            Finding(
                Kind.BALANCE,
                f"balance{mode}: line {record.line} starts at {record.balance_before}, line "
                f"{before.line} ended at {before.balance_after} ({amount:+d}): money moved "
                "between the rounds outside this export",
                (before.line, record.line),
                amount=amount,
            )
        )
    return notes
