"""Multiplier baccarat, exactly: each bet's RTP, standard deviation, largest multiplier and
the chance of a pay of 100 times the stake or more (docs/multiplier.md has the formulas).

A bet's multiplier M depends on the identities (rank and suit) of the cards it is paid on,
and the coup on their ranks. So:

1. Every ordered sequence of six ranks is enumerated (13^6 of them, the coup's cards and
   the unused ones after them, as ``exact`` counts), each drawn from the shoe in
   prod_r n_r (n_r - 1) ... ways (n_r = 4 x decks cards of each rank); the coup it deals
   comes from its values (``sequences.value_sequences``). Each bet's winning sequences are
   summed by the *shape* of the ranks of the cards it is paid on: how many cards of each
   rank, e.g. (2, 1) for a hand of two kings and a five.
2. For a shape, the suits of each rank's cards are a draw without replacement from
   ``decks`` cards of each suit: that gives the chance of every *pattern* of identities
   (how many cards of each identity, e.g. (2, 1, 1): two king of hearts, a king of clubs
   and a five).
3. For a pattern e_1..e_j (j distinct identities), the multiplier cards are K of the 52,
   uniformly, each with an independent multiplier V: the set T of the hand's identities
   among them has chance C(52 - j, K - |T|) / C(52, K), and M is the product of V_i^e_i
   over T. That gives M's exact distribution, hence each bet's return, its square, the
   chance of the largest multiplier and of a pay of 100x or more.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core import MULTIPLIER_BETS, PUSH, MultiplierTerms, RuleSet
from ..core.multiplier import IDENTITIES
from .composition import falling
from .sequences import NONE, value_sequences

RANKS = 13
SUITS = 4
# A hand's shape: how many of its cards share each rank, largest first: (2, 1).
Shape = tuple[int, ...]
# A distribution of the multiplier: M -> chance.
Distribution = dict[int, Fraction]
# A shape's key in the enumeration: sum of BASE ** (cards of the rank) over its cards.
BASE = 8
# The pays a "pays 100x" counts: pay times the multiplier of at least this.
BIG_PAY = 100


def fraction_text(value: Fraction) -> str:
    """``"n/d"``: an exact fraction as text."""
    return f"{value.numerator}/{value.denominator}"


def one_in(chance: Fraction) -> int:
    """A chance as "1 in N", N rounded to the nearest whole number (0 for no chance)."""
    return 0 if chance == 0 else round(1 / chance)


@dataclass(frozen=True, slots=True)
class MultiplierBet:
    """One bet of a multiplier game, exactly.

    ``rtp`` is per unit wagered (the stake and its fee); ``variance`` is of the round's
    result per unit staked (the fee, a constant, does not change it); ``max_chance`` is the
    chance that a round wins the bet at its largest multiplier, ``chance_100x`` that it wins
    100 times the stake or more (its pay times its multiplier at least 100).
    """

    bet: str
    pays: Fraction
    rtp: Fraction
    variance: Fraction
    max_multiplier: int
    max_chance: Fraction
    chance_100x: Fraction

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.rtp

    @property
    def sd(self) -> float:
        """Standard deviation of the round's result per unit staked."""
        return math.sqrt(self.variance)

    def to_json(self) -> dict[str, Any]:
        return {
            "pays": fraction_text(self.pays),
            "rtp": fraction_text(self.rtp),
            "rtp_percent": f"{float(self.rtp) * 100:.4f}",
            "house_edge_percent": f"{float(self.house_edge) * 100:.4f}",
            "sd": round(self.sd, 4),
            "max_multiplier": self.max_multiplier,
            "max_multiplier_one_in": one_in(self.max_chance),
            "pays_100x_one_in": one_in(self.chance_100x),
        }


@dataclass(frozen=True, slots=True)
class MultiplierAnalysis:
    """Every bet of a multiplier rule set, exactly, for a full shoe."""

    rules: RuleSet
    terms: MultiplierTerms
    bets: Mapping[str, MultiplierBet]

    def to_json(self) -> dict[str, Any]:
        """``{"multipliers": terms, "bets": {bet: {...}}}`` (fractions as ``"n/d"``)."""
        return {
            "multipliers": self.terms.to_json(),
            "bets": {name: bet.to_json() for name, bet in self.bets.items()},
        }


