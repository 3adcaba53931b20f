"""Multiplier baccarat, exactly: each bet's RTP, standard deviation, largest multiplier and
the chance of a pay of 100 times the stake or more (docs/multiplier.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core import MultiplierTerms, RuleSet


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


def exact(rules: RuleSet) -> MultiplierAnalysis:
    """Each bet of a multiplier rule set, exactly (cached per rule set)."""
    raise NotImplementedError("the exact analysis of multiplier baccarat is coming")
