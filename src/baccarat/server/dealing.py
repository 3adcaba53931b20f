"""Where the server's cards come from: the provably fair derivation, fast and cached.

``fair_shoes`` deals exactly what ``baccarat.fairness.fair_shoe`` deals (the tests compare
them over many seeds, nonces, cuts and deck counts, and ``baccarat admin replay`` re-derives
a recorded round with the reference); it only avoids the reference's per-draw overhead: the
HMAC key schedule is computed once per shuffle instead of once per block, the words are
unpacked at once and checked for rejection in one pass (a rejected word sends the shuffle
to the reference), and the moduli are precomputed. A cut shoe's order is derived once
per shoe and cached, since every round of the shoe needs it again.

Tests inject another ``ShoeFactory`` (a stacked shoe); the server never does.
"""

from __future__ import annotations

import hashlib
import operator
import struct
from collections import OrderedDict
from threading import Lock
from typing import Protocol

from ..core import MAX_DECKS, Card, RuleSet, Shoe, ShufflePolicy, new_shoe_order
from ..fairness import FairnessError, server_seed_bytes, shuffled_order

_SPACE = 2**32
_WORDS_PER_BLOCK = 8
_SHA256_BLOCK = 64
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
_CANONICAL = {decks: new_shoe_order(decks) for decks in range(1, MAX_DECKS + 1)}
# For a shoe of n cards the draws are j in [0, m) for m = n, n - 1, ..., 2; a word at or
# above m's limit would be rejected (no modulo bias).
_MODULI = {d: list(range(52 * d, 1, -1)) for d in _CANONICAL}
_DESCENDING = {d: list(range(52 * d - 1, 0, -1)) for d in _CANONICAL}
_DESCENDING_LIMITS = {d: [_SPACE - (_SPACE % m) for m in _MODULI[d]] for d in _CANONICAL}


class ShoeFactory(Protocol):
    """Builds the shoe for a shuffle: the order after the cut, then burn and cut card."""

    def __call__(
        self, rules: RuleSet, server_seed: str, client_seed: str, nonce: int, cut: int | None
    ) -> Shoe: ...


def _hmac_blocks(key: bytes, prefix: str, count: int) -> bytes:
    """HMAC-SHA256(key, f"{prefix}{counter}") for counter < count, concatenated.

    HMAC by its definition (RFC 2104) with the padded key's inner and outer SHA-256 states
    computed once: the same bytes as ``hmac.digest``, without re-keying for every block.
    """
    padded = key.ljust(_SHA256_BLOCK, b"\0")
    inner = hashlib.sha256(padded.translate(_IPAD))
    outer = hashlib.sha256(padded.translate(_OPAD))
    parts = []
    for counter in range(count):
        h = inner.copy()
        h.update(f"{prefix}{counter}".encode())
        o = outer.copy()
        o.update(h.digest())
        parts.append(o.digest())
    return b"".join(parts)


def fast_order(
    server_seed: str, client_seed: str, nonce: int, decks: int, cut: int | None = None
) -> tuple[Card, ...]:
    """The same order as ``baccarat.fairness.shuffled_order``, computed faster."""
    if type(decks) is not int or decks not in _CANONICAL or type(nonce) is not int or nonce < 0:
        return shuffled_order(server_seed, client_seed, nonce, decks, cut)
    key = server_seed_bytes(server_seed)
    if not isinstance(client_seed, str):
        return shuffled_order(server_seed, client_seed, nonce, decks, cut)
    n = 52 * decks
    blocks = (n - 1 + _WORDS_PER_BLOCK - 1) // _WORDS_PER_BLOCK
    words = struct.unpack(
        f">{blocks * _WORDS_PER_BLOCK}I", _hmac_blocks(key, f"{client_seed}:{nonce}:", blocks)
    )
    if any(map(operator.ge, words, _DESCENDING_LIMITS[decks])):
        # A word was rejected (about one shuffle in 10**7): the draws shift from there on,
        # so take the reference path, which draws word by word.
        return shuffled_order(server_seed, client_seed, nonce, decks, cut)
    cards = list(_CANONICAL[decks])
    # Fisher-Yates from the top index down: j = word % (i + 1), no word rejected.
    for i, j in zip(_DESCENDING[decks], map(operator.mod, words, _MODULI[decks]), strict=False):
        cards[i], cards[j] = cards[j], cards[i]
    if cut is not None:
        if type(cut) is not int or not 0 <= cut < n:
            raise FairnessError(f"a cut is a position from 0 to {n - 1}, not {cut!r}")
        cards = cards[cut:] + cards[:cut]
    return tuple(cards)


def shoe_from_order(rules: RuleSet, order: tuple[Card, ...]) -> Shoe:
    """Burn and cut card as ``baccarat.fairness.fair_shoe`` applies them."""
    shoe = Shoe(order, decks=rules.decks)
    if rules.shuffle is ShufflePolicy.CUT_SHOE:
        if rules.burn:
            shoe.burn_by_first_card()
        position = rules.cut_card_position
        if position is not None:
            shoe.place_cut_card(position)
    return shoe


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
