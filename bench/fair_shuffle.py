"""How much the provably fair derivation costs against a plain shuffle, measured side by side.

Run: .venv/bin/python bench/fair_shuffle.py [repeats]
Prints microseconds per shoe for the fair derivation (HMAC-SHA256 stream, rejection
sampling, Fisher-Yates) and for random.shuffle on the same shoe, and their ratio.
"""

from __future__ import annotations

import random
import sys
import timeit

from baccarat.core import new_shoe_order
from baccarat.fairness import shuffled_order

SEED = "5eed" * 16


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = random.Random(1)
    print(f"{'decks':>5}  {'fair (us)':>10}  {'random.shuffle (us)':>19}  {'ratio':>6}")
    for decks in (1, 6, 8):
        fair_us, plain_us = measure(decks, repeats, rng)
        print(f"{decks:>5}  {fair_us:>10.1f}  {plain_us:>19.1f}  {fair_us / plain_us:>6.2f}")


def measure(decks: int, repeats: int, rng: random.Random) -> tuple[float, float]:
    """Microseconds per shoe: the fair derivation, then random.shuffle."""
    nonces = iter(range(10**9))
    fair = timeit.timeit(lambda: shuffled_order(SEED, "bench", next(nonces), decks), number=repeats)
    cards = list(new_shoe_order(decks))
    plain = timeit.timeit(lambda: rng.shuffle(cards), number=repeats)
    return 1e6 * fair / repeats, 1e6 * plain / repeats


if __name__ == "__main__":
    main()