Column = npt.NDArray[np.int8]
Mask = npt.NDArray[np.bool_]


def shape_keys(cards: list[Column], present: list[Mask]) -> npt.NDArray[np.int32]:
    """Each row's shape key over the given card columns (those ``present`` in the row): the
    sum of ``BASE ** a`` over its cards, a the number of its cards of that card's rank."""
    key = np.zeros(len(cards[0]), dtype=np.int32)
    for i, card in enumerate(cards):
        same = np.zeros(len(card), dtype=np.int32)
        for j, other in enumerate(cards):
            same += (card == other) & present[j]
        key += np.where(present[i], BASE**same, 0)
    return key


def shape_of_key(key: int) -> Shape:
    """The shape a key stands for: ``BASE ** a`` once for every card of a rank held a times.

    >>> shape_of_key(2 * BASE**2 + BASE)
    (2, 1)
    """
    parts: list[int] = []
    for size in range(6, 0, -1):
        cards = key // BASE**size % BASE
        parts += [size] * (cards // size)
    return tuple(parts)


def shape_of_ranks(ranks: Iterable[object]) -> Shape:
    """The shape of some cards' ranks: (2, 1) for K K 5."""
    counts: dict[object, int] = defaultdict(int)
    for rank in ranks:
        counts[rank] += 1
    return tuple(sorted(counts.values(), reverse=True))


@dataclass(frozen=True, slots=True)
class BetShapes:
    """Ordered six-card rank sequences (of ``total``) on which a bet wins, by the shape of
    its paid cards' ranks, and those on which it pushes."""

    wins: Mapping[Shape, int]
    pushes: int
    total: int


@dataclass(frozen=True, slots=True)
class RankCoups:
    """The coups dealt from rows of six ranks (0 ace .. 12 king; p1 b1 p2 b2 fifth sixth):
    each hand's cards and whether each is dealt, and the final scores."""

    player: list[Column]
    player_in: list[Mask]
    banker: list[Column]
    banker_in: list[Mask]
    player_score: Column
    banker_score: Column

    def paid(self, bet: str) -> tuple[list[Column], list[Mask]]:
        """The card columns a bet is paid on (``core.multiplier.PAID_CARDS``), and whether
        each is dealt."""
        if bet == "player":
            return self.player, self.player_in
        if bet == "banker":
            return self.banker, self.banker_in
        if bet == "tie":
            return self.player + self.banker, self.player_in + self.banker_in
        if bet == "player_pair":
            return self.player[:2], self.player_in[:2]
        if bet == "banker_pair":
            return self.banker[:2], self.banker_in[:2]
        raise ValueError(f"{bet} has no multiplier")

    def select(self, rows: Mask) -> RankCoups:
        """The coups of the chosen rows."""
        return RankCoups(
            [column[rows] for column in self.player],
            [column[rows] for column in self.player_in],
            [column[rows] for column in self.banker],
            [column[rows] for column in self.banker_in],
            self.player_score[rows],
            self.banker_score[rows],
        )


def rank_coups(ranks: npt.NDArray[np.int8]) -> RankCoups:
    """The coups dealt from rows of six ranks (6 x N), by their values' coups
    (``sequences.value_sequences``, the tableau's)."""
    value_of_rank = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0], dtype=np.int32)
    index = np.zeros(ranks.shape[1], dtype=np.int32)
    for column in ranks:
        index = index * 10 + value_of_rank[column]
    seq = value_sequences()
    pdraw, bdraw = seq["p3"][index] != NONE, seq["b3"][index] != NONE
    p1, b1, p2, b2, c5, c6 = ranks
    always = np.ones(ranks.shape[1], dtype=np.bool_)
    # The fifth card is the player's third when the player draws, else the banker's.
    banker_third = np.where(pdraw, c6, c5)
    return RankCoups(
        [p1, p2, c5],
        [always, always, pdraw],
        [b1, b2, banker_third],
        [always, always, bdraw],
        seq["pf"][index],
        seq["bf"][index],
    )


