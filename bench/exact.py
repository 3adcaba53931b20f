"""Time one exact analysis of an 8-deck composition against a plain nested-loop enumeration.

Run: .venv/bin/python bench/exact.py [--repeat N]
Target: <= 2 ms per composition, warm, in-process. Both are measured in this run.
"""

from __future__ import annotations

import argparse
import random
import time

from baccarat.analysis import (
    analyse,
    count_outcomes,
    count_outcomes_by_enumeration,
    shoe_composition,
)
from baccarat.analysis.exact import multiset_table
from baccarat.core import Shoe, deal_coup, get_rules


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()

    start = time.perf_counter()
    multiset_table()
    print(f"one-time table build: {(time.perf_counter() - start) * 1000:.0f} ms")

    removed = Shoe.shuffled(8, random.Random(1)).cards[:60]
    composition = shoe_composition(8, removed)
    fast = best_of(lambda: count_outcomes(composition), args.repeat)
    plain = best_of(lambda: count_outcomes_by_enumeration(composition), 3)
    assert count_outcomes(composition) == count_outcomes_by_enumeration(composition)
    print(f"exact analysis, 8-deck composition: {fast * 1000:.3f} ms (target <= 2 ms)")
    print(f"plain nested-loop enumeration:      {plain * 1000:.1f} ms")
    print(f"speed-up: {plain / fast:.0f}x")

    rules = get_rules("classic-8deck")
    shoe = Shoe.shuffled(8, random.Random(2))
    shoe.burn_by_first_card()
    shoe.place_cut_card(rules.cut_card_position or 0)
    start = time.perf_counter()
    analyses = 0
    while not shoe.is_cut_card_reached:
        deal_coup(shoe)
        analyse(rules, shoe.composition())
        analyses += 1
    elapsed = time.perf_counter() - start
    print(f"whole shoe coup by coup: {analyses} analyses in {elapsed * 1000:.0f} ms")


if __name__ == "__main__":
    main()
