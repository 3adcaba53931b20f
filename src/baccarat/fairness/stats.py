"""Small, dependency-free statistics for RNG evidence: chi-square and runs tests.

p-values come from the regularized incomplete gamma function (series and continued
fraction, as in Numerical Recipes, section 6.2) and the normal tail (``math.erfc``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

_EPSILON = 1e-15
_TINY = 1e-300


def _gamma_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its series (good for x < a + 1)."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(100_000):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by its continued fraction (x >= a + 1)."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < _TINY:
            d = _TINY
        c = b + an / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a).

    >>> round(gamma_q(1.0, 2.0), 12) == round(math.exp(-2.0), 12)
    True
    """
    if a <= 0 or x < 0:
        raise ValueError(f"gamma_q needs a > 0 and x >= 0, not a={a}, x={x}")
    if x == 0:
        return 1.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _gamma_series(a, x))
    return _gamma_fraction(a, x)


def chi2_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square distributed with ``df`` degrees of freedom.

    >>> round(chi2_sf(3.841458820694124, 1), 6)
    0.05
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    return gamma_q(df / 2.0, max(statistic, 0.0) / 2.0)


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2.0))


@dataclass(frozen=True, slots=True)
class StatResult:
    """One statistical test: its statistic, degrees of freedom (if chi-square) and p-value."""

    name: str
    statistic: float
    df: int | None
    p_value: float
    samples: int
    method: str

    def passed(self, alpha: float) -> bool:
        """Not rejected at significance level ``alpha``."""
        return self.p_value >= alpha

    def to_json(self, alpha: float) -> dict[str, Any]:
        return {
            "name": self.name,
            "method": self.method,
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "samples": self.samples,
            "alpha": alpha,
            "passed": self.passed(alpha),
        }


class TooFewSamples(ValueError):
    """The expected counts are too small for the chi-square approximation (below 5)."""


def chi_square_gof(
    name: str, observed: Sequence[int], expected: Sequence[float], *, min_expected: float = 5.0
) -> StatResult:
    """Pearson's goodness-of-fit test of counts against expected counts (same total)."""
    if len(observed) != len(expected) or len(observed) < 2:
        raise ValueError("goodness of fit needs at least two categories, observed and expected")
    if min(expected) < min_expected:
        raise TooFewSamples(
            f"too few samples: an expected count is {min(expected):.1f}, below {min_expected:g}"
        )
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    df = len(observed) - 1
    return StatResult(
        name, statistic, df, chi2_sf(statistic, df), sum(observed), "chi-square goodness of fit"
    )


def chi_square_uniform(name: str, observed: Sequence[int]) -> StatResult:
    """Goodness of fit of counts to equal probabilities."""
    n = sum(observed)
    return chi_square_gof(name, observed, [n / len(observed)] * len(observed))


def chi_square_table(
    name: str,
    table: Sequence[Sequence[int]],
    *,
    expected: Sequence[Sequence[float]] | None = None,
    df: int | None = None,
    min_expected: float = 5.0,
    method: str = "chi-square test of independence",
) -> StatResult:
    """Pearson's chi-square over a table; by default a test of independence of rows and columns.

    Expected counts default to row total x column total / grand total, with
    (rows - 1) x (columns - 1) degrees of freedom.
    """
    rows, columns = len(table), len(table[0])
    n = sum(map(sum, table))
    if n == 0:
        raise TooFewSamples("no samples yet")
    if expected is None:
        row_totals = [sum(row) for row in table]
        column_totals = [sum(row[j] for row in table) for j in range(columns)]
        expected = [[r * c / n for c in column_totals] for r in row_totals]
    if df is None:
        df = (rows - 1) * (columns - 1)
    smallest = min(map(min, expected))
    if smallest < min_expected:
        raise TooFewSamples(
            f"too few samples: an expected count is {smallest:.1f}, below {min_expected:g}"
        )
    statistic = sum(
        (table[i][j] - expected[i][j]) ** 2 / expected[i][j]
        for i in range(rows)
        for j in range(columns)
    )
    return StatResult(name, statistic, df, chi2_sf(statistic, df), n, method)


def transition_table(sequence: Sequence[Hashable], symbols: Sequence[Hashable]) -> list[list[int]]:
    """Counts of each symbol followed by each symbol, over successive pairs."""
    index = {symbol: i for i, symbol in enumerate(symbols)}
    table = [[0] * len(symbols) for _ in symbols]
    for a, b in itertools.pairwise(sequence):
        table[index[a]][index[b]] += 1
    return table


def runs_test(name: str, sequence: Sequence[Hashable]) -> StatResult:
    """Wald-Wolfowitz runs test of a two-symbol sequence (normal approximation, two-sided).

    The statistic is z = (runs - mean) / sd, with mean = 2 n1 n2 / n + 1 and
    variance = 2 n1 n2 (2 n1 n2 - n) / (n^2 (n - 1)).
    """
    symbols = sorted(set(sequence), key=repr)
    if len(symbols) != 2:
        raise TooFewSamples(f"the runs test needs both symbols, found {len(symbols)}")
    n = len(sequence)
    n1 = sum(1 for s in sequence if s == symbols[0])
    n2 = n - n1
    if min(n1, n2) < 10:
        raise TooFewSamples("too few samples: each symbol must occur at least 10 times")
    runs = 1 + sum(1 for a, b in itertools.pairwise(sequence) if a != b)
    mean = 2.0 * n1 * n2 / n + 1.0
    variance = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0))
    z = (runs - mean) / math.sqrt(variance)
    return StatResult(name, z, None, normal_two_sided(z), n, "Wald-Wolfowitz runs test (z)")
