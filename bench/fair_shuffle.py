"""How much the provably fair derivation costs against a plain shuffle, measured side by side.

Run: .venv/bin/python bench/fair_shuffle.py [repeats]
Prints microseconds per shoe for the fair derivation (HMAC-SHA256 stream, rejection
sampling, Fisher-Yates): the reference and the fast path the server deals with, and for
random.shuffle on the same shoe, with the ratios to random.shuffle.
"""

from __future__ import annotations

import random
import sys
import timeit

from baccarat.core import new_shoe_order
from baccarat.fairness import fast_order, shuffled_order

SEED = "5eed" * 16


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = random.Random(1)
    header = ("decks", "reference (us)", "fast (us)", "random.shuffle (us)", "ratios")
    print("  ".join(f"{h:>{len(h)}}" for h in header))
    for decks in (1, 6, 8):
        fair_us, fast_us, plain_us = measure(decks, repeats, rng)
        print(
            f"{decks:>5}  {fair_us:>14.1f}  {fast_us:>9.1f}  {plain_us:>19.1f}  "
            f"{fair_us / plain_us:.2f} / {fast_us / plain_us:.2f}"
        )


def measure(decks: int, repeats: int, rng: random.Random) -> tuple[float, float, float]:
    """Microseconds per shoe: the reference derivation, the fast path, random.shuffle."""
    nonces = iter(range(10**9))
    fair = timeit.timeit(lambda: shuffled_order(SEED, "bench", next(nonces), decks), number=repeats)
    fast = timeit.timeit(lambda: fast_order(SEED, "bench", next(nonces), decks), number=repeats)
    cards = list(new_shoe_order(decks))
    plain = timeit.timeit(lambda: rng.shuffle(cards), number=repeats)
    return 1e6 * fair / repeats, 1e6 * fast / repeats, 1e6 * plain / repeats


if __name__ == "__main__":
    main()
