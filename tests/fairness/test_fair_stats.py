"""The small statistics library against closed forms and textbook quantiles."""

from __future__ import annotations

import math

import pytest

from baccarat.fairness.stats import (
    TooFewSamples,
    chi2_sf,
    chi_square_gof,
    chi_square_table,
    chi_square_uniform,
    gamma_q,
    normal_two_sided,
    runs_test,
    transition_table,
)


def poisson_tail(x: float, df: int) -> float:
    """chi2_sf for even df in closed form: Q(k, y) = e^-y * sum_{i<k} y^i / i!."""
    k, y = df // 2, x / 2
    logs = [-y + i * math.log(y) - math.lgamma(i + 1) for i in range(k)]
    top = max(logs)
    return math.exp(top) * sum(math.exp(v - top) for v in logs)


@pytest.mark.parametrize(
    ("statistic", "df", "p"),
    [
        # Upper 5% and 1% points of chi-square tables.
        (3.841458820694124, 1, 0.05),
        (6.634896601021214, 1, 0.01),
        (5.991464547107979, 2, 0.05),
        (18.307038053275146, 10, 0.05),
        (68.66929391228578, 51, 0.05),
    ],
)
def test_chi2_sf_matches_table_quantiles(statistic: float, df: int, p: float) -> None:
    assert chi2_sf(statistic, df) == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize("df", [2, 4, 10, 52, 256, 2600, 5000])
@pytest.mark.parametrize("ratio", [0.5, 0.9, 1.0, 1.05, 1.2, 1.5])
def test_chi2_sf_matches_the_closed_form_for_even_df(df: int, ratio: float) -> None:
    x = df * ratio
    assert chi2_sf(x, df) == pytest.approx(poisson_tail(x, df), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 10.0, 40.0])
def test_chi2_sf_matches_the_closed_forms_for_one_and_three_df(x: float) -> None:
    one = math.erfc(math.sqrt(x / 2))
    three = one + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    assert chi2_sf(x, 1) == pytest.approx(one, rel=1e-9)
    assert chi2_sf(x, 3) == pytest.approx(three, rel=1e-9)


def test_gamma_q_edges_and_bad_arguments() -> None:
    assert gamma_q(3.0, 0.0) == 1.0
    assert chi2_sf(0.0, 5) == 1.0
    with pytest.raises(ValueError):
        gamma_q(0.0, 1.0)
    with pytest.raises(ValueError):
        chi2_sf(1.0, 0)


def test_normal_two_sided_tail() -> None:
    assert normal_two_sided(1.959963984540054) == pytest.approx(0.05, rel=1e-9)
    assert normal_two_sided(-1.959963984540054) == pytest.approx(0.05, rel=1e-9)
    assert normal_two_sided(0.0) == 1.0


def test_goodness_of_fit_statistic_by_hand() -> None:
    result = chi_square_gof("dice", [10, 20, 30], [20.0, 20.0, 20.0])
    assert result.statistic == pytest.approx(10.0)
    assert result.df == 2
    assert result.p_value == pytest.approx(math.exp(-5.0))
    assert not result.passed(0.01) and result.passed(0.001)


def test_uniform_counts_pass_and_skewed_counts_fail() -> None:
    assert chi_square_uniform("flat", [100] * 10).p_value == 1.0
    assert chi_square_uniform("skew", [200] + [100] * 9).p_value < 1e-4


def test_too_few_expected_counts_are_refused() -> None:
    with pytest.raises(TooFewSamples):
        chi_square_uniform("tiny", [1, 2, 1])
    with pytest.raises(TooFewSamples):
        chi_square_table("empty", [[0, 0], [0, 0]])


def test_independence_table_detects_dependence() -> None:
    assert chi_square_table("independent", [[50, 50], [50, 50]]).p_value == 1.0
    dependent = chi_square_table("dependent", [[80, 20], [20, 80]])
    assert dependent.df == 1 and dependent.statistic == pytest.approx(72.0)
    assert dependent.p_value < 1e-15


def test_transition_table_counts_successive_pairs() -> None:
    assert transition_table("aabab", "ab") == [[1, 2], [1, 0]]


def test_runs_test_by_hand() -> None:
    # 10 a's and 10 b's in 2 runs: mean 11, variance 2*100*180/(400*19) = 4.7368...
    sequence = "a" * 10 + "b" * 10
    result = runs_test("blocks", sequence)
    assert result.statistic == pytest.approx((2 - 11) / math.sqrt(2 * 100 * 180 / (400 * 19)))
    assert result.p_value < 1e-4


def test_runs_test_flags_alternation_and_passes_a_balanced_sequence() -> None:
    assert runs_test("alternating", "ab" * 50).statistic > 9
    # 20 a's and 20 b's in 21 runs, exactly the expected number 2 * 20 * 20 / 40 + 1.
    a_runs = [2] * 9 + [1, 1]
    sequence = "".join("a" * a + "bb" for a in a_runs[:10]) + "a" * a_runs[10]
    assert sequence.count("a") == sequence.count("b") == 20
    result = runs_test("as expected", sequence)
    assert result.statistic == pytest.approx(0.0) and result.p_value == pytest.approx(1.0)


def test_runs_test_needs_both_symbols_often_enough() -> None:
    with pytest.raises(TooFewSamples):
        runs_test("one symbol", "aaaa")
    with pytest.raises(TooFewSamples):
        runs_test("rare", "a" * 50 + "b" * 3)