def _by_shape(
    coups: RankCoups, bet: str, rows: Mask, weights: npt.NDArray[np.int64]
) -> dict[Shape, int]:
    """The weights of the chosen rows summed by the shape of the bet's paid cards."""
    key = shape_keys(*coups.select(rows).paid(bet))
    # Summed in float64, exactly: every partial sum is a whole number below 2^53.
    sums = np.bincount(key, weights=weights[rows])
    return {shape_of_key(int(k)): int(sums[k]) for k in np.flatnonzero(sums)}


@functools.cache
def rank_shapes(decks: int) -> Mapping[str, BetShapes]:
    """Each multiplier bet's winning sequences by the shape of its paid cards, for a full
    shoe of ``decks`` decks: every ordered sequence of six ranks, weighted by the ways to
    draw it (their total, 416^(6) with 8 decks, is below 2^53)."""
    total = falling(SUITS * RANKS * decks, 6)
    if total >= 2**53:
        raise ValueError(f"{decks} decks are more than the enumeration sums exactly")
    ranks = np.indices((RANKS,) * 6, dtype=np.int8).reshape(6, -1)
    each = SUITS * decks
    weights = np.full(ranks.shape[1], each, dtype=np.int64)
    for i in range(1, 6):
        before = np.zeros(ranks.shape[1], dtype=np.int8)
        for j in range(i):
            before += ranks[j] == ranks[i]
        weights *= each - before
    if int(weights.sum()) != total:
        raise ArithmeticError("the sequences do not add up to the shoe's")
    coups = rank_coups(ranks)
    pf, bf = coups.player_score, coups.banker_score
    ties = pf == bf
    pushes = int(weights[ties].sum())
    (p1, p2, _), (b1, b2, _) = coups.player, coups.banker
    return {
        "player": BetShapes(_by_shape(coups, "player", pf > bf, weights), pushes, total),
        "banker": BetShapes(_by_shape(coups, "banker", bf > pf, weights), pushes, total),
        "tie": BetShapes(_by_shape(coups, "tie", ties, weights), 0, total),
        # A pair's two cards are of one rank: its shape is (2,).
        "player_pair": BetShapes({(2,): int(weights[p1 == p2].sum())}, 0, total),
        "banker_pair": BetShapes({(2,): int(weights[b1 == b2].sum())}, 0, total),
    }


def suit_patterns(cards: int, decks: int) -> dict[Shape, Fraction]:
    """The identity pattern of ``cards`` cards of one rank: their suits drawn without
    replacement from ``decks`` cards of each suit; (2, 1) is two of one suit, one of another.
    """
    patterns: dict[Shape, Fraction] = defaultdict(Fraction)
    ways = falling(SUITS * decks, cards)
    for split in itertools.product(range(cards + 1), repeat=SUITS):
        if sum(split) != cards:
            continue
        orders = math.factorial(cards)
        for n in split:
            orders //= math.factorial(n)
        drawn = math.prod(falling(decks, n) for n in split)
        if drawn:
            pattern = tuple(sorted((n for n in split if n), reverse=True))
            patterns[pattern] += Fraction(orders * drawn, ways)
    return dict(patterns)


def identity_patterns(shape: Shape, decks: int) -> dict[Shape, Fraction]:
    """The chance of each identity pattern of cards of this rank shape: the ranks' suits are
    independent of one another (each rank has its own cards)."""
    patterns: dict[Shape, Fraction] = {(): Fraction(1)}
    for cards in shape:
        combined: dict[Shape, Fraction] = defaultdict(Fraction)
        for pattern, chance in patterns.items():
            for more, other in suit_patterns(cards, decks).items():
                key = tuple(sorted(pattern + more, reverse=True))
                combined[key] += chance * other
        patterns = dict(combined)
    return patterns


