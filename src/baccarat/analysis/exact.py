"""Exact odds: outcome counts over every ordered six-card sequence of a composition.

Counting follows Wizard of Odds: a coup that used fewer than six cards is extended over
every way to draw the unused ones, so a shoe of N cards has N(N-1)...(N-5) sequences.

The outcome of a sequence depends only on its values, so the 10^6 value sequences are
grouped once by their multiset of values (5,005 multisets). For a composition c, a
multiset m is drawn in prod_v c_v (c_v - 1) ... (c_v - m_v + 1) ways in any one order,
so the counts are a product of a weight vector with a fixed table: exact in int64, which
holds any shoe of up to 8 decks (416^6 < 2^63).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core import Outcome, RuleSet, banker_draws
from .composition import full_composition, validate

OUTCOMES: tuple[Outcome, ...] = (Outcome.BANKER, Outcome.PLAYER, Outcome.TIE)
_COLUMN = {outcome: i for i, outcome in enumerate(OUTCOMES)}

IntArray = npt.NDArray[np.int64]
SmallArray = npt.NDArray[np.int8]


def banker_draw_table() -> npt.NDArray[np.bool_]:
    """``table[score, p3]``: the banker draws with this score on this player third card."""
    return np.array([[banker_draws(s, p3) for p3 in range(10)] for s in range(10)])


def sequence_outcomes() -> tuple[SmallArray, SmallArray]:
    """Every value sequence (p1, b1, p2, b2, c5, c6): its values and its outcome column.

    Small integers (int8) throughout: the 10^6 sequences then take a few MB, not hundreds.
    """
    p1, b1, p2, b2, c5, c6 = np.indices((10,) * 6, dtype=np.int8).reshape(6, -1)
    ps, bs = (p1 + p2) % 10, (b1 + b2) % 10
    natural = (ps >= 8) | (bs >= 8)
    # Player draws on 0-5 unless either hand is a natural; the fifth card is the player's.
    pdraw = ~natural & (ps <= 5)
    # The banker's third card is the sixth card if the player drew, else the fifth.
    b3 = np.where(pdraw, c6, c5)
    bdraw = ~natural & np.where(pdraw, banker_draw_table()[bs, c5], bs <= 5)
    none = np.int8(0)
    pf = (ps + np.where(pdraw, c5, none)) % 10
    bf = (bs + np.where(bdraw, b3, none)) % 10
    banker, player, tie = (np.int8(_COLUMN[o]) for o in OUTCOMES)
    column = np.where(bf == pf, tie, np.where(bf > pf, banker, player))
    values = np.stack([p1, b1, p2, b2, c5, c6], axis=1)
    return values, column


@functools.cache
def multiset_table() -> tuple[IntArray, IntArray]:
    """``(multiplicities, counts)``: for each multiset of six values, how many of each value it
    holds (K x 10) and how many of its orderings end in each outcome (K x 3)."""
    values, column = sequence_outcomes()
    # A multiset's key: its multiplicities as digits base 7 (a value occurs at most 6 times).
    powers = 7 ** np.arange(10, dtype=np.int64)
    keys = np.zeros(len(column), dtype=np.int64)
    for position in values.T:
        keys += powers[position]
    unique_keys, inverse = np.unique(keys, return_inverse=True)
    del keys, values
    counts = np.bincount(
        inverse * len(OUTCOMES) + column, minlength=len(unique_keys) * len(OUTCOMES)
    ).reshape(-1, len(OUTCOMES))
    multiplicities = (unique_keys[:, None] // powers) % 7
    multiplicities.setflags(write=False)
    counts.setflags(write=False)
    return multiplicities, counts


def falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1): ordered ways to draw k cards from n."""
    result = 1
    for i in range(k):
        result *= n - i
    return result


@dataclass(frozen=True, slots=True)
class OutcomeCounts:
    """Ordered six-card sequences of a composition ending in each outcome."""

    banker: int
    player: int
    tie: int

    @property
    def total(self) -> int:
        return self.banker + self.player + self.tie

    def count(self, outcome: Outcome) -> int:
        count: int = getattr(self, outcome.value)
        return count

    def probability(self, outcome: Outcome) -> Fraction:
        return Fraction(self.count(outcome), self.total)


