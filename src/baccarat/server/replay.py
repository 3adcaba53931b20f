"""``baccarat admin replay``: re-derive a recorded round with the reference derivation.

It takes the round's recorded seeds, nonce, cut and position, rebuilds the shoe with
``baccarat.fairness.fair_shoe`` (the reference, not the server's fast path), deals the coup
and settles the recorded bets (side bets too) with the round pipeline's own steps, and
compares everything with what was recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..core import get_rules
from ..fairness import commitment, fair_shoe
from . import pipeline
from .db.uow import UnitOfWork
from .errors import ServiceError


@dataclass
class Replay:
    round_id: str
    rules: str
    nonce: int
    cut: int | None
    position: int
    recorded: dict[str, Any]
    derived: dict[str, Any]
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round_id,
            "rules": self.rules,
            "nonce": self.nonce,
            "cut": self.cut,
            "position": self.position,
            "recorded": self.recorded,
            "derived": self.derived,
            "matches": self.ok,
            "mismatches": self.mismatches,
        }


def replay_round(uow: UnitOfWork, round_id: str) -> Replay:
    row = uow.one(
        "SELECT r.rules, s.server_seed, r.commitment, r.client_seed, r.nonce, r.cut, "
        "r.position, r.player_cards, r.banker_cards, r.winner, r.bets "
        "FROM rounds r JOIN fairness_seeds s ON s.id = r.seed_id WHERE r.id = :id",
        {"id": round_id},
    )
    if row is None:
        raise ServiceError("unknown_round", f"there is no round {round_id!r}", round=round_id)
    rules_name, server_seed, committed, client_seed, nonce, cut, position = row[:7]
    player_cards, banker_cards, winner, bets_json = row[7:]
    rules = get_rules(rules_name)
    shoe = fair_shoe(rules, server_seed, client_seed, int(nonce), None if cut is None else int(cut))
    shoe.position = int(position)
    dealt = pipeline.deal(
        shoe, seed_id=0, commitment=commitment(server_seed), client_seed=client_seed,
        nonce=int(nonce), cut=cut,
    )  # fmt: skip
    coup = dealt.coup
    recorded_bets = json.loads(bets_json)
    derived_bets = json.loads(
        pipeline.settled(rules, pipeline.recorded_bets(recorded_bets), coup)[0]
    )
    recorded = {
        "commitment": committed,
        "player": player_cards,
        "banker": banker_cards,
        "winner": winner,
        "bets": recorded_bets,
    }
    derived = {
        "commitment": dealt.commitment,
        "player": dealt.player_cards,
        "banker": dealt.banker_cards,
        "winner": coup.winner.value,
        "bets": derived_bets,
    }
    replay = Replay(round_id, rules.name, int(nonce), cut, int(position), recorded, derived)
    for key in recorded:
        if recorded[key] != derived[key]:
            replay.mismatches.append(f"{key}: recorded {recorded[key]!r}, derived {derived[key]!r}")
    return replay
