"""Where the server's cards come from: the provably fair derivation, cached; and a
multiplier table's multiplier cards.

``FairShoes`` deals exactly what ``baccarat.fairness.fair_shoe`` deals, through the faster
``fast_order``; a cut shoe's order is derived once per shoe and cached, since every round
of the shoe needs it again. ``fair_lightning`` draws a coup's multiplier cards exactly as
``baccarat.fairness.lightning`` does (docs/fairness.md), from the same seeds as its shoe.

Tests inject another ``ShoeFactory`` (a stacked shoe) and ``LightningSource`` (stacked
multiplier cards); the server never does.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Protocol

from baccarat.core import Card, Lightning, MultiplierTerms, RuleSet, Shoe, ShufflePolicy
from baccarat.fairness import fast_order, lightning, shoe_from_order


class ShoeFactory(Protocol):
    """Builds the shoe for a shuffle: the order after the cut, then burn and cut card."""

    def __call__(
        self, rules: RuleSet, server_seed: str, client_seed: str, nonce: int, cut: int | None
    ) -> Shoe: ...


class FairShoes:
    """The production shoe factory: the fair derivation, caching cut shoes' orders."""

    def __init__(self, cache_size: int = 2048):
        self._cache: OrderedDict[tuple[str, str, int, int, int | None], tuple[Card, ...]] = (
            OrderedDict()
        )
        self._size = cache_size
        self._lock = Lock()

    def __call__(
        self, rules: RuleSet, server_seed: str, client_seed: str, nonce: int, cut: int | None
    ) -> Shoe:
        if rules.shuffle is not ShufflePolicy.CUT_SHOE:
            return shoe_from_order(rules, fast_order(server_seed, client_seed, nonce, rules.decks))
        key = (server_seed, client_seed, nonce, rules.decks, cut)
        with self._lock:
            order = self._cache.get(key)
            if order is not None:
                self._cache.move_to_end(key)
        if order is None:
            order = fast_order(server_seed, client_seed, nonce, rules.decks, cut)
            with self._lock:
                self._cache[key] = order
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return shoe_from_order(rules, order)


class LightningSource(Protocol):
    """Draws the multiplier cards of the coup that starts at ``position`` of the shoe of
    these seeds and nonce (the position a round records: 0 on fresh-shuffle tables)."""

    def __call__(
        self, terms: MultiplierTerms, server_seed: str, client_seed: str, nonce: int,
        position: int,
    ) -> tuple[Lightning, ...]: ...  # fmt: skip


def fair_lightning(
    terms: MultiplierTerms, server_seed: str, client_seed: str, nonce: int, position: int
) -> tuple[Lightning, ...]:
    """The production source: the fair derivation (``fairness.lightning``)."""
    return lightning(server_seed, client_seed, nonce, terms, position)
