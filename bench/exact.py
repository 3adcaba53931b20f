"""Time one exact analysis of an 8-deck composition against a plain nested-loop enumeration.

Run: .venv/bin/python bench/exact.py [--repeat N]
Target: <= 2 ms per composition, warm, in-process. Measured in this run, side by side:
the value lines alone (every bet but the pairs: main bets, Dragon Bonus, Big/Small,
Dragon 7, Panda 8, Super 6), the whole analysis of a rule set's bets (classic-8deck: main
bets and all eight side bets, pair bets by rank and suit), the same with the main bets only
(classic-8deck without side bets), and a plain nested-loop enumeration of the outcomes.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time

from baccarat.analysis import (
    analyse,
    count_outcomes,
    count_outcomes_by_enumeration,
    faces_of,
    shoe_composition,
)
from baccarat.analysis.exact import line_counts
from baccarat.analysis.sequences import line_table
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
    line_table()
    print(f"one-time table build: {(time.perf_counter() - start) * 1000:.0f} ms")

    shoe = Shoe.shuffled(8, random.Random(1))
    removed = shoe.cards[:60]
    composition = shoe_composition(8, removed)
    faces = faces_of(shoe.cards[60:])
    rules = get_rules("classic-8deck")
    main_only = dataclasses.replace(rules, side_bets=())

    def uncached(fn):  # every call analyses afresh: the cache by composition is emptied
        def call():
            line_counts.cache_clear()
            return fn()

        return call

    values = best_of(uncached(lambda: count_outcomes(composition)), args.repeat)
    whole = best_of(uncached(lambda: analyse(rules, faces)), args.repeat)
    main = best_of(uncached(lambda: analyse(main_only, faces)), args.repeat)
    cached = best_of(lambda: analyse(rules, faces), args.repeat)
    plain = best_of(lambda: count_outcomes_by_enumeration(composition), 3)
    assert count_outcomes(composition) == count_outcomes_by_enumeration(composition)
    print("one 8-deck composition, best of runs (target <= 2 ms):")
    print(f"  value lines (28 pay-table lines):            {values * 1000:.3f} ms")
    print(f"  analysis, main bets only:                    {main * 1000:.3f} ms")
    print(f"  analysis, main bets and the 8 side bets:     {whole * 1000:.3f} ms")
    print(f"  side bets cost: {(whole - main) * 1000:+.3f} ms ({whole / main:.2f}x)")
    print(f"  same composition again (cached value lines): {cached * 1000:.3f} ms")
    print(f"plain nested-loop enumeration of the outcomes: {plain * 1000:.1f} ms")
    print(f"speed-up: {plain / values:.0f}x")

    runs = []
    analyses = 0
    for _ in range(3):
        shoe = Shoe.shuffled(8, random.Random(2))
        shoe.burn_by_first_card()
        shoe.place_cut_card(rules.cut_card_position or 0)
        start = time.perf_counter()
        analyses = 0
        while not shoe.is_cut_card_reached:
            deal_coup(shoe)
            line_counts.cache_clear()
            analyse(rules, faces_of(shoe.remaining_cards()))
            analyses += 1
        runs.append(time.perf_counter() - start)
    print(
        f"whole shoe coup by coup, every bet: {analyses} analyses in {min(runs) * 1000:.0f} ms "
        "(best of 3, uncached)"
    )


if __name__ == "__main__":
    main()
