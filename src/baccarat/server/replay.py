"""``baccarat admin replay``: export a recorded round and verify it, money included.

The round is exported as any player's history line (``docs/history-format.md``), with its
server seed even before the player has revealed it (the operator holds it), and checked by
the published verifier (``baccarat.fairness.verify``): the shuffle re-derived from the
seeds with the reference derivation, the coup re-dealt, every bet re-settled. Then the
money: the round's bank (the house, or the seat's banker: the same ``round.Bank`` that
played it) gives the posting of the recorded settlement, and the ledger transaction of the
round must have moved exactly that, party by party.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..fairness.history import RoundRecord
from ..fairness.verify import RoundReport, Status, verify_round
from .banked.bank import PlayerBank
from .db.uow import UnitOfWork
from .history import get_round
from .money import Money, Party
from .round import Settled
from .rounds import HOUSE


@dataclass(frozen=True)
class Replay:
    record: RoundRecord
    report: RoundReport
    moved: dict[str, int]  # what the round's ledger transaction moved, by party
    owed: dict[str, int]  # what its bank's posting of the recorded settlement moves

    @property
    def ok(self) -> bool:
        return self.report.status is Status.VERIFIED and self.moved == self.owed

    @property
    def mismatches(self) -> list[str]:
        found = [str(d) for d in self.report.differences]
        if self.moved != self.owed:
            found.append(f"money: the ledger moved {self.moved}, the settlement owes {self.owed}")
        return found

    def to_json(self) -> dict[str, Any]:
        fair = self.record.fairness
        return {
            "round": self.record.id,
            "rules": self.record.rules_name,
            "nonce": fair.nonce,
            "cut": fair.cut,
            "position": fair.position,
            "recorded": self.record.to_json(),
            "matches": self.ok,
            "mismatches": self.mismatches,
            "differences": [d.to_json() for d in self.report.differences],
            "money": {"moved": self.moved, "owed": self.owed},
        }


def replay_round(uow: UnitOfWork, round_id: str) -> Replay:
    stored = get_round(uow, None, round_id)
    seed, player_id, tx_id = uow.one(
        "SELECT s.server_seed, r.player_id, r.transaction_id FROM rounds r "
        "JOIN fairness_seeds s ON s.id = r.seed_id WHERE r.id = :id",
        {"id": round_id},
    ) or (None, None, None)
    record = stored.export()
    record = replace(record, fairness=replace(record.fairness, server_seed=str(seed)))
    bank = PlayerBank.of_round(uow, round_id) or HOUSE
    settled = [Settled(int(player_id), stored.bets, stored.stake, stored.win)]
    (money,) = bank.money(stored.mode, settled)
    owed = {_party(p): money.net(p) for p in _parties(money)}
    moved = {
        _party(int(player) if player is not None else kind): int(amount)
        for player, kind, amount in uow.all(
            "SELECT a.player_id, a.kind, SUM(e.amount) FROM ledger_entries e "
            "JOIN accounts a ON a.id = e.account_id WHERE e.transaction_id = :t "
            "GROUP BY a.player_id, a.kind",
            {"t": tx_id},
        )
    }
    return Replay(record, verify_round(record), _nonzero(moved), _nonzero(owed))


def _parties(money: Money) -> set[Party]:
    return {p for m in money.moves for p in (m.source, m.target)}


def _party(party: Party) -> str:
    return f"player {party}" if isinstance(party, int) else party


def _nonzero(amounts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in sorted(amounts.items()) if v}
