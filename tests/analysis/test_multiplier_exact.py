"""Multiplier baccarat's exact analysis, checked against independent computations.

- The rank enumeration counts the coups the classic (value) analyser counts.
- Each bet's paid-card shape is that of the cards the core pays it on.
- The identity patterns of a shape are a brute force over every suit assignment.
- The multiplier of an identity pattern is that of the multiplier cards drawn one by one.
- A whole game, exactly, by a second enumeration: one deck (every card its own identity),
  counted over values in plain loops, the multiplier cards drawn one by one: every bet's
  RTP, variance, largest multiplier's chance and chance of 100x are the same fractions.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter, defaultdict
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from baccarat.analysis.composition import falling, full_composition, full_faces
from baccarat.analysis.exact import count_outcomes
from baccarat.analysis.multiplier import (
    exact,
    identity_patterns,
    pattern_multiplier,
    rank_coups,
    rank_shapes,
    shape_keys,
    shape_of_key,
    shape_of_ranks,
    suit_patterns,
)
from baccarat.analysis.pairs import pair_lines
from baccarat.core import (
    MULTIPLIER_BETS,
    Card,
    MultiplierTerms,
    Rank,
    Suit,
    banker_draws,
    get_rules,
    paid_cards,
    play_coup,
)
from baccarat.core.rules import MULTIPLIER_TERMS

MULTIPLIER = get_rules("multiplier")
TERMS = MULTIPLIER_TERMS
assert MULTIPLIER.multipliers == TERMS
SUITS = tuple(Suit)


def partitions(n: int, largest: int | None = None) -> list[tuple[int, ...]]:
    """The shapes of n cards: (3,), (2, 1), (1, 1, 1) for 3."""
    largest = n if largest is None else largest
    if n == 0:
        return [()]
    return [
        (first, *rest)
        for first in range(min(n, largest), 0, -1)
        for rest in partitions(n - first, first)
    ]


def test_the_rank_enumeration_counts_the_coups_the_classic_analyser_counts() -> None:
    shapes = rank_shapes(8)
    classic = count_outcomes(full_composition(8))
    assert sum(shapes["player"].wins.values()) == classic.player
    assert sum(shapes["banker"].wins.values()) == classic.banker
    assert sum(shapes["tie"].wins.values()) == shapes["player"].pushes == classic.tie
    pair = pair_lines(full_faces(8))["player_pair", "pair"]
    for bet in ("player_pair", "banker_pair"):
        assert Fraction(shapes[bet].wins[2,], shapes[bet].total) == pair
    # Every shape a bet can be paid on is there: a player hand of three cards of one rank...
    assert set(shapes["player"].wins) == {(1, 1), (2,), (1, 1, 1), (2, 1), (3,)}
    tie_shapes = {s for n in (4, 5, 6) for s in partitions(n)}
    # No tie holds three cards of a rank and one other in four cards (2r = r + s mod 10 with
    # both hands standing needs s = r), nor five of a rank in five cards (then 2r is 0-5:
    # the banker draws too, or a natural ends the coup at four).
    assert set(shapes["tie"].wins) == tie_shapes - {(3, 1), (5,)}


def test_each_bet_is_paid_on_the_shape_of_the_cards_the_core_pays_it_on() -> None:
    rng = random.Random(38)
    rows = np.array([[rng.randrange(13) for _ in range(6)] for _ in range(3000)], np.int8).T
    coups = rank_coups(rows)
    keys = {bet: shape_keys(*coups.paid(bet)) for bet in MULTIPLIER_BETS}
    for i in range(rows.shape[1]):
        coup = play_coup([Card(Rank(int(r) + 1), SUITS[k % 4]) for k, r in enumerate(rows[:, i])])
        assert (coup.player.score, coup.banker.score) == (
            coups.player_score[i],
            coups.banker_score[i],
        )
        for bet in MULTIPLIER_BETS:
            paid = shape_of_ranks(card.rank for card in paid_cards(bet, coup))
            assert shape_of_key(int(keys[bet][i])) == paid, (bet, coup)


@pytest.mark.parametrize(("decks", "most"), [(2, 4), (8, 6)])
def test_identity_patterns_are_every_suit_assignment_counted(decks: int, most: int) -> None:
    for n in range(1, most + 1):
        for shape in partitions(n):
            ranks = [rank for rank, size in enumerate(shape) for _ in range(size)]
            brute: Counter[tuple[int, ...]] = Counter()
            for suits in itertools.product(range(4), repeat=n):
                # Ordered draws without replacement: each rank's suits from `decks` of each.
                ways = 1
                drawn: Counter[tuple[int, int]] = Counter()
                for rank, suit in zip(ranks, suits, strict=True):
                    ways *= decks - drawn[rank, suit]
                    drawn[rank, suit] += 1
                if ways:
                    brute[tuple(sorted(drawn.values(), reverse=True))] += ways
            # Ordered draws of each rank's cards from its 4 x decks.
            total = math.prod(falling(4 * decks, size) for size in shape)
            expected = {pattern: Fraction(ways, total) for pattern, ways in brute.items()}
            assert identity_patterns(shape, decks) == expected
    assert suit_patterns(2, 1) == {(1, 1): 1}


def drawn_one_by_one(pattern: tuple[int, ...], terms: MultiplierTerms) -> dict[int, Fraction]:
    """M's distribution when the multiplier cards are drawn one at a time, each uniform among
    the identities not drawn yet (as the derivation draws them), for paid cards holding
    identities 0..j-1 with these multiplicities; then each drawn one's multiplier."""
    j = len(pattern)
    result: dict[int, Fraction] = defaultdict(Fraction)
    for k, chance_k in terms.counts:
        # (identities of the hand drawn, others drawn) -> chance
        states = {(frozenset[int](), 0): Fraction(chance_k)}
        for step in range(k):
            after: dict[tuple[frozenset[int], int], Fraction] = defaultdict(Fraction)
            for (hits, others), chance in states.items():
                left = 52 - step
                for i in set(range(j)) - hits:
                    after[hits | {i}, others] += chance / left
                if 52 - j - others:
                    after[hits, others + 1] += chance * (52 - j - others) / left
            states = after
        for (hits, _), chance in states.items():
            product = {1: Fraction(1)}
            for i in hits:
                times: dict[int, Fraction] = defaultdict(Fraction)
                for m, p in product.items():
                    for v, q in terms.values:
                        times[m * v ** pattern[i]] += p * q
                product = times
            for m, p in product.items():
                result[m] += chance * p
    return {m: p for m, p in result.items() if p}


