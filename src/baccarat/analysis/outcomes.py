"""Outcome classes of a simulated coup, bets as pay vectors over them, and estimates.

The simulator counts coups by outcome class (see ``kernel``) and knows nothing of bets.
A bet is a pay vector: the net result per unit staked for every class. The main bets are
built here from the rule set; a side bet plugs in as one more vector (``bet_from``),
without touching the dealing loop, as long as it is settled on what a class keeps:
final scores, third cards, naturals, number of cards, and pairs in the first two cards.
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

from ..core import MAIN_BETS, Outcome, RuleSet
from .exact import analyse
from .kernel import CLASS_SHAPE, N_CLASSES

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


def main_bets(rules: RuleSet) -> tuple[SimBet, ...]:
    """Player, banker and tie at the rule set's pays, with their exact fresh-shoe expectation."""
    exact = analyse(rules).bets
    win = {
        "player": rules.player_pays,
        "banker": rules.banker_win_multiplier,
        "tie": rules.tie_pays,
    }

    def settle(kind: str) -> Callable[[OutcomeClass], Fraction]:
        def pay(c: OutcomeClass) -> Fraction:
            if c.winner.value == kind:
                return win[kind]
            # On a tie, player and banker bets are returned.
            return Fraction(0) if c.winner is Outcome.TIE else Fraction(-1)

        return pay

    return tuple(bet_from(k, settle(k), -exact[k].house_edge) for k in MAIN_BETS)


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
    # Exact sums over the classes that occurred, then one rounding to float.
    seen = np.flatnonzero(counts)
    total = sum((int(counts[i]) * bet.pays[i] for i in seen), Fraction(0))
    squares = sum((int(counts[i]) * bet.pays[i] ** 2 for i in seen), Fraction(0))
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
