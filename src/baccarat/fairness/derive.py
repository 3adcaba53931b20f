"""The provably fair shuffle: seeds, commitment, byte stream, uniform draws, shoe order.

The protocol, exactly (see docs/fairness.md):
- server seed: 32 bytes from a CSPRNG, shown as 64 lowercase hex characters; its
  commitment is sha256(server seed bytes) in hex, shown before any round uses it;
- bytes: HMAC-SHA256(key=server seed bytes, msg=f"{client_seed}:{nonce}:{counter}")
  for counter = 0, 1, 2, ..., concatenated;
- uniform integer in [0, n): next 4 bytes as a big-endian x; if x >= 2**32 - (2**32 % n)
  discard it and take the next 4, else x % n;
- Fisher-Yates from the top index down over the canonical shoe order; dealt from index 0;
- a player's cut at k turns the order L into L[k:] + L[:k];
- multiplier cards (``lightning``): their own stream, under the key HMAC-SHA256(key=server
  seed bytes, msg="baccarat-lightning/1"), of HMAC-SHA256(key=that key,
  msg=f"{client_seed}:{nonce}:{position}:{counter}"); from it, uniform integers as above:
  K, then K distinct cards by a partial Fisher-Yates over the canonical 52-card deck, then
  each card's multiplier (a published fraction p of a common denominator D: a uniform
  integer below D, against the cumulative numerators).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
import struct
from collections.abc import Iterator
from fractions import Fraction

from ..core import (
    MAX_DECKS,
    Card,
    Lightning,
    MultiplierTerms,
    RuleSet,
    Shoe,
    ShufflePolicy,
    new_deck,
    new_shoe_order,
)

SEED_BYTES = 32
_HEX_SEED = re.compile(r"^[0-9a-f]{64}$")
_SPACE = 2**32
# One HMAC-SHA256 block is eight big-endian unsigned 32-bit words.
_BLOCK_WORDS = struct.Struct(">8I")


class FairnessError(ValueError):
    """A seed, nonce or cut that the protocol does not accept."""


def new_server_seed() -> str:
    """A fresh server seed: 32 bytes from the operating system's CSPRNG, as hex."""
    return secrets.token_hex(SEED_BYTES)


def new_client_seed() -> str:
    """The default client seed: 16 random hex characters."""
    return secrets.token_hex(8)


def server_seed_bytes(server_seed: str) -> bytes:
    """The seed's bytes; it must be 64 lowercase hex characters."""
    if not isinstance(server_seed, str) or not _HEX_SEED.match(server_seed):
        raise FairnessError("a server seed is 64 lowercase hex characters")
    return bytes.fromhex(server_seed)


def commitment(server_seed: str) -> str:
    """The commitment shown before play: sha256 of the seed's bytes, as hex."""
    return hashlib.sha256(server_seed_bytes(server_seed)).hexdigest()


def _check(client_seed: str, nonce: int) -> None:
    if not isinstance(client_seed, str):
        raise FairnessError("a client seed is a text")
    try:
        client_seed.encode()
    except UnicodeEncodeError:
        raise FairnessError("a client seed must be valid Unicode text (UTF-8)") from None
    if type(nonce) is not int or nonce < 0:
        raise FairnessError(f"a nonce is a whole number from 0, not {nonce!r}")


def byte_stream(server_seed: str, client_seed: str, nonce: int) -> Iterator[bytes]:
    """HMAC-SHA256 blocks for counter = 0, 1, 2, ...

    The seed, client seed and nonce are checked at once, not at the first block.
    """
    key = server_seed_bytes(server_seed)
    _check(client_seed, nonce)
    return _blocks(key, client_seed, str(nonce))


def _blocks(key: bytes, client_seed: str, fields: str) -> Iterator[bytes]:
    """HMAC-SHA256(key, f"{client_seed}:{fields}:{counter}") for counter = 0, 1, 2, ..."""
    counter = 0
    while True:
        message = f"{client_seed}:{fields}:{counter}".encode()
        yield hmac.new(key, message, hashlib.sha256).digest()
        counter += 1