def test_the_multiplier_of_a_pattern_is_that_of_the_cards_drawn_one_by_one() -> None:
    for n in range(1, 7):
        for pattern in partitions(n):
            assert pattern_multiplier(pattern, TERMS) == drawn_one_by_one(pattern, TERMS)


def one_deck_by_values() -> tuple[dict[tuple[str, int], int], int, int]:
    """Plain loops over the values of a one-deck coup: the ordered six-card sequences on
    which each main bet wins with n paid cards, those that tie, and their total."""
    c = list(full_composition(1))
    wins: dict[tuple[str, int], int] = defaultdict(int)
    ties = 0

    def take(v: int) -> int:
        n = c[v]
        c[v] -= 1
        return n

    def rest(used: int) -> int:
        return falling(52 - used, 6 - used)

    def end(w: int, used: int, p: int, b: int, np_: int, nb: int) -> None:
        nonlocal ties
        w *= rest(used)
        if p > b:
            wins["player", np_] += w
        elif b > p:
            wins["banker", nb] += w
        else:
            ties += w
            wins["tie", np_ + nb] += w

    for p1, b1, p2, b2 in itertools.product(range(10), repeat=4):
        w = take(p1) * take(b1) * take(p2) * take(b2)
        ps, bs = (p1 + p2) % 10, (b1 + b2) % 10
        if w == 0:
            pass
        elif ps >= 8 or bs >= 8:
            end(w, 4, ps, bs, 2, 2)
        elif ps >= 6:
            if bs <= 5:
                for b3 in range(10):
                    if c[b3]:
                        end(w * c[b3], 5, ps, (bs + b3) % 10, 2, 3)
            else:
                end(w, 4, ps, bs, 2, 2)
        else:
            for p3 in range(10):
                w3 = w * take(p3)
                if w3 and banker_draws(bs, p3):
                    for b3 in range(10):
                        if c[b3]:
                            end(w3 * c[b3], 6, (ps + p3) % 10, (bs + b3) % 10, 3, 3)
                elif w3:
                    end(w3, 5, (ps + p3) % 10, bs, 3, 2)
                c[p3] += 1
        for v in (b2, p2, b1, p1):
            c[v] += 1
    return wins, ties, falling(52, 6)


