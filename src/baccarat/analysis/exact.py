"""Exact odds of every bet: pay-table line chances over every ordered six-card sequence.

Counting follows Wizard of Odds: a coup that used fewer than six cards is extended over
every way to draw the unused ones, so a shoe of N cards has N(N-1)...(N-5) sequences.

Every bet but the pair bets is judged on values: its lines are counted from the value
composition with the fixed table of ``sequences`` (one product of a weight vector with it,
cached by composition). The pair bets are counted from the face composition (``pairs``).
A bet's expectation then comes from its line chances and the rule set's pay table.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..core import PUSH, Outcome, RuleSet, banker_draws
from .composition import (
    FACES,
    CompositionError,
    falling,
    full_faces,
    validate,
    validate_faces,
    values_of_faces,
    whole_decks,
)
from .pairs import pair_lines
from .sequences import LINES, PAIR_BETS, line_table

OUTCOMES: tuple[Outcome, ...] = (Outcome.BANKER, Outcome.PLAYER, Outcome.TIE)

Line = tuple[str, str]
_COLUMN = {line: i for i, line in enumerate(LINES)}
_BANKER_WINS = [_COLUMN["banker", line] for line in ("win", "win_with_6", "win_three_card_7")]


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


@functools.lru_cache(maxsize=4096)
def line_counts(composition: tuple[int, ...]) -> tuple[int, ...]:
    """Ordered six-card sequences of a value composition hitting each of ``LINES``."""
    counts = validate(composition)
    multiplicities, table = line_table()
    ways = np.array(
        [[falling(n, k) for k in range(7)] for n in counts], dtype=np.int64
    )  # ways[v, k]: ordered draws of k cards of value v
    weights = ways[np.arange(10), multiplicities].prod(axis=1)
    return tuple(int(x) for x in weights @ table)


def count_outcomes(composition: tuple[int, ...]) -> OutcomeCounts:
    """Exact outcome counts for a composition (counts of values 0..9)."""
    lines = line_counts(tuple(composition))
    result = OutcomeCounts(
        banker=sum(lines[i] for i in _BANKER_WINS),
        player=lines[_COLUMN["player", "win"]],
        tie=lines[_COLUMN["tie", "tie"]],
    )
    if result.total != falling(sum(composition), 6):
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
    """Exact odds of one composition under one rule set: the chance of every pay-table line
    (``lines``, by (bet, line)) and each offered bet's odds."""

    rules: RuleSet
    composition: tuple[int, ...]
    # Counts by face (rank and suit), when known: the pair bets need them.
    faces: tuple[int, ...] | None
    counts: OutcomeCounts
    lines: Mapping[Line, Fraction]
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


def bet_odds(rules: RuleSet, lines: Mapping[Line, Fraction]) -> dict[str, BetOdds]:
    """Each offered bet's house edge from its lines' chances and the rule set's pay tables:
    a priced line wins its pay (a push returns the stake); every other coup loses the stake."""
    odds = {}
    for table in rules.paytables:
        expectation = Fraction(0)
        settled = Fraction(0)
        for line, pay in table.pays:
            chance = lines[table.bet, line]
            settled += chance
            if pay is not PUSH:
                expectation += chance * pay
        odds[table.bet] = BetOdds(house_edge=(1 - settled) - expectation)
    return odds


def value_lines(composition: tuple[int, ...]) -> dict[Line, Fraction]:
    """The chance of every line of the value-judged bets for a value composition."""
    counts = line_counts(composition)
    total = falling(sum(composition), 6)
    return {line: Fraction(n, total) for line, n in zip(LINES, counts, strict=True)}


def analyse(rules: RuleSet, composition: tuple[int, ...] | None = None) -> Analysis:
    """Exact odds of every bet the rule set offers, for a composition: 52 counts by face
    (``composition.faces_of``), or 10 by value. Default: the rule set's full shoe.

    A value composition says nothing of ranks and suits: it serves a rule set with pair
    bets only when it is a whole number of full decks.
    """
    if composition is None:
        composition = full_faces(rules.decks)
    faces: tuple[int, ...] | None
    if len(composition) == FACES:
        faces = validate_faces(composition)
        values = values_of_faces(faces)
    else:
        values = validate(composition)
        decks = whole_decks(values)
        faces = None if decks is None else full_faces(decks)
    lines = value_lines(values)
    if faces is not None:
        lines |= pair_lines(faces)
    elif any(rules.offers(bet) for bet in PAIR_BETS):
        raise CompositionError(
            f"{rules.name} offers pair bets: give the cards by rank and suit (52 counts)"
        )
    return Analysis(rules, values, faces, count_outcomes(values), lines, bet_odds(rules, lines))