class FairRandom:
    """Uniform integers drawn from the byte stream by rejection (no modulo bias)."""

    def __init__(self, server_seed: str, client_seed: str, nonce: int):
        self._start(byte_stream(server_seed, client_seed, nonce))

    @classmethod
    def of_blocks(cls, blocks: Iterator[bytes]) -> FairRandom:
        """Uniform integers drawn from another stream of 32-byte blocks."""
        random = cls.__new__(cls)
        random._start(blocks)
        return random

    def _start(self, blocks: Iterator[bytes]) -> None:
        self._blocks = blocks
        # The current block's unused words, last word first (so pop() takes the next one).
        self._words: list[int] = []

    def _next_u32(self) -> int:
        """The next 4 bytes of the stream as a big-endian unsigned 32-bit integer."""
        if not self._words:
            self._words = list(_BLOCK_WORDS.unpack(next(self._blocks)))
            self._words.reverse()
        return self._words.pop()

    def randrange(self, n: int, /) -> int:
        """A uniform integer in [0, n)."""
        if not 0 < n <= _SPACE:
            raise FairnessError(f"cannot draw uniformly from [0, {n})")
        limit = _SPACE - (_SPACE % n)
        while True:
            x = self._next_u32()
            if x < limit:
                return x % n


# The key of the multiplier cards' stream is HMAC-SHA256(server seed bytes, this): no shuffle
# message is this text (each holds two colons), so the two streams are separate whatever
# the client seed is.
LIGHTNING_KEY_MESSAGE = b"baccarat-lightning/1"


def lightning_stream(
    server_seed: str, client_seed: str, nonce: int, position: int = 0
) -> Iterator[bytes]:
    """The multiplier cards' HMAC-SHA256 blocks for counter = 0, 1, 2, ..."""
    key = hmac.new(server_seed_bytes(server_seed), LIGHTNING_KEY_MESSAGE, hashlib.sha256)
    _check(client_seed, nonce)
    if type(position) is not int or position < 0:
        raise FairnessError(f"a position is a whole number from 0, not {position!r}")
    return _blocks(key.digest(), client_seed, f"{nonce}:{position}")


def _pick(random: FairRandom, chances: tuple[tuple[int, Fraction], ...]) -> int:
    """One key of a published distribution, exactly: a uniform integer x below the common
    denominator D, and the first key whose cumulative numerator (over D) exceeds x."""
    denominator = math.lcm(*(chance.denominator for _, chance in chances))
    x = random.randrange(denominator)
    cumulative = 0
    for key, chance in chances:
        cumulative += chance.numerator * (denominator // chance.denominator)
        if x < cumulative:
            return key
    raise AssertionError("the chances add up to 1")


def lightning(
    server_seed: str, client_seed: str, nonce: int, terms: MultiplierTerms, position: int = 0
) -> tuple[Lightning, ...]:
    """The multiplier cards of the coup that starts at ``position`` of the shoe of these seeds
    and nonce (0 on fresh-shuffle tables), in the order drawn: how many (K), then K distinct
    cards of the canonical 52-card deck (a partial Fisher-Yates from the front: step i swaps
    card i with a uniform one of i..51), then each card's multiplier."""
    random = FairRandom.of_blocks(lightning_stream(server_seed, client_seed, nonce, position))
    count = _pick(random, terms.counts)
    deck = list(new_deck())
    for i in range(count):
        j = i + random.randrange(len(deck) - i)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(Lightning(card, _pick(random, terms.values)) for card in deck[:count])


def shuffled_order(
    server_seed: str, client_seed: str, nonce: int, decks: int, cut: int | None = None
) -> tuple[Card, ...]:
    """The shoe's dealing order for these seeds and nonce, after the player's cut if any."""
    if type(decks) is not int or not 1 <= decks <= MAX_DECKS:
        raise FairnessError(f"a shoe holds 1 to {MAX_DECKS} decks, not {decks!r}")
    random = FairRandom(server_seed, client_seed, nonce)
    cards = list(new_shoe_order(decks))
    for i in range(len(cards) - 1, 0, -1):
        j = random.randrange(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    if cut is not None:
        if type(cut) is not int or not 0 <= cut < len(cards):
            raise FairnessError(f"a cut is a position from 0 to {len(cards) - 1}, not {cut!r}")
        cards = cards[cut:] + cards[:cut]
    return tuple(cards)


def shoe_from_order(rules: RuleSet, order: tuple[Card, ...]) -> Shoe:
    """A shoe in this order with the rule set's burn and cut card applied (cut shoes only)."""
    shoe = Shoe(order, decks=rules.decks)
    if rules.shuffle is ShufflePolicy.CUT_SHOE:
        if rules.burn:
            shoe.burn_by_first_card()
        position = rules.cut_card_position
        if position is not None:
            shoe.place_cut_card(position)
    return shoe


def fair_shoe(
    rules: RuleSet, server_seed: str, client_seed: str, nonce: int, cut: int | None = None
) -> Shoe:
    """A shoe ready to deal: derived order, the cut, then the rule set's burn and cut card."""
    return shoe_from_order(rules, shuffled_order(server_seed, client_seed, nonce, rules.decks, cut))
