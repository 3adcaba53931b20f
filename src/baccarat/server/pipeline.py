"""The one pipeline of every round: deal -> settle -> record -> post to the ledger.

House rounds (``rounds``), player-banked rounds (``banked.service``) and voids share these
steps (``admin replay`` verifies a round's export with ``baccarat.fairness`` instead); only
the money differs (who covers the bets), and that is ``ledger.post_round``'s business: the
ledger writes every ledger row.

- ``deal``: a coup from a seeded shoe, with where it came from (seed, nonce, cut, position);
- ``settled``: the settlement of the bets against the dealt cards, as the round records it;
- ``record``: the row of ``rounds``;
- ``void``: a void's transaction and its mark on the round.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from ..core import Bets, Coup, RuleSet, Shoe, deal_coup, format_cards, judge, settle_judged
from .db.uow import UnitOfWork
from .errors import ServiceError
from .ledger import Posting, SystemAccounts, post


def new_round_id() -> str:
    return "r_" + secrets.token_hex(10)


@dataclass(frozen=True, slots=True)
class Dealt:
    """A coup dealt from a seeded shoe, and where it came from (what the round records)."""

    coup: Coup
    seed_id: int
    commitment: str
    client_seed: str
    nonce: int
    cut: int | None
    position: int  # the shoe's position before the coup

    @property
    def player_cards(self) -> str:
        return format_cards(self.coup.player.cards)

    @property
    def banker_cards(self) -> str:
        return format_cards(self.coup.banker.cards)


def deal(
    shoe: Shoe, *, seed_id: int, commitment: str, client_seed: str, nonce: int, cut: int | None
) -> Dealt:
    """Deal the next coup of the shoe (which moves on past it)."""
    position = shoe.position
    coup = deal_coup(shoe)
    return Dealt(coup, seed_id, commitment, client_seed, nonce, cut, position)


# Settlements by (rule set, bets, the line each bet hit): a pure function of them (the
# lines are all a settlement reads of the coup: a pair bet's line is "pair" or None whatever
# the winner), with few distinct arguments at a table's limits. Keyed by the rule set's
# identity (its hash covers every field); the entry keeps the rule set itself, so the
# identity is never reused while cached.
_SETTLED: dict[tuple[int, Bets, tuple[str | None, ...]], tuple[RuleSet, str, int]] = {}
_SETTLED_MAX = 4096


def settled(rules: RuleSet, bets: Bets, coup: Coup) -> tuple[str, int]:
    """The settlement of these bets on this coup as the round records it (JSON text), and
    what returns to the player (stakes included)."""
    lines = judge(bets, coup)
    key = (id(rules), bets, lines)
    entry = _SETTLED.get(key)
    if entry is None or entry[0] is not rules:
        settlement = settle_judged(rules, bets, lines)
        text = json.dumps(settlement.to_json(), separators=(",", ":"))
        if len(_SETTLED) >= _SETTLED_MAX:
            _SETTLED.clear()
        entry = _SETTLED[key] = (rules, text, settlement.returned)
    return entry[1], entry[2]


@dataclass(frozen=True, slots=True)
class Settled:
    """A round's settlement as recorded: the bets' JSON, the stake, what the player got
    back, and the player's balance after it."""

    bets_json: str
    stake: int
    win: int
    balance_after: int

    @property
    def balance_before(self) -> int:
        return self.balance_after - (self.win - self.stake)


def record(
    uow: UnitOfWork,
    round_id: str,
    player_id: int,
    table_id: str,
    mode: str,
    rules: RuleSet,
    dealt: Dealt,
    money: Settled,
    tx_id: int,
) -> int:
    """Write the round's row; its ``seq``."""
    return int(
        uow.scalar(
            "INSERT INTO rounds (id, player_id, table_id, mode, created_us, rules, seed_id, "
            "commitment, client_seed, nonce, cut, position, player_cards, banker_cards, "
            "winner, bets, stake, win, balance_before, balance_after, transaction_id) VALUES "
            "(:id, :p, :t, :m, :now, :rules, :seed, :c, :cs, :nonce, :cut, :pos, :pc, :bc, "
            ":winner, :bets, :stake, :win, :before, :after, :tx) RETURNING seq",
            {
                "id": round_id, "p": player_id, "t": table_id, "m": mode, "now": uow.now,
                "rules": rules.name, "seed": dealt.seed_id, "c": dealt.commitment,
                "cs": dealt.client_seed, "nonce": dealt.nonce, "cut": dealt.cut,
                "pos": dealt.position, "pc": dealt.player_cards, "bc": dealt.banker_cards,
                "winner": dealt.coup.winner.value, "bets": money.bets_json,
                "stake": money.stake, "win": money.win, "before": money.balance_before,
                "after": money.balance_after, "tx": tx_id,
            },
        )
    )  # fmt: skip


def void_reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise ServiceError("void_not_possible", "a void needs a reason")
    return reason


def require_not_void(round_id: str, voided: str | None) -> None:
    if voided is not None:
        raise ServiceError("void_not_possible", f"round {round_id} is already void: {voided}")


def void(
    uow: UnitOfWork,
    system: SystemAccounts,
    round_id: str,
    mode: str,
    reason: str,
    postings: list[Posting],
    refused: str,
) -> None:
    """Post a void's transaction and mark the round void; ``refused`` says why it cannot be
    when someone no longer holds what the void takes back."""
    try:
        tx_id = post(uow, "void", mode, postings, reference=round_id, memo=reason, system=system)
    except ServiceError as error:
        if error.code != "insufficient_funds":
            raise
        raise ServiceError("void_not_possible", refused, **error.details) from None
    uow.run(
        "UPDATE rounds SET void_reason = :r, voided_us = :now, void_transaction_id = :tx "
        "WHERE id = :id",
        {"r": reason, "now": uow.now, "tx": tx_id, "id": round_id},
    )
