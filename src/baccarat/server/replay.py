"""``baccarat admin replay``: export a recorded round and verify it.

The round is exported as any player's history line (``docs/history-format.md``), with its
server seed even before the player has revealed it (the operator holds it), and checked by
the published verifier (``baccarat.fairness.verify``): the shuffle re-derived from the
seeds with the reference derivation, the coup re-dealt, every bet re-settled.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..fairness.history import RoundRecord
from ..fairness.verify import RoundReport, Status, verify_round
from .db.uow import UnitOfWork
from .history import get_round


@dataclass(frozen=True)
class Replay:
    record: RoundRecord
    report: RoundReport

    @property
    def ok(self) -> bool:
        return self.report.status is Status.VERIFIED

    @property
    def mismatches(self) -> list[str]:
        return [str(d) for d in self.report.differences]

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
        }


def replay_round(uow: UnitOfWork, round_id: str) -> Replay:
    stored = get_round(uow, None, round_id)
    seed = uow.scalar(
        "SELECT s.server_seed FROM rounds r JOIN fairness_seeds s ON s.id = r.seed_id "
        "WHERE r.id = :id",
        {"id": round_id},
    )
    record = stored.export()
    record = replace(record, fairness=replace(record.fairness, server_seed=str(seed)))
    return Replay(record, verify_round(record))
