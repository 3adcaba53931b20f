"""The fairness test vectors: their inputs, and how every expected value is computed.

Expected values are computed here straight from the protocol text with hashlib and hmac
(not through ``baccarat.fairness.derive``), so the vector file checks the library rather
than restating it. Regenerate the file with ``python -m tests.fairness.vectors``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

VECTORS_PATH = Path(__file__).resolve().parents[1] / "data" / "fairness_vectors.json"

SUITS = "cdhs"
RANKS = "A23456789TJQK"
SEED_A = bytes(range(32)).hex()
# sha256(b"test"): a seed anyone can recompute.
SEED_B = hashlib.sha256(b"test").hexdigest()

INPUTS: list[dict[str, Any]] = [
    {"name": "single deck, nonce 0", "server_seed": SEED_A, "client_seed": "player-seed",
     "nonce": 0, "decks": 1, "cut": None, "rules": "single-deck", "position": 0},
    {"name": "single deck, nonce 1 (the next round)", "server_seed": SEED_A,
     "client_seed": "player-seed", "nonce": 1, "decks": 1, "cut": None,
     "rules": "single-deck", "position": 0},
    {"name": "six decks, a non-ASCII client seed", "server_seed": SEED_B,
     "client_seed": "Glück 🍀 spil", "nonce": 42, "decks": 6, "cut": None,
     "rules": "classic-6deck", "position": 0},
    {"name": "mini baccarat: 8 decks cut at 137, burn, first coup", "server_seed": SEED_A,
     "client_seed": "3f9a0c2e7b1d5a68", "nonce": 3, "decks": 8, "cut": 137, "rules": "mini",
     "position": None},
    {"name": "two decks, empty client seed, nonce 2**53 + 1, cut 0", "server_seed": SEED_B,
     "client_seed": "", "nonce": 2**53 + 1, "decks": 2, "cut": 0, "rules": None,
     "position": 0},
    # A player-banked seat: the seat's seed, both client seeds (the banker's first) as the
    # JSON array of the two without spaces, as docs/fairness.md writes it out.
    {"name": "a player-banked seat: the banker's and the player's client seeds",
     "server_seed": SEED_B, "client_seeds": {"banker": 'banker "b"', "player": "player-seed"},
     "client_seed": '["banker \\"b\\"","player-seed"]', "nonce": 2, "decks": 1,
     "cut": None, "rules": "single-deck", "position": 0},
]  # fmt: skip

REJECTION: dict[str, Any] = {"server_seed": SEED_A, "client_seed": "rejection-demo", "nonce": 0,
             "n": 1_500_000_000}  # fmt: skip

DRAWS_SHOWN = 8


def block(server_seed: str, client_seed: str, nonce: int, counter: int) -> bytes:
    message = f"{client_seed}:{nonce}:{counter}".encode()
    return hmac.new(bytes.fromhex(server_seed), message, hashlib.sha256).digest()


class Words:
    """The stream as 32-bit big-endian words, straight from the protocol text."""

    def __init__(self, server_seed: str, client_seed: str, nonce: int):
        self.args = (server_seed, client_seed, nonce)
        self.counter = 0
        self.buffer = b""

    def next(self) -> int:
        if len(self.buffer) < 4:
            self.buffer += block(*self.args, self.counter)
            self.counter += 1
        word, self.buffer = self.buffer[:4], self.buffer[4:]
        return int.from_bytes(word, "big")

    def uniform(self, n: int) -> tuple[int, list[int]]:
        words = []
        while True:
            x = self.next()
            words.append(x)
            if x < 2**32 - (2**32 % n):
                return x % n, words


def reference_shuffle(
    server_seed: str, client_seed: str, nonce: int, decks: int, cut: int | None
) -> tuple[list[str], list[dict[str, Any]]]:
    """The order and the draws (n, words consumed, j) of the protocol's Fisher-Yates."""
    cards = [rank + suit for _ in range(decks) for suit in SUITS for rank in RANKS]
    words = Words(server_seed, client_seed, nonce)
    draws = []
    for i in range(len(cards) - 1, 0, -1):
        j, used = words.uniform(i + 1)
        draws.append({"n": i + 1, "words": used, "j": j})
        cards[i], cards[j] = cards[j], cards[i]
    if cut is not None:
        cards = cards[cut:] + cards[:cut]
    return cards, draws