def count_outcomes(composition: tuple[int, ...]) -> OutcomeCounts:
    """Exact outcome counts for a composition (counts of values 0..9)."""
    counts = validate(composition)
    multiplicities, table = multiset_table()
    ways = np.array(
        [[falling(n, k) for k in range(7)] for n in counts], dtype=np.int64
    )  # ways[v, k]: ordered draws of k cards of value v
    weights = ways[np.arange(10), multiplicities].prod(axis=1)
    banker, player, tie = (int(x) for x in weights @ table)
    result = OutcomeCounts(banker=banker, player=player, tie=tie)
    if result.total != falling(sum(counts), 6):
        raise ArithmeticError("outcome counts do not add up to the number of sequences")
    return result


def count_outcomes_by_enumeration(composition: tuple[int, ...]) -> OutcomeCounts:
    """The same counts by a plain nested loop over the cards: slow, obviously right."""
    c = list(validate(composition))
    n_total = sum(c)
    tally = {outcome: 0 for outcome in OUTCOMES}

    def take(v: int) -> int:
        n = c[v]
        c[v] -= 1
        return n

    for p1 in range(10):
        w1 = take(p1)
        for b1 in range(10):
            w2 = w1 * take(b1)
            for p2 in range(10):
                w3 = w2 * take(p2)
                for b2 in range(10):
                    w4 = w3 * take(b2)
                    if w4:
                        _finish(c, tally, n_total, w4, (p1 + p2) % 10, (b1 + b2) % 10)
                    c[b2] += 1
                c[p2] += 1
            c[b1] += 1
        c[p1] += 1
    return OutcomeCounts(
        banker=tally[Outcome.BANKER], player=tally[Outcome.PLAYER], tie=tally[Outcome.TIE]
    )


def _finish(c: list[int], tally: dict[Outcome, int], n: int, w: int, ps: int, bs: int) -> None:
    """Add the coups that start with two-card scores ps, bs and weight w (4 cards drawn)."""

    def record(weight: int, used: int, p: int, b: int) -> None:
        outcome = Outcome.PLAYER if p > b else Outcome.BANKER if b > p else Outcome.TIE
        tally[outcome] += weight * falling(n - used, 6 - used)

    if ps >= 8 or bs >= 8 or (ps >= 6 and bs >= 6):
        record(w, 4, ps, bs)
    elif ps >= 6:
        for b3 in range(10):
            record(w * c[b3], 5, ps, (bs + b3) % 10)
    else:
        for p3 in range(10):
            w5 = w * c[p3]
            c[p3] -= 1
            p = (ps + p3) % 10
            if banker_draws(bs, p3):
                for b3 in range(10):
                    record(w5 * c[b3], 6, p, (bs + b3) % 10)
            else:
                record(w5, 5, p, bs)
            c[p3] += 1


@dataclass(frozen=True, slots=True)
class BetOdds:
    """A bet's exact expectation per unit staked under a rule set."""

    house_edge: Fraction

    @property
    def rtp(self) -> Fraction:
        return 1 - self.house_edge


@dataclass(frozen=True, slots=True)
class Analysis:
    """Exact odds of one composition under one rule set."""

    rules: RuleSet
    composition: tuple[int, ...]
    counts: OutcomeCounts
    bets: dict[str, BetOdds]

    def probability(self, outcome: Outcome) -> Fraction:
        return self.counts.probability(outcome)

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.name,
            "decks": self.rules.decks,
            "total": self.counts.total,
            "outcomes": {
                o.value: {"count": self.counts.count(o), "probability": float(self.probability(o))}
                for o in OUTCOMES
            },
            "bets": {
                name: {"house_edge": float(b.house_edge), "rtp": float(b.rtp)}
                for name, b in self.bets.items()
            },
        }


def bet_odds(rules: RuleSet, counts: OutcomeCounts) -> dict[str, BetOdds]:
    """Each bet's house edge from the outcome probabilities and the rule set's pays."""
    pb, pp, pt = (counts.probability(o) for o in OUTCOMES)
    expectation = {
        "banker": pb * rules.banker_win_multiplier - pp,
        "player": pp * rules.player_pays - pb,
        "tie": pt * rules.tie_pays - (pb + pp),
    }
    return {kind: BetOdds(house_edge=-ev) for kind, ev in expectation.items()}


def analyse(rules: RuleSet, composition: tuple[int, ...] | None = None) -> Analysis:
    """Exact odds of every bet for a composition (default: the rule set's full shoe)."""
    if composition is None:
        composition = full_composition(rules.decks)
    counts = count_outcomes(composition)
    return Analysis(rules, tuple(composition), counts, bet_odds(rules, counts))
