"""``baccarat admin replay``: export a recorded round and verify it, money included.

The round is exported as the player's history line (``docs/history-format.md``) and checked
by the published verifier (``baccarat.fairness.verify``): once its server seed is revealed,
the shuffle re-derived with the reference derivation, the coup re-dealt, every bet
re-settled. An operator never sees a seed the player has not revealed (with it the next
deals could be foretold): before the reveal the replay checks what it can without the seed,
every bet re-settled on the recorded cards. Then the money: the round's bank (the house, or
the seat's banker: the same ``round.Bank`` that played it) gives the posting of the
recorded settlement, and the ledger transaction of the round must have moved exactly that,
party by party.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from baccarat.core import Bets, Card, Coup, Hand, get_rules, settle
from baccarat.fairness.history import RoundRecord
from baccarat.fairness.verify import Difference, RoundReport, Status, verify_round
from baccarat.server import seeds
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.history import StoredRound, get_round, lightning_of
from baccarat.server.money import Money, Party
from baccarat.server.play.round import Settled
from baccarat.server.responsible.checks import audit
from baccarat.server.voids import bank_of


@dataclass(frozen=True)
class Replay:
    record: RoundRecord
    report: RoundReport
    moved: dict[str, int]  # what the round's ledger transaction moved, by party
    owed: dict[str, int]  # what its bank's posting of the recorded settlement moves
    settlement: tuple[Difference, ...] = ()  # the bets re-settled on the recorded cards

    @property
    def revealed(self) -> bool:
        return self.record.fairness.server_seed is not None

    @property
    def ok(self) -> bool:
        shuffled = self.report.status in (Status.VERIFIED, Status.VOIDED) or not self.revealed
        return shuffled and not self.settlement and self.moved == self.owed

    @property
    def mismatches(self) -> list[str]:
        found = [str(d) for d in (*self.report.differences, *self.settlement)]
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
            "revealed": self.revealed,
            "differences": [d.to_json() for d in (*self.report.differences, *self.settlement)],
            "money": {"moved": self.moved, "owed": self.owed},
        }


def replay_round(uow: UnitOfWork, round_id: str) -> Replay:
    stored = get_round(uow, None, round_id)
    player_id, tx_id = uow.one(
        "SELECT player_id, transaction_id FROM rounds WHERE id = :id", {"id": round_id}
    ) or (None, None)
    record = stored.export()  # the server seed only once the player revealed it
    settlement = () if record.fairness.server_seed is not None else _resettled(stored)
    bank = bank_of(uow, stored)
    settled = [Settled(int(player_id), stored.bets, stored.stake, stored.win, stored.fee)]
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
    return Replay(record, verify_round(record), _nonzero(moved), _nonzero(owed), settlement)


def rotate_for_replay(uow: UnitOfWork, round_id: str) -> bool:
    """Reveal the server seed of an unrevealed round (the player's current one) so that the
    replay can check its shuffle: the player's seed is rotated, as the player would, and the
    audit log keeps it as an operator's act. False when nothing was revealed: the seed was
    revealed already, or it is not the player's current one (a seat's, or one retired that
    waits for its cut shoes to end), or a cut shoe is still dealt from it (it is revealed
    when that shoe ends, as after any rotation)."""
    row = uow.one(
        "SELECT r.player_id, r.mode, s.revealed_us, s.commitment, "
        "r.seed_id IN (f.seed_id, f.shoe_seed_id) "
        "FROM rounds r JOIN fairness_seeds s ON s.id = r.seed_id "
        "JOIN fairness_states f ON f.player_id = r.player_id AND f.mode = r.mode "
        "WHERE r.id = :id",
        {"id": round_id},
    )
    if row is None:
        get_round(uow, None, round_id)  # names the unknown round
        return False
    player_id, mode, revealed_us, committed, current = row
    if revealed_us is not None or not current:
        return False
    rotation = seeds.rotate(uow, int(player_id), mode)
    revealed = any(seed is not None and seed.commitment == committed
                   for seed in (rotation.revealed, rotation.shoe_revealed))  # fmt: skip
    audit(uow, int(player_id), "operator_revealed_seed", round=round_id, mode=mode,
          commitment=committed, next_commitment=rotation.state.commitment,
          revealed=revealed)  # fmt: skip
    return revealed


def _resettled(stored: StoredRound) -> tuple[Difference, ...]:
    """The recorded bets re-settled by core on the recorded cards (and a multiplier table's
    recorded multiplier cards: what can be checked without the seed), field by field as the
    verifier names them."""
    recorded = json.loads(stored.bets)
    coup = Coup(Hand(Card.parse_many(stored.player_cards)),
                Hand(Card.parse_many(stored.banker_cards)))  # fmt: skip
    bets = Bets({name: int(bet["stake"]) for name, bet in recorded.items()})
    lightning = lightning_of(stored.lightning)
    expected = settle(get_rules(stored.rules), bets, coup, lightning).to_json()
    return tuple(
        Difference(f"bets.{name}.{key}", value, recorded.get(name, {}).get(key))
        for name, bet in expected.items()
        for key, value in bet.items()
        if recorded.get(name, {}).get(key) != value
    )


def _parties(money: Money) -> set[Party]:
    return {p for m in money.moves for p in (m.source, m.target)}


def _party(party: Party) -> str:
    return f"player {party}" if isinstance(party, int) else party


def _nonzero(amounts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in sorted(amounts.items()) if v}
