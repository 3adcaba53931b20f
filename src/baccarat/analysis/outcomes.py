"""Outcome classes of a simulated coup, bets as pay vectors over them, and estimates.

The simulator counts coups by outcome class (see ``kernel``) and knows nothing of bets.
A bet is a pay vector: the net result per unit staked for every class. A class keeps what
every bet is settled on: final scores, third cards (so naturals, margins and the number of
cards), and the kind of each hand's first two cards (no pair, pair, identical). Each class
gets a representative coup, and every bet the rule set offers is settled on it by the
core's own judge and the rule set's pay table (``rule_bets``): no rule is written twice.
Any other bet plugs in as one more vector (``bet_from``).
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core import BET_TYPES, MAIN_BETS, PUSH, Coup, Outcome, RuleSet
from .exact import analyse
from .kernel import CLASS_SHAPE, N_CLASSES
from .sequences import representative_coup, value_sequences

CountArray = npt.NDArray[np.int64]

# Two-sided 95% normal quantile.
Z95 = 1.959963984540054


class PairKind(enum.IntEnum):
    """What a hand's first two cards are to a pair bet."""

    NONE = 0
    # Two cards of one rank that are not identical.
    PAIR = 1
    # Same rank and same suit: only a shoe of two or more decks holds such a pair.
    IDENTICAL = 2


@dataclass(frozen=True, slots=True)
class OutcomeClass:
    """Everything the simulator keeps of a coup."""

    player: int
    banker: int
    player_third: bool
    banker_third: bool
    player_pair: PairKind
    banker_pair: PairKind

    @property
    def index(self) -> int:
        """Position of this class in the kernel's count array."""
        fields = (
            self.player,
            self.banker,
            int(self.player_third),
            int(self.banker_third),
            int(self.player_pair),
            int(self.banker_pair),
        )
        return int(np.ravel_multi_index(fields, CLASS_SHAPE))

    @classmethod
    def from_index(cls, index: int) -> OutcomeClass:
        p, b, p3, b3, pp, bp = (int(x) for x in np.unravel_index(index, CLASS_SHAPE))
        return cls(p, b, bool(p3), bool(b3), PairKind(pp), PairKind(bp))

    @property
    def winner(self) -> Outcome:
        if self.player > self.banker:
            return Outcome.PLAYER
        if self.banker > self.player:
            return Outcome.BANKER
        return Outcome.TIE

    @property
    def cards(self) -> int:
        """Cards the coup used: 4, 5 or 6."""
        return 4 + self.player_third + self.banker_third

    @property
    def natural(self) -> bool:
        """A two-card 8 or 9 on either side (both hands then stand on two cards)."""
        two_cards = not (self.player_third or self.banker_third)
        return two_cards and max(self.player, self.banker) >= 8


@functools.cache
def outcome_classes() -> tuple[OutcomeClass, ...]:
    """Every outcome class, in the order of the kernel's count array."""
    return tuple(OutcomeClass.from_index(i) for i in range(N_CLASSES))


@dataclass(frozen=True, slots=True)
class SimBet:
    """A bet the simulator settles: its net result per unit staked for every outcome class.

    ``exact`` is the exact expected net result per unit, when one is known.
    """

    name: str
    pays: tuple[Fraction, ...]
    exact: Fraction | None = None


def bet_from(
    name: str, pay: Callable[[OutcomeClass], Fraction | int], exact: Fraction | None = None
) -> SimBet:
    """A bet from its settlement rule: net result per unit staked for one outcome class."""
    return SimBet(name, tuple(Fraction(pay(c)) for c in outcome_classes()), exact)


