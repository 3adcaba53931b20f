"""The simulator's multiplier game: the kernel pays what the core pays, and a short run's RTP
agrees with the exact one."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from baccarat.analysis import kernel
from baccarat.analysis.simulate import (
    SimulationError,
    Stream,
    dealt_shoes,
    kernel_config,
    kernel_coups,
    kernel_multiplier_coups,
    multiplier_tables,
    simulate,
    stream_states,
)
from baccarat.core import (
    BetResult,
    Bets,
    ShufflePolicy,
    bet_multiplier,
    get_rules,
    play_coup,
    settle,
)


@pytest.mark.parametrize("name", ["multiplier", "multiplier-shoe"])
def test_the_kernel_pays_each_bet_the_multiplier_the_core_gives(name: str) -> None:
    rules = get_rules(name)
    assert rules.multipliers is not None
    coups, counts = kernel_multiplier_coups(rules, seed=38, rounds=3000)
    products = multiplier_tables(rules.multipliers).products
    values = {v for v, _ in rules.multipliers.values}
    expected = np.zeros_like(counts)
    kinds: Counter[int] = Counter()
    position = None
    for dealt in coups:
        coup = play_coup(dealt.cards)
        assert dealt.cards_used == coup.cards_used
        if rules.shuffle is ShufflePolicy.FRESH:
            assert dealt.position == 0  # a fresh shuffle before every coup
        elif position is not None:
            # The next coup starts where the last ended, or a new shoe after its burn.
            assert dealt.position == position or dealt.position <= 1 + 10
        position = dealt.position + dealt.cards_used
        cards = [one.card for one in dealt.lightning]
        assert 1 <= len(cards) <= 5 and len(set(cards)) == len(cards)
        assert {one.multiplier for one in dealt.lightning} <= values
        stakes = Bets(dict.fromkeys(kernel.MULTIPLIER_ROWS, 5))
        settled = settle(rules, stakes, coup, dealt.lightning)
        for row, (bet, one) in enumerate(zip(kernel.MULTIPLIER_ROWS, settled.bets, strict=True)):
            m = bet_multiplier(bet, coup, dealt.lightning)
            assert dealt.multipliers[bet] == m
            if one.result is BetResult.WIN:
                expected[row, kernel.WON + products.index(m)] += 1
                kinds[m] += 1
            else:
                expected[row, kernel.PUSHED if one.result is BetResult.PUSH else kernel.LOST] += 1
    assert (counts == expected).all()
    # Wins were multiplied, by one card and by several (a product of multipliers).
    assert any(m in values for m in kinds) and any(m not in values | {1} for m in kinds)


def test_a_short_run_agrees_with_the_exact_rtp() -> None:
    rules = get_rules("multiplier")
    result = simulate(rules, 400_000, seed=2026, workers=1)
    assert result.rounds == 400_000 and sum(result.outcomes.values()) == 400_000
    estimates = result.estimates
    assert list(estimates) == list(rules.bets)
    for name, estimate in estimates.items():
        assert estimate.exact is not None and estimate.z is not None
        # Per unit wagered: the mean is the RTP less 1.
        assert abs(estimate.z) < 4, name
    with pytest.raises(SimulationError, match="settles its own bets"):
        simulate(rules, 10, bets=(), workers=1)


def test_the_classic_kernels_readers_refuse_a_multiplier_game_and_a_record_of_another_width() -> (
    None
):
    rules = get_rules("multiplier-shoe")
    for read in (kernel_coups, dealt_shoes):
        with pytest.raises(SimulationError, match="kernel_multiplier_coups"):
            read(rules, 1, 3)
    # The kernel writes its record unchecked: a record of the classic width is refused.
    stream = Stream(kernel_config(rules), stream_states(1, 1)[0])
    with pytest.raises(SimulationError, match="k x 24"):
        stream.run(3, np.zeros((3, kernel.RECORD_FIELDS), dtype=np.int64))