def value(card: str) -> int:
    rank = RANKS.index(card[0]) + 1
    return rank if rank < 10 else 0


def reference_coup(cards: list[str]) -> dict[str, Any]:
    """The coup by the tableau of SPEC section 1, written out independently of baccarat.core."""
    deck = iter(cards)
    player, banker = [next(deck)], [next(deck)]
    player.append(next(deck))
    banker.append(next(deck))

    def score(hand: list[str]) -> int:
        return sum(map(value, hand)) % 10

    if score(player) < 8 and score(banker) < 8:
        third = None
        if score(player) <= 5:
            player.append(next(deck))
            third = value(player[2])
        b = score(banker)
        if third is None:
            draws = b <= 5
        else:
            draws = {
                0: True,
                1: True,
                2: True,
                3: third != 8,
                4: 2 <= third <= 7,
                5: 4 <= third <= 7,
                6: 6 <= third <= 7,
            }.get(b, False)
        if draws:
            banker.append(next(deck))
    p, b = score(player), score(banker)
    return {
        "player": {"cards": player, "scores": [score(player[:2]), p]},
        "banker": {"cards": banker, "scores": [score(banker[:2]), b]},
        "winner": "player" if p > b else "banker" if b > p else "tie",
    }


def make_vector(spec: dict[str, Any]) -> dict[str, Any]:
    seed, client, nonce = spec["server_seed"], spec["client_seed"], spec["nonce"]
    order, draws = reference_shuffle(seed, client, nonce, spec["decks"], spec["cut"])
    vector = dict(spec)
    burn = None
    position = spec["position"]
    if spec["rules"] == "mini":
        # Mini: turn the first card, burn as many more as its rank (T-K = 10); cut card at 7/8.
        burned = 1 + min(RANKS.index(order[0][0]) + 1, 10)
        burn = {"turned": order[0], "cards_burned": burned, "cut_card": 52 * spec["decks"] * 7 // 8}
        position = burned
    vector |= {
        # JSON numbers above 2**53 lose precision in JavaScript: read the nonce from here.
        "nonce_text": str(nonce),
        "position": position,
        "commitment": hashlib.sha256(bytes.fromhex(seed)).hexdigest(),
        "message_0": f"{client}:{nonce}:0",
        "first_block_hex": block(seed, client, nonce, 0).hex(),
        "first_draws": draws[:DRAWS_SHOWN],
        "first_10": order[:10],
        "burn": burn,
        "coup": reference_coup(order[position:]),
        "order": order,
    }
    return vector


def make_rejection() -> dict[str, Any]:
    spec = REJECTION
    words = Words(spec["server_seed"], spec["client_seed"], spec["nonce"])
    n = spec["n"]
    limit = 2**32 - (2**32 % n)
    steps: list[dict[str, Any]] = []
    rejected = 0
    while rejected < 2 or len(steps) < 8:
        x = words.next()
        accepted = x < limit
        rejected += not accepted
        steps.append({"word": x, "accepted": accepted, "value": x % n if accepted else None})
    return dict(spec) | {"limit": limit, "words": steps}


def build() -> dict[str, Any]:
    return {
        "about": (
            "Test vectors of the provably fair shuffle (docs/fairness.md). Cards are dealt "
            "from index 0 of 'order' (after the cut). 'first_draws' are the first Fisher-Yates "
            "draws: j uniform in [0, n) from the 32-bit words consumed."
        ),
        "vectors": [make_vector(spec) for spec in INPUTS],
        "rejection": make_rejection(),
    }


def main() -> None:
    VECTORS_PATH.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