@functools.cache
def _products(exponents: tuple[int, ...], terms: MultiplierTerms) -> dict[int, int]:
    """The distribution of prod_i V_i^(e_i), the V_i independent draws of the published
    multipliers: M -> its chance times D^len(exponents), D their common denominator."""
    denominator = math.lcm(*(p.denominator for _, p in terms.values))
    weights = [(v, int(p * denominator)) for v, p in terms.values]
    products = {1: 1}
    for exponent in exponents:
        more: dict[int, int] = defaultdict(int)
        for m, n in products.items():
            for v, w in weights:
                more[m * v**exponent] += n * w
        products = dict(more)
    return products


@functools.cache
def pattern_multiplier(pattern: Shape, terms: MultiplierTerms) -> Distribution:
    """The distribution of M for paid cards of this identity pattern (e_1, ..., e_j).

    P(M = m) = sum_K P(K) sum_(T subset of the j identities) C(52 - j, K - |T|) / C(52, K)
    P(prod_(i in T) V_i^(e_i) = m), the V_i independent draws of the published multipliers.
    """
    j = len(pattern)
    denominator = math.lcm(*(p.denominator for _, p in terms.values))
    # The subsets T by the exponents they hold: a subset's chance depends on its size only.
    subsets: dict[tuple[int, ...], int] = defaultdict(int)
    for size in range(j + 1):
        for chosen in itertools.combinations(pattern, size):
            subsets[chosen] += 1
    result: Distribution = defaultdict(Fraction)
    for exponents, times in subsets.items():
        size = len(exponents)
        hit = sum(
            chance * Fraction(math.comb(IDENTITIES - j, k - size), math.comb(IDENTITIES, k))
            for k, chance in terms.counts
            if k >= size
        )
        if hit:
            scale = hit * times / denominator**size
            for m, n in _products(exponents, terms).items():
                result[m] += scale * n
    return dict(result)


@functools.cache
def shape_multiplier(shape: Shape, decks: int, terms: MultiplierTerms) -> Distribution:
    """The distribution of M for paid cards of this rank shape."""
    result: Distribution = defaultdict(Fraction)
    for pattern, chance in identity_patterns(shape, decks).items():
        for m, p in pattern_multiplier(pattern, terms).items():
            result[m] += chance * p
    return dict(result)


def bet_report(
    bet: str, pays: Fraction, shapes: BetShapes, decks: int, terms: MultiplierTerms
) -> MultiplierBet:
    """One bet's exact figures from its winning sequences by shape (``rank_shapes``)."""
    total = shapes.total
    push = Fraction(shapes.pushes, total)
    mean, square = push, push
    largest: dict[int, Fraction] = defaultdict(Fraction)
    big = Fraction(0)
    for shape, count in shapes.wins.items():
        chance = Fraction(count, total)
        multipliers = shape_multiplier(shape, decks, terms)
        top = max(multipliers)
        largest[top] += chance * multipliers[top]
        for m, p in multipliers.items():
            returned = 1 + pays * m
            mean += chance * p * returned
            square += chance * p * returned**2
            if pays * m >= BIG_PAY:
                big += chance * p
    top = max(largest)
    return MultiplierBet(
        bet=bet,
        pays=pays,
        rtp=mean / (1 + terms.fee),
        variance=square - mean**2,
        max_multiplier=top,
        max_chance=largest[top],
        chance_100x=big,
    )


def _win_pay(rules: RuleSet, bet: str) -> Fraction:
    """The pay to one of a bet's win (every winning line of a multiplier game pays it)."""
    pays = {pay for _, pay in rules.paytable(bet).pays if pay is not PUSH}
    if len(pays) != 1:
        raise ValueError(f"{bet} of {rules.name} does not pay one way")
    return pays.pop()


@functools.cache
def exact(rules: RuleSet) -> MultiplierAnalysis:
    """Each bet of a multiplier rule set, exactly, for a full shoe (cached per rule set).

    Raises ValueError for a rule set without multipliers.
    """
    terms = rules.multipliers
    if terms is None:
        raise ValueError(f"{rules.name} is not a multiplier game")
    shapes = rank_shapes(rules.decks)
    bets = {
        bet: bet_report(bet, _win_pay(rules, bet), shapes[bet], rules.decks, terms)
        for bet in rules.bets
        if bet in MULTIPLIER_BETS
    }
    return MultiplierAnalysis(rules, terms, bets)
