"""The pair bets, exact from a face composition.

A pair bet looks only at the first two cards of each hand, dealt P B P B: the first four
cards. Their order does not matter to the chances (any two positions of a shuffled shoe are
alike), so with N cards, n_r of rank r and f_x of face x (rank and suit):

- a hand is a pair with chance sum_r n_r (n_r - 1) / N (N - 1);
- both hands are pairs with chance
  [sum_r n_r^(4) + sum_{r != s} n_r^(2) n_s^(2)] / N^(4), x^(k) the falling power;

and the same with faces for the perfect pair (identical cards).
"""

from __future__ import annotations

from fractions import Fraction

from .composition import falling, ranks_of_faces


def _one_and_both(counts: tuple[int, ...], n: int) -> tuple[Fraction, Fraction]:
    """Chance that one given hand's first two cards share a kind, and that both hands' do."""
    twos = [falling(c, 2) for c in counts]
    total2 = sum(twos)
    both = total2 * total2 - sum(t * t for t in twos) + sum(falling(c, 4) for c in counts)
    return Fraction(total2, falling(n, 2)), Fraction(both, falling(n, 4))


def pair_lines(faces: tuple[int, ...]) -> dict[tuple[str, str], Fraction]:
    """The chance of every pay-table line of the pair bets: (bet, line) -> probability."""
    n = sum(faces)
    pair, both_pairs = _one_and_both(ranks_of_faces(faces), n)
    perfect, both_perfect = _one_and_both(faces, n)
    return {
        ("player_pair", "pair"): pair,
        ("banker_pair", "pair"): pair,
        ("either_pair", "pair"): 2 * pair - both_pairs,
        ("perfect_pair", "one"): 2 * (perfect - both_perfect),
        ("perfect_pair", "both"): both_perfect,
    }
