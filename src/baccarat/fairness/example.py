"""An example history: a table played with the fair derivation, exported line by line.

It doubles as the reference for the game server's export: which nonce a round uses, where
its coup starts in the shoe, and how a cut shoe is cut, burned and dealt to the cut card.
"""

from __future__ import annotations

import random as _random
from datetime import UTC, datetime, timedelta
from typing import Any

from ..core import Bets, Lightning, RuleSet, ShufflePolicy, deal_coup, fee_of, settle
from .derive import commitment, fair_shoe, lightning
from .history import FairnessRecord, export_round

_STAKES = (100, 200, 500, 1000, 2500)
_START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _random_bets(random: _random.Random, balance: int, rules: RuleSet) -> Bets:
    kinds = random.choice((("player",), ("banker",), ("tie",), ("player", "tie"), ("banker",)))
    stakes = {kind: random.choice(_STAKES) for kind in kinds}
    # A multiplier table takes a fee with each stake.
    if sum(stake + fee_of(rules, stake) for stake in stakes.values()) > balance:
        # Short of money: the smallest stake on one spot, or nothing at all.
        least = _STAKES[0] + fee_of(rules, _STAKES[0])
        stakes = {kinds[0]: _STAKES[0]} if balance >= least else {}
    return Bets(**stakes)


def example_history(
    rules: RuleSet,
    rounds: int,
    *,
    server_seed: str,
    client_seed: str,
    random: _random.Random,
    balance: int = 100_000,
    first_nonce: int = 0,
    revealed: bool = True,
    table_id: str = "example",
) -> list[dict[str, Any]]:
    """``rounds`` rounds at one table under one server seed, as export lines (dicts).

    Fresh-shuffle tables take a new nonce every round; cut-shoe tables take one for every
    new shoe, which the player cuts at a random position, then burn and deal to the cut card.
    Play stops early when the balance cannot cover the smallest stake. A revealed history
    carries, like the server's, the nonces the seed gave out and its undealt shoes (none).
    """
    lines: list[dict[str, Any]] = []
    commit = commitment(server_seed)
    nonce = first_nonce
    cut: int | None = None
    shoe = None
    while len(lines) < rounds:
        if shoe is None or shoe.is_cut_card_reached or rules.shuffle is ShufflePolicy.FRESH:
            if shoe is not None:
                nonce += 1
            cut = None
            if rules.shuffle is ShufflePolicy.CUT_SHOE:
                cut = random.randrange(rules.cards_per_shoe)
            shoe = fair_shoe(rules, server_seed, client_seed, nonce, cut)
        bets = _random_bets(random, balance, rules)
        if not bets.total:
            break
        position = shoe.position
        cards: tuple[Lightning, ...] = ()
        if rules.multipliers is not None:
            # Drawn before the coup, from the same seeds and the coup's first card.
            cards = lightning(server_seed, client_seed, nonce, rules.multipliers, position)
        coup = deal_coup(shoe)
        settlement = settle(rules, bets, coup, cards)
        fairness = FairnessRecord(
            server_seed if revealed else None, commit, client_seed, nonce, cut, position
        )
        line = export_round(
            round_id=f"r_{len(lines) + 1:06d}",
            rules=rules,
            fairness=fairness,
            coup=coup,
            settlement=settlement,
            balance_before=balance,
            table_id=table_id,
            mode="fun",
            time=(_START + timedelta(seconds=30 * len(lines))).strftime("%Y-%m-%dT%H:%M:%SZ"),
            lightning=cards,
        ).to_json()
        balance = line["balance_after"]
        lines.append(line)
    if revealed:
        # What the server publishes when it reveals the seed: the nonces it gave out.
        for line in lines:
            line["fairness"] |= {"nonces_used": nonce + 1, "undealt_shoes": []}
    return lines