def test_a_one_deck_game_by_a_second_enumeration_has_the_same_fractions() -> None:
    rules = replace(MULTIPLIER, name="multiplier-one-deck", decks=1, aliases=())
    wins, ties, total = one_deck_by_values()
    # One deck: every card is its own identity, so n paid cards are n distinct identities.
    by_cards = {n: drawn_one_by_one((1,) * n, TERMS) for n in range(2, 7)}
    # A pair: the hand's first two cards of one rank, 4 * 3 of the 52 * 51 ways, 13 ranks.
    pair = Fraction(13 * 4 * 3, 52 * 51)
    chances = {
        "player": {n: Fraction(wins["player", n], total) for n in (2, 3)},
        "banker": {n: Fraction(wins["banker", n], total) for n in (2, 3)},
        "tie": {n: Fraction(wins["tie", n], total) for n in (4, 5, 6)},
        "player_pair": {2: pair},
        "banker_pair": {2: pair},
    }
    pays = {
        "player": Fraction(1),
        "banker": Fraction(19, 20),
        "tie": Fraction(5),
        "player_pair": Fraction(9),
        "banker_pair": Fraction(9),
    }
    analysis = exact(rules)
    for bet, chance_of in chances.items():
        push = Fraction(ties, total) if bet in ("player", "banker") else Fraction(0)
        mean = push + sum(
            chance * p * (1 + pays[bet] * m)
            for n, chance in chance_of.items()
            for m, p in by_cards[n].items()
        )
        square = push + sum(
            chance * p * (1 + pays[bet] * m) ** 2
            for n, chance in chance_of.items()
            for m, p in by_cards[n].items()
        )
        top = max(m for n in chance_of for m in by_cards[n])
        top_chance = sum(
            (chance * by_cards[n].get(top, Fraction(0)) for n, chance in chance_of.items()),
            Fraction(0),
        )
        big = sum(
            chance * p
            for n, chance in chance_of.items()
            for m, p in by_cards[n].items()
            if pays[bet] * m >= 100
        )
        report = analysis.bets[bet]
        assert report.rtp == mean / (1 + TERMS.fee), bet
        assert report.variance == square - mean**2, bet
        assert (report.max_multiplier, report.max_chance) == (top, top_chance), bet
        assert report.chance_100x == big, bet


def test_the_published_game_and_what_it_reports() -> None:
    analysis = exact(MULTIPLIER)
    bets = analysis.bets
    assert list(bets) == list(MULTIPLIER.bets)
    assert Fraction("0.985") <= bets["player"].rtp <= Fraction("0.99")
    for bet in bets.values():
        assert 0 < bet.rtp < 1 and bet.sd > 0
        assert 0 < bet.chance_100x < 1 and 0 < bet.max_chance <= bet.chance_100x
    # Eight of one identity in the shoe: a hand can hold the same card three times.
    assert bets["player"].max_multiplier == 8**3
    assert bets["tie"].max_multiplier == 8**6
    assert bets["player_pair"].max_multiplier == 8**2
    shown = analysis.to_json()
    assert shown["multipliers"] == TERMS.to_json()
    player = shown["bets"]["player"]
    assert Fraction(player["rtp"]) == bets["player"].rtp
    assert player["rtp_percent"] == f"{float(bets['player'].rtp) * 100:.4f}"
    assert player["max_multiplier_one_in"] == round(1 / bets["player"].max_chance)
    with pytest.raises(ValueError, match="not a multiplier game"):
        exact(get_rules("classic-8deck"))