@functools.cache
def class_coups() -> tuple[Coup | None, ...]:
    """A coup of every outcome class, in the kernel's order (None: the class cannot occur)."""
    seq = value_sequences()
    values = seq["values"]
    p1, b1, p2, b2 = (values[:, i] for i in range(4))
    drew_p, drew_b = (seq["p3"] != 10).astype(np.int64), (seq["b3"] != 10).astype(np.int64)
    key = ((seq["pf"].astype(np.int64) * 10 + seq["bf"]) * 2 + drew_p) * 2 + drew_b
    coups: list[Coup | None] = [None] * N_CLASSES
    for ppair in PairKind:
        for bpair in PairKind:
            # A pair needs two cards of one value; unpaired cards of one value are 0s (T, J).
            fits = np.flatnonzero(_fits(p1, p2, ppair) & _fits(b1, b2, bpair))
            # Any one sequence of each class serves (a repeated index keeps one of them).
            some = np.full(N_CLASSES // 9, -1, dtype=np.int64)
            some[key[fits]] = fits
            for k in np.flatnonzero(some >= 0):
                klass = int(k) * 9 + ppair * 3 + bpair
                coups[klass] = representative_coup(
                    tuple(int(v) for v in values[some[k]]), player_pair=ppair, banker_pair=bpair
                )
    return tuple(coups)


def _fits(first: npt.NDArray[np.int8], second: npt.NDArray[np.int8], kind: PairKind) -> Any:
    if kind is PairKind.NONE:
        return (first != second) | (first == 0)
    return first == second


def rule_bets(rules: RuleSet, names: tuple[str, ...] | None = None) -> tuple[SimBet, ...]:
    """The bets the rule set offers (or the named ones), each a pay vector over the outcome
    classes from the core's judge and the rule set's pay table, with its exact fresh-shoe
    expectation."""
    exact = analyse(rules).bets
    coups = class_coups()
    bets = []
    for name in rules.bets if names is None else names:
        table, judge = rules.paytable(name), BET_TYPES[name].judge
        pays = []
        for coup in coups:
            line = None if coup is None else judge(coup)
            if coup is None or not table.pays_on(line):
                pays.append(Fraction(-1) if coup is not None else Fraction(0))
            else:
                pay = table.pay(line)  # type: ignore[arg-type]
                pays.append(Fraction(0) if pay is PUSH else pay)
        bets.append(SimBet(name, tuple(pays), -exact[name].house_edge))
    return tuple(bets)


def main_bets(rules: RuleSet) -> tuple[SimBet, ...]:
    """Player, banker and tie at the rule set's pays, with their exact fresh-shoe expectation."""
    return rule_bets(rules, MAIN_BETS)


@dataclass(frozen=True, slots=True)
class BetEstimate:
    """The simulated mean net result per unit staked, with its standard error."""

    mean: float
    stderr: float
    exact: float | None

    @property
    def ci95(self) -> tuple[float, float]:
        return (self.mean - Z95 * self.stderr, self.mean + Z95 * self.stderr)

    @property
    def z(self) -> float | None:
        """Standard errors between the simulated mean and the exact expectation."""
        if self.exact is None or self.stderr == 0:
            return None
        return (self.mean - self.exact) / self.stderr

    def to_json(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "stderr": self.stderr,
            "ci95": list(self.ci95),
            "exact": self.exact,
            "z": self.z,
        }


def estimate(bet: SimBet, counts: CountArray) -> BetEstimate:
    """Mean and standard error of a bet's net result over the counted coups."""
    exact = None if bet.exact is None else float(bet.exact)
    rounds = int(counts.sum())
    if rounds == 0:
        return BetEstimate(0.0, 0.0, exact)
    # Exact sums over the classes that occurred (in whole units of the pays' common
    # denominator, as Python integers), then one rounding to float.
    seen = [int(i) for i in np.flatnonzero(counts)]
    unit = math.lcm(*(bet.pays[i].denominator for i in seen))
    whole = {i: int(bet.pays[i] * unit) for i in seen}
    total = Fraction(sum(int(counts[i]) * whole[i] for i in seen), unit)
    squares = Fraction(sum(int(counts[i]) * whole[i] ** 2 for i in seen), unit * unit)
    mean = total / rounds
    # The sample variance, with Bessel's correction.
    variance = (squares - rounds * mean**2) / (rounds - 1) if rounds > 1 else Fraction(0)
    return BetEstimate(float(mean), math.sqrt(variance / rounds), exact)


def outcome_totals(counts: CountArray) -> dict[Outcome, int]:
    """Coups won by banker and player and tied, from the class counts."""
    by_scores = counts.reshape(CLASS_SHAPE).sum(axis=(2, 3, 4, 5))
    return {
        Outcome.BANKER: int(np.triu(by_scores, 1).sum()),
        Outcome.PLAYER: int(np.tril(by_scores, -1).sum()),
        Outcome.TIE: int(np.trace(by_scores)),
    }


def estimates(bets: tuple[SimBet, ...], counts: CountArray) -> Mapping[str, BetEstimate]:
    """Each bet's estimate over the counted coups, by bet name."""
    return {bet.name: estimate(bet, counts) for bet in bets}
