"""The provably fair order, computed faster: the same cards as ``shuffled_order``.

It avoids the reference's per-draw overhead: the HMAC key schedule is computed once per
shuffle instead of once per block, the words are unpacked at once and checked for
rejection in one pass (a rejected word sends the shuffle to the reference), and the moduli
are precomputed. The tests compare it with the reference over many seeds, nonces, cuts and
deck counts; audits (``baccarat verify``, ``baccarat admin replay``) use the reference.
"""

from __future__ import annotations

import hashlib
import operator
import struct

from ..core import MAX_DECKS, Card, new_shoe_order
from .derive import FairnessError, server_seed_bytes, shuffled_order

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
# A rejected word is at least 2**32 - 52 * MAX_DECKS, above 0xFFFF0000: it starts with the
# bytes FF FF. Where the HMAC stream holds no FF FF anywhere (98% of shuffles), no word is
# rejected, which a substring search finds faster than comparing every word with its limit.
_SCREEN = b"\xff\xff"
assert min(min(limits) for limits in _DESCENDING_LIMITS.values()) >= 0xFFFF0000
# The HMAC messages' counters as bytes (a shoe of MAX_DECKS needs fewer blocks than this).
_COUNTERS = tuple(str(counter).encode() for counter in range(256))


def _counter(counter: int) -> bytes:
    return str(counter).encode()


def _hmac_blocks(key: bytes, prefix: str, count: int) -> bytes:
    """HMAC-SHA256(key, f"{prefix}{counter}") for counter < count, concatenated.

    HMAC by its definition (RFC 2104) with the padded key's inner and outer SHA-256 states
    computed once: the same bytes as ``hmac.digest``, without re-keying for every block.
    """
    padded = key.ljust(_SHA256_BLOCK, b"\0")
    inner = hashlib.sha256(padded.translate(_IPAD))
    # Every message starts with the prefix: hash it once, then each block adds its counter.
    inner.update(prefix.encode())
    outer = hashlib.sha256(padded.translate(_OPAD))
    parts = []
    counters = _COUNTERS[:count] if count <= len(_COUNTERS) else map(_counter, range(count))
    for counter in counters:
        h = inner.copy()
        h.update(counter)
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
    stream = _hmac_blocks(key, f"{client_seed}:{nonce}:", blocks)
    words = struct.unpack(f">{blocks * _WORDS_PER_BLOCK}I", stream)
    if _SCREEN in stream and any(map(operator.ge, words, _DESCENDING_LIMITS[decks])):
        # A word was rejected (about one shuffle in 190,000 with 6 decks): the draws shift
        # from there on, so take the reference path, which draws word by word.
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
